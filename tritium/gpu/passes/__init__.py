"""The TTGIR passes (TTIR -> TTGIR -> TTGIR ready for the LLVM lowering).

Importing this package registers them with the pass manager:

    convert-triton-to-tritongpu (convert-to-ttgir)   default layouts, module attributes
    tritongpu-coalesce (coalesce)                     memory-op layouts from AxisInfo
    tritongpu-remove-layout-conversions (remove-layout-conversions)
    tritongpu-optimize-thread-locality                loop-accumulated reductions in-thread first
    tritongpu-F32DotTC (f32-dot-tc)                   tf32x3/bf16x3/bf16x6 dots split in parts
    tritongpu-accelerate-matmul (accelerate-matmul)   wgmma or FMA layouts for tt.dot
    tritongpu-fuse-nested-loops (fuse-nested-loops)  tl.range(flatten=True) nests as one loop
    tritongpu-pipeline (pipeline)                     cp.async / TMA multi-buffering, async wgmma
    triton-nvidia-tma-lowering (tma-lowering)         other descriptor loads/stores as TMA copies
    triton-nvidia-keep-tma-descriptors (TTIR)         marks kernel descriptors TMA can move
    allocate-shared-memory                            allocation.offset / ttg.shared
    tritongpu-global-scratch-memory-allocation        global scratch slots (device TMA maps)

and a `ttg.convert_layout` fold hook for canonicalize (identity, convert of convert,
convert of a constant).
"""
from __future__ import annotations

from ...ir.attrs import DenseElementsAttr
from ...passes.pattern import IN_PLACE, register_fold
from .accelerate_matmul import AccelerateMatmul, accelerate_matmul
from .allocate_shared_memory import AllocateSharedMemory, allocate_shared_memory
from .coalesce import Coalesce, coalesce
from .convert_to_ttgir import ConvertToTTGIR, convert_to_ttgir
from .f32_dot_tc import F32DotTC, f32_dot_tc
from .fuse_nested_loops import FuseNestedLoops, fuse_nested_loops
from .optimize_thread_locality import OptimizeThreadLocality, optimize_thread_locality
from .legality import LayoutLegalityError, check_ttgir_legality
from .software_pipeline import SoftwarePipeline, pipeline_loops
from .tma_lowering import TmaLowering, lower_tma
from .global_scratch import GlobalScratchAllocation, allocate_global_scratch
from .keep_tma_descriptors import KeepTmaDescriptors, mark_tma_descriptors
from .resolve_auto_layouts import ResolveAutoLayouts, resolve_auto_layouts
from .gluon_barriers import GluonSharedBarriers, insert_shared_barriers
from .remove_layout_conversions import (RemoveLayoutConversions, count_converts,
                                        remove_layout_conversions)


@register_fold("ttg.convert_layout")
def _fold_convert(op, consts):
    src, t = op.operand(0), op.results[0].type
    if src.type == t:
        return [src]
    if isinstance(consts[0], DenseElementsAttr):
        return [DenseElementsAttr(consts[0].value, t)]
    inner = src.owner_op
    if inner is not None and inner.name == "ttg.convert_layout":
        op.set_operand(0, inner.operand(0))
        return IN_PLACE
    return None


__all__ = ["AccelerateMatmul", "accelerate_matmul", "ConvertToTTGIR", "Coalesce", "RemoveLayoutConversions", "AllocateSharedMemory",
           "convert_to_ttgir", "coalesce", "remove_layout_conversions",
           "allocate_shared_memory", "check_ttgir_legality", "LayoutLegalityError",
           "count_converts", "F32DotTC", "f32_dot_tc", "TmaLowering", "lower_tma",
           "KeepTmaDescriptors", "mark_tma_descriptors", "FuseNestedLoops",
           "fuse_nested_loops", "OptimizeThreadLocality", "optimize_thread_locality",
           "GlobalScratchAllocation", "allocate_global_scratch"]
