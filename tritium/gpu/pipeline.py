"""make_ttgir: the TTIR -> TTGIR pipeline, in upstream's order (the passes tritium does not
have yet — dot/MMA, pipelining, CTA planning — are simply absent), ending with the
shared-memory allocation the LLVM lowering reads."""
from __future__ import annotations

from ..ir.core import Operation
from ..passes import PassManager

__all__ = ["make_ttgir", "ttgir_pipeline", "gluon_pipeline", "make_gluon_ttgir"]


def ttgir_pipeline(num_warps: int = 4, threads_per_warp: int = 32, num_ctas: int = 1,
                   target: str = "cuda:90", num_stages: int = 3) -> str:
    convert = (f"convert-triton-to-tritongpu{{num-warps={num_warps} "
               f"threads-per-warp={threads_per_warp} num-ctas={num_ctas} target={target}}}")
    return ",".join([
        convert,
        "tritongpu-coalesce",
        "tritongpu-remove-layout-conversions",
        "tritongpu-optimize-thread-locality",
        "tritongpu-F32DotTC",
        "tritongpu-accelerate-matmul",
        "tritongpu-remove-layout-conversions",
        "canonicalize",
        "cse",
        "tritongpu-remove-layout-conversions",
        "canonicalize",
        "cse",
        f"tritongpu-fuse-nested-loops{{num-stages={num_stages}}}",
        f"tritongpu-pipeline{{num-stages={num_stages}}}",
        "triton-nvidia-tma-lowering",
        "canonicalize",
        "cse",
        "symbol-dce",
        "allocate-shared-memory",
        "tritongpu-global-scratch-memory-allocation",
    ])


def make_ttgir(module: Operation, num_warps: int, threads_per_warp: int = 32,
               num_ctas: int = 1, target: str = "cuda:90", num_stages: int = 3,
               **manager_options) -> Operation:
    """Run the TTGIR pipeline on a TTIR module in place and return it. Keyword arguments
    go to the PassManager (verify_each, dump, timing)."""
    from . import passes  # noqa: F401  (registers the passes)
    PassManager(ttgir_pipeline(num_warps, threads_per_warp, num_ctas, target, num_stages),
                **manager_options).run(module)
    return module


def gluon_pipeline(shared_memory: bool = True) -> str:
    """A Gluon kernel's TTGIR stage (upstream's gluon pipeline): its layouts are the
    user's, so none of the layout-changing passes (coalesce, remove-layout-conversions,
    accelerate-matmul, pipelining) runs; AutoLayouts are resolved, then the usual
    clean-ups, then (for a GPU) the shared-memory allocation the lowering reads."""
    passes = ["inline", "gluon-resolve-auto-encodings", "canonicalize", "cse", "dce",
              "symbol-dce"]
    if shared_memory:
        passes += ["gluon-insert-shared-barriers", "allocate-shared-memory",
                   "tritongpu-global-scratch-memory-allocation"]
    return ",".join(passes)


def make_gluon_ttgir(module: Operation, shared_memory: bool = True,
                     **manager_options) -> Operation:
    """Run the Gluon TTGIR stage on a module made by Gluon's code generator, in place."""
    from . import passes  # noqa: F401  (registers the passes)
    PassManager(gluon_pipeline(shared_memory), **manager_options).run(module)
    return module
