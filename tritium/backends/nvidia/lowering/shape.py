"""Shape ops: make_range, splat, broadcast, expand_dims, trans, reshape, join, split, cat.

make_range reads the thread's coordinates off the layout; broadcast and expand_dims view
the result layout in the operand's coordinates (dropping the grown dims) and move registers
there; trans/reshape/join/split/cat relabel the operand's layout into the result's
coordinates (`tritium.gpu.scratch`) and move data with the convert_layout machinery —
usually a pure register renaming, a shuffle or a shared-memory round trip otherwise.
"""
from __future__ import annotations

from ....gpu.linear_layout import LinearLayout
from ....gpu.scratch import shape_op_conversions
from ....ir import types as T
from .context import FunctionContext, LoweringError, elem_type, lowers
from .convert_layout import move


@lowers("tt.make_range")
def _make_range(ctx: FunctionContext, op) -> None:
    start = int(op.attr("start"))
    ll = ctx.ll(op.result.type)
    out = []
    cache = {}
    for row in ctx.coords(ll):
        c = row[0]
        v = cache.get(c)
        if v is None:
            if c.lstrip("-").isdigit():
                v = str(int(c) + start)
            elif start:
                v = ctx.e.pro(f"add nuw nsw i32 {c}, {start}", "r")
            else:
                v = c
            cache[c] = v
        out.append(v)
    ctx.set(op.result, out)


@lowers("tt.splat")
def _splat(ctx: FunctionContext, op) -> None:
    ctx.set(op.result, [ctx.get(op.operands[0])] * ctx.num_regs(op.result.type))


def _drop_dims(ll: LinearLayout, keep: list, sizes: list) -> LinearLayout:
    """`ll` with out-dims restricted/zeroed: new dim i is old dim keep[i] (or zero when
    keep[i] is None), of size sizes[i]."""
    bases = {}
    for d, vecs in ll.bases.items():
        bases[d] = [[(b[k] if k is not None else 0) for k in keep] for b in vecs]
    return LinearLayout(bases, [(f"dim{i}", s) for i, s in enumerate(sizes)])


@lowers("tt.broadcast")
def _broadcast(ctx: FunctionContext, op) -> None:
    src, dst = op.operands[0].type, op.result.type
    vals = ctx.get(op.operands[0])
    if not isinstance(src, T.TensorType):
        ctx.set(op.result, [vals] * ctx.num_regs(dst))
        return
    dll = ctx.ll(dst)
    keep = [d if src.dims[d] == dst.dims[d] else None for d in range(len(dst.dims))]
    view = _drop_dims(dll, keep, list(src.dims))
    ctx.set(op.result, move(ctx, op, vals, ctx.ll(src), view, elem_type(dst)))


@lowers("tt.expand_dims")
def _expand_dims(ctx: FunctionContext, op) -> None:
    src, dst = op.operands[0].type, op.result.type
    vals = ctx.get(op.operands[0])
    if not isinstance(src, T.TensorType):
        ctx.set(op.result, [vals] * ctx.num_regs(dst))
        return
    axis = int(op.attr("axis"))
    keep = [d for d in range(len(dst.dims)) if d != axis]
    view = _drop_dims(ctx.ll(dst), keep, list(src.dims))
    ctx.set(op.result, move(ctx, op, vals, ctx.ll(src), view, elem_type(dst)))


@lowers("tt.trans", "tt.reshape", "tt.join", "tt.cat")
def _relabel(ctx: FunctionContext, op) -> None:
    ((src_ll, dst_ll, _),) = shape_op_conversions(op)
    vals = list(ctx.get(op.operands[0]))
    if op.name in ("tt.join", "tt.cat"):
        vals = vals + list(ctx.get(op.operands[1]))
    if len(vals) != src_ll.get_in_dim_size("register"):
        raise LoweringError(f"{op.name}: register count mismatch")
    ctx.set(op.result, move(ctx, op, vals, src_ll, dst_ll, elem_type(op.result.type)))


@lowers("tt.split")
def _split(ctx: FunctionContext, op) -> None:
    ((src_ll, dst_ll, _),) = shape_op_conversions(op)
    vals = move(ctx, op, list(ctx.get(op.operands[0])), src_ll, dst_ll,
                elem_type(op.results[0].type))
    n = len(vals) // 2
    a, b = vals[:n], vals[n:]
    for r, v in zip(op.results, (a, b)):
        if isinstance(r.type, T.TensorType):
            ctx.set(r, v)
        else:
            ctx.set(r, v[0])
