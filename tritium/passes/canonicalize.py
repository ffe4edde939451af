"""canonicalize: the fold hooks of `folds.py` plus the canonicalization patterns that need
new ops or structural changes (shape ops of splats, masks that are constant, scf.if with a
constant condition, trivial scf.for loops, dead loop-carried values), applied greedily.
"""
from __future__ import annotations

from typing import List, Sequence

from ..ir.attrs import IntegerAttr
from ..ir.builder import normalize_int
from ..ir.core import Operation
from ..ir.ops import CMPI_PREDICATES
from ..ir.types import IntegerType
from .manager import Pass, register_pass
from .pattern import (Rewriter, apply_patterns_greedily, defining, is_effect_free, pattern,
                      splat_value)

# ---------------------------------------------------------------- integer arithmetic


def _int_const(rw: Rewriter, value: int, type_):
    w = type_.element_type.width
    return rw.constant(normalize_int(value, w), type_)


@pattern("arith.addi", "arith.subi")
def add_of_add_constant(op, rw):
    """(x + c0) + c1 → x + (c0 + c1);  (x + c0) - c1 → x + (c0 - c1)."""
    c1 = splat_value(op.operand(1))
    inner = defining(op.operand(0), "arith.addi")
    if c1 is None or inner is None:
        return False
    c0 = splat_value(inner.operand(1))
    if c0 is None:
        return False
    total = c0 + c1 if op.name == "arith.addi" else c0 - c1
    t = op.results[0].type
    rw.replace_op_with_new(op, "arith.addi", [inner.operand(0), _int_const(rw, total, t)])
    return True


@pattern("arith.muli")
def mul_of_mul_constant(op, rw):
    c1 = splat_value(op.operand(1))
    inner = defining(op.operand(0), "arith.muli")
    if c1 is None or inner is None:
        return False
    c0 = splat_value(inner.operand(1))
    if c0 is None:
        return False
    t = op.results[0].type
    rw.replace_op_with_new(op, "arith.muli", [inner.operand(0), _int_const(rw, c0 * c1, t)])
    return True


@pattern("arith.trunci")
def trunc_of_ext(op, rw):
    """trunci(ext(x)) is ext(x) or trunci(x) when x's width lies between."""
    inner = op.operand(0).owner_op
    if inner is None or inner.name not in ("arith.extsi", "arith.extui"):
        return False
    x = inner.operand(0)
    src_w = x.type.element_type.width
    dst_w = op.results[0].type.element_type.width
    if src_w < dst_w:
        rw.replace_op_with_new(op, inner.name, [x])
        return True
    if src_w > dst_w:
        rw.replace_op_with_new(op, "arith.trunci", [x])
        return True
    return False


_NEGATED = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sle": "sgt", "sgt": "sle",
            "ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule"}


@pattern("arith.xori")
def not_of_cmpi(op, rw):
    """xori(cmpi(p, a, b), true) → cmpi(!p, a, b) when the compare has no other use."""
    if splat_value(op.operand(1)) not in (1, True, -1):
        return False
    if op.results[0].type.element_type != IntegerType(1):
        return False
    cmp = defining(op.operand(0), "arith.cmpi")
    if cmp is None or len(cmp.results[0].uses) != 1:
        return False
    pred = CMPI_PREDICATES[cmp.attr("predicate")]
    attr = IntegerAttr(CMPI_PREDICATES.index(_NEGATED[pred]), cmp.attributes["predicate"].type)
    rw.replace_op_with_new(op, "arith.cmpi", cmp.operands, attributes={"predicate": attr})
    return True


@pattern("arith.select")
def select_not(op, rw):
    """select(c, false, true) → xori(c, true) for i1 values of c's type."""
    c, a, b = op.operands
    t = op.results[0].type
    if c.type != t or t.element_type != IntegerType(1):
        return False
    if splat_value(a) in (0, False) and splat_value(b) in (1, True):
        rw.replace_op_with_new(op, "arith.xori", [c, rw.constant(1, t)])
        return True
    return False


# ---------------------------------------------------------------- shape ops
@pattern("tt.broadcast", "tt.expand_dims", "tt.reshape")
def shape_of_splat(op, rw):
    """broadcast/expand_dims/reshape of a splat is a splat of the result shape."""
    sp = defining(op.operand(0), "tt.splat")
    if sp is None:
        return False
    rw.replace_op_with_new(op, "tt.splat", [sp.operand(0)])
    return True


@pattern("tt.broadcast")
def broadcast_of_broadcast(op, rw):
    inner = defining(op.operand(0), "tt.broadcast")
    if inner is None:
        return False
    rw.replace_op_with_new(op, "tt.broadcast", [inner.operand(0)])
    return True


@pattern("tt.expand_dims")
def expand_dims_of_broadcast(op, rw):
    """expand_dims(broadcast(x)) → broadcast(expand_dims(x)): the broadcast moves last,
    where later patterns can merge it."""
    bc = defining(op.operand(0), "tt.broadcast")
    if bc is None:
        return False
    x = bc.operand(0)
    axis = op.attr("axis")
    from ..ir.types import TensorType
    src_t = x.type
    if any(t.encoding is not None for t in (src_t, bc.results[0].type, op.results[0].type)):
        return False  # the layout of the new expand_dims would need layout inference
    dims = list(src_t.shape)
    dims.insert(axis, 1)
    res_t = op.results[0].type
    new_t = TensorType(tuple(dims), src_t.element_type, res_t.encoding)
    ed = rw.create1("tt.expand_dims", [x], new_t, dict(op.attributes))
    rw.replace_op_with_new(op, "tt.broadcast", [ed])
    return True


@pattern("tt.reshape")
def reshape_of_reshape(op, rw):
    inner = defining(op.operand(0), "tt.reshape")
    if inner is None:
        return False
    attrs = dict(op.attributes)
    # Either reshape may permute elements; the combined one may too.
    reorder = bool(op.attr("allow_reorder", False) or inner.attr("allow_reorder", False))
    from ..ir.attrs import BoolAttr
    attrs["allow_reorder"] = BoolAttr(reorder)
    attrs.pop("efficient_layout", None)
    rw.replace_op_with_new(op, "tt.reshape", [inner.operand(0)], attributes=attrs)
    return True


# ---------------------------------------------------------------- memory ops
def _mask_value(op, index):
    if op.num_operands <= index:
        return None
    return splat_value(op.operand(index))


@pattern("tt.load")
def load_constant_mask(op, rw):
    m = _mask_value(op, 1)
    if m is None:
        return False
    if m:
        rw.replace_op_with_new(op, "tt.load", [op.operand(0)], attributes=dict(op.attributes))
        return True
    if op.num_operands >= 3 and op.operand(2).type == op.results[0].type:
        rw.replace_op(op, [op.operand(2)])  # nothing is loaded: every lane takes `other`
        return True
    return False


@pattern("tt.store")
def store_constant_mask(op, rw):
    m = _mask_value(op, 2)
    if m is None:
        return False
    if m:
        rw.create("tt.store", op.operands[:2], [], dict(op.attributes), loc=op.loc)
    rw.erase_op(op)
    return True


# ---------------------------------------------------------------- scf.if
def _move_regions(src: Operation, dst: Operation) -> None:
    for old, new in zip(src.regions, dst.regions):
        blocks, old.blocks = old.blocks, []
        for b in blocks:
            new.add_block(b)


def _yields(op: Operation) -> List[Operation]:
    return [r.entry.last for r in op.regions if r.blocks and r.entry.last is not None]


@pattern("scf.if", benefit=2)
def if_constant_condition(op, rw):
    c = splat_value(op.operand(0))
    if c is None:
        return False
    region = op.regions[0] if c else op.regions[1]
    if not region.blocks:
        rw.erase_op(op)  # no else region: the op has no results and does nothing
        return True
    values = rw.inline_block_before(region.entry, op, [])
    rw.replace_op(op, list(values))
    return True


@pattern("scf.if")
def if_results(op, rw):
    """Results yielded identically by both branches are that value; unused results go."""
    if not op.results or len(op.regions[1].blocks) == 0:
        return False
    then_y, else_y = _yields(op)
    changed = False
    for i, r in enumerate(op.results):
        if then_y.operand(i) is else_y.operand(i) and r.uses:
            rw.replace_all_uses_with(r, then_y.operand(i))
            changed = True
    keep = [i for i, r in enumerate(op.results) if r.uses]
    if len(keep) == len(op.results):
        return changed
    new = rw.create("scf.if", [op.operand(0)], [op.results[i].type for i in keep],
                    dict(op.attributes), num_regions=2, loc=op.loc)
    _move_regions(op, new)
    for y in _yields(new):
        y.set_operands([y.operand(i) for i in keep])
        rw.modified(y)
    for j, i in enumerate(keep):
        rw.replace_all_uses_with(op.results[i], new.results[j])
    rw.erase_op(op)
    return True


# ---------------------------------------------------------------- scf.for
def trip_count(op: Operation):
    """Constant trip count of an scf.for, or None."""
    lb, ub, step = (splat_value(v) for v in op.operands[:3])
    if lb is None or ub is None or step is None:
        return None
    if op.attr("unsignedCmp", False):
        w = op.operand(0).type.width
        lb, ub, step = (v & ((1 << w) - 1) for v in (lb, ub, step))
    if step <= 0:
        return None
    return 0 if lb >= ub else -((lb - ub) // step)


@pattern("scf.for", benefit=2)
def for_trivial_trip_count(op, rw):
    n = trip_count(op)
    if n is None or n > 1:
        return False
    inits = op.operands[3:]
    if n == 0:
        rw.replace_op(op, inits)
        return True
    values = rw.inline_block_before(op.regions[0].entry, op, [op.operand(0), *inits])
    rw.replace_op(op, list(values))
    return True


@pattern("scf.for")
def for_iter_args(op, rw):
    """Drop loop-carried values that are passed through unchanged, that are re-yielded as
    their own loop-invariant init, or that nobody reads."""
    body = op.regions[0].entry
    y = body.last
    inits = op.operands[3:]
    drop = []
    for i, init in enumerate(inits):
        arg, res, yv = body.args[1 + i], op.results[i], y.operand(i)
        if yv is arg or yv is init:
            rw.replace_all_uses_with(arg, init)
            rw.replace_all_uses_with(res, init)
            drop.append(i)
        elif not res.uses and _feeds_only_itself(arg, y, i, body):
            rw.replace_all_uses_with(arg, init)  # what read it is dead and goes next
            drop.append(i)
    if not drop:
        return False
    keep = [i for i in range(len(inits)) if i not in drop]
    y.set_operands([y.operand(i) for i in keep])
    rebuild_for(rw, op, keep)
    return True


def _feeds_only_itself(arg, y, i, body) -> bool:
    """Is `arg` read only by effect-free ops whose results flow nowhere but into
    yield operand `i` (a loop-carried value computed for nobody)? The flow may pass
    through the branches of `scf.if`s in the body (a fused loop's prologue values,
    carried only for loads the pipeliner replaced)."""
    seen = set()
    work = [arg]
    while work:
        for use in work.pop().uses:
            u = use.owner
            if u is y:
                if use.index != i:
                    return False
                continue
            if u.parent is body:
                if not is_effect_free(u):
                    return False
                key, nxt = u, u.results
            elif not _in_branches(u, body):
                return False
            elif u.name == "scf.yield":
                key, nxt = (u, use.index), [u.parent.parent_op.results[use.index]]
            elif is_effect_free(u) and not u.regions:
                key, nxt = u, u.results
            else:
                return False
            if key not in seen:
                seen.add(key)
                work.extend(nxt)
    return True


def _in_branches(op, body) -> bool:
    """`op` is nested in `body` through scf.if branches only."""
    while op.parent is not body:
        p = op.parent_op
        if p is None or p.name != "scf.if":
            return False
        op = p
    return True


def rebuild_for(rw: Rewriter, op: Operation, keep: Sequence[int], inits=None) -> Operation:
    """A copy of scf.for `op` carrying only iter_args `keep` (the yield must already yield
    just those; dropped block args must be unused). Replaces and erases `op`."""
    lb, ub, step, *old_inits = op.operands
    new_inits = [old_inits[i] for i in keep] if inits is None else list(inits)
    new = rw.create("scf.for", [lb, ub, step, *new_inits], [op.results[i].type for i in keep],
                    dict(op.attributes), num_regions=1, loc=op.loc)
    _move_regions(op, new)
    body = new.regions[0].entry
    for i in reversed(range(len(old_inits))):
        if i not in keep:
            body.args[1 + i].replace_all_uses_with(old_inits[i])
            body.erase_argument(1 + i)
    rw.modified(body.last)
    for j, i in enumerate(keep):
        rw.replace_all_uses_with(op.results[i], new.results[j])
    for r in op.results:
        if r.uses:
            raise RuntimeError("rebuild_for: a dropped loop result is still used")
    rw.erase_op(op)
    return new


CANONICAL_PATTERNS = [
    add_of_add_constant, mul_of_mul_constant, trunc_of_ext, not_of_cmpi, select_not,
    shape_of_splat, broadcast_of_broadcast, expand_dims_of_broadcast, reshape_of_reshape,
    load_constant_mask, store_constant_mask, if_constant_condition, if_results,
    for_trivial_trip_count, for_iter_args,
]


def canonicalize(module: Operation, max_iterations: int = 10, extra=()) -> bool:
    return apply_patterns_greedily(module, [*CANONICAL_PATTERNS, *extra],
                                   max_iterations=max_iterations)


@register_pass
class Canonicalize(Pass):
    name = "canonicalize"
    description = "fold constants and identities, simplify shapes, masks and control flow"
    options = {
        "max-iterations": (int, 10, "sweeps of the greedy driver before giving up"),
        "test-convergence": (bool, False, "fail when no fixpoint is reached"),
    }

    def run(self, module: Operation) -> None:
        converged = canonicalize(module, self.max_iterations)
        if not converged and self.test_convergence:
            raise RuntimeError(f"canonicalize did not converge in {self.max_iterations} "
                               "iterations")


__all__ = ["Canonicalize", "CANONICAL_PATTERNS", "canonicalize", "trip_count", "rebuild_for"]
