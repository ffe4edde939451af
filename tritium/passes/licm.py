"""licm: loop-invariant code motion for scf.for and scf.while.

An op in a loop body moves to just before the loop when every value it (or anything nested
in it) uses comes from outside the loop, and it is speculatable: no memory effects, and no
integer division by a divisor that might be zero (the loop may run zero times, so the op
may execute where it would not have). Inner loops are processed first, so an invariant
chain climbs out of a whole nest in one run.
"""
from __future__ import annotations

from ..ir.core import OpResult, Operation, Value
from .manager import Pass, register_pass
from .pattern import is_speculatable, traits

LOOPS = ("scf.for", "scf.while")


def defined_outside(v: Value, loop: Operation) -> bool:
    if isinstance(v, OpResult):
        return not loop.is_ancestor_of(v.op)
    owner = v.block.parent.parent if v.block.parent is not None else None
    return owner is not None and not loop.is_ancestor_of(owner)


def _captures_only_outside(op: Operation, loop: Operation) -> bool:
    for nested in op.walk():
        for v in nested.operands:
            if op.is_ancestor_of(v.owner_op) if isinstance(v, OpResult) else \
                    (v.block.parent is not None and op.is_ancestor_of(v.block.parent.parent)):
                continue  # defined inside `op` itself
            if not defined_outside(v, loop):
                return False
    return True


def can_hoist(op: Operation, loop: Operation) -> bool:
    if "Terminator" in traits(op):
        return False
    return is_speculatable(op) and _captures_only_outside(op, loop)


def hoist_loop_invariants(loop: Operation) -> int:
    moved = 0
    for region in loop.regions:
        for block in region.blocks:
            for op in list(block):
                if can_hoist(op, loop):
                    op.move_before(loop)
                    moved += 1
    return moved


def licm(root: Operation) -> int:
    """Hoist invariant code out of every loop under `root`; returns how many ops moved."""
    loops = [op for op in root.walk(post_order=True) if op.name in LOOPS]
    return sum(hoist_loop_invariants(loop) for loop in loops)


@register_pass
class LICMPass(Pass):
    name = "licm"
    aliases = ("loop-invariant-code-motion",)
    description = "hoist speculatable loop-invariant ops out of scf.for/scf.while"

    def run(self, module: Operation) -> None:
        licm(module)


__all__ = ["LICMPass", "licm", "can_hoist", "hoist_loop_invariants"]
