"""Target-independent TTIR passes and the pass manager.

    from tritium.passes import PassManager, make_ttir_pipeline
    PassManager("canonicalize,cse").run(module)
    make_ttir_pipeline().run(module)

Every pass registers itself under its name (and upstream aliases) on import; see
`PASS_REGISTRY` / `registered_passes()`.
"""
from __future__ import annotations

from .manager import (PASS_REGISTRY, Pass, PassError, PassFailure, PassManager, make_pass,
                      parse_pipeline, register_pass, run_pipeline)
from .pattern import RewritePattern, Rewriter, apply_patterns_greedily, pattern
from . import folds  # noqa: F401  (fold hooks)
from .inline import Inline, inline_module
from .canonicalize import Canonicalize, canonicalize
from .combine import Combine
from .reorder_broadcast import ReorderBroadcast, reorder_broadcast
from .cse import CSEPass, cse
from .dce import DCEPass, SymbolDCEPass, dce, symbol_dce
from .licm import LICMPass, licm
from .loop_unroll import LoopUnroll, loop_unroll
from .rewrite_tensor_pointer import RewriteTensorPointer, rewrite_tensor_pointers
from .rewrite_tensor_descriptor import RewriteTensorDescriptorToPointer, rewrite_tensor_descriptors

# Upstream's make_ttir order. Block pointers and tensor descriptors stay in TTIR for the CPU
# backend, which runs them directly; `make_ttir_pipeline(rewrite_tensor_pointer=True)` lowers
# both as upstream's make_ttir does without TMA (the NVIDIA backend asks for that).
TTIR_PIPELINE = ("inline,canonicalize,combine,reorder-broadcast,cse,symbol-dce,loop-unroll")
TTIR_PIPELINE_LOWERED = ("inline,rewrite-tensor-pointer,rewrite-tensor-descriptor-to-pointer,"
                         "canonicalize,combine,reorder-broadcast,cse,symbol-dce,loop-unroll")


def make_ttir_pipeline(rewrite_tensor_pointer: bool = False, tma: bool = False,
                       **manager_options) -> PassManager:
    """The TTIR optimisation pipeline; other keyword arguments go to PassManager
    (verify_each, dump, timing, reproducer). `tma` keeps the kernel's descriptor parameters
    TMA can move (the NVIDIA backend's triton-nvidia-keep-tma-descriptors, registered by
    tritium.gpu.passes, marks them; see rewrite_tensor_descriptor.py)."""
    text = TTIR_PIPELINE_LOWERED if rewrite_tensor_pointer else TTIR_PIPELINE
    if rewrite_tensor_pointer and tma:
        text = text.replace("inline,", "inline,triton-nvidia-keep-tma-descriptors,", 1)
    return PassManager(text, **manager_options)


def registered_passes():
    """Canonical names of the registered passes."""
    return sorted({cls.name for cls in PASS_REGISTRY.values()})


__all__ = ["PASS_REGISTRY", "Pass", "PassError", "PassFailure", "PassManager", "make_pass",
           "parse_pipeline", "register_pass", "run_pipeline", "RewritePattern", "Rewriter",
           "apply_patterns_greedily", "pattern", "make_ttir_pipeline", "TTIR_PIPELINE",
           "registered_passes", "Inline", "RewriteTensorPointer", "rewrite_tensor_pointers",
           "RewriteTensorDescriptorToPointer", "rewrite_tensor_descriptors", "Canonicalize", "Combine", "ReorderBroadcast",
           "CSEPass", "DCEPass", "SymbolDCEPass", "LICMPass", "LoopUnroll", "inline_module",
           "canonicalize", "reorder_broadcast", "cse", "dce", "symbol_dce", "licm",
           "loop_unroll"]
