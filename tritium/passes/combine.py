"""combine (upstream's triton-combine): peepholes specific to Triton.

  dot(a, b, 0) + c              → dot(a, b, c)          (addi/addf, either operand order)
  addptr(addptr(p, a), b)       → addptr(p, a + b)      (when a + b cannot overflow)
  select(c, load(p, splat(c)), o) → load(p, splat(c), o)
  broadcast(splat(x))           → splat(x)
"""
from __future__ import annotations

from ..ir.core import Operation, Value
from ..ir.builder import normalize_int
from .canonicalize import shape_of_splat
from .manager import Pass, register_pass
from .pattern import apply_patterns_greedily, defining, may_write, pattern, splat_value


def _is_zero(v: Value) -> bool:
    x = splat_value(v)
    if x is None:
        sp = defining(v, "tt.splat")
        x = splat_value(sp.operand(0)) if sp is not None else None
    return x is not None and x == 0  # 0, 0.0 and -0.0


@pattern("arith.addi", "arith.addf")
def dot_add(op: Operation, rw) -> bool:
    for acc_side in (0, 1):
        dot = defining(op.operand(acc_side), "tt.dot")
        other = op.operand(1 - acc_side)
        if dot is None or not _is_zero(dot.operand(2)) or len(dot.results[0].uses) != 1:
            continue
        if other.type != dot.results[0].type:
            continue
        if op.name == "arith.addf" and dot.attr("maxNumImpreciseAcc", 0):
            continue  # the accumulator's precision would change meaning
        new = rw.create("tt.dot", [dot.operand(0), dot.operand(1), other], dot.result_types,
                        dict(dot.attributes), loc=dot.loc)
        rw.replace_op(op, new.results)
        if not dot.has_uses():
            rw.erase_op(dot)
        return True
    return False


def _int_constant(v: Value):
    sp = defining(v, "tt.splat")
    if sp is not None:
        v = sp.operand(0)
    return splat_value(v)


def _offsets_combinable(a: Value, b: Value) -> bool:
    if a.type != b.type:
        return False
    w = a.type.element_type.width
    if w == 64:  # already pointer width: the sum wraps exactly as the two adds would
        return True
    x, y = _int_constant(a), _int_constant(b)
    if x is None or y is None:
        return False
    return normalize_int(x + y, w) == x + y  # no signed overflow


@pattern("tt.addptr")
def addptr_of_addptr(op: Operation, rw) -> bool:
    inner = defining(op.operand(0), "tt.addptr")
    if inner is None or not _offsets_combinable(inner.operand(1), op.operand(1)):
        return False
    total = rw.create1("arith.addi", [inner.operand(1), op.operand(1)], op.operand(1).type)
    rw.replace_op_with_new(op, "tt.addptr", [inner.operand(0), total])
    return True


def _no_writes_between(first: Operation, last: Operation) -> bool:
    if first.parent is not last.parent:
        return False
    cur = first.next
    while cur is not None and cur is not last:
        if may_write(cur):
            return False
        cur = cur.next
    return cur is last


@pattern("arith.select", benefit=3)
def select_of_masked_load(op: Operation, rw) -> bool:
    cond, on_true, on_false = op.operands
    load = defining(on_true, "tt.load")
    if load is None or load.num_operands < 2 or len(load.results[0].uses) != 1:
        return False
    mask = load.operand(1)
    sp = defining(mask, "tt.splat")
    if mask is not cond and (sp is None or sp.operand(0) is not cond):
        return False
    if on_false.type != load.results[0].type:
        return False
    # The new load sits at the select: nothing in between may store to what it reads.
    if not _no_writes_between(load, op):
        return False
    new = rw.create("tt.load", [load.operand(0), mask, on_false], load.result_types,
                    dict(load.attributes), loc=load.loc)
    rw.replace_op(op, new.results)
    rw.erase_op(load)
    return True


COMBINE_PATTERNS = [dot_add, addptr_of_addptr, select_of_masked_load, shape_of_splat]


@register_pass
class Combine(Pass):
    name = "combine"
    aliases = ("triton-combine",)
    description = "Triton peepholes: dot+add, addptr chains, select of masked load"

    def run(self, module: Operation) -> None:
        apply_patterns_greedily(module, COMBINE_PATTERNS)


__all__ = ["Combine", "COMBINE_PATTERNS"]
