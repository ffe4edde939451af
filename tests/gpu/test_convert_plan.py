"""Layout-conversion planning, checked by simulating the planned data movement."""
from collections import defaultdict

import pytest
from hypothesis import given, settings, strategies as st

from tritium.gpu.convert import (
    bank_conflicts, minimal_cvt_layout, plan_conversion, swizzled_shared_to_linear_layout,
)
from tritium.gpu.layouts import BlockedEncoding, SliceEncoding, SwizzledSharedEncoding
from tritium.gpu.linear_layout import LinearLayout

FAST = settings(max_examples=25, deadline=None)
SHAPE = [64, 64]


def coord(ll, **hw):
    return tuple(ll.apply(hw).values())


def hw_points(ll):
    for w in range(ll.get_in_dim_size("warp")):
        for l in range(ll.get_in_dim_size("lane")):
            for r in range(ll.get_in_dim_size("register")):
                yield r, l, w


@st.composite
def blocked(draw, shape=tuple(SHAPE), warps=4):
    rank = len(shape)
    spt = [1 << draw(st.integers(0, 2)) for _ in range(rank)]
    tpw, wpc = [1] * rank, [1] * rank
    for _ in range(5):
        tpw[draw(st.integers(0, rank - 1))] *= 2
    for _ in range(warps.bit_length() - 1):
        wpc[draw(st.integers(0, rank - 1))] *= 2
    order = draw(st.permutations(list(range(rank))))
    return BlockedEncoding(spt, tpw, wpc, order).to_linear_layout(list(shape))


def remix_within_warp(ll, data):
    """Same warp bases; registers and lanes replaced by a random invertible
    recombination of the original ones (still a layout of the same tensor)."""
    regs, lanes = ll.bases["register"], ll.bases["lane"]
    vecs = regs + lanes
    n = len(vecs)
    perm = data.draw(st.permutations(list(range(n))))
    mixed = []
    for j in range(n):
        v = vecs[perm[j]]
        for i in range(j):
            if data.draw(st.booleans()):
                v = tuple(a ^ b for a, b in zip(v, vecs[perm[i]]))
        mixed.append(v)
    bases = dict(ll.bases, register=mixed[:len(regs)], lane=mixed[len(regs):])
    return LinearLayout(bases, list(ll.out_dim_sizes.items()))


def simulate_shuffle(plan, src, dst):
    for w in range(src.get_in_dim_size("warp")):
        got = {}
        for k in range(plan.rounds):
            offered = [coord(src, register=plan.send_reg[k][l], lane=l, warp=w) for l in range(32)]
            for l in range(32):
                got[plan.dst_reg[k][l], l] = offered[plan.src_lane[k][l]]
        for r, l, _ in hw_points(dst):
            base = r & ~plan.dst_broadcast_mask
            assert got[base, l] == coord(dst, register=r, lane=l, warp=w)


def simulate_conflicts(ll, smem, vec, bitwidth):
    """Worst extra wavefronts of one warp-wide vectorised access, by enumeration.

    128-bit accesses are served per quarter warp, 64-bit per half warp; within
    a phase, distinct 32-bit words in one bank serialise.
    """
    inv = smem.invert()
    nv, nb = smem.get_in_dim_size_log2("vector"), smem.get_in_dim_size_log2("bank")

    def addr(c):
        o = inv.apply(dict(zip(ll.out_dims, c)))
        return o["vector"] | o["bank"] << nv | o["segment"] << (nv + nb), o["reps"]
    ll = ll.remove_zero_bases_along_dim("register")
    regs = ll.bases["register"]
    vec_bases = smem.bases["vector"][:vec.bit_length() - 1]
    vec_mask = sum(1 << regs.index(b) for b in vec_bases)
    phases = min(4, max(1, vec * bitwidth // 32))
    worst = 0
    for w in range(ll.get_in_dim_size("warp")):
        for key in range(ll.get_in_dim_size("register")):
            if key & vec_mask:
                continue
            group = [r for r in range(ll.get_in_dim_size("register")) if r & ~vec_mask == key]
            for p in range(phases):
                words = defaultdict(set)
                for l in range(p * 32 // phases, (p + 1) * 32 // phases):
                    offs = sorted(addr(coord(ll, register=r, lane=l, warp=w)) for r in group)
                    first = offs[0][0]
                    # One aligned, contiguous vector per lane and instruction.
                    assert first % vec == 0 and offs == [(first + i, offs[0][1]) for i in range(vec)]
                    for off, _ in offs:
                        for word in range(off * bitwidth // 32, (off * bitwidth + bitwidth - 1) // 32 + 1):
                            words[word % 32].add(word)
                worst = max(worst, max(len(s) for s in words.values()) - 1)
    return worst


def check_shared(plan, src, dst):
    sh = plan.shared
    smem = sh.smem
    assert smem.in_dims == ["vector", "bank", "segment", "reps"] and smem.is_invertible()
    assert smem.out_dim_sizes == src.out_dim_sizes
    assert sh.vec_src * sh.bitwidth <= 128 and sh.vec_dst * sh.bitwidth <= 128
    assert sh.write_conflicts == simulate_conflicts(src, smem, sh.vec_src, sh.bitwidth)
    assert sh.read_conflicts == simulate_conflicts(dst, smem, sh.vec_dst, sh.bitwidth)


# ------------------------------------------------------------------- tests
def test_identical_layouts_need_nothing():
    a = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    plan = plan_conversion(a, a)
    assert plan.kind == "none" and plan.cvt.out_dims == []


def test_register_permutation():
    src = BlockedEncoding([2, 2], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    dst = BlockedEncoding([2, 2], [8, 4], [4, 1], [0, 1])
    dst = LinearLayout(dict(src.bases, register=src.bases["register"][::-1]), list(src.out_dim_sizes.items()))
    plan = plan_conversion(src, dst)
    assert plan.kind == "register"
    for r, l, w in hw_points(dst):
        assert coord(src, register=plan.perm[r], lane=l, warp=w) == coord(dst, register=r, lane=l, warp=w)


@FAST
@given(blocked(shape=(32, 32)), st.data())
def test_within_warp_conversions_are_shuffles(src, data):
    dst = remix_within_warp(src, data)
    plan = plan_conversion(src, dst)
    if plan.kind == "register":
        for r, l, w in hw_points(dst):
            assert coord(src, register=plan.perm[r], lane=l, warp=w) == coord(dst, register=r, lane=l, warp=w)
        return
    if plan.kind == "shared":
        # Only when lane broadcasting makes the register counts differ.
        assert not src.is_injective() or not dst.is_injective()
        check_shared(plan, src, dst)
        return
    assert plan.kind in ("shuffle", "none")
    if plan.kind == "shuffle":
        assert plan.shuffle.rounds == dst.get_in_dim_size("register")
        simulate_shuffle(plan.shuffle, src, dst)


def test_shuffle_with_broadcast_registers():
    # dst holds every value twice (a zero register basis): copies after the shuffle.
    src = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    mid = BlockedEncoding([4, 1], [2, 16], [4, 1], [0, 1]).to_linear_layout(SHAPE)
    dst = LinearLayout(dict(mid.bases, register=mid.bases["register"] + [(0, 0)]),
                       list(mid.out_dim_sizes.items()))
    plan = plan_conversion(src, dst)
    assert plan.kind == "shuffle" and plan.shuffle.dst_broadcast_mask == 1 << 5
    simulate_shuffle(plan.shuffle, src, dst)


def test_lane_broadcast_source_falls_back_to_shared():
    src = BlockedEncoding([1, 4], [8, 4], [1, 1], [1, 0]).to_linear_layout([8, 8])
    dst = BlockedEncoding([1, 1], [8, 4], [1, 1], [1, 0]).to_linear_layout([8, 8])
    plan = plan_conversion(src, dst)
    assert plan.cvt.out_dims == ["register", "lane"] and plan.kind == "shared"
    check_shared(plan, src, dst)


def test_minimal_cvt_drops_unchanged_dims():
    a = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    b = BlockedEncoding([1, 1], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    cvt = minimal_cvt_layout(a, b)
    assert cvt.in_dims == ["register", "lane"] == cvt.out_dims
    c = BlockedEncoding([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout(SHAPE)
    assert minimal_cvt_layout(a, c).out_dims == ["register", "lane", "warp"]


@pytest.mark.parametrize("bitwidth", [32, 16, 8, 64])
def test_classic_transpose_is_conflict_free(bitwidth):
    src = BlockedEncoding([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    dst = BlockedEncoding([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout(SHAPE)
    plan = plan_conversion(src, dst, bitwidth)
    assert plan.kind == "shared"
    check_shared(plan, src, dst)
    if bitwidth == 32:
        sh = plan.shared
        assert (sh.vec_src, sh.vec_dst) == (4, 4)
        assert sh.write_conflicts == 0 and sh.read_conflicts == 0
        assert sh.scratch_elems * sh.num_reps == 64 * 64


@FAST
@given(blocked(), blocked(), st.sampled_from([8, 16, 32]))
def test_shared_plans_are_valid_and_predictions_exact(src, dst, bitwidth):
    plan = plan_conversion(src, dst, bitwidth)
    if plan.kind == "shared":
        check_shared(plan, src, dst)


def test_shared_plan_with_broadcasting_slice():
    parent = BlockedEncoding([1, 1], [4, 8], [2, 2], [1, 0])
    src = SliceEncoding(0, parent).to_linear_layout([64])
    dst = BlockedEncoding([2], [32], [4], [0]).to_linear_layout([64])
    plan = plan_conversion(src, dst)
    assert plan.kind == "shared" and plan.shared.smem.is_invertible()
    assert plan.shared.read_conflicts == simulate_conflicts(dst, plan.shared.smem, plan.shared.vec_dst, 32)


def test_bank_conflicts_of_unswizzled_column_access():
    # Each lane reads one column of a row-major 32x32 fp32 tile: 32-way conflict.
    smem = LinearLayout({"vector": [], "bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                         "segment": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "reps": []},
                        ["dim0", "dim1"])
    reg = LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                        "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "warp": [], "block": []},
                       ["dim0", "dim1"])
    assert bank_conflicts(reg, smem, 1, 32) == 31 == simulate_conflicts(reg, smem, 1, 32)


def test_swizzled_shared_reexport():
    enc = SwizzledSharedEncoding(4, 1, 8, [1, 0])
    assert swizzled_shared_to_linear_layout(enc, [32, 32]) == enc.to_linear_layout([32, 32])
