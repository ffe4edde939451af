"""Reductions of one row fused into one loop nest (native/reduce_fuse.py): which join
(same shape, same last axis, an operand computable at the first one's place) and which do
not (one that needs an earlier result, another shape), results against numpy on both
paths, and the fused code against the unfused one bit for bit where the combine order is
fixed (max, any, integer sums)."""
import os
import sys

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.cpu.native import reduce as R
from tritium.ir.parser import parse_module

sys.path.insert(0, os.path.dirname(__file__))
from combines import nan_max as _nan_max, bit_or as _or  # noqa: E402


@triton.jit
def _rows(X, Y, Bad, Mx, Mh, S, Si, Dev, Side, M, N: tl.constexpr, BLOCK: tl.constexpr):
    """Softmax's and var's reductions of one row: any, max, max of x/2, a sum, an integer
    sum of another load, then a sum that needs the mean (cannot join), a store between."""
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)[None, :]
    m = (c < N) & (row < M)
    x = tl.load(X + row * N + c, m, other=0.0)
    bad = tl.reduce(tl.where(m, (x != x) | (tl.abs(x) == float("inf")), False), 1, _or)
    tl.store(Side + row * N + c, x * 3, m)          # (a store between the reductions)
    mx = tl.reduce(tl.where(m, x, float("-inf")), 1, _nan_max)
    mh = tl.reduce(tl.where(m, x * 0.5, float("-inf")), 1, _nan_max)
    s = tl.sum(tl.where(m, x, 0.0), 1)
    y = tl.load(Y + row * N + c, m, other=0)
    si = tl.sum(tl.where(m, y, 0), 1)
    mean = s[:, None] / N
    dev = tl.sum(tl.where(m, (x - mean) * (x - mean), 0.0), 1)
    o = row + tl.arange(0, 1)
    tl.store(Bad + o, bad.to(tl.int8))
    tl.store(Mx + o, mx)
    tl.store(Mh + o, mh)
    tl.store(S + o, s)
    tl.store(Si + o, si)
    tl.store(Dev + o, dev)


_SIG = {"X": "*fp32", "Y": "*i32", "Bad": "*i8", "Mx": "*fp32", "Mh": "*fp32", "S": "*fp32",
        "Si": "*i32", "Dev": "*fp32", "Side": "*fp32", "M": "i32", "N": "constexpr",
        "BLOCK": "constexpr"}


def _data(rng, M, N):
    x = rng.standard_normal((M, N)).astype(np.float32)
    x[1, 3 % N] = np.nan
    x[2, ::2] = -0.0
    x[2, 1::2] = 0.0
    if M > 4:
        x[4, 0] = np.inf
    y = rng.integers(-2 ** 31, 2 ** 31 - 1, (M, N), dtype=np.int64).astype(np.int32)
    return x, y


def _outs(M, N):
    return [np.full(M, 5, np.int8), np.full(M, 5, np.float32), np.full(M, 5, np.float32),
            np.full(M, 5, np.float32), np.full(M, 5, np.int32), np.full(M, 5, np.float32),
            np.full((M, N), 5, np.float32)]


@pytest.mark.parametrize("M,N", [(6, 257), (5, 64), (7, 40), (3, 20)])
def test_fused_rows_match_numpy(rng, cpu_path, M, N):
    x, y = _data(rng, M, N)
    outs = _outs(M, N)
    _rows[(M,)](x, y, *outs, M, N=N, BLOCK=triton.next_power_of_2(N))
    bad, mx, mh, s, si, dev, side = outs
    ok = ~np.isnan(x).any(1) & ~np.isinf(x).any(1)
    np.testing.assert_array_equal(bad, (~ok).astype(np.int8))
    nan = np.isnan(x).any(1)
    np.testing.assert_array_equal(mx[~nan], x.max(1)[~nan])
    assert np.isnan(mx[nan]).all() and np.isnan(mh[nan]).all()
    np.testing.assert_array_equal(mh[~nan], (x * np.float32(0.5)).max(1)[~nan])
    np.testing.assert_allclose(s[ok], x.sum(1)[ok], rtol=1e-5, atol=N * 2e-7)  # (N ulps of ~1)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(si, y.sum(1, dtype=np.int32))
    with np.errstate(invalid="ignore"):
        d = ((x - x.sum(1, keepdims=True) / N) ** 2).sum(1)
    np.testing.assert_allclose(dev[ok], d[ok], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(side, x * 3)


def _kernel(monkeypatch, fused: bool, N):
    from tritium.backends.cpu import native
    from tritium.backends.cpu.native import reduce_fuse
    k = triton.compile(triton.compiler.ASTSource(_rows, _SIG, {"N": N, "BLOCK": 512}),
                       target=GPUTarget("cpu", 0, 32))
    groups = []
    with monkeypatch.context() as mp:
        orig = R.lane_partials
        mp.setattr(R, "lane_partials", lambda cx, specs, *a: (groups.append(len(specs)),
                                                              orig(cx, specs, *a))[1])
        if not fused:
            mp.setattr(reduce_fuse, "fuse", lambda cx, op: False)
        meta = {"name": k.metadata.name}
        llir = native.make_llir(parse_module(k.asm["ttir"]), meta)
        assert llir, meta.get("cpu_fallback")
        return native.load(native.make_obj(llir, meta), meta["name"], meta), groups


def test_which_reductions_join(monkeypatch):
    from tritium.backends.cpu.native.jit import vector_bits
    if vector_bits() // 32 > 16:
        pytest.skip("wider SIMD than this test's rows")
    _, groups = _kernel(monkeypatch, True, 257)
    # any + max + max/2 + sum in one nest; the integer sum reads a load made after the
    # first reduction (not moved: a store comes between), so it leads a second nest, which
    # the deviation joins (the mean it needs is known by then)
    assert groups == [4, 2]
    _, groups = _kernel(monkeypatch, False, 257)
    assert groups == [1] * 6


def test_fused_code_matches_unfused(rng, monkeypatch):
    M, N = 9, 257
    x, y = _data(rng, M, N)
    got = []
    for fused in (True, False):
        nk, _ = _kernel(monkeypatch, fused, N)
        outs = _outs(M, N)
        nk.run((M, 1, 1), [x, y] + outs + [M])
        got.append(outs)
    for i in (0, 1, 2, 4, 6):   # any, the maxima, the integer sum, the side store: same bits
        np.testing.assert_array_equal(got[0][i].view(np.uint8), got[1][i].view(np.uint8))
    for i in (3, 5):            # float sums: `reassoc` lets LLVM order each nest its way
        # (reordered, a float32 sum of N terms of size ~1 may move by ~N ulps of a term:
        # a relative bound alone fails where the row's sum cancels to a small value)
        np.testing.assert_allclose(got[0][i], got[1][i], rtol=1e-5, atol=N * 2e-7,
                                   equal_nan=True)
