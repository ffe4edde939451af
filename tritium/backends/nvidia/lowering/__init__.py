"""TTGIR -> LLVM IR text for NVIDIA GPUs (sm_90a).

    make_llir(ttgir_module, capability=90) -> (llir_text, {"shared": bytes, "num_warps": n})

One module per op family registers its lowerings with `context.lowers`:
elementwise (arith/math/casts/fp8), memory (loads/stores/atomics), shape (make_range,
splat, broadcast, expand_dims, trans/reshape/join/split/cat), convert_layout, reduce, scan,
control (scf), misc (program ids, print, assert, calls, gather, histogram, functions),
shared_mem (local_alloc/load/store, memdesc views, async-proxy fences), tma (TMA copies,
mbarriers, descriptor parameters), tensormap (descriptors made on the device: their
TMA map written into global scratch), dot_wgmma
(warp_group_dot and its wait), dot_mma (tt.dot on mma.sync, and the tt.dot dispatch),
dot_fma (tt.dot on the FMA units).
The input must satisfy docs/ttgir-contract.md.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ....ir.core import Operation, module_body
from . import context  # noqa: F401
from . import elementwise, memory, shape, convert_layout, reduce, scan, control, misc  # noqa: F401
from . import shared_mem, tma, tensormap, dot_wgmma, dot_fma, dot_mma  # noqa: F401
from .context import HANDLERS, LoweringError, ModuleContext

__all__ = ["make_llir", "LoweringError", "HANDLERS", "shared_bytes"]


def shared_bytes(module: Operation) -> int:
    """Total dynamic shared memory: `ttg.shared` when the allocator ran, else the largest
    offset + scratch of any op (ops without `allocation.offset` all share offset 0, which
    is safe because every op's scratch use is fenced by barriers)."""
    total = module.attr("ttg.shared")
    if total is not None:
        return int(total)
    from ....gpu.scratch import scratch_bytes
    best = 0
    for op in module.walk():
        n = scratch_bytes(op)
        if n:
            best = max(best, int(op.attr("allocation.offset", 0) or 0) + n)
    return best


def make_llir(module: Operation, capability: int = 90, line_info: bool = False,
              ptx_version: Optional[int] = None, maxnreg: Optional[int] = None
              ) -> Tuple[str, Dict[str, int]]:
    """`line_info=True` tags instructions with `!dbg` (see debug_info.py); `ptx_version`:
    the PTX ISA version the PTX will carry (a ptxas quirk depends on it); `maxnreg`: the
    kernel's register cap (`.maxnreg` on its entry)."""
    mctx = ModuleContext(module, capability, line_info, ptx_version, maxnreg)
    funcs = [op for op in module_body(module) if op.name == "tt.func"]
    for f in funcs:
        mctx.funcs[f.attr("sym_name")] = f
    for f in funcs:
        misc.lower_function(mctx, f)
    meta = [_tensordesc_meta(f) for f in funcs if misc._is_kernel(f)]
    shared = shared_bytes(module)
    if shared:
        mctx.out.uses_smem = True
    text = mctx.out.text()
    if mctx.line_info is not None:
        text += mctx.line_info.text()
    info = {"shared": shared, "num_warps": mctx.num_warps}
    if meta and meta[0]:
        info["tensordesc_meta"] = meta[0]
    scratch = module.attr("ttg.global_scratch_memory_size")
    if scratch:
        # upstream's metadata keys: the launcher allocates size × programs through
        # triton.set_allocator's allocator and passes it as the last parameter
        info["global_scratch_size"] = int(scratch)
        info["global_scratch_align"] = int(module.attr("ttg.global_scratch_memory_alignment"))
    return text, info


_TMA_WRITES = ("ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce")


def _tensordesc_meta(func: Operation) -> list:
    """One entry per descriptor parameter of the kernel, in order: what the launcher needs
    to encode its CUtensorMap (gpu/tma.py), or None for one the TTIR stage rewrote to
    pointers (its base pointer parameter carries `tt.pointer_descriptor`)."""
    from ....gpu.tma import tma_block
    from ....ir import types as T
    args = func.regions[0].entry.args
    attrs = list(func.attr("arg_attrs") or [])
    out = []
    for i, a in enumerate(args):
        if isinstance(a.type, T.TensorDescType):
            meta = tma_block(a.type.block).meta()
            meta["stores"] = any(u.owner.name in _TMA_WRITES for u in a.uses)
            out.append(meta)
        elif i < len(attrs) and hasattr(attrs[i], "get") and attrs[i].get("tt.pointer_descriptor"):
            out.append(None)
    return out
