"""The remaining builtins end to end: grid queries, constructors, hints, integer clamp,
broadcasting `where`, batched dot."""
import numpy as np

import tritium as triton
import tritium.language as tl


@triton.jit
def grid_kernel(o_ptr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0) + \
        tl.program_id(2) * tl.num_programs(0) * tl.num_programs(1)
    total = tl.num_programs(0) * tl.num_programs(1) * tl.num_programs(2)
    tl.store(o_ptr + pid, total * 100 + pid)


def test_program_ids_and_num_programs():
    out = np.zeros(2 * 3 * 4, np.int32)
    grid_kernel[(2, 3, 4)](out)
    np.testing.assert_array_equal(out, 2400 + np.arange(24))


@triton.jit
def constructors_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    z = tl.zeros_like(x) + tl.zeros((BLOCK,), tl.int32).to(tl.float16)
    f = tl.full((BLOCK,), 2.5, tl.float16)
    tl.assume(BLOCK > 0)
    tl.store(o_ptr + tl.arange(0, BLOCK), x * f + z)


def test_constructors():
    x = np.arange(8, dtype=np.float16)
    out = np.zeros(8, np.float16)
    constructors_kernel[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, x * np.float16(2.5))


@triton.jit
def barrier_kernel(o_ptr):
    tl.store(o_ptr, 1)
    tl.debug_barrier()
    tl.store(o_ptr + 1, tl.load(o_ptr) + 1)


def test_debug_barrier():
    out = np.zeros(2, np.int32)
    barrier_kernel[(1,)](out)
    np.testing.assert_array_equal(out, [1, 2])


@triton.jit
def where_clamp_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + cols)                       # [1, BLOCK]
    tri = tl.where(rows >= cols, x, -1)             # broadcast to [BLOCK, BLOCK]
    tl.store(o_ptr + rows * BLOCK + cols, tl.clamp(tri, 0, 5))


def test_where_broadcast_and_int_clamp():
    x = np.arange(4, 12, dtype=np.int32) - 6
    out = np.zeros((8, 8), np.int32)
    where_clamp_kernel[(1,)](x, out, BLOCK=8)
    r, c = np.indices((8, 8))
    np.testing.assert_array_equal(out, np.clip(np.where(r >= c, x[None, :], -1), 0, 5))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr,
                N: tl.constexpr):
    b_ = tl.arange(0, B)[:, None, None]
    m_ = tl.arange(0, M)[None, :, None]
    k_ = tl.arange(0, K)[None, None, :]
    a = tl.load(a_ptr + b_ * M * K + m_ * K + k_)
    kk = tl.arange(0, K)[None, :, None]
    n_ = tl.arange(0, N)[None, None, :]
    b = tl.load(b_ptr + b_ * K * N + kk * N + n_)
    mm = tl.arange(0, M)[None, :, None]
    tl.store(c_ptr + b_ * M * N + mm * N + n_, tl.dot(a, b, input_precision="ieee"))


def test_batched_dot(rng):
    a = rng.standard_normal((2, 16, 16)).astype(np.float32)
    b = rng.standard_normal((2, 16, 32)).astype(np.float32)
    c = np.zeros((2, 16, 32), np.float32)
    batched_dot[(1,)](a, b, c, B=2, M=16, K=16, N=32)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
