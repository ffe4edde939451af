"""Dead lanes (native/lanes.py): a block dimension padded past what stores, reductions and
scans can observe — Inductor's 257 columns in a 512-lane block — is shrunk in the host
lowering's TTIR. Which kernels shrink (and which must not), results against numpy on both
paths, and the compiled code with and without the shrink (bit for bit where the order of
the combines is fixed)."""
import os
import sys

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.cpu.native import lanes
from tritium.ir.parser import parse_module

sys.path.insert(0, os.path.dirname(__file__))
from combines import nan_max as _nan_max, bit_or as _or, add as _add  # noqa: E402


@triton.jit
def _rows_f(X, Sum, Max, Any, Cum, Soft, M, N: tl.constexpr, BLOCK: tl.constexpr,
            XBLOCK: tl.constexpr):
    """Inductor's persistent-reduction shape: every load, store and reduction masked."""
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    m = (rows < M) & (cols < N)
    x = tl.load(X + rows * N + cols, mask=m, other=0.0).to(tl.float32)
    mx = tl.reduce(tl.where(m, x, float("-inf")), 1, _nan_max)[:, None]
    s = tl.sum(tl.where(m, x, 0.0), 1)[:, None]
    bad = tl.reduce(tl.where(m, x != x, False), 1, _or)[:, None]
    c = tl.associative_scan(x, 1, _add)
    e = tl.exp(x - mx)
    soft = e / tl.sum(tl.where(m, e, 0.0), 1)[:, None]
    rm = rows < M
    tl.store(Sum + rows, s, rm)
    tl.store(Max + rows, mx, rm)
    tl.store(Any + rows, bad.to(tl.int8), rm)
    tl.store(Cum + rows * N + cols, c, m)
    tl.store(Soft + rows * N + cols, soft.to(Soft.dtype.element_ty), m)


@triton.jit
def _rows_i(X, Sum, Max, Min, Xor, Cum, M, N: tl.constexpr, BLOCK: tl.constexpr,
            XBLOCK: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    m = (rows < M) & (cols < N)
    x = tl.load(X + rows * N + cols, mask=m, other=7)
    rm = rows < M
    tl.store(Sum + rows, tl.sum(tl.where(m, x, 0), 1)[:, None], rm)
    tl.store(Max + rows, tl.max(tl.where(m, x, -2147483648), 1)[:, None], rm)
    tl.store(Min + rows, tl.min(tl.where(m, x, 2147483647), 1)[:, None], rm)
    tl.store(Xor + rows, tl.xor_sum(tl.where(m, x, 0), 1)[:, None], rm)
    tl.store(Cum + rows * N + cols, tl.cumsum(x, 1), m)


@triton.jit
def _unsafe(X, Out, Rev, N: tl.constexpr, BLOCK: tl.constexpr, KIND: tl.constexpr):
    """Padding lanes that are observed: each form must keep the whole block."""
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(X + cols, mask=m, other=1.0)
    if KIND == 0:      # a sum over the padding (other=1.0 counts BLOCK - N ones)
        tl.store(Out, tl.sum(x, 0))
    elif KIND == 1:    # a reverse scan carries the padding into the live lanes
        tl.store(Rev + cols, tl.cumsum(x, 0, reverse=True), m)
    elif KIND == 2:    # not the combine's identity
        tl.store(Out, tl.sum(tl.where(m, x, 2.0), 0))
    elif KIND == 3:    # a store without a mask writes every lane
        tl.store(Rev + cols, x * 2)
    else:              # lanes moved across the dimension
        tl.store(Rev + cols, tl.flip(x, 0), m)


def _ttir(fn, sig, consts):
    src = triton.compiler.ASTSource(fn, sig, consts)
    k = triton.compile(src, target=GPUTarget("cpu", 0, 32))
    return parse_module(k.asm["ttir"]), k.metadata.name


def _func(module):
    return next(op for op in module.regions[0].entry if op.name == "tt.func")


_F_SIG = {"X": "*fp32", "Sum": "*fp32", "Max": "*fp32", "Any": "*i8", "Cum": "*fp32",
          "Soft": "*fp32", "M": "i32", "N": "constexpr", "BLOCK": "constexpr",
          "XBLOCK": "constexpr"}


@pytest.mark.parametrize("N,block,want", [(257, 512, 257), (17, 64, 17), (16, 64, 16),
                                          (1, 16, 1), (512, 512, None), (100, 128, 100)])
def test_padded_rows_shrink_to_the_observed_lanes(N, block, want):
    m, _ = _ttir(_rows_f, _F_SIG, {"N": N, "BLOCK": block, "XBLOCK": 2})
    got = lanes.plan(_func(m))
    sizes = sorted({n for _, n in got})
    assert sizes == ([] if want is None else [want])
    if want is not None:   # the column dimension only, never the rows'
        assert all(v.type.shape[d] == block for nodes, _ in got for v, d in nodes)
        lanes.shrink(_func(m))
        ranges = [op for op in _func(m).walk() if op.name == "tt.make_range"]
        assert sorted(int(op.attr("end")) for op in ranges) == sorted([2, want])


@pytest.mark.parametrize("kind", range(5))
def test_observed_padding_is_kept(kind):
    sig = {"X": "*fp32", "Out": "*fp32", "Rev": "*fp32", "N": "constexpr",
           "BLOCK": "constexpr", "KIND": "constexpr"}
    m, _ = _ttir(_unsafe, sig, {"N": 20, "BLOCK": 64, "KIND": kind})
    assert lanes.plan(_func(m)) == []


@pytest.mark.parametrize("kind", range(5))
@pytest.mark.parametrize("N", [1, 20, 63])
def test_observed_padding_results(rng, cpu_path, kind, N):
    x = rng.standard_normal(N).astype(np.float32)
    out = np.zeros(1, np.float32)
    rev = np.zeros(64, np.float32)
    _unsafe[(1,)](x, out, rev, N=N, BLOCK=64, KIND=kind)
    pad = np.concatenate([x, np.ones(64 - N, np.float32)])
    # float sums, to a few ulp of the magnitudes summed (a sum near zero has no relative
    # accuracy to check: seed 610632247 gave -0.0066 from terms of size ~8)
    scale = 1e-6 * (np.abs(x).sum() + 2.0 * (64 - N))
    if kind == 0:
        np.testing.assert_allclose(out[0], pad.sum(), rtol=1e-5, atol=scale)
    elif kind == 1:
        np.testing.assert_allclose(rev[:N], np.cumsum(pad[::-1])[::-1][:N], rtol=1e-5,
                                   atol=max(1e-5, scale))
    elif kind == 2:
        np.testing.assert_allclose(out[0], x.sum() + 2.0 * (64 - N), rtol=1e-5, atol=scale)
    elif kind == 3:
        np.testing.assert_array_equal(rev, pad * 2)
    else:
        np.testing.assert_array_equal(rev[:N], pad[::-1][:N])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("M,N", [(5, 257), (9, 17), (3, 100), (4, 1), (6, 128)])
def test_float_rows_match_numpy(rng, cpu_path, dtype, M, N):
    x = rng.standard_normal((M, N)).astype(dtype)
    if N > 3:
        x[1, 2] = np.nan
    block = triton.next_power_of_2(N) * (2 if N == 128 else 1)  # also a half-empty block
    s, mx, cum, soft = (np.full(M, 5, np.float32), np.full(M, 5, np.float32),
                        np.full((M, N), 5, np.float32), np.full((M, N), 5, dtype))
    bad = np.full(M, 5, np.int8)
    _rows_f[(triton.cdiv(M, 2),)](x, s, mx, bad, cum, soft, M, N=N, BLOCK=block, XBLOCK=2)
    x32 = x.astype(np.float32)
    ok = ~np.isnan(x32).any(1)
    np.testing.assert_allclose(s[ok], x32.sum(1)[ok], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.isnan(s), ~ok)
    np.testing.assert_array_equal(mx[ok], x32.max(1)[ok])
    assert np.isnan(mx[~ok]).all()
    np.testing.assert_array_equal(bad, (~ok).astype(np.int8))
    np.testing.assert_allclose(cum[ok], np.cumsum(x32, 1)[ok], rtol=1e-5, atol=1e-5)
    e = np.exp(x32 - x32.max(1, keepdims=True))
    np.testing.assert_allclose(soft[ok].astype(np.float32), (e / e.sum(1, keepdims=True))[ok],
                               rtol=1e-3 if dtype == np.float16 else 1e-5, atol=1e-6)


@pytest.mark.parametrize("M,N", [(5, 257), (3, 33), (7, 16)])
def test_int_rows_match_numpy(rng, cpu_path, M, N):
    x = rng.integers(-2 ** 31, 2 ** 31 - 1, (M, N), dtype=np.int64).astype(np.int32)
    outs = [np.full(M, 5, np.int32) for _ in range(4)]
    cum = np.full((M, N), 5, np.int32)
    block = triton.next_power_of_2(N) * 2
    _rows_i[(triton.cdiv(M, 2),)](x, *outs, cum, M, N=N, BLOCK=block, XBLOCK=2)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(outs[0], x.sum(1, dtype=np.int32))
        np.testing.assert_array_equal(cum, np.cumsum(x, 1, dtype=np.int32))
    np.testing.assert_array_equal(outs[1], x.max(1))
    np.testing.assert_array_equal(outs[2], x.min(1))
    np.testing.assert_array_equal(outs[3], np.bitwise_xor.reduce(x, 1))


def _native(module, name, shrink: bool, monkeypatch):
    from tritium.backends.cpu import native
    with monkeypatch.context() as mp:
        if not shrink:
            mp.setattr(lanes, "plan", lambda func: [])
        meta = {"name": name}
        llir = native.make_llir(module, meta)
        assert llir, meta.get("cpu_fallback")
        return native.load(native.make_obj(llir, meta), name, meta), llir


def test_shrunk_code_matches_the_padded_code(rng, monkeypatch):
    M, N = 11, 257
    m, name = _ttir(_rows_f, _F_SIG, {"N": N, "BLOCK": 512, "XBLOCK": 1})
    full, full_ir = _native(m, name, False, monkeypatch)
    small, small_ir = _native(m, name, True, monkeypatch)
    assert "[512 x float]" in full_ir and "[512 x float]" not in small_ir
    assert "[257 x float]" in small_ir
    x = rng.standard_normal((M, N)).astype(np.float32)
    x[2, 1::2] = -0.0
    x[2, 0::2] = 0.5
    x[4] = np.inf
    results = []
    for nk in (full, small):
        bufs = [np.full(M, 5, np.float32), np.full(M, 5, np.float32), np.full(M, 5, np.int8),
                np.full((M, N), 5, np.float32), np.full((M, N), 5, np.float32)]
        nk.run((M, 1, 1), [x] + bufs + [M])
        results.append(bufs)
    full_r, small_r = results
    for i in (1, 2, 3):   # max, any, the scan: the same bits
        np.testing.assert_array_equal(full_r[i].view(np.uint8), small_r[i].view(np.uint8))
    for i in (0, 4):      # sums: `reassoc` lets LLVM order each code shape's adds its way
        np.testing.assert_allclose(full_r[i], small_r[i], rtol=1e-6, atol=1e-7)


@triton.jit
def _maxrows(X, Out, N: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)[None, :]
    m = cols < N
    x = tl.load(X + tl.program_id(0) * N + cols, mask=m, other=0.0)
    r = tl.reduce(tl.where(m, x, float("-inf")), 1, _nan_max)
    tl.store(Out + tl.program_id(0) + tl.arange(0, 1), r)


def _lane_model(row, lanes):
    """The compiled path's order: `lanes` partials over the row's chunks (a remainder into
    the first partials), then the partials folded left to right."""
    def combine(a, b):
        return a if (a > b or a != a) else b
    parts = list(row[:lanes])
    whole, rem = divmod(len(row), lanes)
    for c in range(1, whole):
        for i in range(lanes):
            parts[i] = combine(parts[i], row[c * lanes + i])
    for i in range(rem):
        parts[i] = combine(parts[i], row[whole * lanes + i])
    acc = parts[0]
    for p in parts[1:]:
        acc = combine(acc, p)
    return acc


@pytest.mark.parametrize("N", [33, 50, 64, 257])
def test_max_folds_keep_the_same_zero_and_nan(rng, N, native_only):
    """Inductor's max2 over -0.0/0.0 ties and NaNs of several payloads: which zero and
    which NaN comes out is the sequential fold's (the partials are folded as a tree)."""
    from tritium.backends.cpu.native.jit import vector_bits
    lanes = max(4, vector_bits() // 32)
    M = 40
    nans = np.array([0x7FC00001, 0x7FC00002, 0xFFC00003], np.uint32).view(np.float32)
    choices = np.concatenate([[-0.0, 0.0, -1.0], nans])
    x = choices[rng.integers(0, 3, (M, N))].astype(np.float32)
    for r in range(0, M, 3):   # NaNs in some rows
        x[r, rng.integers(0, N, 3)] = nans[rng.integers(0, 3, 3)]
    out = np.full(M, 5, np.float32)
    _maxrows[(M,)](x, out, N=N, BLOCK=triton.next_power_of_2(N))
    want = np.array([_lane_model(list(row), lanes) for row in x], np.float32)
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


@triton.jit
def _maximum(a, b):
    return tl.maximum(a, b)


@triton.jit
def _row_scans(X, Sum, Max, M, N: tl.constexpr, BLOCK: tl.constexpr, XBLOCK: tl.constexpr,
               REV: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    m = (cols < N) & (rows < M)
    x = tl.load(X + rows * N + cols, m, other=0)
    tl.store(Sum + rows * N + cols, tl.cumsum(x, 1, reverse=REV), m)
    tl.store(Max + rows * N + cols, tl.associative_scan(x, 1, _maximum, reverse=REV), m)


@pytest.mark.parametrize("N", [1, 5, 256, 261, 1029])
@pytest.mark.parametrize("XBLOCK", [1, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("rev", [False, True])
def test_row_scans(rng, cpu_path, N, XBLOCK, dtype, rev):
    """Scans along a row (the running value carried in a register on the compiled path:
    row lengths 256 and 261 ran 3x slower than 272 when it went through memory). Integer
    sums and maxima are exact; a forward float cumsum of two registers or more is summed a
    register at a time on the compiled path (a tree within it, then in order), within 4 ulp
    of the float64 sum's scale (sum of |x|) — more accurate than the sequential order,
    which a reverse or shorter scan keeps, bit for bit numpy's accumulate; a reverse scan
    starts at the block's end, its padding (`other=0`) included."""
    M, BLOCK = 6, triton.next_power_of_2(N)
    x = (rng.standard_normal((M, N)) * 100).astype(dtype)
    s, mx = np.zeros_like(x), np.zeros_like(x)
    _row_scans[(triton.cdiv(M, XBLOCK),)](x, s, mx, M, N=N, BLOCK=BLOCK, XBLOCK=XBLOCK, REV=rev)
    xp = np.zeros((M, BLOCK), dtype)
    xp[:, :N] = x
    flip = (lambda a: a[:, ::-1]) if rev else (lambda a: a)
    want_s = flip(np.add.accumulate(flip(xp), axis=1, dtype=dtype))[:, :N]
    want_m = flip(np.maximum.accumulate(flip(xp), axis=1))[:, :N]
    np.testing.assert_array_equal(mx, want_m)
    if dtype == np.int32 or (cpu_path == "native" and (rev or N < 32)):
        np.testing.assert_array_equal(s, want_s)
    elif cpu_path == "native":
        truth = flip(np.cumsum(flip(xp).astype(np.float64), axis=1))[:, :N]
        scale = flip(np.cumsum(np.abs(flip(xp).astype(np.float64)), axis=1))[:, :N]
        assert (np.abs(s - truth) <= 4 * np.finfo(np.float32).eps * scale).all()
    else:  # the evaluator adds in another order
        np.testing.assert_allclose(s, want_s, rtol=1e-5, atol=N * 1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_forward_cumsum_in_registers_keeps_signed_zeros_and_nans(native_only, dtype):
    # -0.0 is what the shifted-in lanes add (x + -0.0 == x for every x, -0.0 included)
    N = 70
    x = np.zeros((3, N), dtype)
    if dtype != np.int64:
        x[0] = -0.0
        x[1, 40] = np.nan
        x[2, 3], x[2, 50] = np.inf, -np.inf
    else:
        x[:] = np.arange(3 * N, dtype=np.int64).reshape(3, N) * (2 ** 40)
    s, mx = np.ones_like(x), np.ones_like(x)
    _row_scans[(3,)](x, s, mx, 3, N=N, BLOCK=128, XBLOCK=1, REV=False)
    with np.errstate(invalid="ignore"):   # (inf + -inf)
        want = np.add.accumulate(x, axis=1, dtype=dtype)
    np.testing.assert_array_equal(s, want)
    if dtype != np.int64:
        assert np.signbit(s[0]).all()


@triton.jit
def _row_sum_prod(X, S, P, N: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + tl.program_id(0) * N + cols, cols < N, other=0)
    tl.store(S + tl.program_id(0), tl.sum(x, 0))
    y = tl.load(X + tl.program_id(0) * N + cols, cols < N, other=1)
    tl.store(P + tl.program_id(0), tl.reduce(y, 0, _mul))


@triton.jit
def _mul(a, b):
    return a * b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_sum_and_product_partials_fold_as_one_vector_reduction(rng, native_only, dtype):
    # A chain of scalar adds over the 16 partials stayed a chain (64 cycles a row); a
    # straight-line tree of scalar adds ran slower than that where LLVM had vectorised the
    # chain (softmax). One `llvm.vector.reduce` per reduction does both.
    N = 257
    x = (1 + 0.01 * rng.standard_normal((5, N))).astype(dtype)
    x[3] = -0.0
    s, p = np.full(5, 7, dtype), np.full(5, 7, dtype)
    k = _row_sum_prod[(5,)](x, s, p, N=N, BLOCK=512)
    assert "llvm.vector.reduce.fadd" in k.asm["llir"] and "llvm.vector.reduce.fmul" in k.asm["llir"]
    eps = np.finfo(dtype).eps
    want_s = x.astype(np.float64).sum(1)
    assert (np.abs(s - want_s) <= 8 * eps * np.abs(x).astype(np.float64).sum(1)).all()
    want_p = np.prod(x.astype(np.float64), axis=1)
    np.testing.assert_allclose(p, want_p, rtol=16 * N * eps)
    assert s[3] == 0 and np.signbit(s[3])          # -0.0 summed stays -0.0
