"""`tl.extra.libdevice`: the target's math library. Upstream swaps in the CUDA or HIP module
per backend; tritium targets NVIDIA (and the CPU backend, which evaluates the same
`__nv_*` symbols), so this is the CUDA module's functions."""
from .cuda.libdevice import *  # noqa: F401,F403
from .cuda.libdevice import __all__  # noqa: F401
