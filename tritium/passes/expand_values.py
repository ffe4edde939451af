"""The shared machinery of passes that replace one kind of value by several (its components):
rewrite-tensor-pointer (a block pointer → base, shapes, strides, offsets) and
rewrite-tensor-descriptor-to-pointer (a descriptor → base, padding, shapes, strides).

A subclass says which types it expands (`expands`, `component_types`) and rewrites the ops
that make and use such values (methods named `_<dialect>_<op>`, e.g. `_tt_advance`). This
class carries the values through `scf.for` / `scf.while` / `scf.if` (their operands, block
arguments, yields and results become components) and across function boundaries
(parameters, `tt.call`, `tt.return`; `slot_types` says what stands for a value there),
records the ops to erase, and reports any other op that touches an expanded value.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ..ir import types as T
from ..ir.attrs import ArrayAttr, DictAttr, TypeAttr
from ..ir.builder import Builder
from ..ir.core import Block, BlockArgument, Operation, Value


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
        return Builder.before_op_at_its_loc(op)

    # -- walking
    def run(self, module: Operation) -> None:
        funcs = [op for op in module.regions[0].entry
                 if op.name == "tt.func" and op.regions[0].blocks]
        for func in funcs:
            self.expand_params(func)
        for region in module.regions:
            for block in region.blocks:
                self.run_block(block)
        for op in reversed(self.dead):
            op.erase()
        for func in funcs:
            self.drop_old_params(func)

    # -- function boundaries: by default a value crosses them as all of its components
    def slot_types(self, t: T.Type) -> List[T.Type]:
        """The types that stand for a value of type `t` in calls, returns and parameters."""
        return self.types_of(t)

    def slots(self, values: Sequence[Value]) -> List[Value]:
        out = []
        for v in values:
            out.extend(self.comps[v][:len(self.slot_types(v.type))] if self.expands(v.type)
                       else [v])
        return out

    def expand_params(self, func: Operation) -> None:
        """New entry arguments for every expanded parameter (the old ones go at the end)."""
        block = func.regions[0].entry
        attrs = list(func.attr("arg_attrs") or [DictAttr(())] * len(block.args))
        k = 0
        while k < len(block.args):
            arg = block.args[k]
            if not self.expands(arg.type):
                k += 1
                continue
            new = [BlockArgument(t, block, 0) for t in self.component_types(arg.type)]
            block.args[k:k] = new
            attrs[k:k] = [attrs[k]] + [DictAttr(())] * (len(new) - 1)
            self.comps[arg] = new
            k += len(new) + 1
        for i, a in enumerate(block.args):
            a.index = i
        self.set_signature(func, attrs)

    def drop_old_params(self, func: Operation) -> None:
        block = func.regions[0].entry
        attrs = list(func.attr("arg_attrs") or [DictAttr(())] * len(block.args))
        for i in reversed(range(len(block.args))):
            if self.expands(block.args[i].type):
                block.erase_argument(i)
                del attrs[i]
        self.set_signature(func, attrs)

    def set_signature(self, func: Operation, attrs) -> None:
        block = func.regions[0].entry
        ftype = func.attr("function_type")
        results = tuple(t for r in ftype.results for t in self.slot_types(r))
        func.attributes["function_type"] = TypeAttr(
            T.FunctionType(tuple(a.type for a in block.args), results))
        if func.attr("arg_attrs") is not None:
            func.attributes["arg_attrs"] = ArrayAttr(tuple(attrs))

    def _tt_return(self, op):
        if not any(self.expands(v.type) for v in op.operands):
            return False
        op.set_operands(self.slots(op.operands))

    def _tt_call(self, op):
        if not any(self.expands(v.type) for v in op.operands + op.results):
            return False
        types = [t for r in op.results for t in self.slot_types(r.type)]
        new = Operation("tt.call", self.slots(op.operands), types, dict(op.attributes), 0,
                        op.loc)
        op.parent.insert_before(new, op)
        self.bind(op.results, new.results)
        self.dead.append(op)

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
