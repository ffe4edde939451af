"""Reductions with 8, 16 and 32 warps along the reduced axis: the cross-warp stage folds
each output's per-warp partials with a shuffle tree (lowering/reduce.py) — on the GPU vs
the CPU backend and NumPy, for every kind of combine region: sum (f32, int64: 64-bit
shuffles), NaN-propagating max (Inductor's `triton_helpers.maximum`), argmax/argmin (two
operands, lowest index on ties), a custom two-operand combine; along either axis, on ragged
masked tiles, with one output per thread and with many."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from harness import Out, assert_ref, assert_same, run_both

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _shuffle_tree_on(monkeypatch):
    """On by default; set explicitly so an outside TRITIUM_REDUCE_SHUFFLE_TREE=0 does not
    silently test the serial fold instead."""
    monkeypatch.setenv("TRITIUM_REDUCE_SHUFFLE_TREE", "1")


@triton.jit
def _nan_max(a, b):
    # Inductor's maximum: a NaN operand wins
    return tl.where((a > b) | (a != a), a, b)


@triton.jit
def _sum_and_absmax(s0, m0, s1, m1):
    return s0 + s1, tl.maximum(m0, tl.abs(m1))


@triton.jit
def wide_reduce(x_ptr, o_ptr, p_ptr, M, N, OP: tl.constexpr, AXIS: tl.constexpr,
                BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
        q = r
    elif OP == "nanmax":
        r = tl.reduce(tl.where(mask, x, float("-inf")), AXIS, _nan_max)
        q = r
    elif OP == "arg":
        r = tl.argmax(tl.where(mask, x, -1000), AXIS)
        q = tl.argmin(tl.where(mask, x, 1000), AXIS)
    else:
        r, q = tl.reduce((x, tl.abs(x)), AXIS, _sum_and_absmax)
    if AXIS == 0:
        tl.store(o_ptr + rn, r, mask=rn < N)
        tl.store(p_ptr + rn, q, mask=rn < N)
    else:
        tl.store(o_ptr + rm, r, mask=rm < M)
        tl.store(p_ptr + rm, q, mask=rm < M)


# (op, dtype, axis, M, N, BM, BN, num_warps)
CASES = [
    ("sum", "float32", 1, 3, 1500, 4, 2048, 16),
    ("nanmax", "float32", 1, 2, 1025, 2, 2048, 16),    # Inductor's softmax row max
    ("arg", "float32", 1, 5, 900, 8, 1024, 8),
    ("custom", "float32", 1, 4, 3000, 4, 4096, 32),
    ("sum", "int64", 1, 2, 2000, 2, 2048, 16),
    ("sum", "float32", 1, 60, 1000, 64, 1024, 8),      # many outputs per thread
    ("sum", "float32", 0, 1500, 3, 2048, 4, 16),
    ("nanmax", "float16", 0, 1000, 5, 1024, 8, 16),
    ("arg", "int32", 0, 700, 2, 1024, 2, 8),
    ("custom", "float32", 0, 2000, 4, 2048, 4, 32),
]


def _data(rng, op, dt, M, N):
    if op == "arg":  # distinct values, so the index is unique
        return rng.permutation(M * N).reshape(M, N).astype(dt)
    if dt == "int64":
        return rng.integers(-2 ** 40, 2 ** 40, (M, N)).astype(np.int64)
    return rng.standard_normal((M, N)).astype(dt)


def case_id(c):
    op, dt, axis, M, N, BM, BN, nw = c
    return f"{op}-{dt}-ax{axis}-{M}x{N}-w{nw}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_many_warps(rng, case):
    op, dt, axis, M, N, BM, BN, nw = case
    x = _data(rng, op, dt, M, N)
    if op == "nanmax":
        outs = x.shape[1 - axis]
        for o in range(0, outs, 2):
            k = int(rng.integers(0, x.shape[axis]))
            if axis == 1:
                x[o, k] = np.nan
            else:
                x[k, o] = np.nan
    n_out = N if axis == 0 else M
    out_dt = np.int32 if op == "arg" else x.dtype
    cpu, gpu = run_both(wide_reduce, (1,), x, Out(n_out, out_dt), Out(n_out, out_dt), M, N,
                        OP=op, AXIS=axis, BM=BM, BN=BN, num_warps=nw)
    x64 = x.astype(np.float64)
    if op == "sum" and x.dtype.kind == "f":
        scale = np.abs(x64).sum(axis)
        assert_same(cpu[0], gpu[0], kind="sum", n=x.shape[axis], scale=scale)
        assert_ref(gpu[0], x64.sum(axis), rtol=1e-5, atol=1e-4)
    elif op == "sum":
        assert_same(cpu[0], gpu[0])
        assert_ref(gpu[0], x.sum(axis))
    elif op == "nanmax":
        assert_same(cpu[0], gpu[0])
        want = np.max(x, axis)  # numpy's max propagates NaN
        assert np.isnan(want).sum() == (n_out + 1) // 2
        assert_ref(gpu[0], want)
    elif op == "arg":
        assert_same(cpu[0], gpu[0])
        assert_same(cpu[1], gpu[1])
        assert_ref(gpu[0], np.argmax(x, axis).astype(np.int32))
        assert_ref(gpu[1], np.argmin(x, axis).astype(np.int32))
    else:
        scale = np.abs(x64).sum(axis)
        assert_same(cpu[0], gpu[0], kind="sum", n=x.shape[axis], scale=scale)
        assert_ref(gpu[0], x64.sum(axis), rtol=1e-5, atol=1e-4)
        assert_same(cpu[1], gpu[1])
        assert_ref(gpu[1], np.abs(x).max(axis))


@triton.jit
def scalar_reduce(x_ptr, o_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.store(o_ptr, tl.sum(x, axis=0))
    tl.store(o_ptr + 1, tl.reduce(tl.where(offs < N, x, float("-inf")), 0, _nan_max))
    tl.store(o_ptr + 2, tl.argmax(tl.where(offs < N, x, float("-inf")), 0).to(tl.float32))


@pytest.mark.parametrize("nw", [8, 16, 32])
def test_whole_block_to_scalar(rng, nw):
    """A 1-D block reduced to one value: one output, K = num_warps partials."""
    n = 3000
    x = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = run_both(scalar_reduce, (1,), x, Out(3, np.float32), n, BLOCK=4096, num_warps=nw)
    assert_same(cpu[0][:1], gpu[0][:1], kind="sum", n=n, scale=np.abs(x).sum())
    assert_same(cpu[0][1:], gpu[0][1:])
    assert_ref(gpu[0][0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)
    assert_ref(gpu[0][1:], [x.max(), float(np.argmax(x))])
