"""`tritium.language`, imported by kernels as `tl`: the names of upstream `triton.language`."""
# flake8: noqa: F401  (re-exports: this module is the `tl` namespace)
# Order matters: standard.py and random.py are @jit code that reads `tl.*` names (some at
# definition time), so everything they use is bound before they are imported.
from . import core, dtypes
from .core import (CONSTEXPR_0, _constexpr_to_value, _tensor_member_fn, _unwrap_if_constexpr,
                   base_value, builtin, check_bit_width, constexpr, is_builtin, tensor, tuple)
from .dtypes import (TRITON_MAX_TENSOR_NUMEL, bfloat16, block_type, dtype, float8e4b8,
                     float8e4b15, float8e4nv, float8e5, float8e5b16, float16, float32, float64,
                     str_to_ty,
                     int1, int8, int16, int32, int64, pi32_t, pointer_type, tuple_type, uint8,
                     uint16, uint32, uint64, void)
from .builtins import (PropagateNan, _promote_bfloat16_to_float32, _shape_check_impl,
                       _unwrap_iterable, _unwrap_shape, _wrap_axis, add, advance, arange,
                       atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or,
                       atomic_xchg, atomic_xor, broadcast, broadcast_to, cast, cat, clamp, const,
                       constexpr_function, constexpr_type, dot, dot_scaled, expand_dims, full,
                       get_int_dtype, item, join, load, load_tensor_descriptor, make_block_ptr,
                       make_tensor_descriptor, maximum, minimum, mul, num_programs, permute,
                       program_id, reshape, slice, split, store, store_tensor_descriptor, sub,
                       tensor_descriptor, tensor_descriptor_base, to_tensor, trans,
                       validate_block_shape, view, where, zeros, zeros_like)
from .tensor_descriptor import tensor_descriptor_base_type, tensor_descriptor_type
from .builtins_misc import (_add_reduction_docstr, _add_scan_docstr, _insertion_guard,
                            _reduce_with_indices, _unsplat, assume, associative_scan,
                            binary_op_type_legalization, debug_barrier, device_assert,
                            device_print, dispatch, extern, extern_elementwise, gather, histogram,
                            inline_asm_elementwise, map_elementwise, max_constancy, max_contiguous,
                            multiple_of, range, reduce, static_assert, static_print, static_range)
from . import math
from .math import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt,
                   sin, sqrt, sqrt_rn, umulhi)
from . import standard
from .standard import (argmax, argmin, bitonic_merge, cdiv, cumprod, cumsum, flip, interleave, max,
                       min, ravel, reduce_or, sigmoid, softmax, sort, squeeze, sum, swizzle2d,
                       topk, unsqueeze, xor_sum)
from . import random
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint,
                     randint4x, randn, randn4x, uint_to_uniform_float)
from . import extra
from . import target_info
from .builtins_misc import condition
from .semantic import TritonSemantic

__all__ = [
    "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "load_tensor_descriptor", "store_tensor_descriptor",
    "make_tensor_descriptor", "tensor_descriptor", "tensor_descriptor_type",
    "tensor_descriptor_base", "tensor_descriptor_base_type", "abs", "add", "advance", "arange", "argmax",
    "argmin", "associative_scan", "assume", "atomic_add", "atomic_and", "atomic_cas",
    "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "bfloat16",
    "bitonic_merge", "block_type", "broadcast", "broadcast_to", "cat", "cast", "cdiv", "ceil",
    "clamp", "condition", "const", "constexpr", "constexpr_type", "cos", "cumprod", "cumsum", "debug_barrier",
    "device_assert", "device_print", "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp",
    "exp2", "expand_dims", "extra", "fdiv", "flip", "float16", "float32", "float64",
    "float8e4b15", "float8e4nv", "float8e4b8", "float8e5", "float8e5b16", "floor", "fma", "full",
    "gather", "histogram", "inline_asm_elementwise", "interleave", "int1", "int16", "int32",
    "int64", "int8", "join", "load", "log", "log2", "make_block_ptr", "map_elementwise", "math",
    "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum", "multiple_of",
    "num_programs", "pair_uniform_to_normal", "permute", "philox", "philox_impl", "pi32_t",
    "pointer_type", "program_id", "rand", "rand4x", "randint", "randint4x", "randn", "randn4x",
    "range", "ravel", "squeeze", "unsqueeze", "reduce", "reduce_or", "reshape", "rsqrt", "slice", "sigmoid", "sin",
    "softmax", "sort", "split", "sqrt", "sqrt_rn", "static_assert", "static_print",
    "static_range", "store", "sum", "swizzle2d", "target_info", "tensor", "topk", "trans", "tuple",
    "tuple_type", "uint16", "uint32", "uint64", "uint8", "uint_to_uniform_float", "umulhi",
    "view", "void", "where", "xor_sum", "zeros", "zeros_like",
]
