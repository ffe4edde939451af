"""Layout attributes -> linear layouts, checked against direct index arithmetic."""
from math import prod

import pytest
from hypothesis import given, settings, strategies as st

from tritium.gpu.layouts import (
    BlockedEncoding, CTALayout, LinearEncoding, NVMMASharedEncoding, SliceEncoding,
    SwizzledSharedEncoding, contig_per_thread, default_blocked_encoding, elems_per_thread,
    get_order, num_warps, parse_layout_attr, threads_per_warp, total_elems_per_thread,
    warps_per_cta,
)
from tritium.gpu.linear_layout import LinearLayout

FAST = settings(max_examples=60, deadline=None)


def split_pow2(total_log2, rank, draw):
    """Random power-of-two factors of 2**total_log2 over ``rank`` dims."""
    out = [0] * rank
    for _ in range(total_log2):
        out[draw(st.integers(0, rank - 1))] += 1
    return [1 << x for x in out]


@st.composite
def blocked_cases(draw, max_rank=3):
    rank = draw(st.integers(1, max_rank))
    spt = [1 << draw(st.integers(0, 2)) for _ in range(rank)]
    tpw = split_pow2(5, rank, draw)
    wpc = split_pow2(draw(st.integers(0, 3)), rank, draw)
    order = draw(st.permutations(list(range(rank))))
    shape = [1 << draw(st.integers(0, 7 - rank)) for _ in range(rank)]
    return BlockedEncoding(spt, tpw, wpc, order), shape


def digits(x, radices, order):
    """Mixed-radix digits of x, least significant along order[0]."""
    out = [0] * len(radices)
    for d in order:
        out[d] = x % radices[d]
        x //= radices[d]
    return out


def blocked_reference(enc, shape, reg, lane, warp):
    """Coordinates of (reg, lane, warp) straight from the blocked definition:
    a thread's sizePerThread sub-tile, lanes then warps tile the CTA tile, the
    CTA tile repeats (more registers) and wraps around smaller tensors."""
    spt, tpw, wpc, order = enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta, enc.order
    tile = [s * t * w for s, t, w in zip(spt, tpw, wpc)]
    reps = [max(1, n // t) for n, t in zip(shape, tile)]
    inner = digits(reg % prod(spt), spt, order)
    rep = digits(reg // prod(spt), reps, order)
    ln, wp = digits(lane, tpw, order), digits(warp, wpc, order)
    return tuple((rep[d] * tile[d] + wp[d] * spt[d] * tpw[d] + ln[d] * spt[d] + inner[d]) % shape[d]
                 for d in range(len(shape)))


def owners(ll):
    """element -> set of (lane, warp) and per-thread element sets, brute force."""
    out = {}
    for r in range(ll.get_in_dim_size("register")):
        for l in range(ll.get_in_dim_size("lane")):
            for w in range(ll.get_in_dim_size("warp")):
                c = tuple(ll.apply({"register": r, "lane": l, "warp": w}).values())
                out.setdefault((l, w), set()).add(c)
    return out


# ------------------------------------------------------------------ blocked
@FAST
@given(blocked_cases())
def test_blocked_matches_reference(case):
    enc, shape = case
    ll = enc.to_linear_layout(shape)
    assert ll.in_dims == ["register", "lane", "warp", "block"]
    assert ll.out_dim_sizes == {f"dim{i}": s for i, s in enumerate(shape)}
    n_reg = ll.get_in_dim_size("register")
    assert n_reg == total_elems_per_thread(enc, shape)
    for r in range(n_reg):
        for l in range(32):
            for w in range(num_warps(enc)):
                got = tuple(ll.apply({"register": r, "lane": l, "warp": w}).values())
                assert got == blocked_reference(enc, shape, r, l, w)


@FAST
@given(blocked_cases())
def test_blocked_coverage_and_broadcast(case):
    enc, shape = case
    ll = enc.to_linear_layout(shape)
    tile = [s * t * w for s, t, w in zip(enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta)]
    assert ll.is_surjective()  # every element is owned by some thread
    if all(n >= t for n, t in zip(shape, tile)):
        assert ll.is_injective() and not any(ll.free_variable_masks().values())
    else:
        # Smaller than the tile: some hardware bits duplicate elements.
        assert not ll.is_injective() and any(ll.free_variable_masks().values())


def test_blocked_known_layout():
    enc = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0])
    ll = enc.to_linear_layout([64, 64])
    assert ll.bases["register"] == [(0, 1), (0, 2), (0, 16), (0, 32), (32, 0)]
    assert ll.bases["lane"] == [(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]
    assert ll.bases["warp"] == [(8, 0), (16, 0)]
    assert ll.bases["block"] == []
    small = enc.to_linear_layout([4, 2])  # wraps: registers and lanes broadcast
    assert small.bases["register"] == [(0, 1), (0, 0)]
    assert small.bases["lane"] == [(0, 0), (0, 0), (1, 0), (2, 0), (0, 0)]


def test_blocked_with_cta_split():
    enc = BlockedEncoding([1], [32], [4], [0], CTALayout([2], [2], [0]))
    assert str(enc) == ("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
                        "order = [0], CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>")
    ll = enc.to_linear_layout([1024])
    assert ll.bases["block"] == [(512,)] and ll.get_in_dim_size("register") == 4
    multicast = BlockedEncoding([1], [32], [4], [0], CTALayout([2], [1], [0])).to_linear_layout([256])
    assert multicast.bases["block"] == [(0,)]
    assert parse_layout_attr(str(enc)) == enc


# ------------------------------------------------------------ default builder
@pytest.mark.parametrize("shape, warps, spt, expect", [
    ([1024], 4, None, "sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]"),
    # Upstream's builder clamps the contiguous dim to 64/1 = 64 threads: 32 lanes
    # and 2 warps, leaving 2 warps for dim0 (not [4, 1]).
    ([64, 64], 4, None, "sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]"),
    ([16, 16], 4, None, "sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]"),
    ([64, 64], 4, [1, 4], "sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]"),
    ([128, 64], 8, [1, 8], "sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]"),
    ([32], 8, None, "sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]"),
    ([2, 2, 256], 4, None, "sizePerThread = [1, 1, 1], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 1, 4], order = [2, 1, 0]"),
])
def test_default_blocked_known(shape, warps, spt, expect):
    assert str(default_blocked_encoding(shape, warps, size_per_thread=spt)) == f"#ttg.blocked<{{{expect}}}>"


@FAST
@given(st.lists(st.integers(0, 8), min_size=1, max_size=3), st.sampled_from([1, 2, 4, 8]))
def test_default_blocked_uses_every_thread(log_shape, warps):
    enc = default_blocked_encoding([1 << x for x in log_shape], warps)
    assert prod(enc.threads_per_warp) == 32 and prod(enc.warps_per_cta) == warps
    assert enc.order == tuple(range(len(log_shape) - 1, -1, -1))


# --------------------------------------------------------------------- slice
@FAST
@given(blocked_cases(), st.data())
def test_slice_owners_match_parent(case, data):
    parent, pshape = case
    dim = data.draw(st.integers(0, parent.rank - 1))
    if parent.rank == 1:
        return
    shape = pshape[:dim] + pshape[dim + 1:]
    enc = SliceEncoding(dim, parent)
    ll = enc.to_linear_layout(shape)
    assert ll.get_in_dim_size("register") == total_elems_per_thread(enc, shape)
    # Each thread holds exactly the parent's elements (parent shape 1 on dim), projected.
    pll = parent.to_linear_layout(shape[:dim] + [1] + shape[dim:])
    drop = lambda c: c[:dim] + c[dim + 1:]
    got, want = owners(ll), owners(pll)
    assert got.keys() == want.keys()
    for k in got:
        assert got[k] == {drop(c) for c in want[k]}


def test_slice_text_and_queries():
    parent = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0])
    s = SliceEncoding(1, parent)
    text = "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>"
    assert str(s) == text and parse_layout_attr(text) == s
    assert s.to_text({parent: "#blocked"}) == "#ttg.slice<{dim = 1, parent = #blocked}>"
    assert parse_layout_attr("#ttg.slice<{dim = 1, parent = #blocked}>", {"#blocked": parent}) == s
    assert get_order(s) == [0] and get_order(SliceEncoding(0, parent)) == [0]
    assert threads_per_warp(s) == [8] and warps_per_cta(s) == [4] and num_warps(s) == 4
    assert elems_per_thread(s, [64]) == [2]


# -------------------------------------------------------------------- shared
@pytest.mark.parametrize("vec, per_phase, max_phase", [(1, 1, 1), (1, 1, 4), (2, 1, 4), (4, 2, 4), (8, 1, 8), (2, 4, 2), (16, 1, 2)])
@pytest.mark.parametrize("shape", [[16, 64], [32, 32], [8, 16]])
@pytest.mark.parametrize("order", [[1, 0], [0, 1]])
def test_swizzled_shared_formula(vec, per_phase, max_phase, shape, order):
    enc = SwizzledSharedEncoding(vec, per_phase, max_phase, order)
    ll = enc.to_linear_layout(shape)
    assert ll.in_dims == ["offset", "block"] and ll.is_invertible()
    inv = ll.invert()
    col_dim, row_dim = order
    n_cols = shape[col_dim]
    for r in range(shape[row_dim]):
        for c in range(n_cols):
            phase = (r // per_phase) % max_phase
            col = (((c // vec) ^ phase) * vec + c % vec) % n_cols
            idx = [0, 0]
            idx[row_dim], idx[col_dim] = r, c
            assert inv.apply({"dim0": idx[0], "dim1": idx[1]}) == {"offset": r * n_cols + col, "block": 0}


def test_swizzled_shared_3d_outer_dim():
    enc = SwizzledSharedEncoding(4, 1, 4, [2, 1, 0])
    inv = enc.to_linear_layout([2, 8, 16]).invert()
    assert inv.apply({"dim0": 1, "dim1": 3, "dim2": 5})["offset"] == 128 + 3 * 16 + ((1 ^ 3) * 4 + 1)


@pytest.mark.parametrize("width, bits", [(128, 16), (64, 16), (32, 16), (128, 32), (128, 8)])
def test_nvmma_matches_swizzled_when_row_is_one_line(width, bits):
    row = width * 8 // bits
    per_phase, max_phase = {128: (1, 8), 64: (2, 4), 32: (4, 2)}[width]
    nv = NVMMASharedEncoding(width, False, bits)
    sw = SwizzledSharedEncoding(128 // bits, per_phase, max_phase, [1, 0])
    assert nv.to_linear_layout([64, row]) == sw.to_linear_layout([64, row])
    assert nv.vec == sw.vec and nv.per_phase == per_phase and nv.max_phase == max_phase


def test_nvmma_wide_rows_use_column_strips():
    nv = NVMMASharedEncoding(128, False, 16)  # 64 fp16 per swizzle line
    inv = nv.to_linear_layout([16, 256]).invert()
    for r, c in [(0, 0), (3, 70), (15, 255), (9, 130)]:
        strip, cc = divmod(c, 64)
        col = ((cc // 8) ^ (r % 8)) * 8 + cc % 8
        assert inv.apply({"dim0": r, "dim1": c})["offset"] == strip * 16 * 64 + r * 64 + col
    t = NVMMASharedEncoding(128, True, 16)
    assert get_order(t) == [0, 1]
    assert t.to_linear_layout([64, 16]) == SwizzledSharedEncoding(8, 1, 8, [0, 1]).to_linear_layout([64, 16])
    with pytest.raises(ValueError):
        nv.to_linear_layout([4, 64])


# ---------------------------------------------------------------- text forms
@pytest.mark.parametrize("text", [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16, rank = 3}>",
    "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []}>",
])
def test_text_roundtrip(text):
    assert str(parse_layout_attr(text)) == text


def test_parse_accepts_old_prefix_and_rejects_garbage():
    enc = parse_layout_attr("#triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    assert enc == BlockedEncoding([1], [32], [4], [0])
    with pytest.raises(ValueError):
        parse_layout_attr("#ttg.blocked<{sizePerThread = [1]")
    with pytest.raises(ValueError):
        parse_layout_attr("#ttg.mystery<{a = 1}>")
    with pytest.raises(ValueError):
        BlockedEncoding([3], [32], [4], [0])


# ------------------------------------------------------------- linear + misc
@FAST
@given(blocked_cases())
def test_linear_encoding_roundtrip(case):
    enc, shape = case
    ll = enc.to_linear_layout(shape)
    lin = LinearEncoding(ll)
    assert lin.to_linear_layout(shape) == ll
    if ll.is_injective():
        # Without broadcasting it repeats over a larger tensor like the blocked one.
        big = [2 * n for n in shape]
        assert owners(lin.to_linear_layout(big)) == owners(enc.to_linear_layout(big))
    assert parse_layout_attr(str(lin)) == lin
    assert num_warps(lin) == num_warps(enc)
    assert prod(elems_per_thread(lin, shape)) == lin.to_linear_layout(shape).get_in_dim_size("register")


@FAST
@given(blocked_cases())
def test_contig_per_thread_bruteforce(case):
    enc, shape = case
    ll = enc.to_linear_layout(shape)
    fast = get_order(enc)[0]
    # Longest run of registers 0..n-1 holding consecutive elements along `fast`.
    n, regs = 1, ll.get_in_dim_size("register")
    at = lambda r: ll.apply({"register": r})
    while n * 2 <= regs and all(at(r) == dict(at(0), **{f"dim{fast}": at(0)[f"dim{fast}"] + r})
                                 for r in range(n * 2)):
        n *= 2
    assert contig_per_thread(enc, shape)[fast] == n


def test_queries_on_blocked_and_linear():
    enc = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0])
    lin = LinearEncoding(enc.to_linear_layout([64, 64]))
    assert get_order(lin) == [1, 0] and threads_per_warp(lin) == [8, 4] and warps_per_cta(lin) == [4, 1]
    assert elems_per_thread(enc, [64, 64]) == [2, 16] == elems_per_thread(lin, [64, 64])
    assert contig_per_thread(enc, [64, 64]) == [1, 4]
    assert total_elems_per_thread(enc, [16, 8]) == 4  # tile [32, 16] still needs sizePerThread
    with pytest.raises(ValueError):
        LinearEncoding(LinearLayout.identity_1d(4, "register", "dim0"))
