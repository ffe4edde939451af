"""Reductions over a 2-D tile's last axis whose loads are consecutive down the other axis
(Inductor's sums over dim 0: `x0 + xnumel*r0`): the compiled path keeps its lane partials
transposed so a step covers every row with one SIMD op (`reduce._column_partials`). Same
combine order as the row-wise lane partials: sums against numpy, Inductor's max2 bit for
bit (ties of -0.0/0.0, NaN payloads) against a model of that order, on ragged tiles."""
import os
import sys

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.cpu.native import jit, reduce

sys.path.insert(0, os.path.dirname(__file__))
from combines import nan_max as _nan_max  # noqa: E402


@triton.jit
def _cols(X, Sum, Max, xnumel, rnumel: tl.constexpr, XBLOCK: tl.constexpr,
          RBLOCK: tl.constexpr):
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xm = x < xnumel
    r = tl.arange(0, RBLOCK)[None, :]
    m = xm & (r < rnumel)
    v = tl.load(X + x + xnumel * r, m, other=0)
    tl.store(Sum + x, tl.sum(tl.where(m, v, 0), 1)[:, None], xm)
    if Max.dtype.element_ty == tl.float32:
        tl.store(Max + x, tl.reduce(tl.where(m, v, float("-inf")), 1, _nan_max)[:, None], xm)
    else:
        tl.store(Max + x, tl.max(tl.where(m, v, -2147483648), 1)[:, None], xm)


def _order(col, lanes):
    """The compiled path's order of max2 combines over one column (see test_native_lanes)."""
    def combine(a, b):
        return a if (a > b or a != a) else b
    if len(col) < 2 * lanes:
        acc = col[0]
        for v in col[1:]:
            acc = combine(acc, v)
        return acc
    parts = list(col[:lanes])
    whole, rem = divmod(len(col), lanes)
    for c in range(1, whole):
        for i in range(lanes):
            parts[i] = combine(parts[i], col[c * lanes + i])
    for i in range(rem):
        parts[i] = combine(parts[i], col[whole * lanes + i])
    while len(parts) > 1:
        parts = [combine(parts[i], parts[i + 1]) for i in range(0, len(parts), 2)]
    return parts[0]


@pytest.mark.parametrize("xnumel,rnumel,xblock", [(261, 256, 8), (37, 100, 4), (64, 33, 16),
                                                  (10, 257, 8), (9, 40, 2)])
def test_column_reductions_match(rng, cpu_path, xnumel, rnumel, xblock):
    lanes = max(4, jit.vector_bits() // 32)
    nans = np.array([0x7FC00001, 0x7FC00002], np.uint32).view(np.float32)
    x = rng.standard_normal((rnumel, xnumel)).astype(np.float32)
    z = rng.random((rnumel, xnumel)) < 0.3
    x[z] = 0.0
    x[z & (rng.random((rnumel, xnumel)) < 0.5)] = -0.0
    x[:, ::3] = np.abs(x[:, ::3]) * -1.0     # columns whose max is a zero of either sign
    x[rng.integers(0, rnumel, 4), rng.integers(0, xnumel, 4)] = nans[rng.integers(0, 2, 4)]
    s, mx = np.full(xnumel, 5, np.float32), np.full(xnumel, 5, np.float32)
    block = triton.next_power_of_2(rnumel)
    _cols[(triton.cdiv(xnumel, xblock),)](x, s, mx, xnumel, rnumel=rnumel, XBLOCK=xblock,
                                          RBLOCK=block)
    ok = ~np.isnan(x).any(0)
    np.testing.assert_allclose(s[ok], x.sum(0)[ok], rtol=1e-5, atol=1e-5)
    assert np.isnan(s[~ok]).all()
    if cpu_path == "native":
        want = np.array([_order(list(c), lanes) for c in x.T], np.float32)
        np.testing.assert_array_equal(mx.view(np.uint32), want.view(np.uint32))
    else:
        np.testing.assert_array_equal(np.isnan(mx), ~ok)
        np.testing.assert_array_equal(mx[ok], x.max(0)[ok])


@pytest.mark.parametrize("xnumel,rnumel,xblock", [(261, 256, 8), (37, 100, 4)])
def test_int_column_reductions(rng, cpu_path, xnumel, rnumel, xblock):
    x = rng.integers(-2 ** 31, 2 ** 31 - 1, (rnumel, xnumel), dtype=np.int64).astype(np.int32)
    s, mx = np.full(xnumel, 5, np.int32), np.full(xnumel, 5, np.int32)
    _cols[(triton.cdiv(xnumel, xblock),)](x, s, mx, xnumel, rnumel=rnumel, XBLOCK=xblock,
                                          RBLOCK=triton.next_power_of_2(rnumel))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(s, x.sum(0, dtype=np.int32))
    np.testing.assert_array_equal(mx, x.max(0))


def test_column_path_is_taken(rng, monkeypatch, native_only):
    seen = []
    orig = reduce._column_partials
    monkeypatch.setattr(reduce, "_column_partials", lambda *a, **k: (seen.append(a[4]),
                                                                     orig(*a, **k))[1])
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    x = rng.standard_normal((64, 40)).astype(np.float32)
    s, mx = np.zeros(40, np.float32), np.zeros(40, np.float32)
    _cols[(5,)](x, s, mx, 40, rnumel=64, XBLOCK=8, RBLOCK=64)
    assert seen and all(list(shape) == [8, 64] for shape in seen)
    np.testing.assert_allclose(s, x.sum(0), rtol=1e-5, atol=1e-5)
