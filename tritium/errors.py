"""`triton.errors`: the base class of tritium's run-time errors."""
from .runtime.errors import TritonError

__all__ = ["TritonError"]
