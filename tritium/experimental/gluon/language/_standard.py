"""Gluon's standard library: `tl`'s reductions (`sum`, `max`, `min`, `xor_sum`,
`reduce_or`: `@jit` functions, so in a Gluon kernel they run Gluon's rules and return the
`SliceLayout` of their operand along the reduced axis) and the block makers that take a
layout (`zeros`, `full_like`, `zeros_like`: by default the model tensor's)."""
from __future__ import annotations

from ....language.builtins import _unwrap_shape
from ....language.core import _unwrap_if_constexpr, builtin
from ....language.standard import cdiv, max, min, reduce_or, sum, xor_sum  # noqa: F401
from ._core import full

__all__ = ["cdiv", "full_like", "max", "min", "reduce_or", "sum", "xor_sum", "zeros",
           "zeros_like"]


@builtin
def zeros(shape, dtype, layout=None, _semantic=None):
    """A block of zeros of `shape` and `dtype` in `layout`."""
    return full(shape, 0, dtype, layout, _semantic=_semantic)


@builtin
def full_like(input, value, shape=None, dtype=None, layout=None, _semantic=None):
    """A block like `input` (its shape, dtype and layout unless given) filled with `value`."""
    shape = _unwrap_if_constexpr(shape)
    shape = list(input.shape) if shape is None else _unwrap_shape(shape)
    dtype = _unwrap_if_constexpr(dtype) or input.dtype
    layout = _unwrap_if_constexpr(layout)
    if layout is None and input.type.is_block():
        layout = input.type.layout
    return full(shape, value, dtype, layout, _semantic=_semantic)


@builtin
def zeros_like(input, shape=None, dtype=None, layout=None, _semantic=None):
    """Zeros like `input` (its shape, dtype and layout unless given)."""
    return full_like(input, 0, shape, dtype, layout, _semantic=_semantic)
