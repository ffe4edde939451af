"""`triton.profiler.language` (`proton.language`): scope markers inside `@jit` kernels.

Upstream's instrumentation mode records cycle counts per warp between these markers. tritium
has no intra-kernel instrumentation yet: the markers compile to nothing, so a kernel that
carries them runs (and profiles at launch granularity) unchanged."""
from __future__ import annotations

from ..language.core import _unwrap_if_constexpr, builtin


@builtin
def enter_scope(name, _semantic=None):
    if not isinstance(_unwrap_if_constexpr(name), str):
        raise TypeError("proton.language.enter_scope: the scope name must be a string constant")


@builtin
def exit_scope(name, _semantic=None):
    if not isinstance(_unwrap_if_constexpr(name), str):
        raise TypeError("proton.language.exit_scope: the scope name must be a string constant")


@builtin
def record(is_start, scope_name, _semantic=None):
    return None

