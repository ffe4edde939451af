"""A TTGIR module back to TTIR, for the CPU backend: `compile(IRSource("k.ttgir"))` on the
CPU (upstream's tools/test_irsource.py compiles a TTGIR file for the current target, which
is the CPU on a machine without a GPU).

The CPU runs every program's whole block at once, so a layout says nothing it needs: the
layouts are dropped from every tensor type, `ttg.convert_layout` becomes its operand and the
module's `ttg.*` attributes go. Shared-memory buffers become values (`smem_values.py`);
what a layout cannot be dropped from (async copies, wgmma and the other ops of the GPU
dialects) is refused, naming the op.
"""
from __future__ import annotations

import dataclasses

from ...ir import types as T
from ...ir.attrs import DenseElementsAttr

_GPU_DIALECTS = ("ttg.", "ttng.", "nvgpu.", "amdgpu.", "nvvm.", "gpu.")
# GPU-dialect ops the CPU backend runs as they are (a barrier is a no-op for it).
_KEPT = ("ttg.barrier",)


def _plain(ty):
    if isinstance(ty, T.TensorType) and ty.encoding is not None:
        return dataclasses.replace(ty, encoding=None)
    return ty


def has_layouts(module) -> bool:
    return any(k.startswith("ttg.") for k in module.attributes)


def strip_layouts(module) -> None:
    """Turn `module` (TTGIR) into TTIR in place; raises ValueError for an op the CPU
    cannot run without its layout."""
    from .smem_values import _MEM_OPS, promote_shared_memory
    if any(op.name in _MEM_OPS for op in module.walk()):
        promote_shared_memory(module)
    for op in list(module.walk()):
        if op.name == "ttg.convert_layout":
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
            continue
        if op.name in _KEPT:
            continue
        if op.name.startswith(_GPU_DIALECTS):
            raise ValueError(f"the CPU backend cannot run `{op.name}` from TTGIR (only "
                             "layouts are dropped; compile this file for a GPU target)")
        for r in op.results:
            r.type = _plain(r.type)
        value = op.attributes.get("value") if op.name == "arith.constant" else None
        if isinstance(value, DenseElementsAttr):  # (a splat constant carries its type)
            op.attributes["value"] = DenseElementsAttr(value.value, _plain(value.type))
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.type = _plain(a.type)
    for k in [k for k in module.attributes if k.startswith("ttg.")]:
        del module.attributes[k]
