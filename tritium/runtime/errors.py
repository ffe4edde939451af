"""`triton.runtime.errors`: the run-time exceptions, defined in `tritium.errors` so that the
backends raise them without importing the runtime."""
from ..errors import (AutotunerError, InterpreterError, OutOfResources, PTXASError,  # noqa: F401
                      TritonError)

__all__ = ["TritonError", "OutOfResources", "PTXASError", "InterpreterError", "AutotunerError"]
