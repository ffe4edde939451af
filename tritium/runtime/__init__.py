"""Run-time pieces under upstream's names: `triton.runtime.driver`, `Autotuner`, ..."""
from .autotuner import (Autotuner, Config, Heuristics, KernelInterface,  # noqa: F401
                        autotune, heuristics)
from .driver import driver  # noqa: F401  (the object; the module stays importable by name)
from .errors import InterpreterError, OutOfResources  # noqa: F401
from ..tensor_wrapper import TensorWrapper, reinterpret  # noqa: F401

__all__ = ["driver", "Config", "Heuristics", "autotune", "heuristics", "JITFunction",
           "KernelInterface", "reinterpret", "TensorWrapper", "OutOfResources",
           "InterpreterError", "MockTensor", "Autotuner"]


# `JITFunction` and `MockTensor` are the frontend's: `tritium/__init__.py` adds them here, so
# this package imports no frontend.


def __getattr__(name):
    if name in ("PTXASError", "TritonError"):
        from . import errors
        return getattr(errors, name)
    raise AttributeError(name)
