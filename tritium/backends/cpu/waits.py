"""Which kernels have programs that wait for other programs: a `while` loop on an atomic or
a volatile load (`while atomic_cas(lock, 0, 1) == 1: pass`, a grid barrier) waits for *another
program* to get past it. The evaluator runs such kernels one program at a time (in lock step
the other program never would), and the compiled path keeps them on its thread pool (run
alone, in order, a program could wait forever for one after it)."""
from __future__ import annotations

from typing import Dict

from ...ir.core import Operation


def waits_on_others(func: Operation, funcs: Dict[str, Operation]) -> bool:
    """Whether `func` (calls into `funcs` followed) holds such a loop."""
    for op in func.walk():
        if op.name == "scf.while" and _synchronizes(op, funcs, set()):
            return True
    return False


def _synchronizes(root: Operation, funcs: Dict[str, Operation], seen: set) -> bool:
    for inner in root.walk():
        if inner.name in ("tt.atomic_cas", "tt.atomic_rmw"):
            return True
        if inner.name == "tt.load" and inner.attr("isVolatile", False):
            return True
        if inner.name == "tt.call":
            callee = funcs.get(inner.attr("callee"))
            if callee is not None and callee not in seen:
                seen.add(callee)
                if _synchronizes(callee, funcs, seen):
                    return True
    return False
