"""`triton.set_allocator`: where kernels that need global scratch memory at run time (device-
side tensor descriptors, for example) get it. The allocator is per context (a ContextVar, as
upstream), called as `allocator(size, alignment, stream)` and returning a buffer with
`data_ptr()`; until one is set, asking for memory is an error that says how to set one."""
from __future__ import annotations

from contextvars import ContextVar
from typing import Optional


class NullAllocator:
    def __call__(self, size: int, alignment: int, stream: Optional[int]):
        raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was "
                           "set. Use triton.set_allocator to specify an allocator.")


_allocator: ContextVar = ContextVar("_allocator", default=NullAllocator())


def set_allocator(allocator) -> None:
    if not callable(allocator):
        raise TypeError(f"set_allocator: the allocator must be callable as "
                        f"allocator(size, alignment, stream), got {allocator!r}")
    _allocator.set(allocator)


def get_allocator():
    return _allocator.get()
