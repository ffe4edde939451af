"""Reductions and scans (tests/language/test_e2e_reduce.py's kernels) on the GPU vs the CPU
backend and NumPy: sum/max/min/argmax/argmin/xor_sum over several dtypes, axis 0/1/None,
keep_dims, masked ragged tiles, tuple reductions, cumsum/cumprod forward and reverse, custom
associative scans, histogram, gather, tie-breaking."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, random_array
from harness import Out, assert_ref, assert_same, compare, run_both
from test_e2e_reduce import (custom_scan_kernel, gather_kernel, histogram_kernel, np_reduce,
                             reduce_2d, scan_kernel, ties_kernel, tuple_reduce_kernel)

pytestmark = pytest.mark.gpu

E2E = [("sum", "float32"), ("sum", "int8"), ("sum", "int64"), ("max", "float16"),
       ("max", "int32"), ("min", "float64"), ("min", "uint8"), ("argmax", "float32"),
       ("argmin", "int32"), ("xor_sum", "int32")]
# (op, dtype, axis, keep, M, N, BM, BN): every (op, dtype) of the language test once along
# axis 1, then the other axes and keep_dims, masked ragged tiles and larger blocks.
CASES = [(op, dt, 1, False, 8, 16, 8, 16) for op, dt in E2E] + [
    ("sum", "float32", 0, False, 8, 16, 8, 16),
    ("sum", "float32", None, False, 8, 16, 8, 16),
    ("sum", "float32", 1, True, 8, 16, 8, 16),
    ("max", "int32", 0, True, 8, 16, 8, 16),
    ("argmax", "float32", 0, False, 8, 16, 8, 16),
    ("xor_sum", "int32", None, True, 8, 16, 8, 16),
    ("max", "float32", 1, False, 5, 11, 8, 16),        # masked, ragged
    ("sum", "float32", 0, False, 61, 100, 64, 128),    # larger, ragged
    ("argmax", "float32", 1, False, 30, 250, 32, 256),
    ("sum", "int32", 1, True, 1, 7, 1, 8),             # one row
]


def case_id(c):
    op, dt, axis, keep, M, N, BM, BN = c
    return f"{op}-{dt}-ax{axis}{'-keep' if keep else ''}-{M}x{N}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_reductions(rng, case):
    op, dt, axis, keep, M, N, BM, BN = case
    x = random_array(rng, dt, (M, N), 0 if dt.startswith("u") else None)
    if op.startswith("arg"):  # distinct values so the index is unique
        x = rng.permutation(M * N).reshape(M, N).astype(NP[dt])
    want = np.asarray(np_reduce(op, x, axis))
    out_dt = np.int32 if op.startswith("arg") else want.dtype
    if op in ("max", "min") and dt in ("float16", "uint8"):
        out_dt = np.float32 if dt == "float16" else np.int32
    size = 1 if axis is None else (N if axis == 0 else M)
    out_len = max(size, 1)
    cpu, gpu = run_both(reduce_2d, (1,), x, Out(out_len, out_dt), M, N, OP=op, AXIS=axis,
                        KEEP=keep, BM=BM, BN=BN)
    if op == "sum" and np.dtype(dt).kind == "f":
        n = M * N if axis is None else (M if axis == 0 else N)
        scale = np.abs(x.astype(np.float64)).sum(axis=axis)
        assert_same(cpu[0], gpu[0], kind="sum", n=n, scale=np.ravel(scale))
        assert_ref(gpu[0], want.ravel(), rtol=1e-5, atol=1e-5)
    else:
        assert_same(cpu[0], gpu[0], kind="exact")
        assert_ref(gpu[0], want.ravel().astype(out_dt))


def test_reduce_tuple_of_inputs(rng):
    x = rng.integers(-50, 50, 32).astype(np.int32)
    y = rng.integers(-50, 50, 32).astype(np.int32)
    cpu, gpu = compare(tuple_reduce_kernel, (1,), x, y, Out(2, np.int32), BLOCK=32)
    assert_ref(gpu[0], [x.sum(), y.max()])


SCANS = [("cumsum", "int32", 1, False), ("cumsum", "int32", 0, True),
         ("cumsum", "int8", 1, True), ("cumprod", "int64", 0, False),
         ("cumsum", "float64", 1, True), ("cumsum", "float32", 0, False)]


@pytest.mark.parametrize("op,dt,axis,rev", SCANS,
                         ids=[f"{o}-{d}-ax{a}{'-rev' if r else ''}" for o, d, a, r in SCANS])
def test_scans(rng, op, dt, axis, rev):
    M, N = 4, 8
    x = random_array(rng, dt, (M, N), -3, 3)
    ref_in = np.flip(x, axis) if rev else x
    want = (np.cumsum if op == "cumsum" else np.cumprod)(ref_in, axis=axis)
    if rev:
        want = np.flip(want, axis)
    out_dt = np.int32 if dt == "int8" else NP[dt]
    cpu, gpu = run_both(scan_kernel, (1,), x, Out((M, N), out_dt), OP=op, AXIS=axis, REV=rev,
                        M=M, N=N)
    if np.dtype(out_dt).kind == "f":  # a scan tree adds in another order
        assert_same(cpu[0], gpu[0], kind="sum", n=max(M, N),
                    scale=np.abs(x).sum(axis=axis, keepdims=True))
        assert_ref(gpu[0], want, rtol=1e-6, atol=1e-6)
    else:
        assert_same(cpu[0], gpu[0], kind="exact")
        assert_ref(gpu[0], want.astype(out_dt))


def test_custom_associative_scan():
    x = np.array([0, 0, 3, 0, 5, 0, 0, 1], np.int32)
    cpu, gpu = compare(custom_scan_kernel, (1,), x, Out(8, np.int32), N=8)
    assert_ref(gpu[0], [0, 0, 3, 3, 3, 3, 3, 3])


def test_histogram(rng):
    x = rng.integers(0, 16, 128).astype(np.int32)
    cpu, gpu = compare(histogram_kernel, (1,), x, Out(16, np.int32), N=128, BINS=16)
    assert_ref(gpu[0], np.bincount(x, minlength=16))


@triton.jit
def histogram_mask_kernel(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, 2 * M)
    h = tl.histogram(tl.load(x_ptr + offs), N, offs < M)
    tl.store(o_ptr + tl.arange(0, N), h)


@pytest.mark.parametrize("M, N", [(256, 512), (1024, 128), (32, 512)])
def test_histogram_mask(rng, M, N):
    """Upstream's test_histogram_mask: the mask must pair with the 4-wide load's elements."""
    x = rng.integers(0, N, 2 * M).astype(np.int32)
    cpu, gpu = compare(histogram_mask_kernel, (1,), x, Out(N, np.int32), M=M, N=N)
    assert_ref(gpu[0], np.bincount(x[:M], minlength=N))


def test_gather(rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    idx = rng.integers(0, 8, (4, 2)).astype(np.int32)
    cpu, gpu = compare(gather_kernel, (1,), x, idx, Out((4, 2), np.float32), M=4, N=8, K=2)
    assert_ref(gpu[0], np.take_along_axis(x, idx, 1))


def test_tie_breaking_and_reduce_or():
    x = np.array([1, 7, 3, 7, 0, 2, 0, 7], np.int32)
    cpu, gpu = compare(ties_kernel, (1,), x, Out(4, np.int32), N=8)
    assert_ref(gpu[0], [7, 1, 4, np.bitwise_or.reduce(x)])
