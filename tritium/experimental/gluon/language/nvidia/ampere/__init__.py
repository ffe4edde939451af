"""`gl.nvidia.ampere`: `mma_v2`, the mma.sync tensor-core dot (sm_80+): operands in
`DotOperandLayout`s of the accumulator's `NVMMADistributedLayout(version=[2, 0], ...)`;
`async_copy` (cp.async into shared memory)."""
from ......language.core import _unwrap_if_constexpr, builtin
from . import async_copy

__all__ = ["async_copy", "mma_v2"]


@builtin
def mma_v2(a, b, acc, input_precision=None, _semantic=None):
    """`acc + a @ b` with mma.sync."""
    return _semantic.mma_v2(a, b, acc, _unwrap_if_constexpr(input_precision))
