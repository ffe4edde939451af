"""Helpers: TTGIR for a test case (the real pipeline when it exists, else the local layout
assignment), and LLIR/PTX/cubin for it."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from ttgir_helper import assign_layouts  # noqa: E402


def real_make_ttgir():
    try:
        from tritium.gpu.pipeline import make_ttgir
        return make_ttgir
    except ImportError:
        return None


def ttgir_for(kernel, args, kwargs, pipeline="auto"):
    """TTGIR module for launching `kernel` with these (CPU) arguments and keywords."""
    from tritium.frontend.compiler import make_ttir
    kw = dict(kwargs)
    num_warps = kw.pop("num_warps", 4)
    debug = kw.pop("debug", None)
    _, spec, _ = kernel.bind(*args, **kw)
    opts = None
    if debug:
        from tritium.backends.nvidia.backend import CUDAOptions
        opts = CUDAOptions(num_warps=num_warps, debug=True)
    module, _ = make_ttir(kernel, spec, opts)
    real = real_make_ttgir() if pipeline in ("auto", "real") else None
    if pipeline == "helper":
        real = None
    if pipeline == "real" and real is None:
        raise RuntimeError("tritium.gpu.pipeline.make_ttgir is not available")
    if real is not None:
        return real(module, num_warps=num_warps, threads_per_warp=32, num_ctas=1,
                    target="cuda:90", num_stages=3)
    return assign_layouts(module, num_warps)


def compile_module(module):
    from tritium.backends.nvidia.lowering import make_llir
    from tritium.backends.nvidia.llvm import llir_to_ptx
    llir, meta = make_llir(module, capability=90)
    ptx = llir_to_ptx(llir, arch="sm_90a")
    return llir, meta, ptx
