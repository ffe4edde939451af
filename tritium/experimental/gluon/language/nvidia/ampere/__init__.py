"""`gl.nvidia.ampere`: `mma_v2`, the mma.sync tensor-core dot (sm_80+): operands in
`DotOperandLayout`s of the accumulator's `NVMMADistributedLayout(version=[2, 0], ...)`."""
from ......language.core import _unwrap_if_constexpr, builtin

__all__ = ["mma_v2"]


@builtin
def mma_v2(a, b, acc, input_precision=None, _semantic=None):
    """`acc + a @ b` with mma.sync."""
    return _semantic.mma_v2(a, b, acc, _unwrap_if_constexpr(input_precision))
