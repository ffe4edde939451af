"""Elementwise math, libdevice calls, min/max/clamp NaN rules, and tl.dot on the CPU backend."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.language.extra import libdevice

from e2e import grid1


@triton.jit
def unary_math(x_ptr, o_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    if FN == "exp":
        r = tl.exp(x)
    elif FN == "exp2":
        r = x.exp2()
    elif FN == "log":
        r = tl.log(x)
    elif FN == "log2":
        r = tl.log2(x)
    elif FN == "sin":
        r = tl.sin(x)
    elif FN == "cos":
        r = tl.cos(x)
    elif FN == "sqrt":
        r = tl.sqrt(x)
    elif FN == "sqrt_rn":
        r = tl.sqrt_rn(x)
    elif FN == "rsqrt":
        r = tl.rsqrt(x)
    elif FN == "erf":
        r = tl.erf(x)
    elif FN == "floor":
        r = tl.floor(x)
    elif FN == "ceil":
        r = tl.ceil(x)
    elif FN == "abs":
        r = tl.abs(x)
    elif FN == "sigmoid":
        r = tl.sigmoid(x)
    elif FN == "lib_tanh":
        r = libdevice.tanh(x)
    elif FN == "lib_log1p":
        r = libdevice.log1p(x)
    elif FN == "lib_pow":
        r = libdevice.pow(x, 2.5)
    else:
        r = libdevice.atan2(x, x + 1.0)
    tl.store(o_ptr + offs, r, mask=m)


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


REFS = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
        "cos": np.cos, "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
        "erf": _erf, "floor": np.floor, "ceil": np.ceil, "abs": np.abs,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "lib_tanh": np.tanh, "lib_log1p": np.log1p,
        "lib_pow": lambda x: np.power(x, 2.5), "lib_atan2": lambda x: np.arctan2(x, x + 1)}
POSITIVE = {"log", "log2", "sqrt", "sqrt_rn", "rsqrt", "lib_log1p", "lib_pow"}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("fn", list(REFS))
def test_unary_math(rng, fn, dt):
    if fn == "sqrt_rn" and dt == np.float64:
        pytest.skip("sqrt_rn is fp32-only")
    n = 100
    x = rng.uniform(0.1 if fn in POSITIVE else -3, 3, n).astype(dt)
    out = np.zeros(n, dt)
    unary_math[grid1(n, 32)](x, out, n, FN=fn, BLOCK=32)
    want = REFS[fn](x.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=2e-6 if dt == np.float32 else 1e-12, atol=1e-6)


@triton.jit
def exact_kernel(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o_ptr + offs * 4 + 0, tl.div_rn(x, y))
    tl.store(o_ptr + offs * 4 + 1, tl.sqrt_rn(x))
    tl.store(o_ptr + offs * 4 + 2, tl.fma(x, y, 1.0))
    tl.store(o_ptr + offs * 4 + 3, tl.fdiv(x, y))


def test_ieee_rounded_ops(rng):
    x = rng.uniform(0.5, 8, 64).astype(np.float32)
    y = rng.uniform(0.5, 8, 64).astype(np.float32)
    out = np.zeros(64 * 4, np.float32)
    exact_kernel[(1,)](x, y, out, BLOCK=64)
    o = out.reshape(64, 4).T
    np.testing.assert_array_equal(o[0], x / y)
    np.testing.assert_array_equal(o[1], np.sqrt(x))
    np.testing.assert_array_equal(o[2], (x.astype(np.float64) * y + 1).astype(np.float32))
    np.testing.assert_allclose(o[3], x / y, rtol=1e-6)


@triton.jit
def int_math_kernel(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o_ptr + offs * 3 + 0, tl.umulhi(x, y))
    tl.store(o_ptr + offs * 3 + 1, tl.cdiv(x, 7))
    tl.store(o_ptr + offs * 3 + 2, libdevice.popc(x.to(tl.int32, bitcast=True)).to(tl.uint32))


def test_integer_math(rng):
    x = rng.integers(0, 2 ** 32, 32, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2 ** 32, 32, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(32 * 3, np.uint32)
    int_math_kernel[(1,)](x, y, out, BLOCK=32)
    o = out.reshape(32, 3).T
    np.testing.assert_array_equal(o[0], ((x.astype(np.uint64) * y) >> np.uint64(32)).astype(np.uint32))
    np.testing.assert_array_equal(o[1], ((x.astype(np.uint64) + 6) // 7).astype(np.uint32))
    np.testing.assert_array_equal(o[2], [bin(int(v)).count("1") for v in x])


@triton.jit
def nan_kernel(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o_ptr + offs * 6 + 0, tl.maximum(x, y))
    tl.store(o_ptr + offs * 6 + 1, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(o_ptr + offs * 6 + 2, tl.minimum(x, y))
    tl.store(o_ptr + offs * 6 + 3, tl.minimum(x, y, tl.PropagateNan.ALL))
    tl.store(o_ptr + offs * 6 + 4, tl.clamp(x, -1.0, 1.0))
    tl.store(o_ptr + offs * 6 + 5, tl.clamp(x, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL))


def test_nan_propagation():
    nan = np.nan
    x = np.array([1.0, nan, 3.0, nan, -5.0, 0.5, 2.0, -2.0], np.float32)
    y = np.array([2.0, 1.0, nan, nan, -6.0, 0.25, 2.0, 7.0], np.float32)
    out = np.zeros(8 * 6, np.float32)
    nan_kernel[(1,)](x, y, out, BLOCK=8)
    o = out.reshape(8, 6).T
    np.testing.assert_array_equal(o[0], np.fmax(x, y))
    np.testing.assert_array_equal(o[1], np.maximum(x, y))
    np.testing.assert_array_equal(o[2], np.fmin(x, y))
    np.testing.assert_array_equal(o[3], np.minimum(x, y))
    np.testing.assert_array_equal(o[4][~np.isnan(x)], np.clip(x, -1, 1)[~np.isnan(x)])
    np.testing.assert_array_equal(o[5], np.clip(x, -1, 1))


@triton.jit
def softmax_kernel(x_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs[:, None] * N + offs[None, :])
    tl.store(o_ptr + offs[:, None] * N + offs[None, :], tl.softmax(x, 1, keep_dims=True))


def test_softmax(rng):
    x = rng.standard_normal((16, 16)).astype(np.float32)
    out = np.zeros_like(x)
    softmax_kernel[(1,)](x, out, N=16)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               ACC: tl.constexpr, OUT: tl.constexpr, PREC: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if ACC:
        acc = tl.full((M, N), 1, OUT)
        c = tl.dot(a, b, acc, out_dtype=OUT, input_precision=PREC)
    else:
        c = tl.dot(a, b, out_dtype=OUT, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("acc", [False, True])
@pytest.mark.parametrize("dt,out,prec", [(np.float16, tl.float32, "ieee"),
                                         (np.float32, tl.float32, "ieee"),
                                         (np.float16, tl.float16, "ieee"),
                                         (np.int8, tl.int32, None),
                                         (np.float64, tl.float64, "ieee")])
def test_dot(rng, dt, out, prec, acc):
    M, N, K = 16, 32, 32
    if np.dtype(dt).kind == "i":
        a = rng.integers(-8, 8, (M, K)).astype(dt)
        b = rng.integers(-8, 8, (K, N)).astype(dt)
    else:
        a = rng.uniform(-1, 1, (M, K)).astype(dt)
        b = rng.uniform(-1, 1, (K, N)).astype(dt)
    res_np = {tl.float32: np.float32, tl.float16: np.float16, tl.int32: np.int32,
              tl.float64: np.float64}[out]
    c = np.zeros((M, N), res_np)
    dot_kernel[(1,)](a, b, c, M=M, N=N, K=K, ACC=acc, OUT=out, PREC=prec)
    want = a.astype(np.float64) @ b.astype(np.float64) + (1 if acc else 0)
    tol = 2e-2 if res_np == np.float16 else 1e-5
    np.testing.assert_allclose(c, want, rtol=tol, atol=tol)
