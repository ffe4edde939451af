"""Planning ``ttg.convert_layout`` from linear layouts (pure math, no IR).

``plan_conversion(src, dst)`` computes the minimal conversion layout and picks
the cheapest mechanism, as upstream's ConvertLayoutOpToLLVM does:

* ``none``     - the data is already where it must be;
* ``register`` - each thread only renames its registers (``perm``);
* ``shuffle``  - data moves between lanes of a warp: ``shfl.sync.idx`` rounds;
* ``shared``   - data crosses warps: store to and load from a swizzled scratch
  buffer chosen by the optimal-swizzling recipe (GenericSwizzling).

The conversion layout maps *destination* hardware coordinates to the *source*
coordinates holding the same element (``dst.invert_and_compose(src)``, the
direction upstream uses): every lowering is a gather from the source.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .layouts import swizzled_shared_to_linear_layout  # noqa: F401  (re-export)
from .linear_layout import LinearLayout, XorBasis, gf2_rank, gf2_solver, log2

__all__ = [
    "ConversionPlan", "ShufflePlan", "SharedPlan", "minimal_cvt_layout", "plan_conversion",
    "plan_warp_shuffle", "optimal_swizzling", "bank_conflicts", "swizzled_shared_to_linear_layout",
]

REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"


# ------------------------------------------------------------ classification
def minimal_cvt_layout(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """dst-hardware -> src-hardware map with the unchanged slow dims removed.

    Dims are dropped from the slowest (block, warp, lane, register) for as long
    as the conversion acts as the identity on them.
    """
    comp = dst.invert_and_compose(src)
    common = []
    for s, d in zip(reversed(src.in_dims), reversed(dst.in_dims)):
        if s != d:
            break
        common.append(s)
    for dim in common:
        q = comp.quotient(dim)
        if q is None:
            break
        comp = q
    return comp


@dataclass(frozen=True)
class ShufflePlan:
    """``rounds`` rounds of one ``shfl.sync.idx`` per lane (same in every warp).

    In round k, lane l offers its source register ``send_reg[k][l]``, reads the
    value offered by lane ``src_lane[k][l]`` and stores it in its destination
    register ``dst_reg[k][l]``. Destination registers whose index differs only
    in ``dst_broadcast_mask`` bits are copies: dst[r] = dst[r & ~mask].
    """
    rounds: int
    send_reg: tuple[tuple[int, ...], ...]
    src_lane: tuple[tuple[int, ...], ...]
    dst_reg: tuple[tuple[int, ...], ...]
    dst_broadcast_mask: int


@dataclass(frozen=True)
class SharedPlan:
    """A scratch-buffer round trip: every warp stores, barrier, every warp loads.

    ``smem`` maps (vector, bank, segment, reps) -> tensor dims; the scratch
    offset of an element is its (vector, bank, segment) index, and ``reps``
    enumerates passes that reuse the buffer. ``vec_src``/``vec_dst`` are the
    elements per store/load (at most 128 bits); the conflict counts are extra
    wavefronts per instruction (0 means conflict free).
    """
    smem: LinearLayout
    vec_src: int
    vec_dst: int
    write_conflicts: int
    read_conflicts: int
    bitwidth: int

    @property
    def scratch_elems(self) -> int:
        return self.smem.total_in_size // self.smem.get_in_dim_size("reps")

    @property
    def num_reps(self) -> int:
        return self.smem.get_in_dim_size("reps")


@dataclass(frozen=True)
class ConversionPlan:
    kind: str  # "none" | "register" | "shuffle" | "shared"
    cvt: LinearLayout
    perm: list[int] | None = None
    shuffle: ShufflePlan | None = None
    shared: SharedPlan | None = field(default=None)
    # shared plan made for `stmatrix_view(src)`: the store side is stmatrix.x4 (sm_90)
    stmatrix: bool = False


def plan_conversion(src: LinearLayout, dst: LinearLayout, bitwidth: int = 32) -> ConversionPlan:
    """Classify and plan the conversion of one tensor from ``src`` to ``dst``."""
    if src.out_dim_sizes != dst.out_dim_sizes:
        raise ValueError("convert_layout cannot change the tensor shape")
    cvt = minimal_cvt_layout(src, dst)
    outs = cvt.out_dims
    if not outs:
        return ConversionPlan("none", cvt)
    if outs == [REG]:
        perm = [cvt.apply({REG: r})[REG] for r in range(cvt.get_in_dim_size(REG))]
        return ConversionPlan("register", cvt, perm=perm)
    if BLOCK in outs:
        raise NotImplementedError("conversions across CTAs (distributed shared memory)")
    if outs == [REG, LANE]:
        plan = plan_warp_shuffle(src, dst)
        if plan is not None:
            return ConversionPlan("shuffle", cvt, shuffle=plan)
    return ConversionPlan("shared", cvt, shared=optimal_swizzling(src, dst, bitwidth))


# ------------------------------------------------------------- warp shuffles
def _strip_regs(ll: LinearLayout) -> tuple[LinearLayout, list[int]]:
    """Drop broadcast (zero) register bases; return the kept bit positions."""
    keep = [i for i, b in enumerate(ll.bases[REG]) if any(b)]
    return ll.remove_zero_bases_along_dim(REG), keep


def _expand(x: int, positions: list[int]) -> int:
    return sum(1 << p for i, p in enumerate(positions) if (x >> i) & 1)


def plan_warp_shuffle(src: LinearLayout, dst: LinearLayout) -> ShufflePlan | None:
    """Schedule a within-warp conversion as 2^R rounds of ``shfl.sync.idx``.

    With C = [[Crr, Crl], [Clr, Cll]] the (register, lane) block of the
    dst->src map, round k has lane l' receive register r' = k ^ F l' from lane
    C_lane(r', l') while every lane l sends N k ^ G l. Consistency needs
    N = Crr ^ G Clr and N F = Crl ^ G Cll; choosing G so N has full row rank
    makes F solvable. Returns None when no such schedule exists.
    """
    src_s, src_keep = _strip_regs(src)
    dst_s, dst_keep = _strip_regs(dst)
    try:
        c = dst_s.invert_and_compose(src_s)
    except ValueError:
        return None
    for dim in (BLOCK, WARP):
        if dim in c.in_dims:
            q = c.quotient(dim)
            if q is None:
                return None
            c = q
    if c.in_dims != [REG, LANE] or c.out_dims != [REG, LANE]:
        return None
    rs, rd = c.get_out_dim_size_log2(REG), c.get_in_dim_size_log2(REG)
    nl = c.get_in_dim_size_log2(LANE)
    if rs > rd:
        return None
    # Column j of C (dst bit j) as a packed int: src register bits low, lanes high.
    cols_r = [c.get_basis(REG, j) for j in range(rd)]
    cols_l = [c.get_basis(LANE, j) for j in range(nl)]
    # Row i of Crr / Clr as a bitmask over dst register bits.
    row = lambda cols, i, k: sum(1 << j for j, b in enumerate(cols) if (b[k] >> i) & 1)
    crr = [row(cols_r, i, 0) for i in range(rs)]
    clr = [row(cols_r, i, 1) for i in range(nl)]
    crl = [row(cols_l, i, 0) for i in range(rs)]
    cll = [row(cols_l, i, 1) for i in range(nl)]
    g = _choose_g(crr, clr)
    if g is None:
        return None
    n_rows = [crr[i] ^ _xor_rows(clr, g[i]) for i in range(rs)]
    rhs_rows = [crl[i] ^ _xor_rows(cll, g[i]) for i in range(rs)]
    # Solve N F = RHS column by column (column j: dst lane bit j).
    n_cols = [sum(1 << i for i in range(rs) if (n_rows[i] >> j) & 1) for j in range(rd)]
    solve = gf2_solver(n_cols)
    f_cols = []
    for j in range(nl):
        f = solve(sum(1 << i for i in range(rs) if (rhs_rows[i] >> j) & 1))
        if f is None:
            return None
        f_cols.append(f)
    lanes, rounds = 1 << nl, 1 << rd
    mat = lambda rows, x: sum(1 << i for i, r in enumerate(rows) if bin(r & x).count("1") & 1)
    send, read, write = [], [], []
    for k in range(rounds):
        send.append(tuple(_expand(mat(n_rows, k) ^ mat(g, l), src_keep) for l in range(lanes)))
        rl, wr = [], []
        for lp in range(lanes):
            r = k ^ _xor_rows(f_cols, lp)
            rl.append(c._apply_flat(r | lp << rd) >> rs)  # packed: registers low, lanes high
            wr.append(_expand(r, dst_keep))
        read.append(tuple(rl))
        write.append(tuple(wr))
    mask = sum(1 << i for i in range(dst.get_in_dim_size_log2(REG)) if i not in dst_keep)
    return ShufflePlan(rounds, tuple(send), tuple(read), tuple(write), mask)


def _xor_rows(rows: list[int], sel: int) -> int:
    acc, i = 0, 0
    while sel:
        if sel & 1:
            acc ^= rows[i]
        sel >>= 1
        i += 1
    return acc


def _choose_g(crr: list[int], clr: list[int]) -> list[int] | None:
    """Rows g_i (masks over Clr rows) making Crr ^ G Clr full row rank."""
    # Rows of Crr independent modulo V = rowspace(Clr) stay as they are; each
    # other row is moved to (its span(S) part) ^ (a fresh basis vector of V).
    v_basis = []  # (vector, mask over clr rows)
    mod_v = XorBasis()  # tags: clr rows in the low bits, S row i at bit 64 + i
    for i, r in enumerate(clr):
        if mod_v.insert(r, 1 << i):
            v_basis.append((r, 1 << i))
    g = [0] * len(crr)
    if gf2_rank(crr) == len(crr):
        return g  # no lane-dependent register selection needed
    rest = []
    for i, r in enumerate(crr):
        if not mod_v.insert(r, 1 << (64 + i)):
            rest.append(i)
    fresh = iter(v_basis)
    for i in rest:
        tag = mod_v.solve(crr[i])
        try:
            _, b_tag = next(fresh)
        except StopIteration:
            return None
        # crr[i] = (S part) ^ (V part); cancel the V part and add a fresh b_j.
        v_part = tag & ((1 << 64) - 1)
        g[i] = v_part ^ b_tag
    return g


# ----------------------------------------------------------- shared memory
def _low_pivots(vectors: list[int]) -> set[int]:
    """Pivot columns of the RREF (columns = bits, lowest bit first)."""
    rows: dict[int, int] = {}
    for v in vectors:
        while v:
            lb = (v & -v).bit_length() - 1
            if lb not in rows:
                rows[lb] = v
                break
            v ^= rows[lb]
    return set(rows)


def _complement(vectors: list[int], dim: int) -> list[int]:
    piv = _low_pivots(vectors)
    return [1 << i for i in range(dim) if i not in piv]


def _nullspace(vectors: list[int], dim: int) -> list[int]:
    rows: dict[int, int] = {}
    for v in vectors:
        for p, r in rows.items():
            if (v >> p) & 1:
                v ^= r
        if v:
            p = (v & -v).bit_length() - 1
            for q in list(rows):
                if (rows[q] >> p) & 1:
                    rows[q] ^= v
            rows[p] = v
    out = []
    for c in range(dim):
        if c in rows:
            continue
        x = 1 << c
        for p, r in rows.items():
            if (r >> c) & 1:
                x ^= 1 << p
        out.append(x)
    return out


def _independent(base: list[int], candidates, limit: int | None = None) -> list[int]:
    """Candidates, in order, that are independent of ``base`` and of the
    candidates taken before them (at most ``limit`` of them)."""
    span = XorBasis()
    for v in base:
        span.insert(v, 0)
    out = []
    for c in candidates:
        if limit is not None and len(out) >= limit:
            break
        if span.insert(c, 0):
            out.append(c)
    return out


def _in_span(vectors: list[int]):
    span = XorBasis()
    for v in vectors:
        span.insert(v, 0)
    return lambda x: span.solve(x) is not None


def _intersection(b1: list[int], b2: list[int], dim: int) -> list[int]:
    """A basis of span(b1) ∩ span(b2), made of the inputs where possible:
    vectors of both lists first (in b1's order), then vectors of one list in
    the other's span, then whatever completes the intersection.

    For unit vectors this is just the common vectors in b1's order. With mixed
    vectors only the first ones can be registers of both sides (vectorisable);
    the list never holds a vector twice or one dependent on the others.
    """
    s2 = set(b2)
    common = [x for x in b1 if x and x in s2]
    if all(x & (x - 1) == 0 for x in b1 + b2):
        return _independent([], common)
    in1, in2 = _in_span(b1), _in_span(b2)
    cands = common + [x for x in b1 if in2(x)] + [x for x in b2 if in1(x)]
    cands += _nullspace(_nullspace(b1, dim) + _nullspace(b2, dim), dim)
    return _independent([], cands)


def _flat_bases(ll: LinearLayout, dim: str) -> list[int]:
    return [b[0] for b in ll.bases[dim]] if ll.has_in_dim(dim) else []


def _vector_bases(reg_src, reg_dst, lane_src, lane_dst, dim: int, bitwidth: int) -> list[int]:
    """Bases stored contiguously: common registers first, at most 128 bits.

    Sub-32-bit vectors are padded to a full word with one side's registers,
    then grown with that side's registers that are lanes of the other side
    (those still cost the other side nothing: its lanes read distinct words).
    Every basis added is independent of the ones before it (with mixed
    layouts a register can lie in the span of the common ones).
    """
    max_bases = log2(max(1, 128 // bitwidth))
    vb = _intersection(reg_src, reg_dst, dim)[:max_bases]
    if (1 << len(vb)) * bitwidth >= 32:
        return vb
    per_word = log2(32 // bitwidth)

    def grow(regs, other_lanes):
        filled = vb + _independent(vb, regs, per_word - len(vb))
        extra = [r for r in regs if r in other_lanes]
        return filled + _independent(filled, extra, max_bases - len(filled))

    a, b = grow(reg_src, set(lane_dst)), grow(reg_dst, set(lane_src))
    return a if len(a) >= len(b) else b


def _segment(vb: list[int], tile_src: list[int], tile_dst: list[int], dim: int, n: int,
             spans: bool = True) -> list[int]:
    """Up to ``n`` segment bases, independent of each other and of ``vb``.

    Lanes of one side collide in a bank when their difference lies in
    span(vector + segment) but not in span(vector). Upstream's recipe, on the
    bank lists S = vb + tile_src and D = vb + tile_dst:

    1. unit vectors in neither list (no lane of either side steps there);
    2. with A = S - D and B = D - S (|A| <= |B|, sorted), the pairs a_i ^ b_i:
       in neither list, so conflict free both ways;
    3. only if still short, some a_i and b_i on their own (these conflict).

    For unit vectors that is exact. Mixed layouts (bases combining several
    tensor bits) break it in two ways, both handled here:

    * a vector can be taken twice or depend on the others: unit 1 can be in
      neither list and still equal a pair (3 ^ 2), or a pair can equal a
      vector basis. Every vector is now kept only if it is independent of
      ``vb`` and of the segment so far, so the scratch layout stays a
      bijection.
    * "in neither list" is the wrong test: a vector outside both lists can
      still be a combination of one side's lanes and so conflict. With
      ``spans`` the recipe runs on subspaces instead: (1) units outside
      span(S + D), (2) A and B complete I = span(S) ∩ span(D) to span(S) and
      span(D). ``optimal_swizzling`` builds both variants and keeps the
      cheaper plan; for unit vectors the two agree.
    """
    if n <= 0:
        return []
    bank_src, bank_dst = vb + tile_src, vb + tile_dst
    taken = XorBasis()
    for v in vb:
        taken.insert(v, 0)
    seg: list[int] = []

    def take(v: int) -> None:
        if len(seg) < n and taken.insert(v, 0):
            seg.append(v)

    if spans:
        reach = XorBasis()
        for v in bank_src + bank_dst:
            reach.insert(v, 0)
        for b in range(dim):
            if reach.insert(1 << b, 0):
                take(1 << b)
        if len(seg) >= n:
            return seg
        common = _intersection(bank_src, bank_dst, dim)
        a = _independent(common, sorted(set(tile_src) - {0}))
        b = _independent(common, sorted(set(tile_dst) - {0}))
    else:
        s_src, s_dst = set(bank_src) - {0}, set(bank_dst) - {0}
        for b in range(dim):
            if (1 << b) not in s_src and (1 << b) not in s_dst:
                take(1 << b)
        if len(seg) >= n:
            return seg
        a = sorted(v for v in s_src if v not in s_dst)
        b = sorted(v for v in s_dst if v not in s_src)
    if len(a) > len(b):
        a, b = b, a
    k = min(max(0, n - len(a) - len(seg)), len(a))
    for i in range(k, len(a)):
        take(a[i] ^ b[i])  # conflict free both ways
    for v in a[:k] + b[:k]:  # only as a last resort: these cost conflicts
        take(v)
    return seg


def optimal_swizzling(src: LinearLayout, dst: LinearLayout, bitwidth: int = 32) -> SharedPlan:
    """Shared scratch layout for a register->shared->register conversion."""
    outs = [(d, src.get_out_dim_size(d)) for d in src.out_dims]
    dst = dst.transpose_outs(src.out_dims)
    # Blocks stay put (the conversion is trivial over them) and broadcast
    # registers are stored once; tensor dims are flattened (order is irrelevant).
    within = lambda ll: ll.sublayout([d for d in (REG, LANE, WARP) if ll.has_in_dim(d)], ll.out_dims)
    src_w, dst_w = (within(x).remove_zero_bases_along_dim(REG) for x in (src, dst))
    src_f, dst_f = src_w.flatten_outs(), dst_w.flatten_outs()
    dim = src_f.total_out_size_log2
    reg_s, reg_d = _flat_bases(src_f, REG), _flat_bases(dst_f, REG)
    lane_s, lane_d = _flat_bases(src_f, LANE), _flat_bases(dst_f, LANE)
    vb = _vector_bases(reg_s, reg_d, lane_s, lane_d, dim, bitwidth)
    vec_s, vec_d = _side_vec(vb, reg_s, bitwidth), _side_vec(vb, reg_d, bitwidth)
    tile_s = [b for b in _phase_lanes(lane_s, vec_s, bitwidth) if b not in vb]
    tile_d = [b for b in _phase_lanes(lane_d, vec_d, bitwidth) if b not in vb]
    n_bank = min(log2(max(1, 1024 // ((1 << len(vb)) * bitwidth))), dim - len(vb))
    n_seg = dim - n_bank - len(vb)

    def plan(seg: list[int]) -> SharedPlan:
        bank = _complement(vb + seg, dim)
        # Coordinates of a tensor offset in the scratch basis (vector, bank, segment).
        coords = gf2_solver(vb + bank + seg)
        # Bases held in registers on both sides become passes over a smaller
        # buffer, unless a lane or warp of either side steps along them
        # (mixed layouts): thread ids must not select the pass.
        hw = 0
        for ll in (src_f, dst_f):
            for d in (LANE, WARP):
                for x in _flat_bases(ll, d):
                    hw |= coords(x)
        both = set(reg_s) & set(reg_d)
        first_seg = len(vb) + len(bank)
        reps = [s for j, s in enumerate(seg) if s in both and not (hw >> (first_seg + j)) & 1]
        seg = [s for s in seg if s not in reps]
        col = lambda xs: [[x] for x in xs]
        smem = LinearLayout({"vector": col(vb), "bank": col(bank), "segment": col(seg), "reps": col(reps)},
                            [(src_f.out_dims[0], 1 << dim)], require_surjective=True).reshape_outs(outs)
        # Accesses must be aligned vectors: a basis outside a side's vector
        # that steps along the vector's offsets (possible with mixed layouts)
        # would start some vectors mid-way; such sides use shorter vectors.
        vs = _aligned_vec(src_f, vb, vec_s, coords)
        vd = _aligned_vec(dst_f, vb, vec_d, coords)
        w = bank_conflicts(src_w, smem, 1 << vs, bitwidth)
        r = bank_conflicts(dst_w, smem, 1 << vd, bitwidth)
        return SharedPlan(smem, 1 << vs, 1 << vd, w, r, bitwidth)

    # Upstream's recipe on the lists, then on their spans (they differ only
    # for mixed layouts); keep the plan with fewer wavefronts per element.
    best = plan(_segment(vb, tile_s, tile_d, dim, n_seg, spans=False))
    seg = _segment(vb, tile_s, tile_d, dim, n_seg, spans=True)
    if seg != [b[0] for b in best.smem.flatten_outs().bases["segment"]]:
        other = plan(seg)
        if _cost(other) < _cost(best):
            best = other
    return best


def _cost(sp: SharedPlan) -> float:
    # Wavefronts per element moved: each access moves vec elements and takes
    # 1 + conflicts wavefronts.
    return (1 + sp.write_conflicts) / sp.vec_src + (1 + sp.read_conflicts) / sp.vec_dst


def _aligned_vec(ll: LinearLayout, vb: list[int], n: int, coords) -> int:
    """Longest prefix (at most n) of the vector bases this side can access as
    aligned vectors: no other basis of the side touches those offset bits."""
    regs = _flat_bases(ll, REG)
    vec_pos = {regs.index(vb[j]) for j in range(n)}
    others = 0
    for d in (REG, LANE, WARP):
        for i, x in enumerate(_flat_bases(ll, d)):
            if not (d == REG and i in vec_pos):
                others |= coords(x)
    while n and others & ((1 << n) - 1):
        n -= 1
    return n


def _side_vec(vb: list[int], regs: list[int], bitwidth: int) -> int:
    # Leading vector bases this side holds in registers (registers can be
    # renamed freely), capped at one 128-bit access.
    n, have = 0, set(regs)
    while n < len(vb) and vb[n] in have and (2 << n) * bitwidth <= 128:
        n += 1
    return n


def _phase_lanes(lanes: list[int], log2_vec: int, bitwidth: int) -> list[int]:
    # 64/128-bit accesses are served per half/quarter warp: the top lane bits
    # select the phase, so only the lower lanes can collide with each other.
    drop = log2(max(1, min(4, (bitwidth << log2_vec) // 32)))
    return lanes[:len(lanes) - drop]


def bank_conflicts(layout: LinearLayout, smem: LinearLayout, vec: int, bitwidth: int) -> int:
    """Extra wavefronts per warp access when ``layout`` (register/lane/warp ->
    tensor) moves ``vec``-element vectors to/from the scratch layout ``smem``.

    Lanes of one phase hitting the same bank in different words serialise; for
    linear maps that count is 2^(dim ker(bank) - dim ker(word)) over the lanes.
    """
    flat = layout.transpose_outs(smem.out_dims).flatten_outs()
    sm = smem.flatten_outs()
    addr_bits = sm.total_in_size_log2 - sm.get_in_dim_size_log2("reps")
    solve = gf2_solver([b[0] for vecs in sm.bases.values() for b in vecs])
    lanes = _phase_lanes(_flat_bases(flat, LANE), log2(vec), bitwidth)
    unit_bits = max(vec * bitwidth, 32)
    unit_shift = log2(max(1, unit_bits // bitwidth))
    groups = max(1, 1024 // unit_bits)
    units, banks = [], []
    for x in lanes:
        off = solve(x) & ((1 << addr_bits) - 1)
        unit = off >> unit_shift
        units.append(unit)
        banks.append(unit & (groups - 1))
    ker_bank = len(lanes) - gf2_rank(banks)
    ker_unit = len(lanes) - gf2_rank(units)
    return (1 << (ker_bank - ker_unit)) - 1
