"""`gl.nvidia`: NVIDIA-specific Gluon builtins — `ampere` (`mma_v2`, `async_copy`:
cp.async) and `hopper` (`fence_async_shared`, `mbarrier`, `tma`, `warpgroup_mma`,
`warpgroup_mma_wait`)."""
from . import ampere, hopper

__all__ = ["ampere", "hopper"]
