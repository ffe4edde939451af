"""`tl.extra.cuda`'s device utilities: timers, SM id, warp counts, custom fp8 conversions
and programmatic dependent launch (`gdc_*`, Hopper's griddepcontrol).

The hardware queries are PTX inline asm, as upstream writes them, so the NVIDIA backend
lowers them as it lowers any `tl.inline_asm_elementwise`; the CPU backend knows these exact
asm strings (`backends/cpu/ops_inline_asm.py`) and gives them CPU meanings."""
from __future__ import annotations

from ...builtins_misc import extern, inline_asm_elementwise
from ...core import _unwrap_if_constexpr, constexpr
from ...dtypes import int32, int64

GLOBALTIMER_ASM = "mov.u64 $0, %globaltimer;"
SMID_ASM = "mov.u32 $0, %smid;"
GDC_WAIT_ASM = "griddepcontrol.wait; // dummy $0"
GDC_LAUNCH_ASM = "griddepcontrol.launch_dependents; // dummy $0"


@extern
def globaltimer(_semantic=None):
    """Nanoseconds since an arbitrary epoch (the GPU's global timer; the host clock on CPU)."""
    return inline_asm_elementwise(GLOBALTIMER_ASM, "=l", [], dtype=int64, is_pure=False,
                                  pack=1, _semantic=_semantic)


@extern
def smid(_semantic=None):
    """The id of the streaming multiprocessor running this program (0 on the CPU backend)."""
    return inline_asm_elementwise(SMID_ASM, "=r", [], dtype=int32, is_pure=True, pack=1,
                                  _semantic=_semantic)


@extern
def num_warps(_semantic=None):
    """The kernel's `num_warps`, as a constexpr."""
    return constexpr(getattr(_semantic.options, "num_warps", 4))


@extern
def num_threads(_semantic=None):
    """Threads per program: `num_warps * 32`, as a constexpr."""
    return constexpr(getattr(_semantic.options, "num_warps", 4) * 32)


@extern
def convert_custom_float8_sm80(arg, dst_ty, fp_downcast_rounding=None, _semantic=None):
    """fp8 <-> wider float conversion (upstream: hand-written PTX for pre-Hopper parts); the
    same numbers as `arg.to(dst_ty)`, which every tritium target lowers natively."""
    return _semantic.cast(arg, _unwrap_if_constexpr(dst_ty),
                          _unwrap_if_constexpr(fp_downcast_rounding))


@extern
def convert_custom_float8_sm70(arg, dst_ty, fp_downcast_rounding=None, _semantic=None):
    """See `convert_custom_float8_sm80`."""
    return _semantic.cast(arg, _unwrap_if_constexpr(dst_ty),
                          _unwrap_if_constexpr(fp_downcast_rounding))


@extern
def gdc_wait(_semantic=None):
    """Wait until the grids this one depends on (launched with programmatic dependent launch)
    have finished or called `gdc_launch_dependents`. A no-op without such a launch, and on the
    CPU backend, where launches run one after another."""
    inline_asm_elementwise(GDC_WAIT_ASM, "=r", [], dtype=int32, is_pure=False, pack=1,
                           _semantic=_semantic)


@extern
def gdc_launch_dependents(_semantic=None):
    """Let dependent grids start launching (they still wait in `gdc_wait`)."""
    inline_asm_elementwise(GDC_LAUNCH_ASM, "=r", [], dtype=int32, is_pure=False, pack=1,
                           _semantic=_semantic)
