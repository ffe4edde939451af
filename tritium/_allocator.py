"""`triton.set_allocator`: where kernels get global scratch memory at launch (upstream uses
it for device-side tensor descriptors and profiling buffers).

An allocator is called as `allocator(size, alignment, stream)` and returns an object with
`data_ptr()` (or an int address). The NVIDIA launcher calls `get_allocator()` at each launch
of a kernel with global scratch (`metadata.global_scratch_size`: the TMA maps of descriptors
made on the device), for size × programs bytes; the default raises upstream's error. The CPU
backend needs no scratch.
"""
from __future__ import annotations

import contextvars
from typing import Optional


class NullAllocator:
    def __call__(self, size: int, alignment: int, stream: Optional[int]):
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was "
                           "set. Use triton.set_allocator to specify an allocator.")


_allocator: contextvars.ContextVar = contextvars.ContextVar("_allocator", default=NullAllocator())


def set_allocator(allocator) -> None:
    """Register `allocator(size, alignment, stream)` for this context (thread/task)."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"allocator must be callable as allocator(size, alignment, stream), "
                        f"got {type(allocator).__name__}")
    _allocator.set(allocator if allocator is not None else NullAllocator())


def get_allocator():
    return _allocator.get()


__all__ = ["set_allocator", "get_allocator", "NullAllocator"]
