"""`gl.nvidia.ampere.async_copy`: cp.async copies of a pointer tensor's elements into a
shared-memory buffer of the same shape (masked-off elements are zero-filled), grouped by
`commit_group` and waited for with `wait_group`. Each thread waits for its own copies
only; the compiler places the barrier before another thread's copies are read."""
from ......language.core import _unwrap_if_constexpr, builtin

__all__ = ["async_copy_global_to_shared", "commit_group", "wait_group"]


@builtin
def async_copy_global_to_shared(smem, pointer, mask=None, cache_modifier="",
                                eviction_policy="", volatile=False, _semantic=None):
    """Start copying `*pointer` into `smem` (the pointers' shape and layout decide who
    copies what)."""
    _semantic.async_copy_global_to_shared(smem, pointer, mask,
                                          _unwrap_if_constexpr(cache_modifier),
                                          _unwrap_if_constexpr(eviction_policy),
                                          _unwrap_if_constexpr(volatile))


@builtin
def commit_group(_semantic=None):
    """Close this thread's group of pending copies."""
    _semantic.async_commit_group()


@builtin
def wait_group(num_outstanding=0, _semantic=None):
    """Wait until at most `num_outstanding` of this thread's copy groups are pending."""
    _semantic.async_wait_group(_unwrap_if_constexpr(num_outstanding))
