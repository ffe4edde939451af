"""`gl.nvidia`: NVIDIA-specific Gluon builtins — `ampere.mma_v2`; `hopper`'s
`fence_async_shared`, `mbarrier`, `warpgroup_mma`/`warpgroup_mma_wait`."""
from . import ampere, hopper

__all__ = ["ampere", "hopper"]
