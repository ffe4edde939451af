"""inline: replace each tt.call of a tt.func not marked `noinline` by a copy of its body.

Callees are inlined bottom-up over the call graph, so each call needs one level of
copying; calls inside a recursive cycle stay calls. Inlined ops get call-site locations
(`callsite(callee loc at call loc)`), and private functions left without callers are
erased afterwards, as MLIR's inliner does.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..ir.core import Location, Operation, Value
from .dce import callees, symbol_dce
from .manager import Pass, register_pass
from .pattern import functions


def _chain(loc, call_loc):
    """`loc` seen through one more call site."""
    if not isinstance(call_loc, Location):
        return loc
    if not isinstance(loc, Location):
        return call_loc
    if loc.callsite is None:
        return Location(loc.file, loc.line, loc.col, callsite=call_loc)
    return Location(loc.file, loc.line, loc.col, callsite=_chain(loc.callsite, call_loc))


def inline_call(call: Operation, callee: Operation) -> bool:
    """Inline one call; False when the callee's shape does not allow it."""
    region = callee.regions[0]
    if len(region.blocks) != 1:
        return False
    block = region.entry
    ret = block.last
    if ret is None or ret.name != "tt.return" or len(ret.operands) != len(call.results):
        return False
    mapping: Dict[Value, Value] = dict(zip(block.args, call.operands))
    for op in block:
        if op is ret:
            break
        new = op.clone(mapping)
        for nested in new.walk():
            nested.loc = _chain(nested.loc, call.loc)
        call.parent.insert_before(new, call)
    for r, v in zip(call.results, ret.operands):
        r.replace_all_uses_with(mapping.get(v, v))
    call.erase()
    return True


def _bottom_up(funcs: Dict[str, Operation]) -> Tuple[List[str], Dict[str, int]]:
    """Function names, callees before callers (Tarjan's SCCs come out in reverse
    topological order), and the SCC number of each function that sits on a cycle."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    order: List[str] = []
    counter = [0]
    graph = {n: [c for c in callees(f) if c in funcs] for n, f in funcs.items()}
    recursive: Dict[str, int] = {}

    def visit(n: str) -> None:
        # Iterative Tarjan: call graphs of generated kernels can be deep.
        work = [(n, iter(graph[n]))]
        index[n] = low[n] = counter[0]
        counter[0] += 1
        stack.append(n)
        on_stack.add(n)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                elif nxt in on_stack:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    scc.append(x)
                    if x == v:
                        break
                if len(scc) > 1 or v in graph[v]:
                    recursive.update((x, len(order)) for x in scc)
                order.extend(scc)

    for n in funcs:
        if n not in index:
            visit(n)
    return order, recursive


def inline_module(module: Operation, include_noinline: bool = False) -> int:
    """Inline every inlinable call in `module`; returns the number of calls inlined.
    `include_noinline`: functions marked `noinline` too (a backend that has no calls)."""
    funcs = {f.attr("sym_name"): f for f in functions(module)}
    order, recursive = _bottom_up(funcs)
    count = 0
    for name in order:
        caller = funcs[name]
        calls = [op for op in caller.walk() if op.name == "tt.call"]
        for call in calls:
            callee: Optional[Operation] = funcs.get(call.attr("callee"))
            if callee is None or (callee.attr("noinline", False) and not include_noinline):
                continue
            scc = recursive.get(name)
            if scc is not None and recursive.get(call.attr("callee")) == scc:
                continue  # inlining inside a cycle would not terminate
            count += inline_call(call, callee)
    symbol_dce(module)
    return count


@register_pass
class Inline(Pass):
    name = "inline"
    aliases = ("inliner",)
    description = "inline tt.call of functions not marked noinline"

    def run(self, module: Operation) -> None:
        inline_module(module)


__all__ = ["Inline", "inline_module", "inline_call"]
