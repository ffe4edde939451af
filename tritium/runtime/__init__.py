"""Run-time pieces under upstream's names: `triton.runtime.driver`, the errors, ...

The JIT and the autotuner (`JITFunction`, `Autotuner`, `Config`, ...) are the frontend's;
`tritium/__init__.py` adds their names here, so this package imports no frontend."""
from .driver import driver  # noqa: F401


def __getattr__(name):
    if name in ("OutOfResources", "InterpreterError", "PTXASError", "TritonError",
                "AutotunerError"):
        from . import errors
        return getattr(errors, name)
    raise AttributeError(name)
