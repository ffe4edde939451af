"""Remarks about an op, printed as MLIR's diagnostics are (upstream's passes emit these with
`op.emitRemark()`): `file:line:col: remark: message`, then the notes, then, with
MLIR_ENABLE_DIAGNOSTICS=remarks,operations, `note: see current operation: <op>`. Off unless
MLIR_ENABLE_DIAGNOSTICS names "remarks"; what triggers each remark is the pass's business
(accelerate-matmul: a dot that cannot use wgmma; the NVIDIA lowering: an unvectorized
load or store)."""
from __future__ import annotations

import sys
from typing import Sequence


def remarks_on() -> bool:
    from ..runtime import knobs
    return "remarks" in knobs.mlir_diagnostics()


def _where(op) -> str:
    loc = op.loc
    if getattr(loc, "line", 0):
        return f"{loc.file}:{loc.line}:{loc.col}"
    return "loc(unknown)"


def remark(op, message: str, notes: Sequence[str] = ()) -> None:
    """Print `message` about `op` on stderr when remarks are on."""
    from ..runtime import knobs
    shown = knobs.mlir_diagnostics()
    if "remarks" not in shown:
        return
    where = _where(op)
    lines = [f"{where}: remark: {message}"] + [f"{where}: note: {n}" for n in notes]
    if "operations" in shown:
        from ..ir.printer import print_op
        lines.append(f"{where}: note: see current operation: {print_op(op).strip()}")
    print("\n".join(lines), file=sys.stderr, flush=True)
