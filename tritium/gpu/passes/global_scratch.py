"""tritongpu-global-scratch-memory-allocation: byte offsets in each program's slice of the
global scratch memory the launcher obtains through `triton.set_allocator`.

Today the one user is a tensor descriptor made on the device and moved by TMA (a
`tt.make_tensor_descriptor` marked `tt.tma`): its 128-byte `CUtensorMap` is written at run
time, and TMA reads it from global memory. Each such op gets its own slot
(`ttg.global_scratch_memory_offset`, 128-byte aligned: the map must be 64-byte aligned); the
module records the bytes one program needs and their alignment
(`ttg.global_scratch_memory_size`, `ttg.global_scratch_memory_alignment`, upstream's names).
The launcher allocates size × programs and passes the address as the kernel's last
parameter; program p's slice starts at p × size (backends/nvidia/lowering/tensormap.py).
Slots are never shared: a map may be read by TMA copies still in flight when a later op
writes another map.
"""
from __future__ import annotations

from ...ir import types as T
from ...ir.attrs import IntegerAttr
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass

__all__ = ["GlobalScratchAllocation", "allocate_global_scratch", "TENSORMAP_BYTES",
           "uses_device_tensormap"]

TENSORMAP_BYTES = 128
_ALIGN = 128


def uses_device_tensormap(op: Operation) -> bool:
    return op.name == "tt.make_tensor_descriptor" and bool(op.attr("tt.tma"))


def allocate_global_scratch(module: Operation) -> int:
    size = 0
    for func in module.regions[0].entry:
        if func.name != "tt.func" or not func.regions[0].blocks:
            continue
        for op in func.walk():
            if uses_device_tensormap(op):
                op.attributes["ttg.global_scratch_memory_offset"] = IntegerAttr(size, T.i32)
                size += TENSORMAP_BYTES
    if size:
        module.attributes["ttg.global_scratch_memory_size"] = IntegerAttr(size, T.i32)
        module.attributes["ttg.global_scratch_memory_alignment"] = IntegerAttr(_ALIGN, T.i32)
    return size


@register_pass
class GlobalScratchAllocation(Pass):
    name = "tritongpu-global-scratch-memory-allocation"
    aliases = ("global-scratch-allocation",)
    description = "per-program global scratch offsets (device-made TMA descriptors)"

    def run(self, module: Operation) -> None:
        allocate_global_scratch(module)
