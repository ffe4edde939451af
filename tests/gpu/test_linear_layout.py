"""Property tests for tritium.gpu.linear_layout against brute-force evaluation."""
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from tritium.gpu.linear_layout import LinearLayout as LL

FAST = settings(max_examples=60, deadline=None)
IN_NAMES = ["register", "lane", "warp"]
OUT_NAMES = ["dim0", "dim1"]


# ----------------------------------------------------------------- helpers
@st.composite
def layouts(draw, ins=IN_NAMES, outs=OUT_NAMES, max_in_bits=6, surjective=False, exact=False):
    """Random layout on a prefix of ``ins``/``outs`` (all of them if ``exact``);
    with ``surjective`` an extra in-dim makes every output reachable."""
    in_dims = ins if exact else ins[:draw(st.integers(1, len(ins)))]
    out_dims = outs if exact else outs[:draw(st.integers(1, len(outs)))]
    n_out = len(out_dims)
    out_log2 = [draw(st.integers(0, 3)) for _ in out_dims]
    budget = max_in_bits
    bases = {}
    for d in in_dims:
        k = draw(st.integers(0, min(3, budget)))
        budget -= k
        bases[d] = [[draw(st.integers(0, (1 << b) - 1)) for b in out_log2] for _ in range(k)]
    ll = LL(bases, [(o, 1 << b) for o, b in zip(out_dims, out_log2)])
    if surjective and not ll.is_surjective():
        # Append identity bases on a fresh in-dim so every output is reachable.
        extra = [[1 << i if j == k else 0 for j in range(n_out)]
                 for k, b in enumerate(out_log2) for i in range(b)]
        ll = LL({**ll.bases, "block": extra}, list(ll.out_dim_sizes.items()))
    return ll


def all_inputs(ll):
    dims = ll.in_dims
    for vals in itertools.product(*(range(ll.get_in_dim_size(d)) for d in dims)):
        yield dict(zip(dims, vals))


def flat_in(ll, inp):
    """Pack an input dict with the first in-dim in the low bits."""
    x, sh = 0, 0
    for d in ll.in_dims:
        x |= inp.get(d, 0) << sh
        sh += ll.get_in_dim_size_log2(d)
    return x


def unflat_in(ll, x):
    out = {}
    for d in ll.in_dims:
        n = ll.get_in_dim_size_log2(d)
        out[d] = x & ((1 << n) - 1)
        x >>= n
    return out


def brute_apply(ll, inp):
    """XOR of the bases of the set bits, computed from the public bases."""
    acc = [0] * len(ll.out_dims)
    for d, vecs in ll.bases.items():
        for i, b in enumerate(vecs):
            if (inp.get(d, 0) >> i) & 1:
                acc = [a ^ v for a, v in zip(acc, b)]
    return dict(zip(ll.out_dims, acc))


def image(ll):
    return {tuple(ll.apply(i).values()) for i in all_inputs(ll)}


# -------------------------------------------------------------- basics
def test_constructors_and_repr():
    ident = LL.identity_1d(8, "register", "dim0")
    assert [ident.apply({"register": i})["dim0"] for i in range(8)] == list(range(8))
    strided = LL.strided_1d(4, 4, "lane", "dim0")
    assert [strided.apply({"lane": i})["dim0"] for i in range(4)] == [0, 4, 8, 12]
    assert strided.get_out_dim_size("dim0") == 16 and not strided.is_surjective()
    zeros = LL.zeros_1d(4, "lane", "dim0")
    assert zeros.get_out_dim_size("dim0") == 1 and zeros.free_variable_masks() == {"lane": 3}
    assert repr(LL.empty()) == "\n(empty layout)"
    ll = LL({"register": [[0, 1]], "lane": [], "warp": [[1, 0]]}, ["dim0", "dim1"])
    assert repr(ll) == ("\n - register=1 -> (0, 1)\n - lane is a size 1 dimension\n"
                        " - warp=1 -> (1, 0)\nwhere out dims are: [dim0 (size 2), dim1 (size 2)]")
    assert ll.bases == {"register": [(0, 1)], "lane": [], "warp": [(1, 0)]}


def test_inferred_sizes_must_be_surjective():
    with pytest.raises(ValueError):
        LL({"register": [[1], [4]]}, ["dim0"])
    ll = LL({"register": [[1], [4]]}, [("dim0", 8)])
    assert not ll.is_surjective() and ll.is_injective()


def test_eq_and_hash():
    a = LL.identity_1d(4, "i", "o") * LL.identity_1d(2, "i", "o")
    b = LL.identity_1d(8, "i", "o")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != LL({"i": [[1], [2], [4]]}, [("o", 16)])
    assert a.transpose_ins(["i"]) == a


@FAST
@given(layouts())
def test_apply_matches_bruteforce(ll):
    for inp in all_inputs(ll):
        assert ll.apply(inp) == brute_apply(ll, inp)


@FAST
@given(layouts())
def test_surjective_injective_bruteforce(ll):
    img = image(ll)
    assert ll.is_surjective() == (len(img) == ll.total_out_size)
    assert ll.is_injective() == (len(img) == ll.total_in_size)
    assert ll.is_invertible() == (ll.is_surjective() and ll.is_injective())


@FAST
@given(layouts())
def test_free_variable_masks_bruteforce(ll):
    # A bit is free when its basis is in the span of the earlier bases.
    masks = ll.free_variable_masks()
    flat = [flat_in(ll, {d: 1 << i}) for d in ll.in_dims for i in range(ll.get_in_dim_size_log2(d))]
    seen = {(0,) * len(ll.out_dims)}  # span of the bases seen so far
    for x in flat:
        v = tuple(ll.apply(unflat_in(ll, x)).values())
        d = unflat_in(ll, x)
        dim = next(dd for dd in ll.in_dims if d[dd])
        assert bool(masks[dim] & d[dim]) == (v in seen)
        if v not in seen:
            seen |= {tuple(a ^ b for a, b in zip(v, s)) for s in seen}
    assert (not any(masks.values())) == ll.is_injective()


def test_products_follow_upstream_examples():
    i4, z2 = LL.identity_1d(4, "i", "o"), LL.zeros_1d(2, "i", "o")
    assert [(i4 * z2).apply({"i": x})["o"] for x in range(8)] == [x % 4 for x in range(8)]
    assert [(z2 * i4).apply({"i": x})["o"] for x in range(8)] == [x // 2 for x in range(8)]
    two = LL.identity_1d(4, "i", "o1") * LL.identity_1d(8, "i", "o2")
    assert all(two.apply({"i": x}) == {"o1": x % 4, "o2": x // 4} for x in range(32))
    assert (LL.empty() * i4) == i4 == (i4 * LL.empty())
    with pytest.raises(ValueError):  # shared dims must keep their relative order
        LL({"a": [], "b": []}, []) * LL({"b": [], "a": []}, [])


@FAST
@given(layouts(ins=["register", "lane"]), layouts(ins=["lane", "warp"], outs=["dim1", "dim2"]))
def test_product_bruteforce(inner, outer):
    prod = inner * outer
    for inp in all_inputs(prod):
        lo = {d: v & (inner.get_in_dim_size(d) - 1) for d, v in inp.items() if inner.has_in_dim(d)}
        hi = {d: v >> (inner.get_in_dim_size_log2(d) if inner.has_in_dim(d) else 0)
              for d, v in inp.items() if outer.has_in_dim(d)}
        a, b = inner.apply(lo), outer.apply(hi)
        want = {o: a.get(o, 0) | (b.get(o, 0) << (inner.get_out_dim_size_log2(o) if o in a else 0))
                for o in prod.out_dims}
        assert prod.apply(inp) == want


@FAST
@given(layouts(outs=["dim0", "dim1"]), st.data())
def test_compose_bruteforce(ll, data):
    outer = data.draw(layouts(ins=ll.out_dims, outs=["x", "y"], exact=True))
    # Outer must accept every value ll produces.
    outer = LL({d: outer.bases.get(d, []) + [[0] * len(outer.out_dims)] * max(
        0, ll.get_out_dim_size_log2(d) - outer.get_in_dim_size_log2(d)) for d in ll.out_dims},
        list(outer.out_dim_sizes.items()))
    comp = ll.compose(outer)
    for inp in all_inputs(ll):
        assert comp.apply(inp) == outer.apply(ll.apply(inp))


@st.composite
def bijections(draw, dims=("register", "lane"), outs=("dim0", "dim1")):
    sizes = [draw(st.integers(0, 3)) for _ in outs]
    n = sum(sizes)
    # Random invertible matrix: a permutation composed with a unit lower-triangular one.
    perm = draw(st.permutations(list(range(n))))
    cols = []
    for j in range(n):
        v = 1 << perm[j]
        for i in range(j):
            if draw(st.booleans()):
                v ^= 1 << perm[i]
        cols.append(v)
    split = draw(st.integers(0, n))
    out_pairs = [(o, 1 << s) for o, s in zip(outs, sizes)]

    def unpack(v):
        vals, sh = [], 0
        for s in sizes:
            vals.append((v >> sh) & ((1 << s) - 1))
            sh += s
        return vals
    bases = {dims[0]: [unpack(c) for c in cols[:split]], dims[1]: [unpack(c) for c in cols[split:]]}
    return LL(bases, out_pairs)


@FAST
@given(bijections())
def test_invert_laws(ll):
    inv = ll.invert()
    for inp in all_inputs(ll):
        assert inv.apply(ll.apply(inp)) == inp
    for out in all_inputs(inv):
        assert ll.apply(inv.apply(out)) == out
    ident = LL.empty()
    for d in ll.in_dims:
        ident = ident * LL.identity_1d(ll.get_in_dim_size(d), d, d)
    assert ll.compose(inv) == ident


def smallest_preimage(outer, target):
    # Flat order of outer's in-dims: the first in-dim holds the low bits.
    for x in range(outer.total_in_size):
        if outer.apply(unflat_in(outer, x)) == target:
            return unflat_in(outer, x)
    return None


@FAST
@given(layouts(ins=["lane", "warp"], surjective=True), st.data())
def test_invert_and_compose_matches_bruteforce(outer, data):
    # No shared in-dim names, so no dim is mapped by the identity shortcut.
    sizes = list(outer.out_dim_sizes.items())
    raw = data.draw(layouts(ins=["register", "offset"], outs=outer.out_dims, exact=True))
    this = LL({d: [[min(v, s - 1) & (s - 1) for v, (_, s) in zip(b, sizes)] for b in vs]
               for d, vs in raw.bases.items()}, sizes)
    c = this.invert_and_compose(outer)
    assert c.in_dims == this.in_dims and c.out_dims == outer.in_dims
    for inp in all_inputs(this):
        assert c.apply(inp) == smallest_preimage(outer, this.apply(inp))


def test_invert_and_compose_keeps_identical_dims():
    # Both broadcast over warps: the conversion must not move data across warps.
    a = LL({"lane": [[1], [2]], "warp": [[0], [0]]}, ["dim0"])
    b = LL({"lane": [[2], [1]], "warp": [[0], [0]]}, ["dim0"])
    c = a.invert_and_compose(b)
    assert c.sublayout(["warp"], ["warp"]) == LL.identity_1d(4, "warp", "warp")
    for inp in all_inputs(a):
        assert b.apply(c.apply(inp)) == a.apply(inp)


@FAST
@given(layouts(surjective=True))
def test_pseudoinvert_picks_smallest_preimage(ll):
    p = ll.pseudoinvert()
    for out in all_inputs(p):
        assert p.apply(out) == smallest_preimage(ll, out)


@FAST
@given(layouts())
def test_num_consecutive_in_out_bruteforce(ll):
    first_in, first_out = ll.in_dims[0], ll.out_dims[0]

    def holds(v):
        for inp in all_inputs(ll):
            x = inp[first_in]
            base = dict(inp, **{first_in: x - x % v})
            got, ref = ll.apply(inp), ll.apply(base)
            if ref[first_out] & (v - 1) or got != dict(ref, **{first_out: ref[first_out] + x % v}):
                return False
        return True
    best = max(v for v in (1 << k for k in range(ll.get_in_dim_size_log2(first_in) + 1)) if holds(v))
    assert ll.get_num_consecutive_in_out() == best


@FAST
@given(layouts())
def test_reshape_transpose_roundtrips(ll):
    flat = ll.flatten_outs().flatten_ins()
    assert flat.reshape_ins(list(ll.in_dim_sizes.items())).reshape_outs(
        list(ll.out_dim_sizes.items())) == ll
    rev_out, rev_in = ll.out_dims[::-1], ll.in_dims[::-1]
    t = ll.transpose_outs(rev_out).transpose_ins(rev_in)
    for inp in all_inputs(ll):
        assert t.apply(inp) == ll.apply(inp)
    assert t.transpose_outs(ll.out_dims).transpose_ins(ll.in_dims) == ll


@FAST
@given(layouts())
def test_sublayout_and_concat(ll):
    ins, outs = ll.in_dims[:1], ll.out_dims[-1:]
    sub = ll.sublayout(ins, outs)
    for inp in all_inputs(sub):
        assert sub.apply(inp) == {o: ll.apply(inp)[o] for o in outs}
    rest = ll.sublayout(ll.in_dims[1:], ll.out_dims)
    assert ll.sublayout(ins, ll.out_dims).concat_ins(rest) == ll
    if len(ll.out_dims) == 2:
        left = ll.sublayout(ll.in_dims, ll.out_dims[:1])
        assert left.concat_outs(ll.sublayout(ll.in_dims, ll.out_dims[1:])) == ll


@FAST
@given(layouts(ins=["register", "lane"]), layouts(ins=["register", "lane", "warp"]))
def test_divide_inverts_product(tile, rest):
    # The quotient keeps the dividend's dims, so compare through the product.
    left = (tile * rest).divide_left(tile)
    assert left is not None and tile * left == tile * rest
    assert left.sublayout(rest.in_dims, rest.out_dims).flatten_outs().flatten_ins().bases \
        == rest.flatten_outs().flatten_ins().bases
    right = (rest * tile).divide_right(tile)
    assert right is not None and right * tile == rest * tile


def test_divide_returns_none_when_impossible():
    a = LL({"register": [[1], [2], [4]]}, ["dim0"])
    assert a.divide_left(LL({"register": [[2]]}, [("dim0", 4)])) is None
    assert a.divide_left(LL({"lane": [[1]]}, ["dim0"])) is None
    assert a.divide_right(LL({"register": [[2]]}, [("dim0", 4)])) is None
    tile = LL({"register": [[1]]}, ["dim0"])
    assert a.divide_left(tile) == LL({"register": [[1], [2]]}, ["dim0"])


def test_quotient():
    ll = LL.identity_1d(4, "register", "register") * LL.identity_1d(8, "lane", "lane")
    q = ll.quotient("lane")
    assert q == LL.identity_1d(4, "register", "register")
    mixed = LL({"register": [[0, 1], [1, 0]], "lane": [[0, 2]]}, ["register", "lane"])
    assert mixed.quotient("lane") is None and not mixed.is_trivial_over(["lane"])
