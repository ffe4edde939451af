"""reorder-broadcast: move tt.splat and tt.broadcast after elementwise ops, so the
arithmetic runs on the small operand (a scalar, or the un-broadcast tensor):

  elementwise(splat(a), splat(b))            → splat(elementwise(a, b))
  elementwise(broadcast(a), splat(b))        → broadcast(elementwise(a, splat'(b)))
  elementwise(broadcast(a), broadcast(b))    → broadcast(elementwise(a, b))  (same source type)
  expand_dims(splat(x)) → splat(x);  broadcast(broadcast(x)) → broadcast(x);
  expand_dims(broadcast(x)) → broadcast(expand_dims(x))

Splat constants (`dense<c>`) count as splats.
"""
from __future__ import annotations

from typing import List, Optional

from ..ir.attrs import DenseElementsAttr
from ..ir.core import Operation, Value
from ..ir.types import TensorType
from .canonicalize import broadcast_of_broadcast, expand_dims_of_broadcast, shape_of_splat
from .manager import Pass, register_pass
from .pattern import (RewritePattern, apply_patterns_greedily, constant_attr, defining,
                      is_effect_free, make_const_attr)


def _splat_source(v: Value):
    """('splat', scalar value) | ('const', python number) | None."""
    sp = defining(v, "tt.splat")
    if sp is not None:
        return ("splat", sp.operand(0))
    attr = constant_attr(v)
    if isinstance(attr, DenseElementsAttr):
        return ("const", attr.value)
    return None


def _candidate(op: Operation) -> bool:
    return (op.num_operands > 0 and bool(op.results) and is_effect_free(op)
            and not op.regions and all(isinstance(r.type, TensorType) for r in op.results))


class MoveSplatAfterElementwise(RewritePattern):
    op_traits = ("Elementwise",)

    def match_and_rewrite(self, op, rw) -> bool:
        if not _candidate(op):
            return False
        sources = [_splat_source(v) for v in op.operands]
        if any(s is None for s in sources):
            return False
        scalars: List[Value] = []
        for v, (kind, x) in zip(op.operands, sources):
            scalars.append(x if kind == "splat" else rw.constant(x, v.type.element_type))
        new = rw.create(op.name, scalars, [r.type.element_type for r in op.results],
                        dict(op.attributes))
        splats = [rw.create1("tt.splat", [s], r.type) for s, r in zip(new.results, op.results)]
        rw.replace_op(op, splats)
        return True


class MoveBroadcastAfterElementwise(RewritePattern):
    op_traits = ("Elementwise",)

    def match_and_rewrite(self, op, rw) -> bool:
        if not _candidate(op):
            return False
        src_type: Optional[TensorType] = None
        for v in op.operands:
            bc = defining(v, "tt.broadcast")
            if bc is not None:
                t = bc.operand(0).type
                if src_type is not None and (t.shape != src_type.shape
                                             or t.encoding != src_type.encoding):
                    return False
                src_type = t
            elif _splat_source(v) is None:
                return False
        if src_type is None:
            return False
        shape, enc = src_type.shape, src_type.encoding
        operands: List[Value] = []
        for v in op.operands:
            bc = defining(v, "tt.broadcast")
            if bc is not None:
                operands.append(bc.operand(0))
                continue
            kind, x = _splat_source(v)
            small = TensorType(shape, v.type.element_type, enc)
            if kind == "splat":
                operands.append(rw.create1("tt.splat", [x], small))
            else:
                operands.append(rw.create1("arith.constant", [], small,
                                           {"value": make_const_attr(x, small)}))
        new = rw.create(op.name, operands,
                        [TensorType(shape, r.type.element_type, enc) for r in op.results],
                        dict(op.attributes))
        outs = [rw.create1("tt.broadcast", [n], r.type) for n, r in zip(new.results, op.results)]
        rw.replace_op(op, outs)
        return True


REORDER_PATTERNS = [shape_of_splat, broadcast_of_broadcast, expand_dims_of_broadcast,
                    MoveBroadcastAfterElementwise(), MoveSplatAfterElementwise()]


def reorder_broadcast(module: Operation) -> bool:
    return apply_patterns_greedily(module, REORDER_PATTERNS)


@register_pass
class ReorderBroadcast(Pass):
    name = "reorder-broadcast"
    aliases = ("triton-reorder-broadcast",)
    description = "move splat/broadcast after elementwise ops"

    def run(self, module: Operation) -> None:
        reorder_broadcast(module)


__all__ = ["ReorderBroadcast", "reorder_broadcast", "MoveSplatAfterElementwise",
           "MoveBroadcastAfterElementwise", "REORDER_PATTERNS"]
