"""Which pointer arguments a kernel may write through, and the check that refuses a launch
that would write into a read-only buffer (a numpy array with `writeable=False`, such as one
made by `np.frombuffer` over `bytes`). Both CPU paths run it before launching.

The analysis follows pointer-typed values backwards from every store and atomic through
their defining ops and through control flow (loop and branch results, block arguments), so
it over-approximates: a pointer loaded from memory names no argument.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Set

from tritium.ir import types as T
from tritium.ir.core import BlockArgument

_WRITES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas")


def _is_ptr(v) -> bool:
    t = v.type
    return isinstance(t.element_type if isinstance(t, T.TensorType) else t, T.PointerType)


def written_args(func) -> Set[int]:
    entry = func.regions[0].entry
    out: Set[int] = set()
    seen = set()
    stack = [op.operand(0) for op in func.walk() if op.name in _WRITES]
    while stack:
        v = stack.pop()
        if id(v) in seen or not _is_ptr(v):
            continue
        seen.add(id(v))
        if isinstance(v, BlockArgument):
            if v.block is entry:
                out.add(v.index)
                continue
            owner = v.block.parent_op
            if owner is not None:
                stack.extend(owner.operands)
                stack.extend(_yielded(owner))
            continue
        op = v.owner_op
        if op is None or op.name == "tt.load":
            continue
        stack.extend(op.operands)
        stack.extend(_yielded(op))
    return out


def _yielded(op) -> List:
    vals = []
    for r in op.regions:
        for b in r.blocks:
            t = b.terminator
            if t is not None:
                vals.extend(t.operands)
    return vals


def check_writable(kernel: str, written: Set[int], args: Sequence,
                   names: Optional[Sequence[str]] = None) -> None:
    for i in written:
        if i >= len(args):
            continue
        a = args[i]
        flags = getattr(a, "flags", None)
        if flags is not None and not getattr(flags, "writeable", True):
            name = names[i] if names is not None and i < len(names) else f"argument {i}"
            raise ValueError(f"kernel '{kernel}' stores through '{name}', but that buffer is "
                             "read-only (a numpy array with writeable=False); pass a writable "
                             "copy (np.array(x)) instead")
