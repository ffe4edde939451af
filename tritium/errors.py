"""Exceptions raised while compiling, loading and running kernels.

The class names and messages follow upstream Triton's so that user code which
catches them (autotuners skipping a config, tests matching a message) keeps
working when it runs on tritium.
"""
from __future__ import annotations

from typing import Optional

__all__ = ["TritonError", "OutOfResources", "PTXASError", "InterpreterError", "AutotunerError",
           "DeviceAssertionError"]


class TritonError(Exception):
    """Base class of every error tritium raises on purpose."""


class OutOfResources(TritonError):
    """A kernel needs more of a hardware resource than the device has.

    Raised before launch (e.g. shared memory above the per-block opt-in
    limit), so autotuners can treat the config as invalid instead of
    crashing the process.
    """

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(required, limit, name)

    def __str__(self) -> str:
        return (f"out of resource: {self.name}, Required: {self.required}, "
                f"Hardware limit: {self.limit}. Reducing block sizes or `num_stages` may help.")

    # Exceptions cross process boundaries (parallel compilation, pytest-xdist);
    # pickling must rebuild from the three fields, not from str(self).
    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))


class PTXASError(TritonError):
    """ptxas rejected the PTX we produced (or crashed on it)."""

    def __init__(self, error_message: Optional[str] = None):
        self.error_message = error_message
        super().__init__(error_message)

    def __str__(self) -> str:
        return f"PTXAS error: {self.error_message or ''}"

    def __reduce__(self):
        return (type(self), (self.error_message,))


class InterpreterError(TritonError):
    """An exception raised by a kernel body while the CPU interpreter ran it."""

    def __init__(self, error_message: Optional[str] = None):
        self.error_message = error_message
        super().__init__(error_message)

    def __str__(self) -> str:
        return self.error_message or ""

    def __reduce__(self):
        return (type(self), (self.error_message,))


class AutotunerError(TritonError):
    """The autotuner has nothing to run: pruning left no config, or every config failed."""

    def __init__(self, error_message: Optional[str] = None):
        self.error_message = error_message
        super().__init__(error_message)

    def __str__(self) -> str:
        return f"Autotuner error: {self.error_message or ''}"  # upstream's form

    def __reduce__(self):
        return (type(self), (self.error_message,))


class DeviceAssertionError(AssertionError, RuntimeError):
    """A `tl.device_assert` (or the overflow sanitizer's check) failed on the CPU backend.
    An AssertionError naming the kernel's line, the program and the element; also a
    RuntimeError saying "device-side assert triggered", what upstream raises on a GPU, so
    code written against the GPU (`except RuntimeError`) behaves the same."""
