"""The shared machinery of passes that replace one kind of value by several (its components):
rewrite-tensor-pointer (a block pointer → base, shapes, strides, offsets) and
rewrite-tensor-descriptor-to-pointer (a descriptor → base, padding, shapes, strides).

A subclass says which types it expands (`expands`, `component_types`) and rewrites the ops
that make and use such values (methods named `_<dialect>_<op>`, e.g. `_tt_advance`). This
class carries the values through `scf.for` / `scf.while` / `scf.if` (their operands, block
arguments, yields and results become components), records the ops to erase, and reports
any other op that touches an expanded value.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Block, Operation, Value


class ValueExpander:
    pass_name = "expand-values"

    def __init__(self):
        self.comps: Dict[Value, List[Value]] = {}
        self.dead: List[Operation] = []

    # -- what subclasses define
    def expands(self, t: T.Type) -> bool:
        raise NotImplementedError

    def component_types(self, t: T.Type) -> List[T.Type]:
        raise NotImplementedError

    # -- values
    def types_of(self, t: T.Type) -> List[T.Type]:
        return self.component_types(t) if self.expands(t) else [t]

    def expand(self, values: Sequence[Value]) -> List[Value]:
        out = []
        for v in values:
            out.extend(self.comps[v] if self.expands(v.type) else [v])
        return out

    def bind(self, old: Sequence[Value], new: Sequence[Value]) -> None:
        """Map `old` values onto their expansion `new` (in `expand`'s order)."""
        it = iter(new)
        for v in old:
            if self.expands(v.type):
                self.comps[v] = [next(it) for _ in self.component_types(v.type)]
            else:
                nv = next(it)
                if nv is not v:
                    v.replace_all_uses_with(nv)

    @staticmethod
    def builder(op: Operation) -> Builder:
        b = Builder()
        b.set_insertion_point_before(op)
        b.loc = op.loc
        return b

    # -- walking
    def run(self, module: Operation) -> None:
        for region in module.regions:
            for block in region.blocks:
                self.run_block(block)
        for op in reversed(self.dead):
            op.erase()

    def run_block(self, block: Block) -> None:
        for op in list(block):
            self.run_op(op)

    def run_op(self, op: Operation) -> None:
        handler = getattr(self, "_" + op.name.replace(".", "_"), None)
        if handler is not None and handler(op) is not False:
            return
        if any(self.expands(v.type) for v in op.operands + op.results):
            raise ValueError(f"{self.pass_name}: cannot rewrite '{op.name}' (at "
                             f"{op.loc.file}:{op.loc.line}), which uses a value of type "
                             f"{next(v.type for v in op.operands + op.results if self.expands(v.type))}")
        for region in op.regions:
            for block in region.blocks:
                self.run_block(block)

    # -- control flow
    def _terminator(self, op):
        if not any(self.expands(v.type) for v in op.operands):
            return False
        op.set_operands(self.expand(op.operands))

    _scf_yield = _terminator
    _scf_condition = _terminator

    def _moved_block(self, old: Block, region) -> Block:
        """A block with expanded argument types taking over `old`'s ops; then rewritten."""
        new = region.add_block(Block([t for a in old.args for t in self.types_of(a.type)]))
        for inner in list(old):
            inner.remove_from_parent()
            new.append(inner)
        self.bind(old.args, new.args)
        self.run_block(new)
        return new

    def _rebuilt(self, op: Operation, operands: List[Value]) -> Optional[Operation]:
        types = [t for r in op.results for t in self.types_of(r.type)]
        if operands == op.operands and types == op.result_types:
            return None
        new = Operation(op.name, operands, types, dict(op.attributes), len(op.regions), op.loc)
        op.parent.insert_before(new, op)
        for old_region, new_region in zip(op.regions, new.regions):
            for block in old_region.blocks:
                self._moved_block(block, new_region)
        self.bind(op.results, new.results)
        self.dead.append(op)
        return new

    def _scf_for(self, op):
        return self._rebuilt(op, op.operands[:3] + self.expand(op.operands[3:])) is not None

    def _scf_while(self, op):
        return self._rebuilt(op, self.expand(op.operands)) is not None

    def _scf_if(self, op):
        return self._rebuilt(op, list(op.operands)) is not None


__all__ = ["ValueExpander"]
