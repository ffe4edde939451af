"""`tl.target_info`: compile-time questions about the target, for `@jit` code that branches
on it (`if tl.target_info.cuda_capability_geq(9): ...`). Answered from the active driver, as
upstream does; on the CPU backend every GPU question is False."""
from __future__ import annotations

from .builtins import constexpr_function


@constexpr_function
def current_target():
    from ..runtime.driver import driver
    try:
        return driver.active.get_current_target()
    except RuntimeError:
        return None


@constexpr_function
def is_cuda():
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major, minor=0):
    target = current_target()
    return target is not None and target.backend == "cuda" and target.arch >= major * 10 + minor


@constexpr_function
def is_hip():
    target = current_target()
    return target is not None and target.backend == "hip"


@constexpr_function  # (a plain function would be refused by its callers' cache_key)
def _hip_arch(pred) -> bool:
    target = current_target()
    return target is not None and target.backend == "hip" and pred(str(target.arch))


@constexpr_function
def is_hip_cdna3():
    return _hip_arch(lambda a: a == "gfx942")


@constexpr_function
def is_hip_cdna4():
    return _hip_arch(lambda a: a == "gfx950")


@constexpr_function
def is_hip_gfx1250():
    return _hip_arch(lambda a: a == "gfx1250")
