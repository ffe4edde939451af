"""tritium: Triton, the language and compiler for block-level GPU kernels, in Python.

    import tritium as triton
    import tritium.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...

Or run existing Triton code unchanged: `tritium.compat.install()` before `import triton`.
"""
from ._version import __version__  # noqa: E402,F401

from .frontend.jit import JITFunction, jit  # noqa: E402
from .compiler.errors import CompilationError  # noqa: E402
from .frontend import autotuner as _autotuner  # noqa: E402
from .frontend.autotuner import Config, autotune, heuristics  # noqa: E402
from .runtime.allocation import set_allocator  # noqa: E402
from .runtime.interface import KernelInterface  # noqa: E402
from .tensor_wrapper import TensorWrapper, reinterpret  # noqa: E402
from . import knobs  # noqa: E402
from . import runtime as _runtime  # noqa: E402
from .frontend.jit import MockTensor  # noqa: E402

# `triton.runtime` also names the JIT, the autotuner and `reinterpret`; they are the
# frontend's (or need the language), so they are added here rather than imported by the
# runtime package (which the frontend imports).
_runtime.JITFunction, _runtime.MockTensor = JITFunction, MockTensor
_runtime.TensorWrapper, _runtime.reinterpret = TensorWrapper, reinterpret
_runtime.autotuner = _autotuner
for _name in ("Autotuner", "Config", "Heuristics", "autotune", "heuristics"):
    setattr(_runtime, _name, getattr(_autotuner, _name))
del _name
from . import language  # noqa: E402
from .language.builtins import constexpr_function  # noqa: E402
from .language.core import must_use_result  # noqa: E402


@constexpr_function
def cdiv(x: int, y: int) -> int:
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n: int) -> int:
    """Smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


def __getattr__(name):
    # Heavier submodules load on first use so `import tritium` stays quick.
    import importlib
    if name in ("testing", "compat", "runtime", "compiler", "tools", "backends", "passes", "ir",
                "errors", "_internal_testing", "_C"):
        return importlib.import_module(f".{name}", __name__)
    if name == "compile":
        from .compiler import compile
        return compile
    if name == "AsyncCompileMode":
        from .runtime._async_compile import AsyncCompileMode
        return AsyncCompileMode
    if name in ("OutOfResources", "TritonError", "InterpreterError"):
        from .runtime import errors
        return getattr(errors, name)
    raise AttributeError(f"module 'tritium' has no attribute {name!r}")


__all__ = ["jit", "JITFunction", "CompilationError", "Config", "autotune", "heuristics",
           "cdiv", "next_power_of_2", "language", "testing", "compat", "__version__", "knobs",
           "KernelInterface", "TensorWrapper", "reinterpret", "constexpr_function",
           "must_use_result", "MockTensor", "OutOfResources", "TritonError", "InterpreterError",
           "runtime", "tools", "set_allocator", "AsyncCompileMode"]
