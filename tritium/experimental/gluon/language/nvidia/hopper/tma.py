"""`gl.nvidia.hopper.tma`: bulk copies between global memory, addressed through a tensor
descriptor kernel argument (`gluon.nvidia.hopper.TensorDescriptor` on the host), and a
shared-memory buffer in the block's NVMMA layout. A load completes its bytes on an
mbarrier (`mbarrier.expect` the block's bytes, then `mbarrier.wait`); stores are waited
for with `store_wait`. Thread 0 issues the copies."""
from ......language.core import _unwrap_if_constexpr, builtin

__all__ = ["async_copy_global_to_shared", "async_copy_shared_to_global", "store_wait"]


@builtin
def async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred=True,
                                _semantic=None):
    """Copy the block at element coordinates `coord` into `result`, completing its bytes
    on `barrier`."""
    _semantic.tma_load(tensor_desc, coord, barrier, result, pred)


@builtin
def async_copy_shared_to_global(tensor_desc, coord, src, _semantic=None):
    """Copy `src` to the block at `coord` (out-of-bounds elements are dropped)."""
    _semantic.tma_store(tensor_desc, coord, src)


@builtin
def store_wait(pendings, _semantic=None):
    """Wait until at most `pendings` stores still read their shared memory."""
    _semantic.tma_store_wait(_unwrap_if_constexpr(pendings))
