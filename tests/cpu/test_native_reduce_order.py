"""Which reductions the compiled CPU path runs as SIMD lanes of partial results: besides
single associative ops, Inductor's `maximum`/`minimum` combines (`triton_helpers.max2`,
`min2`: pick `a` where `a > b` or `a` is NaN), which are order free. Results stay those of
numpy, NaNs included, on both paths."""
import os
import sys

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.cpu.native.reduce import _order_free
from tritium.ir.parser import parse_module

sys.path.insert(0, os.path.dirname(__file__))
from combines import nan_max as _nan_max, nan_min as _nan_min, bit_or as _or  # noqa: E402


@triton.jit
def _int_max(a, b):
    return tl.where(a > b, a, b)


@triton.jit
def _plain_max(a, b):
    return tl.where(a > b, a, b)    # on floats: NaN makes the order matter


@triton.jit
def _not_extremum(a, b):
    return tl.where(a > b, b, a + b)


@triton.jit
def _rows(X, Out, M, N: tl.constexpr, BLOCK_N: tl.constexpr, XBLOCK: tl.constexpr,
          COMBINE: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    m = (rows < M) & (cols < N)
    fill = float("-inf") if COMBINE == 0 else float("inf")
    if X.dtype.element_ty == tl.int32:
        fill = -2147483648 if COMBINE != 1 else 2147483647
    x = tl.load(X + rows * N + cols, mask=m, other=fill)
    if COMBINE == 0:
        r = tl.reduce(x, 1, _nan_max)
    elif COMBINE == 1:
        r = tl.reduce(x, 1, _nan_min)
    else:
        r = tl.reduce(x, 1, _int_max)
    tl.store(Out + tl.arange(0, XBLOCK) + tl.program_id(0) * XBLOCK, r,
             mask=tl.arange(0, XBLOCK) + tl.program_id(0) * XBLOCK < M)


def _reduce_op(combine, dtype="fp32"):
    @triton.jit
    def k(X, Out, BLOCK: tl.constexpr, C: tl.constexpr):
        x = tl.load(X + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
        tl.store(Out + tl.arange(0, BLOCK), tl.reduce(x, 1, C))
    src = triton.compiler.ASTSource(k, {"X": f"*{dtype}", "Out": f"*{dtype}", "BLOCK": "constexpr",
                                        "C": "constexpr"}, {"BLOCK": 16, "C": combine})
    ttir = triton.compile(src, target=triton.backends.compiler.GPUTarget("cpu", 0, 32)).asm["ttir"]
    return next(o for o in parse_module(ttir).walk() if o.name == "tt.reduce")


@pytest.mark.parametrize("combine,dtype,order_free", [
    (_nan_max, "fp32", True), (_nan_min, "fp32", True), (_int_max, "i32", True),
    (_plain_max, "fp32", False), (_not_extremum, "fp32", False)])
def test_which_combines_are_order_free(combine, dtype, order_free):
    assert _order_free(_reduce_op(combine, dtype)) == order_free


@pytest.mark.parametrize("dtype,combine", [("float32", 0), ("float32", 1), ("int32", 2)])
@pytest.mark.parametrize("N", [257, 512, 64])
def test_inductor_style_extrema_match_numpy(rng, cpu_path, dtype, combine, N):
    M = 37
    if dtype == "int32":
        x = rng.integers(-2 ** 31, 2 ** 31 - 1, (M, N), dtype=np.int64).astype(np.int32)
    else:
        x = rng.standard_normal((M, N)).astype(np.float32)
        x[3, rng.integers(0, N)] = np.nan          # a NaN anywhere wins
        x[5, :] = np.nan
        x[7, 1::2] = -0.0
        x[7, 0::2] = 0.0
    out = np.empty(M, x.dtype)
    block = triton.next_power_of_2(N)
    _rows[(triton.cdiv(M, 4),)](x, out, M, N=N, BLOCK_N=block, XBLOCK=4, COMBINE=combine)
    want = {0: np.max, 1: np.min, 2: np.max}[combine](x, axis=1)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(out[ok], want[ok])    # (0.0 == -0.0 here)


@triton.jit
def _and(a, b):
    return a & b


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def _flags(X, Out, M, N: tl.constexpr, BLOCK_N: tl.constexpr, XBLOCK: tl.constexpr,
           OP: tl.constexpr, AXIS: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    m = (rows < M) & (cols < N)
    x = tl.load(X + rows * N + cols, mask=m, other=0.0)
    flag = x > 0.5                              # an i1 block, as Inductor's `any` reduces
    neutral = OP == 1
    flag = tl.where(m, flag, neutral)
    if OP == 0:
        r = tl.reduce(flag, AXIS, _or)
    elif OP == 1:
        r = tl.reduce(flag, AXIS, _and)
    else:
        r = tl.reduce(flag, AXIS, _xor)
    if AXIS == 1:
        o = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
        tl.store(Out + o, r.to(tl.int8), mask=o < M)
    else:
        tl.store(Out + tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N), r.to(tl.int8))


@pytest.mark.parametrize("op", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("N,p", [(257, 0.999), (512, 0.5), (64, 0.001)])
def test_flag_reductions_match_numpy(rng, cpu_path, op, axis, N, p):
    # (reduced as bytes on the compiled path: i1 buffers kept the loops scalar)
    M, XB = 24, 8
    x = (rng.random((M, N)) < p).astype(np.float32) * rng.uniform(0.6, 1.0, (M, N))
    block = triton.next_power_of_2(N)
    out = np.zeros(M if axis == 1 else (M // XB) * block, np.int8)
    _flags[(M // XB,)](x, out, M, N=N, BLOCK_N=block, XBLOCK=XB, OP=op, AXIS=axis)
    f = x.reshape(M // XB, XB, N) > 0.5
    red = {0: np.any, 1: np.all, 2: lambda a, axis: np.bitwise_xor.reduce(a, axis=axis)}[op]
    if axis == 1:
        np.testing.assert_array_equal(out.astype(bool), red(f, axis=2).reshape(M))
    else:
        got = out.reshape(M // XB, block)[:, :N].astype(bool)
        np.testing.assert_array_equal(got, red(f, axis=1))
