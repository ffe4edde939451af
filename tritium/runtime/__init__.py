"""Run-time pieces under upstream's names: `triton.runtime.driver`, `Autotuner`, ..."""
from .autotuner import (Autotuner, Config, Heuristics, KernelInterface,  # noqa: F401
                        autotune, heuristics)


def __getattr__(name):
    # Lazy: the JIT itself imports from this package.
    if name == "JITFunction":
        from ..frontend.jit import JITFunction
        return JITFunction
    if name in ("OutOfResources", "InterpreterError", "PTXASError", "TritonError",
                "AutotunerError"):
        from . import errors
        return getattr(errors, name)
    if name == "driver":
        from .driver_registry import driver
        return driver
    raise AttributeError(name)
