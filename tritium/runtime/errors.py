"""`triton.runtime.errors`: the run-time exceptions, defined in `tritium.errors` so that the
backends raise them without importing the runtime."""
from ..errors import InterpreterError, OutOfResources, PTXASError, TritonError  # noqa: F401

__all__ = ["TritonError", "OutOfResources", "PTXASError", "InterpreterError"]
