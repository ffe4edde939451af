"""tritongpu-optimize-thread-locality: a reduction accumulated across a loop reduces within
each thread inside the loop and across threads once, after it.

    acc = init                                 part = neutral            (one per thread slot)
    for ...:                                   for ...:
        x = tt.load ...          [M, N]            x = tt.load ...                  [M, N]
        acc = acc + sum(x, axis=-1)                v = view x as [M, H, E]          (free)
                                                   part = part + sum(v, axis=-1)    (in-thread)
                                               acc = init + convert(sum(part, axis=-1))

Along the reduced axis a thread of the load's blocked layout holds E = R x S elements (R
repetitions of its S contiguous ones) and H = N / E threads x warps share a row. Viewing
the tile as [M, H, E] — a reshape to [M, R, H, S], the R and H dims swapped, a reshape to
[M, H, R*S] — puts each thread's elements of the row along the last dim, so the in-loop
reduction needs no shuffles or shared memory; the cross-thread tree (shuffles, and shared
memory across warps) runs once per kernel instead of once per iteration. The view's layout
is the load's seen through those ops (`layout_inference`); the rewrite is applied only when
it holds exactly the elements of the blocked layout upstream gives the [M, H, E] tile
(sizePerThread S along the new dim, one thread and warp there), so the view costs no data
movement (at most a register renaming).

Conditions (upstream's OptimizeThreadLocality, plus one): the reduce has one operand,
loaded by `tt.load` in a blocked layout of rank > 1, reduced along its last dim; its
combine region is one `arith.addf/mulf/maximumf/maxnumf/minimumf/minnumf`; each thread
holds more than one element along the axis; the result's only use is an update op of the
same kind with the loop-carried accumulator (upstream does not check the kind: summing
partial maxima would be wrong), yielded straight back; the accumulator's init is a
constant and the update is its only use in the loop. Reordering the sum changes float
rounding the way any reduction tree does.

Upstream's pass also picks layouts for `tt.reshape(allow_reorder)` and `tt.gather`
feeding reductions; tritium's pass does only the reduction rewrite.
"""
from __future__ import annotations

from typing import List, Optional

from ...ir import types as T
from ...ir.attrs import DenseArrayAttr, i32_attr
from ...ir.builder import Builder
from ...ir.core import Operation, Region, Value
from ...passes.combine import single_combiner
from ...passes.manager import Pass, register_pass
from ..layouts import BlockedEncoding, SliceEncoding, elems_per_thread
from .layout_inference import _reshape, _trans, encoding_for

__all__ = ["OptimizeThreadLocality", "optimize_thread_locality"]

_INF = float("inf")
# The combine ops the rewrite takes, with the value each per-thread partial starts from.
NEUTRAL = {"arith.addf": 0.0, "arith.mulf": 1.0, "arith.maximumf": -_INF,
           "arith.maxnumf": -_INF, "arith.minimumf": _INF, "arith.minnumf": _INF}


def _combine_op(reduce: Operation) -> Optional[Operation]:
    op = single_combiner(reduce)
    return op if op is not None and op.name in NEUTRAL else None


def _candidate(reduce: Operation) -> Optional[tuple]:
    """(loop, update op, carried index) when `reduce` can be split; else None."""
    if reduce.num_operands != 1 or len(reduce.results) != 1:
        return None
    src = reduce.operand(0)
    st = src.type
    if not isinstance(st, T.TensorType) or not isinstance(st.encoding, BlockedEncoding) \
            or not st.encoding.cta_layout.is_default():
        return None
    rank = len(st.dims)
    if rank < 2 or int(reduce.attr("axis")) != rank - 1:
        return None
    if src.owner_op is None or src.owner_op.name != "tt.load":
        return None
    combine = _combine_op(reduce)
    if combine is None:
        return None
    if elems_per_thread(st.encoding, st.dims)[rank - 1] == 1:
        return None  # nothing to reduce within a thread
    uses = reduce.results[0].uses
    if len(uses) != 1:
        return None
    update = uses[0].owner
    if update.name != combine.name or update.num_operands != 2 or \
            len(update.results) != 1 or len(update.results[0].uses) != 1:
        return None
    yuse = update.results[0].uses[0]
    yld = yuse.owner
    loop = yld.parent_op
    if yld.name != "scf.yield" or loop is None or loop.name != "scf.for" or \
            reduce.parent is not loop.regions[0].entry:
        return None
    idx = yuse.index  # the carried value's index among the loop's iter args
    acc = loop.regions[0].entry.args[idx + 1]
    other = [v for v in update.operands if v is not reduce.results[0]]
    if other != [acc] or len(acc.uses) != 1:
        return None
    init = loop.operand(3 + idx)
    if init.owner_op is None or init.owner_op.name != "arith.constant":
        return None
    return loop, update, idx


def _local_layout(enc: BlockedEncoding, axis: int) -> BlockedEncoding:
    """The [..., H, E] tile's layout: the axis keeps the threads and warps, the new last
    dim holds a thread's elements (S at a time)."""
    spt = list(enc.size_per_thread)
    s = spt[axis]
    spt[axis] = 1
    return BlockedEncoding(spt + [s], list(enc.threads_per_warp) + [1],
                           list(enc.warps_per_cta) + [1], [len(spt)] + list(enc.order))


def _same_threads(a, b) -> bool:
    """Two linear layouts give every thread the same elements (registers may differ in
    order)."""
    if a.out_dims != b.out_dims or a.in_dims != b.in_dims:
        return False
    if any(a.bases[d] != b.bases[d] for d in a.bases if d != "register"):
        return False
    ra, rb = a.bases["register"], b.bases["register"]
    return len(ra) == len(rb) and sorted(map(tuple, ra)) == sorted(map(tuple, rb))


def _thread_local_view(b: Builder, x: Value, shape3, enc3) -> Optional[Value]:
    """`x` [..., N] viewed as [..., H, E] in `enc3` through free reshape/trans ops, or None
    when the view would move data between threads."""
    st = x.type
    rank = len(st.dims)
    lead, n = list(st.dims[:-1]), st.dims[-1]
    h, e = shape3[-2], shape3[-1]
    s = enc3.size_per_thread[-1]
    r = e // s
    factor = lead + [r, h, s]
    perm = list(range(rank + 2))
    perm[rank - 1], perm[rank] = perm[rank], perm[rank - 1]
    ll = st.encoding.to_linear_layout(list(st.dims))
    ll4 = _reshape(ll, factor)
    ll5 = _trans(ll4, perm)
    ll3 = _reshape(ll5, shape3)
    want = enc3.to_linear_layout(list(shape3))
    if not _same_threads(ll3, want) or n != h * e:
        return None
    encs = [encoding_for(ll4, factor), encoding_for(ll5, [factor[p] for p in perm])]
    if None in encs:
        return None
    t4 = T.TensorType(factor, st.element, encs[0])
    t5 = T.TensorType([factor[p] for p in perm], st.element, encs[1])
    v = b.create1("tt.reshape", [x], t4, {"allow_reorder": False, "efficient_layout": True})
    v = b.create1("tt.trans", [v], t5, {"order": DenseArrayAttr(T.IntegerType(32), tuple(perm))})
    if ll3 == want:
        return b.create1("tt.reshape", [v], T.TensorType(shape3, st.element, enc3),
                         {"allow_reorder": False, "efficient_layout": True})
    enc_v = encoding_for(ll3, shape3)
    if enc_v is None:
        return None
    v = b.create1("tt.reshape", [v], T.TensorType(shape3, st.element, enc_v),
                  {"allow_reorder": False, "efficient_layout": True})
    return b.create1("ttg.convert_layout", [v], T.TensorType(shape3, st.element, enc3))


def _reduce_like(b: Builder, reduce: Operation, operand: Value, axis: int) -> Value:
    """A copy of `reduce` (same combine region) over `operand` along `axis`."""
    ot = operand.type
    dims = [d for i, d in enumerate(ot.dims) if i != axis]
    rt = T.TensorType(dims, ot.element, SliceEncoding(axis, ot.encoding))
    new = Operation("tt.reduce", [operand], [rt], dict(reduce.attributes), 0, reduce.loc)
    new.set_attr("axis", i32_attr(axis))
    region = Region(new)
    new.regions.append(region)
    reduce.regions[0].clone_into(region, {})
    b.insert(new)
    return new.results[0]


def _add_iter_arg(loop: Operation, init: Value) -> Operation:
    """A copy of `loop` carrying one more value (last), the body moved into it; the old
    loop's results are replaced by the new one's and the old loop erased."""
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc
    new = b.create("scf.for", list(loop.operands) + [init],
                   loop.result_types + [init.type], dict(loop.attributes), num_regions=1)
    body = loop.regions[0].entry
    nbody = new.regions[0].add_block()
    for a in body.args:
        a.replace_all_uses_with(nbody.add_argument(a.type))
    nbody.add_argument(init.type)
    for op in list(body):
        op.remove_from_parent()
        nbody.append(op)
    loop.replace_all_uses_with(new.results[:len(loop.results)])
    loop.erase()
    return new


def _rewrite(reduce: Operation, loop: Operation, update: Operation, idx: int) -> bool:
    src = reduce.operand(0)
    st = src.type
    rank = len(st.dims)
    axis = rank - 1
    enc3 = _local_layout(st.encoding, axis)
    e = elems_per_thread(st.encoding, st.dims)[axis]
    if st.dims[axis] % e:
        return False
    shape3 = list(st.dims[:-1]) + [st.dims[axis] // e, e]
    b = Builder()
    b.set_insertion_point_after(reduce)
    b.loc = reduce.loc
    view = _thread_local_view(b, src, shape3, enc3)
    if view is None:
        # nothing was inserted unless the view exists (checks come before any op)
        return False
    init = loop.operand(3 + idx)
    part_t = T.TensorType(shape3[:-1], st.element, SliceEncoding(rank, enc3))
    ib = Builder()
    ib.set_insertion_point_after(init.owner_op)
    ib.loc = init.owner_op.loc
    neutral = ib.constant(NEUTRAL[update.name], part_t)
    loop = _add_iter_arg(loop, neutral)
    body = loop.regions[0].entry
    part = body.args[-1]
    local = _reduce_like(b, reduce, view, rank)
    new_part = b.create1(update.name, [part, local], part_t, dict(update.attributes))
    yld = body.last
    yld.set_operand(idx, body.args[idx + 1])  # the old accumulator is now unchanged
    yld.add_operand(new_part)
    update.erase()
    reduce.erase()
    # after the loop: across threads, back to the accumulator's layout, plus the init
    res = loop.results[idx]
    ab = Builder()
    ab.set_insertion_point_after(loop)
    ab.loc = loop.loc
    total = _reduce_like(ab, local.owner_op, loop.results[-1], axis)
    total = ab.create1("ttg.convert_layout", [total], res.type)
    res.replace_all_uses_with(ab.create1(update.name, [init, total], res.type,
                                         dict(update.attributes)))
    return True


def optimize_thread_locality(module: Operation) -> int:
    """Split every reduction that qualifies; returns how many were split."""
    n = 0
    for reduce in [op for op in module.walk() if op.name == "tt.reduce"]:
        found = _candidate(reduce)
        if found is not None and _rewrite(reduce, *found):
            n += 1
    return n


@register_pass
class OptimizeThreadLocality(Pass):
    name = "tritongpu-optimize-thread-locality"
    aliases = ("optimize-thread-locality",)
    description = "loop-accumulated reductions reduced within each thread in the loop"

    def run(self, module: Operation) -> None:
        optimize_thread_locality(module)
