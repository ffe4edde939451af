"""Run-time pieces under upstream's names: `triton.runtime.driver`, `Autotuner`, ..."""
from .autotuner import Autotuner, Config, Heuristics, KernelInterface, autotune, heuristics  # noqa
from ..frontend.jit import JITFunction  # noqa


def __getattr__(name):
    if name in ("OutOfResources", "InterpreterError", "PTXASError", "TritonError"):
        from . import errors
        return getattr(errors, name)
    if name == "driver":
        from .driver_registry import driver
        return driver
    raise AttributeError(name)
