"""cse: common-subexpression elimination by scoped value numbering (MLIR's CSE).

An effect-free op is replaced by an equivalent op that dominates it: earlier in the same
block or in an enclosing block. Equivalence is (name, operands, attributes, result types)
plus structurally equal regions; operands of commutative ops are compared as a set.
Scopes do not cross IsolatedFromAbove ops (functions) nor tt.reduce/tt.scan bodies.
Loads (read-only, non-volatile) are merged only within one block when nothing between the
two may write memory.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..ir.core import Block, Operation, Value
from .manager import Pass, register_pass
from .pattern import is_effect_free, is_isolated_scope, may_write, traits


def _key(op: Operation):
    operands = tuple(op.operands)
    if "Commutative" in traits(op) and len(operands) >= 2:
        operands = tuple(sorted(operands[:2], key=id)) + operands[2:]
    try:
        attrs = tuple(sorted(op.attributes.items()))
        key = (op.name, operands, attrs, tuple(op.result_types), len(op.regions))
        hash(key)
    except TypeError:
        return None
    return key


def regions_equivalent(a: Operation, b: Operation) -> bool:
    """Do `a` and `b` (of equal keys) hold regions that compute the same thing?"""
    mapping: Dict[Value, Value] = {}
    return all(_region_eq(ra, rb, mapping) for ra, rb in zip(a.regions, b.regions))


def _region_eq(ra, rb, mapping) -> bool:
    if len(ra.blocks) != len(rb.blocks):
        return False
    for ba, bb in zip(ra.blocks, rb.blocks):
        if len(ba.args) != len(bb.args) or len(ba) != len(bb):
            return False
        for x, y in zip(ba.args, bb.args):
            if x.type != y.type:
                return False
            mapping[x] = y
        for oa, ob in zip(ba, bb):
            if (oa.name != ob.name or oa.result_types != ob.result_types
                    or oa.attributes != ob.attributes or oa.num_operands != ob.num_operands
                    or len(oa.regions) != len(ob.regions)):
                return False
            for va, vb in zip(oa.operands, ob.operands):
                if mapping.get(va, va) is not vb:
                    return False
            for x, y in zip(oa.results, ob.results):
                mapping[x] = y
            if not all(_region_eq(x, y, mapping) for x, y in zip(oa.regions, ob.regions)):
                return False
    return True


class _Scopes:
    """A stack of hash tables: a lookup sees the current block and every enclosing one."""

    def __init__(self):
        self.stack: List[Dict] = []

    def lookup(self, key, op) -> Optional[Operation]:
        for table in reversed(self.stack):
            for cand in table.get(key, ()):
                if not op.regions or regions_equivalent(op, cand):
                    return cand
        return None

    def add(self, key, op) -> None:
        self.stack[-1].setdefault(key, []).append(op)


class CSE:
    def __init__(self):
        self.num_erased = 0

    def run(self, root: Operation) -> int:
        self._op_regions(root, _Scopes())
        return self.num_erased

    def _op_regions(self, op: Operation, scopes: _Scopes) -> None:
        if is_isolated_scope(op):
            scopes = _Scopes()
        for region in op.regions:
            for block in region.blocks:
                scopes.stack.append({})
                self._block(block, scopes)
                scopes.stack.pop()

    def _block(self, block: Block, scopes: _Scopes) -> None:
        reads: Dict = {}
        epoch = 0
        for op in list(block):
            if op.regions:
                self._op_regions(op, scopes)
            if self._simplify(op, scopes, reads, epoch):
                continue
            if may_write(op):
                epoch += 1

    def _simplify(self, op: Operation, scopes: _Scopes, reads: Dict, epoch: int) -> bool:
        if not op.results or "Terminator" in traits(op) or "IsolatedFromAbove" in traits(op):
            return False
        if any(len(r.blocks) > 1 for r in op.regions):
            return False
        if is_effect_free(op):
            key = _key(op)
            if key is None:
                return False
            existing = scopes.lookup(key, op)
            if existing is None:
                scopes.add(key, op)
                return False
            return self._replace(op, existing)
        t = traits(op)
        if "MemRead" in t and "MemWrite" not in t and not op.regions \
                and not op.attr("isVolatile", False):
            key = _key(op)
            if key is None:
                return False
            prev = reads.get(key)
            if prev is not None and prev[1] == epoch and prev[0].parent is op.parent:
                return self._replace(op, prev[0])
            reads[key] = (op, epoch)
        return False

    def _replace(self, op: Operation, existing: Operation) -> bool:
        for old, new in zip(op.results, existing.results):
            if old.name_hint and not new.name_hint:
                new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        op.erase()
        self.num_erased += 1
        return True


def cse(root: Operation) -> int:
    """Run CSE under `root`; returns the number of ops erased."""
    return CSE().run(root)


@register_pass
class CSEPass(Pass):
    name = "cse"
    description = "common-subexpression elimination over effect-free ops and loads"

    def run(self, module: Operation) -> None:
        cse(module)


__all__ = ["CSEPass", "cse", "regions_equivalent"]
