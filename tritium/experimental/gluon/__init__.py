"""`triton.experimental.gluon`: Gluon, the kernel language whose layouts are explicit.

`jit` (a `triton.jit` whose kernels compile from TTGIR in the layouts they name),
`constexpr_function`, `must_use_result`; the language is `gluon.language` (`gl`); host-side
TMA descriptors are `nvidia.hopper.TensorDescriptor`. On NVIDIA a Gluon kernel starts at
the backend's Gluon "ttgir" stage (inline, AutoLayout resolution, canonicalize, CSE, DCE,
shared-memory allocation — no layout-changing pass) and goes on to LLVM IR, PTX and a
cubin; on the CPU backend the same TTGIR runs with its layouts dropped, so every Gluon
kernel also runs without a GPU.
"""
from . import language, nvidia
from ._runtime import constexpr_function, jit
from ...language.core import must_use_result

__all__ = ["jit", "constexpr_function", "must_use_result", "language", "nvidia",
           "GluonASTSource"]


def __getattr__(name):
    # (made on first use: the compiler's ASTSource is its base)
    if name == "GluonASTSource":
        from . import _runtime
        return _runtime.GluonASTSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
