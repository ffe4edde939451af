"""16-bit tensor-core accumulators stored through `stmatrix.x4`: the plan
(`scratch.conversion_plan` with `stmatrix=True`) checked by simulating the instruction as
the PTX ISA defines it — register i of lane l holds row l/4, columns 2*(l%4) and +1 of
matrix i; lane 8i+r gives the address of row r of matrix i; a row is 8 contiguous 16-bit
elements — with addresses and registers chosen exactly as the NVIDIA lowering chooses them
(`stmatrix_view` composed with the scratch layout), then every destination register read
back from the scratch. The lowered PTX and ptxas are checked on Inductor's matmul template
in tests/gpu_dot/test_inductor_mm.py."""
import pytest

from tritium.gpu.layouts import parse_layout_attr
from tritium.gpu.scratch import conversion_plan, stmatrix_view

MMA3 = "#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, {n}, 16]}}>"
MMA2 = "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, 8]}}>"
BLK = "#ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = {t}, warpsPerCTA = {w}, order = [1, 0]}}>"

CASES = [  # (source, destination, shape, stmatrix expected)
    (MMA3.format(w=[8, 1], n=128), BLK.format(t=[2, 16], w=[8, 1]), [128, 128], True),
    (MMA3.format(w=[4, 1], n=128), BLK.format(t=[2, 16], w=[4, 1]), [64, 128], True),
    (MMA3.format(w=[8, 1], n=256), BLK.format(t=[1, 32], w=[8, 1]), [128, 256], True),
    (MMA3.format(w=[4, 2], n=64), BLK.format(t=[4, 8], w=[8, 1]), [64, 128], True),
    (MMA2.format(w=[4, 1]), BLK.format(t=[4, 8], w=[4, 1]), [64, 64], True),
    # registers alone already give 16-byte vectors: plain st.shared
    (MMA3.format(w=[4, 1], n=128), BLK.format(t=[2, 16], w=[4, 1]), [128, 128], False),
]


def _coord(ll, **hw):
    return tuple(ll.apply(hw).values())


@pytest.mark.parametrize("src,dst,shape,expect", CASES, ids=lambda x: str(x)[:40])
def test_stmatrix_round_trip(src, dst, shape, expect):
    s = parse_layout_attr(src).to_linear_layout(shape)
    d = parse_layout_attr(dst).to_linear_layout(shape)
    plan = conversion_plan(s, d, 16)
    assert plan.kind == "shared" and plan.stmatrix == expect
    if not expect:
        return
    check_stmatrix(s, d, plan.shared)


def check_stmatrix(s, d, sp):
    """Simulate the stmatrix stores of plan `sp` (src `s`) and the loads of `d`."""
    inv = sp.smem.invert()
    view = stmatrix_view(s)
    to_off = view.compose(inv).flatten_outs()
    assert [b[0] for b in to_off.bases["register"][:3]] == [1, 2, 4]
    scratch = {}
    nregs = s.get_in_dim_size("register")
    for w in range(s.get_in_dim_size("warp")):
        for k in range(0, nregs, 8):          # one stmatrix.x4 per 8 registers
            for lane in range(32):            # lane 8i+r: address of row r of matrix i
                i, r = lane >> 3, lane & 7
                row = to_off.apply({"register": k, "lane": lane, "warp": w})[to_off.out_dims[0]]
                assert row % 8 == 0, "stmatrix rows must be 16-byte aligned"
                for c in range(8):
                    src_lane, src_reg = (r << 2) | (c >> 1), k | (i << 1) | (c & 1)
                    val = _coord(s, register=src_reg, lane=src_lane, warp=w)
                    prev = scratch.setdefault(row + c, val)
                    assert prev == val, "two different elements stored at one address"
    flat_inv = inv.flatten_outs()
    for w in range(d.get_in_dim_size("warp")):
        for lane in range(32):
            for r in range(d.get_in_dim_size("register")):
                want = _coord(d, register=r, lane=lane, warp=w)
                off = flat_inv.apply(dict(zip(d.out_dims, want)))[flat_inv.out_dims[0]]
                assert scratch.get(off) == want
    # stmatrix needs 16-byte rows on the store side; the loads are the generic vector
    # loads of any width the plan chose (a mixed destination may read one element at a time).
    assert sp.vec_src == 8


def test_view_needs_eight_distinct_registers():
    """Fewer than 8 registers per thread (or broadcast ones) cannot fill an x4 store."""
    ll = parse_layout_attr(BLK.format(t=[2, 16], w=[4, 1])).to_linear_layout([8, 16])
    assert stmatrix_view(ll) is None


def _blocked_strategy():
    from hypothesis import strategies as st
    from tritium.gpu.layouts import BlockedEncoding

    @st.composite
    def blocked(draw, shape=(64, 64), warps=4):
        spt = [1 << draw(st.integers(0, 3)) for _ in range(2)]
        tpw, wpc = [1, 1], [1, 1]
        for _ in range(5):
            tpw[draw(st.integers(0, 1))] *= 2
        for _ in range(2):
            wpc[draw(st.integers(0, 1))] *= 2
        order = draw(st.permutations([0, 1]))
        return BlockedEncoding(spt, tpw, wpc, order).to_linear_layout(list(shape))
    return blocked


def test_stmatrix_round_trip_blocked_pairs():
    """Any source with 8 distinct registers per thread may take the stmatrix view: random
    blocked pairs, simulated wherever the planner picks it (and some do)."""
    from hypothesis import given, settings
    blocked = _blocked_strategy()
    seen = []

    @settings(max_examples=300, deadline=None)  # ~4% of pairs take stmatrix
    @given(blocked(), blocked())
    def run(s, d):
        plan = conversion_plan(s, d, 16)
        if plan.kind == "shared" and plan.stmatrix:
            seen.append(1)
            check_stmatrix(s, d, plan.shared)
    run()
    assert seen, "no random pair used stmatrix: the property was not exercised"
