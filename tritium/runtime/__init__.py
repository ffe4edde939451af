"""Run-time pieces under upstream's names: `triton.runtime.driver`, the errors, ...

The JIT and the autotuner (`JITFunction`, `MockTensor`, `Autotuner`, `Config`, ...) are the
frontend's, and `reinterpret`/`TensorWrapper` need the language; `tritium/__init__.py` adds
their names here, so this package imports neither."""
from .driver import driver  # noqa: F401  (the object; the module stays importable by name)
from .errors import InterpreterError, OutOfResources  # noqa: F401
from .interface import KernelInterface  # noqa: F401

__all__ = ["driver", "Config", "Heuristics", "autotune", "heuristics", "JITFunction",
           "KernelInterface", "reinterpret", "TensorWrapper", "OutOfResources",
           "InterpreterError", "MockTensor", "Autotuner"]


def __getattr__(name):
    if name in ("PTXASError", "TritonError", "AutotunerError"):
        from . import errors
        return getattr(errors, name)
    raise AttributeError(name)
