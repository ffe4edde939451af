"""dce and symbol-dce.

dce: erase ops whose results are unused and that have no memory effects (an scf.for or
scf.if counts as effect-free when everything inside it is). Blocks are swept back to
front so a chain of dead ops goes in one sweep; nested regions first.

symbol-dce: erase private functions that no public function reaches through tt.call.
"""
from __future__ import annotations

from typing import Dict, List, Set

from ..ir.core import Block, Operation
from .manager import Pass, register_pass
from .pattern import functions, is_trivially_dead


def dce(root: Operation) -> int:
    """Erase dead effect-free ops under `root`; returns how many were erased."""
    erased = 0
    changed = True
    while changed:  # a dead scf.for may leave its (outer) operands dead: sweep again
        changed = False
        for region in root.regions:
            for block in region.blocks:
                n = _sweep(block)
                erased += n
                changed |= n > 0
    return erased


def _sweep(block: Block) -> int:
    erased = 0
    op = block.last
    while op is not None:
        prev = op.prev
        for region in op.regions:
            for b in region.blocks:
                erased += _sweep(b)
        if is_trivially_dead(op):
            op.erase()
            erased += 1
        op = prev
    return erased


def callees(op: Operation) -> Set[str]:
    return {o.attr("callee") for o in op.walk() if o.name == "tt.call"}


def symbol_dce(module: Operation) -> List[str]:
    """Erase unreachable private functions; returns their names."""
    funcs: Dict[str, Operation] = {f.attr("sym_name"): f for f in functions(module)}
    live: Set[str] = set()
    work = [n for n, f in funcs.items() if f.attr("sym_visibility", "public") != "private"]
    # Calls from outside any function (unusual) keep their callees too.
    for op in module.regions[0].entry:
        if op.name != "tt.func":
            work.extend(callees(op))
    while work:
        name = work.pop()
        if name in live or name not in funcs:
            continue
        live.add(name)
        work.extend(callees(funcs[name]))
    dead = [n for n in funcs if n not in live]
    for n in dead:
        f = funcs[n]
        f.drop_all_references()
        f.remove_from_parent()
    return dead


@register_pass
class DCEPass(Pass):
    name = "dce"
    description = "erase unused effect-free ops"

    def run(self, module: Operation) -> None:
        dce(module)


@register_pass
class SymbolDCEPass(Pass):
    name = "symbol-dce"
    description = "erase private functions that nothing public calls"

    def run(self, module: Operation) -> None:
        symbol_dce(module)


__all__ = ["DCEPass", "SymbolDCEPass", "dce", "symbol_dce"]
