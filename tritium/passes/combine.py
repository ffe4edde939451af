"""combine (upstream's triton-combine): peepholes specific to Triton.

  dot(a, b, 0) + c              → dot(a, b, c)          (addi/addf, either operand order)
  addptr(addptr(p, a), b)       → addptr(p, a + b)      (when a + b cannot overflow)
  select(c, load(p, splat(c)), o) → load(p, splat(c), o)
  broadcast(splat(x))           → splat(x)
  sum(bcast(x[M,K,1]) * bcast(y[1,K,N]), axis=1) → dot(x[M,K], y[K,N], 0)  (fp32, ieee)
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.attrs import BoolAttr, i32_attr
from ..ir.core import Operation, Value
from ..ir.builder import normalize_int
from ..ir.ops import INPUT_PRECISIONS
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


def single_combiner(reduce: Operation):
    """The one op of a `tt.reduce` region that combines its two scalars and is returned
    (upstream's getSingleCombiner), else None."""
    if len(reduce.regions) != 1 or len(reduce.regions[0].blocks) != 1:
        return None
    block = reduce.regions[0].entry
    ops = list(block)
    if len(ops) != 2 or len(ops[0].results) != 1:
        return None
    op, ret = ops
    if sorted(map(id, op.operands)) != sorted(map(id, block.args)) or \
            ret.operands != [op.results[0]]:
        return None
    return op


def _broadcasts_only_along(bc: Operation, axis: int) -> bool:
    src, dst = bc.operand(0).type.dims, bc.results[0].type.dims
    return all((s != d) == (i == axis) for i, (s, d) in enumerate(zip(src, dst)))


def _drop_unit_dim(rw, v: Value, axis: int) -> Value:
    """`v` without its size-1 dim `axis`: what `tt.expand_dims` added back, else a
    reshape."""
    ex = defining(v, "tt.expand_dims")
    if ex is not None and int(ex.attr("axis")) == axis:
        return ex.operand(0)
    dims = [d for i, d in enumerate(v.type.dims) if i != axis]
    return rw.create1("tt.reshape", [v], T.TensorType(dims, v.type.element),
                      {"allow_reorder": BoolAttr(False)})


@pattern("tt.reduce")
def broadcast_mul_reduce(op: Operation, rw) -> bool:
    """`tl.sum(x[:, :, None] * y[None, :, :], axis=1)` is `tl.dot(x, y)`: the [M, K, N]
    product never has to exist (upstream's CombineBroadcastMulReducePattern). The dot is
    IEEE fp32, as the sum was: only the order of the additions changes. Upstream's
    conditions: a 3-D fp32 sum along dim 1 of a product of two broadcasts, one along dim 2
    only, the other along dim 0 only (either operand order here), M and N at least 16."""
    t = op.operand(0).type if op.num_operands == 1 else None
    if not isinstance(t, T.TensorType) or len(t.dims) != 3 or t.element != T.f32 or \
            int(op.attr("axis")) != 1:
        return False
    combiner = single_combiner(op)
    mul = defining(op.operand(0), "arith.mulf")
    if combiner is None or combiner.name != "arith.addf" or mul is None:
        return False
    bcs = [defining(v, "tt.broadcast") for v in mul.operands]
    if None in bcs:
        return False
    if not _broadcasts_only_along(bcs[0], 2):
        bcs.reverse()
    lhs, rhs = bcs
    if not (_broadcasts_only_along(lhs, 2) and _broadcasts_only_along(rhs, 0)):
        return False
    m, k, n = t.dims
    if m < 16 or n < 16:
        return False
    a = _drop_unit_dim(rw, lhs.operand(0), 2)
    b = _drop_unit_dim(rw, rhs.operand(0), 0)
    zero = rw.constant(0.0, T.TensorType([m, n], T.f32))
    attrs = {"inputPrecision": i32_attr(INPUT_PRECISIONS["ieee"]),
             "maxNumImpreciseAcc": i32_attr(0)}
    rw.replace_op_with_new(op, "tt.dot", [a, b, zero], None, attrs)
    return True


COMBINE_PATTERNS = [dot_add, addptr_of_addptr, select_of_masked_load, shape_of_splat,
                    broadcast_mul_reduce]


@register_pass
class Combine(Pass):
    name = "combine"
    aliases = ("triton-combine",)
    description = ("Triton peepholes: dot+add, addptr chains, select of masked load, "
                   "broadcast-multiply-sum as a dot")

    def run(self, module: Operation) -> None:
        apply_patterns_greedily(module, COMBINE_PATTERNS)


__all__ = ["Combine", "COMBINE_PATTERNS", "single_combiner"]
