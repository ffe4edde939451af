"""`triton.experimental.gluon.language` (`gl`): Gluon's layout-explicit kernel language.

Tensors are `tl.tensor`s whose type is a `distributed_type` naming its layout
(`BlockedLayout`, `SliceLayout`, `DistributedLinearLayout`, `NVMMADistributedLayout`,
`DotOperandLayout`, or `AutoLayout` for the compiler to resolve); blocks are made in a
layout the kernel names (`arange(..., layout=)`, `full`, `zeros`), operands of one op must
share a layout (no implicit conversion: `convert_layout`), reductions return the
`SliceLayout` of their operand, `expand_dims` wants one. Shared memory is explicit:
`allocate_shared_memory(dtype, shape, SwizzledSharedLayout | NVMMASharedLayout, value)`
returns a `shared_memory_descriptor` with `load(layout)`, `store`, `index`, `slice`,
`permute`, `reshape`, `_reinterpret`. `nvidia.ampere` (`mma_v2`, `async_copy`) and
`nvidia.hopper` (`mbarrier`, `tma`, `fence_async_shared`, `warpgroup_mma`) hold the
architecture-specific builtins. Kernels (`gluon.jit`) compile from TTGIR for NVIDIA and
run on the CPU backend with the layouts dropped (buffers as values).
"""
# flake8: noqa: F401  (re-exports: this module is the `gl` namespace)
from ._core import (
    _unwrap_if_constexpr, add, allocate_shared_memory, arange, associative_scan, assume,
    atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg,
    atomic_xor, barrier, base_type, base_value, bfloat16, block_type, broadcast, broadcast_to,
    cast, clamp, constexpr, convert_layout, dot_fma, device_assert, device_print, distributed_type,
    dtype, expand_dims, gather, histogram, map_elementwise, to_linear_layout, float8e4b8, float8e4b15, float8e4nv, float8e5, float8e5b16, float16,
    float32, float64, full, inline_asm_elementwise, int1, int8, int16, int32, int64, join,
    load, max_constancy, max_contiguous, maximum, minimum, mul, multiple_of, must_use_result,
    num_ctas, num_programs, num_warps, permute, pointer_type, program_id, range, reduce,
    reshape, set_auto_layout, shared_memory_descriptor, shared_memory_descriptor_type, split,
    static_assert, static_print, static_range, store, sub, tensor, thread_barrier, to_tensor,
    tuple, tuple_type, uint8, uint16, uint32, uint64, void, where)
from ._layouts import (AutoLayout, BlockedLayout, DistributedLayout, DistributedLinearLayout,
                       DotOperandLayout, NVMMADistributedLayout, NVMMASharedLayout,
                       SharedLayout, SliceLayout, SwizzledSharedLayout)
from ....language.math import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log,
                               log2, rsqrt, sin, sqrt, sqrt_rn, umulhi)
from ._standard import cdiv, full_like, max, min, reduce_or, sum, xor_sum, zeros, zeros_like
from . import nvidia
