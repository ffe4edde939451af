"""Reductions of one row fused into one loop nest.

Inductor's persistent reductions reduce the same loaded row several times (softmax: `any`
of its non-finite flags, `max` of x, `max` of x/2; var: `max` and `sum`), each a pass of
lane partials over the row. A later `tt.reduce` of the same block joins the first one's
loop when it reduces a block of the same shape along the same (last) axis as SIMD lane
partials, and its operand is computable at the first one's place: every op it needs that
is not lowered yet is pure and lane-wise (elementwise, broadcasts, splats, constants),
so computing it earlier changes nothing. Those ops are lowered there and skipped at their
own place (`Ctx.early`). Each reduction keeps its own partials and combine order: the
results are those of the reductions run one after another.
"""
from __future__ import annotations

from typing import List

from ....ir import types as T
from ....ir.ops import lookup
from .context import Ctx
from . import reduce as R

_LANEWISE = {"tt.broadcast", "tt.splat", "arith.constant", "tt.expand_dims", "tt.make_range"}
_LIMIT = 64   # ops moved for one follower, at most


def _eligible(cx: Ctx, op, shape) -> bool:
    t = op.operand(0).type
    lanes = R.partial_lanes(cx)
    return (len(op.operands) == 1 and isinstance(t, T.TensorType) and list(t.shape) == shape
            and int(op.attr("axis")) == len(shape) - 1 and shape[-1] >= 2 * lanes
            and R._order_free(op) and not R._reads_columns(cx, op))


def _needs(cx: Ctx, v, block, moved: list, seen: set) -> bool:
    """Whether `v` can be computed now; the ops that must be lowered first go to `moved`."""
    if v in cx.vals:
        return True
    d = getattr(v, "op", None)
    if d is None or d.parent is not block or d.regions or len(seen) > _LIMIT:
        return False
    if id(d) in seen:
        return True
    traits = lookup(d.name).traits
    if d.name not in _LANEWISE and not ("Elementwise" in traits and "Pure" in traits):
        return False
    seen.add(id(d))
    if not all(_needs(cx, x, block, moved, seen) for x in d.operands):
        return False
    moved.append(d)
    return True


def _followers(cx: Ctx, op, shape) -> List[tuple]:
    out, seen = [], set()
    block = op.parent
    nxt = op.next
    while nxt is not None:
        if nxt.name == "tt.reduce" and _eligible(cx, nxt, shape):
            moved: list = []
            trial = set(seen)
            if _needs(cx, nxt.operand(0), block, moved, trial):
                seen = trial
                out.append((nxt, moved))
        nxt = nxt.next
    return out


def fuse(cx: Ctx, op) -> bool:
    """Lower `op` with the later reductions that can join its loop; False (nothing done)
    when none can."""
    shape = list(op.operand(0).type.shape) if isinstance(op.operand(0).type,
                                                          T.TensorType) else []
    if not shape or not _eligible(cx, op, shape):
        return False
    followers = _followers(cx, op, shape)
    if not followers:
        return False
    # (lowered here every time: a block lowered twice gets fresh values both times)
    lowered: set = set()
    for nxt, moved in followers:
        for d in sorted(moved, key=_position(op.parent)):
            if d not in lowered:
                cx.lower_op(d)
                lowered.add(d)
                cx.early.add(d)
        cx.early.add(nxt)
    ops = [op] + [f for f, _ in followers]
    oshape = shape[:-1]
    lanes = R.partial_lanes(cx)
    specs, done = [], []
    for o in ops:
        ins, ts, combine, post = R.prepare(cx, o)
        bufs, slot = R.slots(cx, ts, oshape)
        specs.append((combine, ins[0], ts[0], (lambda q, slot=slot: slot(0, q)),
                      R._tree_fold(o)))
        done.append((o, ts, bufs, post))
    R.lane_partials(cx, specs, shape, lanes)
    for o, ts, bufs, post in done:
        R.bind(cx, o, ts, bufs, oshape)
        post()
    return True


def _position(block):
    order = {id(o): i for i, o in enumerate(block)}
    return lambda o: order[id(o)]

