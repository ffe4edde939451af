"""`triton.runtime.allocation`: the allocator registry behind `triton.set_allocator`. It
lives in `tritium/_allocator.py`, below the layers, because the NVIDIA launcher (a backend)
asks it for global scratch at launch and the backends import no runtime module."""
from .._allocator import NullAllocator, get_allocator, set_allocator  # noqa: F401

__all__ = ["set_allocator", "get_allocator", "NullAllocator"]
