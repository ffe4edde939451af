"""`triton.profiler` (upstream's proton) for tritium: sessions, scopes and a viewer, timing
scopes and tritium kernel launches (see `session.py` for what is and is not measured).

    import triton.profiler as proton
    proton.start("matmul", hook="triton")
    with proton.scope("torch", {"flops16": 2 * M * N * K}):
        torch.matmul(a, b)
    proton.finalize()          # writes matmul.hatchet; triton.profiler.viewer prints it
"""
from . import language, viewer  # noqa: F401
from .session import activate, deactivate, finalize, profile, start  # noqa: F401
from .scope import cpu_timed_scope, enter_scope, exit_scope, scope  # noqa: F401

__all__ = ["start", "activate", "deactivate", "finalize", "profile", "scope",
           "cpu_timed_scope", "enter_scope", "exit_scope", "language", "viewer"]
