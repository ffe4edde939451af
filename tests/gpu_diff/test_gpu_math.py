"""Elementwise math (tests/language/test_e2e_math.py's kernels) on the GPU vs the CPU backend
and NumPy: every unary function in fp32, most in fp64, the IEEE-rounded ops, integer math,
NaN propagation of min/max/clamp, tl.softmax; tl.dot is not lowered for the GPU yet."""
import numpy as np
import pytest

import tritium.language as tl

from e2e import grid1
from harness import Out, assert_ref, assert_same, compare, run_both
from test_e2e_math import (POSITIVE, REFS, dot_kernel, exact_kernel, int_math_kernel,
                           nan_kernel, softmax_kernel, unary_math)

pytestmark = pytest.mark.gpu

# How each function may differ (harness.TOLERANCES): exact ones, the `ex2.approx`/`lg2.approx`
# family (sigmoid is 1 / (1 + exp(-x)): approximate exp, then div.full), libdevice for the rest.
EXACT = {"floor", "ceil", "abs", "sqrt_rn"}
APPROX = {"exp", "exp2", "log", "log2", "sigmoid"}
F64 = ["exp", "log", "sin", "erf", "lib_pow", "lib_atan2"]
CASES = [(fn, np.float32) for fn in REFS] + [(fn, np.float64) for fn in F64]


def math_kind(fn):
    return "exact" if fn in EXACT else "approx" if fn in APPROX else "math"


@pytest.mark.parametrize("fn,dt", CASES, ids=[f"{f}-{np.dtype(d).name}" for f, d in CASES])
def test_unary_math(rng, fn, dt):
    n = 100
    x = rng.uniform(0.1 if fn in POSITIVE else -3, 3, n).astype(dt)
    x[:3] = [1.0, 0.5, 2.0]                         # exact points (log(1) = 0, ...)
    cpu, gpu = run_both(unary_math, grid1(n, 32), x, Out(n, dt), n, FN=fn, BLOCK=32)
    assert_same(cpu[0], gpu[0], kind=math_kind(fn), err_msg=fn)
    want = REFS[fn](x.astype(np.float64))
    assert_ref(gpu[0], want, rtol=2e-6 if dt == np.float32 else 1e-12, atol=1e-6, err_msg=fn)


@pytest.mark.parametrize("fn", ["abs", "lib_pow"])
def test_fp16_math(rng, fn):
    """fp16 in and out: abs stays fp16 (exact); pow computes in fp32, stored rounded."""
    n = 100
    x = rng.uniform(0.1, 3, n).astype(np.float16)
    cpu, gpu = run_both(unary_math, grid1(n, 32), x, Out(n, np.float16), n, FN=fn, BLOCK=32)
    assert_same(cpu[0], gpu[0], kind="exact" if fn == "abs" else "fp16", err_msg=fn)
    assert_ref(gpu[0], REFS[fn](x.astype(np.float64)), rtol=1e-3, atol=1e-3, err_msg=fn)


def test_ieee_rounded_ops(rng):
    x = rng.uniform(0.5, 8, 64).astype(np.float32)
    y = rng.uniform(0.5, 8, 64).astype(np.float32)
    cpu, gpu = run_both(exact_kernel, (1,), x, y, Out(64 * 4, np.float32), BLOCK=64)
    c, g = cpu[0].reshape(64, 4).T, gpu[0].reshape(64, 4).T
    assert_same(c[0], g[0], kind="exact", err_msg="div_rn")
    assert_same(c[1], g[1], kind="exact", err_msg="sqrt_rn")
    # fma rounds once on the GPU; the CPU backend rounds the f64 sum again to f32 (a 1-ulp
    # double rounding, in rare ties).
    assert_same(c[2], g[2], kind="arith", err_msg="fma")
    assert_same(c[3], g[3], kind="div", err_msg="fdiv")     # div.full.f32
    assert_ref(g[0], x / y)
    assert_ref(g[1], np.sqrt(x))
    assert_ref(g[3], x / y, rtol=1e-6)


def test_integer_math(rng):
    x = rng.integers(0, 2 ** 32, 32, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2 ** 32, 32, dtype=np.uint64).astype(np.uint32)
    cpu, gpu = compare(int_math_kernel, (1,), x, y, Out(32 * 3, np.uint32), BLOCK=32)
    o = gpu[0].reshape(32, 3).T
    assert_ref(o[0], ((x.astype(np.uint64) * y) >> np.uint64(32)).astype(np.uint32))
    assert_ref(o[2], [bin(int(v)).count("1") for v in x])


def test_nan_propagation():
    nan = np.nan
    x = np.array([1.0, nan, 3.0, nan, -5.0, 0.5, 2.0, -2.0], np.float32)
    y = np.array([2.0, 1.0, nan, nan, -6.0, 0.25, 2.0, 7.0], np.float32)
    cpu, gpu = run_both(nan_kernel, (1,), x, y, Out(8 * 6, np.float32), BLOCK=8)
    c, g = cpu[0].reshape(8, 6).T, gpu[0].reshape(8, 6).T
    for k in (0, 1, 2, 3, 5):
        assert_same(c[k], g[k], kind="exact", err_msg=f"column {k}")
    # clamp without NaN propagation leaves a NaN input's result unspecified (upstream too).
    ok = ~np.isnan(x)
    assert_same(c[4][ok], g[4][ok], kind="exact", err_msg="clamp")
    assert_ref(g[0], np.fmax(x, y))
    assert_ref(g[1], np.maximum(x, y))
    assert_ref(g[3], np.minimum(x, y))
    assert_ref(g[5], np.clip(x, -1, 1))


def test_softmax(rng):
    x = rng.standard_normal((16, 16)).astype(np.float32)
    cpu, gpu = run_both(softmax_kernel, (1,), x, Out((16, 16), np.float32), N=16)
    # exp (ex2.approx), a 16-term sum in another order and an approximate division.
    assert_same(cpu[0], gpu[0], kind="sum", n=16)
    e = np.exp(x - x.max(1, keepdims=True))
    assert_ref(gpu[0], e / e.sum(1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("dt,out,prec", [(np.float16, tl.float32, "ieee"), (np.int8, tl.int32, None)])
def test_dot(rng, dt, out, prec):
    M, N, K = 16, 32, 32
    if np.dtype(dt).kind == "i":
        a = rng.integers(-8, 8, (M, K)).astype(dt)
        b = rng.integers(-8, 8, (K, N)).astype(dt)
    else:
        a = rng.uniform(-1, 1, (M, K)).astype(dt)
        b = rng.uniform(-1, 1, (K, N)).astype(dt)
    res = np.float32 if out == tl.float32 else np.int32
    cpu, gpu = run_both(dot_kernel, (1,), a, b, Out((M, N), res), M=M, N=N, K=K, ACC=True,
                        OUT=out, PREC=prec)
    # A K-term dot product: the tensor cores' accumulation order differs from numpy's.
    assert_same(cpu[0], gpu[0], kind="sum" if res == np.float32 else "exact", n=K,
                scale=np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert_ref(gpu[0], a.astype(np.float64) @ b.astype(np.float64) + 1, rtol=1e-5, atol=1e-5)
