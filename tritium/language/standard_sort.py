"""Sorting-network parts of the standard library: `sort`, `topk`, `bitonic_merge`, `flip`,
`interleave`.

The tensor is viewed as a hypercube [2, 2, ..., 2]; a compare-and-swap along one cube axis
pairs each element with its partner, found by xor-ing with the axis' xor-reduction (the
xor of the pair), so no gather or shuffle op is needed.
"""
from __future__ import annotations

from ..frontend.jit import jit
from .builtins import constexpr_function
from .standard import _get_flip_dim, _is_power_of_two, _log2, max, min, xor_sum

import tritium.language as tl  # resolved when a kernel is compiled, not at import


# Shapes are computed by plain Python at compile time, so kernels need no list arithmetic.
@constexpr_function
def _cube(n_dims):
    return [2] * n_dims


@constexpr_function
def _axis_shape(n_dims, j):
    return [1] * (n_dims - j - 1) + [2] + [1] * j


@constexpr_function
def _replace_dim(shape, dim, new_dims):
    shape = list(shape)
    return shape[:dim] + list(new_dims) + shape[dim + 1:]


@constexpr_function
def _with_last(shape, last, drop=1):
    return list(shape)[:-drop] + [last]


@jit
def _indicator(n_dims: tl.constexpr, j: tl.constexpr):
    ar = tl.arange(0, 2)
    ar = tl.reshape(ar, _axis_shape(n_dims, j))
    return ar


@jit
def _compare_and_swap(x, flip, i: tl.constexpr):
    # Compare-and-swap along the i-th innermost cube axis.
    n_dims: tl.constexpr = _log2(x.numel)
    idtype = tl.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    ix = x.to(idtype, bitcast=True)
    iy = ix ^ xor_sum(ix, n_dims - 1 - i, True)
    y = iy.to(x.dtype, bitcast=True)
    is_right = _indicator(n_dims, i)
    ret = tl.where((x > y) != (flip ^ is_right), y, x)
    return ret


@jit
def _bitonic_merge_hypercube(x, stage: tl.constexpr, order: tl.constexpr):
    # order: 0 ascending, 1 descending, 2 alternating by the `stage` axis.
    if order == 2:
        flip = _indicator(_log2(x.numel), stage)
    else:
        flip = order
    for i in tl.static_range(stage):
        x = _compare_and_swap(x, flip, stage - 1 - i)
    return x


@jit
def _bitonic_merge(x, stage: tl.constexpr, order: tl.constexpr, n_dims: tl.constexpr):
    h = tl.reshape(x, _cube(_log2(x.numel)))
    h = _bitonic_merge_hypercube(h, stage, order)
    x = tl.reshape(h, x.shape)
    return x


@jit
def sort_impl(x, k: tl.constexpr = None, dim: tl.constexpr = None,
              descending: tl.constexpr = tl.CONSTEXPR_0):
    """Sort `x` along its last dimension (the only one supported), keeping the first `k`."""
    _dim: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    tl.static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    log_n: tl.constexpr = _log2(x.shape[_dim])
    log_k: tl.constexpr = log_n if k is None else _log2(k)
    n_dims: tl.constexpr = _log2(x.numel)
    h = tl.reshape(x, _cube(n_dims))
    for i in tl.static_range(1, log_k + 1):
        h = _bitonic_merge_hypercube(h, i, 2 if i < log_n else descending)
    # Top-k: halve the candidates by a max/min over the next cube axis, then re-merge.
    for i in tl.static_range(log_k + 1, log_n + 1):
        h = max(h, axis=(_log2(h.numel) - 1 - log_k)) if descending else \
            min(h, axis=(_log2(h.numel) - 1 - log_k))
        h = _bitonic_merge_hypercube(h, log_k, 2 if i < log_n else descending)
    x = tl.reshape(h, _with_last(x.shape, 2**log_k))
    return x


@jit
def sort(x, dim: tl.constexpr = None, descending: tl.constexpr = tl.CONSTEXPR_0):
    """`x` sorted along its last dimension."""
    return sort_impl(x, dim=dim, descending=descending)


@jit
def topk(x, k: tl.constexpr, dim: tl.constexpr = None, descending: tl.constexpr = True):
    """The `k` largest values of `x` along its last dimension, in descending order
    (`descending=False`: the `k` smallest, ascending)."""
    return sort_impl(x, k=k, dim=dim, descending=descending)


@jit
def bitonic_merge(x, dim: tl.constexpr = None, descending: tl.constexpr = tl.CONSTEXPR_0):
    """Merge the two sorted halves of the last dimension of `x`."""
    _dim: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    tl.static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    n_dims: tl.constexpr = _log2(x.shape[-1])
    return _bitonic_merge(x, n_dims, descending, n_dims)


@jit
def flip(x, dim=None):
    """`x` reversed along `dim` (the last dimension if None)."""
    _dim: tl.constexpr = _get_flip_dim(dim, x.shape)
    tl.static_assert(0 <= _dim and _dim < len(x.shape))
    tl.static_assert(_is_power_of_two(x.shape[_dim]))
    steps: tl.constexpr = _log2(x.shape[_dim])
    # Reversing a power-of-two axis is xor-ing each index bit: swap along each cube axis.
    idtype = tl.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    y = tl.reshape(x.to(idtype, bitcast=True), _replace_dim(x.shape, _dim, _cube(steps)))
    for i in tl.static_range(steps):
        y = y ^ xor_sum(y, _dim + i, True)
    x = tl.reshape(y, x.shape).to(x.dtype, bitcast=True)
    return x


@jit
def interleave(a, b):
    """Interleave two same-shape tensors along their last dimension."""
    c = tl.join(a, b)
    if len(c.shape) == 1:
        # Two scalars were joined.
        return c
    else:
        return tl.reshape(c, _with_last(c.shape, 2 * c.shape[-2], 2))
