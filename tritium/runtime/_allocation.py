"""`triton.runtime._allocation`: upstream's module name for the allocator registry, which
lives in `allocation.py` (one ContextVar, so both names see the same allocator)."""
from .allocation import NullAllocator, get_allocator, set_allocator  # noqa: F401
