"""The standard library, written in the language itself: `tl.sum`, `tl.max`, `tl.softmax`,
`tl.cdiv`, `tl.flip`, `tl.sort`, ... (each a `@jit` function, as upstream)."""
from __future__ import annotations

from ..frontend.jit import jit
from . import math
from .builtins import constexpr_function
from .core import tensor

import tritium.language as tl  # resolved when a kernel is compiled, not at import


# ---------------------------------------------------------------------- constexpr helpers
@constexpr_function
def _log2(i):
    log2 = 0
    n = i
    while n > 1:
        n >>= 1
        log2 += 1
    return log2


@constexpr_function
def _is_power_of_two(i):
    return (i & (i - 1)) == 0 and i != 0


@constexpr_function
def _pick_sum_dtype(in_dtype, dtype):
    # Narrow ints accumulate in 32 bits of the same signedness, so sums do not wrap early.
    if dtype is not None:
        return dtype
    if in_dtype.is_int_signed():
        return tl.int32 if in_dtype.int_bitwidth < 32 else None
    if in_dtype.is_int_unsigned():
        return tl.uint32 if in_dtype.int_bitwidth < 32 else None
    return None


@constexpr_function
def _get_flip_dim(dim, shape):
    if dim is None:
        dim = len(shape) - 1
    if dim < 0:
        dim += len(shape)
    return dim


# ---------------------------------------------------------------------- elementwise
@jit
def cdiv(x, div):
    """Ceiling division of `x` by `div` (for non-negative operands)."""
    return (x + div - 1) // div


@jit
def sigmoid(x):
    """The elementwise sigmoid of `x`."""
    return 1 / (1 + math.exp(-x))


@jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """The softmax of `x` along `dim` (0 if None)."""
    if dim is None:
        _dim: tl.constexpr = 0
    else:
        _dim: tl.constexpr = dim
    z = x - max(x, _dim, keep_dims=keep_dims)
    num = math.exp(z)
    den = sum(num, _dim, keep_dims=keep_dims)
    return math.fdiv(num, den, ieee_rounding)


@constexpr_function
def _squeezed_shape(shape, dim):
    shape = list(shape)
    if not -len(shape) <= dim < len(shape):
        raise ValueError(f"squeeze: dim {dim} is out of range for a {len(shape)}-d tensor")
    dim %= len(shape)
    if shape[dim] != 1:
        raise ValueError(f"squeeze: dimension {dim} has size {shape[dim]}, not 1")
    return shape[:dim] + shape[dim + 1:]


@constexpr_function
def _unsqueezed_shape(shape, dim):
    shape = list(shape)
    if not -len(shape) - 1 <= dim <= len(shape):
        raise ValueError(f"unsqueeze: dim {dim} is out of range for a {len(shape)}-d tensor")
    dim %= len(shape) + 1
    return shape[:dim] + [1] + shape[dim:]


@jit
def squeeze(x, dim: tl.constexpr):
    """`x` without its size-1 dimension `dim`."""
    return tl.reshape(x, _squeezed_shape(x.shape, dim))


@jit
def unsqueeze(x, dim: tl.constexpr):
    """`x` with a new size-1 dimension at `dim`."""
    return tl.reshape(x, _unsqueezed_shape(x.shape, dim))


@jit
def ravel(x, can_reorder=False):
    """`x` flattened to one dimension."""
    return tl.reshape(x, [x.numel], can_reorder=can_reorder)


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Map row-major indices (i, j) of a size_i x size_j grid to the column-major order
    within groups of size_g rows (the grouped tile order that improves L2 reuse)."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    # The last group may have fewer rows.
    size_g = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


# ---------------------------------------------------------------------- max / argmax
@jit
def _argmax_combine(value1, index1, value2, index2, tie_break_left):
    if tie_break_left:
        tie = value1 == value2 and index1 < index2
    else:
        tie = False
    gt = value1 > value2 or tie
    v_ret = tl.where(gt, value1, value2)
    i_ret = tl.where(gt, index1, index2)
    return v_ret, i_ret


@jit
def _argmax_combine_tie_break_left(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, True)


@jit
def _argmax_combine_tie_break_fast(value1, index1, value2, index2):
    return _argmax_combine(value1, index1, value2, index2, False)


@jit
def _elementwise_max(a, b):
    return tl.maximum(a, b)


@jit
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The maximum of `input` along `axis`; with `return_indices`, also its index."""
    input = tl._promote_bfloat16_to_float32(input)
    if return_indices:
        if return_indices_tie_break_left:
            return tl._reduce_with_indices(input, axis, _argmax_combine_tie_break_left,
                                           keep_dims=keep_dims)
        else:
            return tl._reduce_with_indices(input, axis, _argmax_combine_tie_break_fast,
                                           keep_dims=keep_dims)
    else:
        if tl.constexpr(input.dtype.primitive_bitwidth) < tl.constexpr(32):
            if tl.constexpr(input.dtype.is_floating()):
                input = input.to(tl.float32)
            else:
                tl.static_assert(input.dtype.is_int(), "Expecting input to be integer type")
                input = input.to(tl.int32)
        return tl.reduce(input, axis, _elementwise_max, keep_dims=keep_dims)


@jit
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the maximum of `input` along `axis`."""
    (_, ret) = max(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                   keep_dims=keep_dims)
    return ret


# ---------------------------------------------------------------------- min / argmin
@jit
def _argmin_combine(value1, index1, value2, index2, tie_break_left):
    if tie_break_left:
        tie = value1 == value2 and index1 < index2
    else:
        tie = False
    lt = value1 < value2 or tie
    value_ret = tl.where(lt, value1, value2)
    index_ret = tl.where(lt, index1, index2)
    return value_ret, index_ret


@jit
def _argmin_combine_tie_break_left(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, True)


@jit
def _argmin_combine_tie_break_fast(value1, index1, value2, index2):
    return _argmin_combine(value1, index1, value2, index2, False)


@jit
def _elementwise_min(a, b):
    return tl.minimum(a, b)


@jit
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The minimum of `input` along `axis`; with `return_indices`, also its index."""
    input = tl._promote_bfloat16_to_float32(input)
    if return_indices:
        if return_indices_tie_break_left:
            return tl._reduce_with_indices(input, axis, _argmin_combine_tie_break_left,
                                           keep_dims=keep_dims)
        else:
            return tl._reduce_with_indices(input, axis, _argmin_combine_tie_break_fast,
                                           keep_dims=keep_dims)
    else:
        if tl.constexpr(input.dtype.primitive_bitwidth) < 32:
            if tl.constexpr(input.dtype.is_floating()):
                input = input.to(tl.float32)
            else:
                tl.static_assert(input.dtype.is_int(), "Expecting input to be integer type")
                input = input.to(tl.int32)
        return tl.reduce(input, axis, _elementwise_min, keep_dims=keep_dims)


@jit
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the minimum of `input` along `axis`."""
    _, ret = min(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                 keep_dims=keep_dims)
    return ret


# ---------------------------------------------------------------------- sums
@jit
def _sum_combine(a, b):
    return a + b


@jit
def sum(input, axis=None, keep_dims=False, dtype: tl.constexpr = None):
    """The sum of `input` along `axis`; narrow ints accumulate in 32 bits unless `dtype`."""
    out_dtype: tl.constexpr = _pick_sum_dtype(input.dtype, dtype)
    if out_dtype is not None:
        input = input.to(out_dtype)
    return tl.reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@jit
def _xor_combine(a, b):
    return a ^ b


@jit
def xor_sum(input, axis=None, keep_dims=False):
    """The xor of the integers of `input` along `axis`."""
    tl.static_assert(input.type.scalar.is_int(), "xor_sum only supported for integers")
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@jit
def _or_combine(x, y):
    return x | y


@jit
def reduce_or(input, axis, keep_dims=False):
    """The bitwise or of the integers of `input` along `axis`."""
    tl.static_assert(input.type.scalar.is_int(), "reduce_or only supported for integers")
    return tl.reduce(input, axis, _or_combine, keep_dims=keep_dims)


@jit
def cumsum(input, axis=0, reverse=False, dtype: tl.constexpr = None):
    """The inclusive prefix sum of `input` along `axis`."""
    input = tl._promote_bfloat16_to_float32(input)
    out_dtype: tl.constexpr = _pick_sum_dtype(input.dtype, dtype)
    if out_dtype is not None:
        input = input.to(out_dtype)
    return tl.associative_scan(input, axis, _sum_combine, reverse)


@jit
def _prod_combine(a, b):
    return a * b


@jit
def cumprod(input, axis=0, reverse=False):
    """The inclusive prefix product of `input` along `axis`."""
    input = tl._promote_bfloat16_to_float32(input)
    return tl.associative_scan(input, axis, _prod_combine, reverse)


from .standard_sort import bitonic_merge, flip, interleave, sort, topk  # noqa: E402,F401

_MEMBERS = [cdiv, sigmoid, softmax, ravel, max, argmax, min, argmin, sum, xor_sum, reduce_or,
            cumsum, cumprod, sort, flip]


def _install_tensor_method(jit_fn) -> None:
    """`x.sum(0)` calls the @jit `sum` with `x` first (through the code generator, which
    specializes and emits the call like any other device-function call)."""

    def method(self, *args, _semantic=None, _generator=None, **kwargs):
        call = getattr(_generator, "call_JitFunction", None) or _generator.call_jit_function
        return call(jit_fn, [self, *args], kwargs)

    method.__name__ = method.__qualname__ = jit_fn.__name__
    method.__doc__ = jit_fn.__doc__
    method.__triton_builtin__ = True
    setattr(tensor, jit_fn.__name__, method)


for _fn in _MEMBERS:
    _install_tensor_method(_fn)
