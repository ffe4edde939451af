"""Reductions and scans (builtin and standard-library) on the CPU backend vs NumPy."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, random_array


@triton.jit
def reduce_2d(x_ptr, o_ptr, M, N, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr,
              BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    fill = 0 if OP == "sum" or OP == "xor_sum" else (-1000 if OP == "max" or OP == "argmax" else 1000)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=fill)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        r = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        r = x.min(axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmin":
        r = x.argmin(AXIS, keep_dims=KEEP)
    else:
        r = tl.xor_sum(x, axis=AXIS, keep_dims=KEEP)
    if AXIS is None:
        tl.store(o_ptr + tl.arange(0, 1), tl.reshape(r, [1]) if KEEP else r)
    elif AXIS == 0:
        tl.store(o_ptr + rn[None, :] if KEEP else o_ptr + rn, r,
                 mask=rn[None, :] < N if KEEP else rn < N)
    else:
        tl.store(o_ptr + rm[:, None] if KEEP else o_ptr + rm, r,
                 mask=rm[:, None] < M if KEEP else rm < M)


def np_reduce(op, x, axis):
    if op == "sum":
        acc = np.int32 if x.dtype.kind == "i" and x.dtype.itemsize < 4 else None
        return x.sum(axis=axis, dtype=acc)
    if op == "xor_sum":
        return np.bitwise_xor.reduce(x, axis=axis) if axis is not None else \
            np.bitwise_xor.reduce(x.ravel())
    return {"max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin}[op](x, axis=axis)


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("op,dt", [("sum", "float32"), ("sum", "int8"), ("sum", "int64"),
                                   ("max", "float16"), ("max", "int32"), ("min", "float64"),
                                   ("min", "uint8"), ("argmax", "float32"), ("argmin", "int32"),
                                   ("xor_sum", "int32")])
def test_reductions(rng, op, dt, axis, keep):
    if op.startswith("arg") and axis is None:
        pytest.skip("argmax/argmin need an axis (as upstream)")
    M, N = 8, 16
    x = random_array(rng, dt, (M, N), 0 if dt.startswith("u") else None)
    if op.startswith("arg"):  # distinct values so the index is unique
        x = rng.permutation(M * N).reshape(M, N).astype(NP[dt])
    want = np.asarray(np_reduce(op, x, axis))
    out = np.zeros(max(want.size, 1), want.dtype if not op.startswith("arg") else np.int32)
    if op in ("max", "min") and dt in ("float16", "uint8"):
        out = out.astype(np.float32 if dt == "float16" else np.int32)
    reduce_2d[(1,)](x, out, M, N, OP=op, AXIS=axis, KEEP=keep, BM=M, BN=N)
    np.testing.assert_allclose(out, want.ravel().astype(out.dtype), rtol=1e-5 if dt == "float32" else 0,
                               atol=1e-5 if dt == "float32" else 0)


def test_reduction_with_ragged_mask(rng):
    x = rng.standard_normal((5, 11)).astype(np.float32)
    out = np.zeros(5, np.float32)
    reduce_2d[(1,)](x, out, 5, 11, OP="max", AXIS=1, KEEP=False, BM=8, BN=16)
    np.testing.assert_array_equal(out, x.max(axis=1))


@triton.jit
def _pair_combine(a0, a1, b0, b1):
    return a0 + b0, tl.maximum(a1, b1)


@triton.jit
def tuple_reduce_kernel(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s, m = tl.reduce((tl.load(x_ptr + offs), tl.load(y_ptr + offs)), 0, _pair_combine)
    tl.store(o_ptr, s)
    tl.store(o_ptr + 1, m)


def test_reduce_tuple_of_inputs(rng):
    x = rng.integers(-50, 50, 32).astype(np.int32)
    y = rng.integers(-50, 50, 32).astype(np.int32)
    out = np.zeros(2, np.int32)
    tuple_reduce_kernel[(1,)](x, y, out, BLOCK=32)
    np.testing.assert_array_equal(out, [x.sum(), y.max()])


@triton.jit
def scan_kernel(x_ptr, o_ptr, OP: tl.constexpr, AXIS: tl.constexpr, REV: tl.constexpr,
                M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "cumsum":
        r = tl.cumsum(x, axis=AXIS, reverse=REV)
    else:
        r = x.cumprod(AXIS, reverse=REV)
    tl.store(o_ptr + offs, r)


@pytest.mark.parametrize("rev", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op,dt", [("cumsum", "int32"), ("cumsum", "int8"), ("cumprod", "int64"),
                                   ("cumsum", "float64")])
def test_scans(rng, op, dt, axis, rev):
    x = random_array(rng, dt, (4, 8), -3, 3)
    ref_in = np.flip(x, axis) if rev else x
    want = (np.cumsum if op == "cumsum" else np.cumprod)(ref_in, axis=axis)
    if rev:
        want = np.flip(want, axis)
    out_dt = np.int32 if dt == "int8" else NP[dt]
    out = np.zeros((4, 8), out_dt)
    scan_kernel[(1,)](x, out, OP=op, AXIS=axis, REV=rev, M=4, N=8)
    np.testing.assert_allclose(out, want.astype(out_dt))


@triton.jit
def _first_nonzero(a, b):
    return tl.where(a != 0, a, b)


@triton.jit
def custom_scan_kernel(x_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(o_ptr + offs, tl.associative_scan(tl.load(x_ptr + offs), 0, _first_nonzero))


def test_custom_associative_scan():
    x = np.array([0, 0, 3, 0, 5, 0, 0, 1], np.int32)
    out = np.zeros(8, np.int32)
    custom_scan_kernel[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, [0, 0, 3, 3, 3, 3, 3, 3])


@triton.jit
def histogram_kernel(x_ptr, o_ptr, N: tl.constexpr, BINS: tl.constexpr):
    h = tl.histogram(tl.load(x_ptr + tl.arange(0, N)), BINS)
    tl.store(o_ptr + tl.arange(0, BINS), h)


def test_histogram(rng):
    x = rng.integers(0, 16, 128).astype(np.int32)
    out = np.zeros(16, np.int32)
    histogram_kernel[(1,)](x, out, N=128, BINS=16)
    np.testing.assert_array_equal(out, np.bincount(x, minlength=16))


@triton.jit
def gather_kernel(x_ptr, i_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    idx = tl.load(i_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    tl.store(o_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.gather(x, idx, 1))


def test_gather(rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    idx = rng.integers(0, 8, (4, 2)).astype(np.int32)
    out = np.zeros((4, 2), np.float32)
    gather_kernel[(1,)](x, idx, out, M=4, N=8, K=2)
    np.testing.assert_array_equal(out, np.take_along_axis(x, idx, 1))


@triton.jit
def ties_kernel(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    v, i = tl.max(x, 0, return_indices=True)
    tl.store(o_ptr, v)
    tl.store(o_ptr + 1, i)
    tl.store(o_ptr + 2, tl.argmin(x, 0))
    tl.store(o_ptr + 3, tl.reduce_or(x, 0))


def test_tie_breaking_and_reduce_or():
    x = np.array([1, 7, 3, 7, 0, 2, 0, 7], np.int32)
    out = np.zeros(4, np.int32)
    ties_kernel[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, [7, 1, 4, np.bitwise_or.reduce(x)])
