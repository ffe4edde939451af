"""Loads, stores and atomics on the CPU backend: masks, `other`, scalars, bools, 2D tiles
with ragged edges, and atomics contended across programs."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, grid1, random_array


@triton.jit
def copy_2d(x_ptr, o_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=-1.0)
    tl.store(o_ptr + rm[:, None] * stride_m + rn[None, :], x * 2, mask=mask)


@pytest.mark.parametrize("M,N", [(17, 33), (1, 5), (64, 64)])
def test_ragged_2d_tiles(rng, M, N):
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.full((M, N), 7.0, np.float32)
    copy_2d[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, out, M, N, N, BM=16, BN=16)
    np.testing.assert_array_equal(out, x * 2)


@triton.jit
def load_other_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=42))


@pytest.mark.parametrize("dt", ["int8", "int32", "float16", "float64", "uint64"])
def test_masked_load_other_is_converted(rng, dt):
    x = random_array(rng, dt, 10)
    out = np.zeros(16, NP[dt])
    load_other_kernel[(1,)](x, out, 10, BLOCK=16)
    np.testing.assert_array_equal(out[:10], x)
    np.testing.assert_array_equal(out[10:], np.full(6, 42, NP[dt]))


@triton.jit
def scalar_kernel(x_ptr, o_ptr, i):
    v = tl.load(x_ptr + i)
    tl.store(o_ptr, v * 3)
    tl.store(o_ptr + 1, v, mask=i > 100)  # masked-off scalar store


def test_scalar_load_store():
    x = np.arange(10, dtype=np.int64) * 5
    out = np.zeros(2, np.int64)
    scalar_kernel[(1,)](x, out, 4)
    np.testing.assert_array_equal(out, [60, 0])


@triton.jit
def bool_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(x_ptr + offs, mask=m)
    tl.store(o_ptr + offs, b ^ (offs % 2 == 0), mask=m)


def test_bool_pointers(rng):
    x = rng.integers(0, 2, 13).astype(np.bool_)
    out = np.zeros(13, np.bool_)
    bool_kernel[(1,)](x, out, 13, BLOCK=16)
    np.testing.assert_array_equal(out, x ^ (np.arange(13) % 2 == 0))


@triton.jit
def store_convert_kernel(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, offs.to(tl.float32) * 0.5)


def test_store_converts_to_pointee_type():
    out = np.zeros(8, np.float16)
    store_convert_kernel[(1,)](out, BLOCK=8)
    np.testing.assert_array_equal(out, np.arange(8, dtype=np.float16) * np.float16(0.5))
    out = np.zeros(8, np.int32)
    store_convert_kernel[(1,)](out, BLOCK=8)
    np.testing.assert_array_equal(out, (np.arange(8) * 0.5).astype(np.int32))


@triton.jit
def atomic_kernel(x_ptr, acc_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    slot = acc_ptr + offs % 4
    if OP == "add":
        tl.atomic_add(slot, x, mask=m)
    elif OP == "max":
        tl.atomic_max(slot, x, mask=m)
    elif OP == "min":
        tl.atomic_min(slot, x, mask=m)
    elif OP == "and":
        tl.atomic_and(slot, x, mask=m)
    elif OP == "or":
        tl.atomic_or(slot, x, mask=m)
    else:
        tl.atomic_xor(slot, x, mask=m)


@pytest.mark.parametrize("op,dt", [("add", "int32"), ("add", "float32"), ("add", "uint64"),
                                   ("max", "int32"), ("max", "float32"), ("max", "float64"),
                                   ("max", "uint32"), ("min", "int64"), ("min", "float32"),
                                   ("and", "int32"), ("or", "uint32"), ("xor", "int64")])
def test_atomics_across_programs(rng, op, dt):
    n = 100
    if dt.startswith("float"):
        x = np.round(rng.uniform(-50, 50, n)).astype(NP[dt])  # exact sums in any order
    else:
        x = random_array(rng, dt, n, 0 if "u" in dt else -100, 100)
    init = {"add": 0, "max": -1000, "min": 1000, "and": -1, "or": 0, "xor": 0}[op]
    if "u" in dt and op == "max":
        init = 0
    acc = np.full(4, init, NP[dt]) if not ("u" in dt and init < 0) else np.full(4, np.iinfo(NP[dt]).max, NP[dt])
    want = acc.copy()
    ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    for i in range(n):
        want[i % 4] = ufunc(want[i % 4], x[i])
    atomic_kernel[grid1(n, 16)](x, acc, n, OP=op, BLOCK=16)
    np.testing.assert_array_equal(acc, want)


@triton.jit
def float_max_signs_kernel(x_ptr, acc_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_max(acc_ptr + offs, tl.load(x_ptr + offs))
    tl.store(x_ptr + offs, old)


def test_atomic_float_max_handles_negative_values():
    x = np.array([-1.0, -3.0, 2.0, -0.5, 5.0, -7.0, 0.0, -2.5], np.float32)
    acc = np.array([-2.0, -2.0, -2.0, -2.0, 3.0, 3.0, -1.0, -3.0], np.float32)
    old = acc.copy()
    float_max_signs_kernel[(1,)](x, acc, BLOCK=8)
    np.testing.assert_array_equal(acc, np.maximum(old, [-1.0, -3.0, 2.0, -0.5, 5.0, -7.0, 0.0, -2.5]))
    np.testing.assert_array_equal(x, old)  # atomics return the previous values


@triton.jit
def cas_counter_kernel(lock_ptr, count_ptr):
    # A spin lock built from atomic_cas/atomic_xchg guards a non-atomic increment.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(count_ptr, tl.load(count_ptr) + 1)
    tl.atomic_xchg(lock_ptr, 0)


def test_atomic_cas_lock():
    lock = np.zeros(1, np.int32)
    count = np.zeros(1, np.int32)
    cas_counter_kernel[(37,)](lock, count)
    assert count[0] == 37 and lock[0] == 0
