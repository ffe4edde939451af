"""Layouts that make tt.trans / tt.reshape free: the inferred layout, seen through the op,
is exactly the other side's layout (no data moves), and it is written as a blocked layout
when one exists."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tritium.gpu.layouts import BlockedEncoding, LinearEncoding, default_blocked_encoding
from tritium.gpu.passes.layout_inference import (_reshape, _trans, encoding_for,
                                                 infer_dst_layout, infer_src_layout)
from tritium.ir.parser import parse_module

POW2 = st.sampled_from([1, 2, 4, 8, 16, 32, 64])


@st.composite
def blocked(draw, rank):
    shape = tuple(draw(POW2) for _ in range(rank))
    order = draw(st.permutations(list(range(rank))))
    spt = [min(draw(st.sampled_from([1, 1, 2, 4])), s) for s in shape]
    warps = draw(st.sampled_from([1, 2, 4, 8]))
    return shape, default_blocked_encoding(shape, warps, 32, spt, order)


def _op(text):
    module = parse_module("module {\n  tt.func public @f(%x: " + text[0] + ") {\n    %0 = "
                          + text[1] + "\n    tt.return\n  }\n}\n")
    func = next(iter(module.regions[0].entry))
    return next(op for op in func.walk() if op.name in ("tt.trans", "tt.reshape"))


def _t(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 3).flatmap(lambda r: st.tuples(blocked(r), st.permutations(
    list(range(r))))))
def test_trans_both_ways(args):
    (shape, enc), order = args
    dst_shape = tuple(shape[o] for o in order)
    op = _op((_t(shape), f"tt.trans %x {{order = array<i32: {', '.join(map(str, order))}>}} : "
              f"{_t(shape)} -> {_t(dst_shape)}"))
    dst = infer_dst_layout(op, enc)
    assert isinstance(dst, BlockedEncoding)
    assert dst.to_linear_layout(list(dst_shape)) == _trans(enc.to_linear_layout(list(shape)),
                                                           order)
    back = infer_src_layout(op, dst)
    assert back.to_linear_layout(list(shape)) == enc.to_linear_layout(list(shape))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3).flatmap(blocked), st.data())
def test_reshape_both_ways(src, data):
    shape, enc = src
    numel = 1
    for s in shape:
        numel *= s
    bits = numel.bit_length() - 1
    rank = data.draw(st.integers(1, 3))
    cuts = sorted(data.draw(st.lists(st.integers(0, bits), min_size=rank - 1,
                                     max_size=rank - 1)))
    edges = [0] + cuts + [bits]
    new_shape = tuple(1 << (edges[i + 1] - edges[i]) for i in range(rank))
    op = _op((_t(shape), f"tt.reshape %x {{allow_reorder = false}} : {_t(shape)} -> "
              f"{_t(new_shape)}"))
    dst = infer_dst_layout(op, enc)
    want = _reshape(enc.to_linear_layout(list(shape)), new_shape)
    assert isinstance(dst, (BlockedEncoding, LinearEncoding))
    assert dst.to_linear_layout(list(new_shape)) == want
    src_again = infer_src_layout(op, dst)
    assert src_again.to_linear_layout(list(shape)) == enc.to_linear_layout(list(shape))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3).flatmap(blocked))
def test_blocked_layouts_are_recognised(src):
    shape, enc = src
    got = encoding_for(enc.to_linear_layout(list(shape)), shape)
    assert got.to_linear_layout(list(shape)) == enc.to_linear_layout(list(shape))
    if all(s >= spt * t * w for s, spt, t, w in zip(shape, enc.size_per_thread,
                                                   enc.threads_per_warp, enc.warps_per_cta)):
        assert isinstance(got, BlockedEncoding)  # no broadcast: always a blocked layout
