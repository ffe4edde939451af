"""`gl.nvidia.hopper`: sm_90 builtins — `fence_async_shared`, `mbarrier`, `tma` (bulk
copies through tensor descriptors) and wgmma (`warpgroup_mma`, `warpgroup_mma_wait`).

On the CPU backend they run synchronously: barriers and fences do nothing, a wgmma is a
dot of its operands' values."""
from ......language.core import _unwrap_if_constexpr, builtin
from ..ampere import async_copy
from . import mbarrier, tma

__all__ = ["async_copy", "fence_async_shared", "mbarrier", "tma", "warpgroup_mma", "warpgroup_mma_wait"]


@builtin
def fence_async_shared(cluster=False, _semantic=None):
    """Order this thread's shared-memory writes before later async-proxy reads (wgmma,
    TMA) of them."""
    _semantic.fence_async_shared(_unwrap_if_constexpr(cluster))


@builtin
def warpgroup_mma(a, b, acc, *, use_acc=True, precision=None, max_num_imprecise_acc=None,
                  is_async=False, _semantic=None):
    """`acc + a @ b` on a warpgroup's tensor cores (`use_acc=False`: `a @ b`)."""
    return _semantic.warpgroup_mma(a, b, acc, use_acc, _unwrap_if_constexpr(precision),
                                   _unwrap_if_constexpr(max_num_imprecise_acc),
                                   _unwrap_if_constexpr(is_async))


@builtin
def warpgroup_mma_wait(num_outstanding=0, deps=None, _semantic=None):
    """Wait for asynchronous wgmmas until at most `num_outstanding` are in flight; returns
    `deps` (one tensor, or a tuple)."""
    return _semantic.warpgroup_mma_wait(_unwrap_if_constexpr(num_outstanding), deps or ())
