"""Gluon's builtins: what differs from `tl` (layouts are arguments) plus the `tl` builtins
Gluon shares unchanged — those run Gluon's rules because the code generator hands them
`GluonSemantic` as `_semantic`."""
from __future__ import annotations

from ....language import builtins as _tl_builtins
from ....language import builtins_misc as _tl_misc
from ....language.core import (_unwrap_if_constexpr, base_value, builtin, constexpr,
                               must_use_result, tensor, tuple)
from ....language.dtypes import (bfloat16, block_type, dtype, float8e4b8, float8e4b15,
                                 float8e4nv, float8e5, float8e5b16, float16, float32, float64,
                                 int1, int8, int16, int32, int64, pointer_type, tuple_type,
                                 uint8, uint16, uint32, uint64, void)
from ._layouts import DistributedLayout, SharedLayout
from ._types import (distributed_type, shared_memory_descriptor,
                     shared_memory_descriptor_type)

# Shared with `tl`: typing is the semantic's, so these keep their operands' layouts.
from ....language.builtins import (add, atomic_add, atomic_and, atomic_cas, atomic_max,  # noqa: F401,E501
                                   atomic_min, atomic_or, atomic_xchg, atomic_xor, broadcast,
                                   broadcast_to, cast, clamp, expand_dims, join, load, maximum,
                                   minimum, mul, num_programs, permute, program_id, reshape,
                                   split, store, sub, to_tensor, where)
from ....language.builtins_misc import (assume, associative_scan, device_assert,  # noqa: F401
                                        device_print, inline_asm_elementwise, map_elementwise,
                                        max_constancy,
                                        max_contiguous, multiple_of, range, reduce,
                                        static_assert, static_print, static_range)

base_type = dtype


@builtin
def arange(start, end, layout=None, _semantic=None):
    """`[start, end)` as int32 in `layout` (`AutoLayout` when None: the compiler resolves
    it from the concrete layouts the result meets)."""
    return _semantic.arange(_unwrap_if_constexpr(start), _unwrap_if_constexpr(end),
                            _unwrap_if_constexpr(layout))


@builtin
def full(shape, value, dtype, layout=None, _semantic=None):
    """A block of `shape` filled with `value` as `dtype`, in `layout`."""
    shape = _tl_builtins._unwrap_shape(shape)
    return _semantic.full(shape, _unwrap_if_constexpr(value), _unwrap_if_constexpr(dtype),
                          _unwrap_if_constexpr(layout))


@builtin
def convert_layout(value, layout, assert_trivial=False, _semantic=None):
    """`value` in another layout (data moves between threads as needed);
    `assert_trivial=True` refuses a conversion that would move any."""
    return _semantic.convert_layout(value, _unwrap_if_constexpr(layout),
                                    bool(_unwrap_if_constexpr(assert_trivial)))


@builtin
def set_auto_layout(value, layout, _semantic=None):
    """Give a tensor in `AutoLayout` (and what it was computed with) a concrete layout."""
    return _semantic.set_auto_layout(value, _unwrap_if_constexpr(layout))


@builtin
def num_warps(_semantic=None):
    """The kernel's number of warps, a compile-time constant."""
    return constexpr(_semantic.num_warps_value)


@builtin
def num_ctas(_semantic=None):
    """CTAs per cluster (always 1 in tritium)."""
    return constexpr(1)


@builtin
def thread_barrier(_semantic=None):
    """Synchronise the threads of a CTA (shared memory written before is visible after)."""
    return _semantic.debug_barrier()


barrier = thread_barrier


@builtin
def histogram(input, num_bins, mask=None, layout=None, _semantic=None):
    """Counts of `input`'s values in [0, num_bins), as an int32 block in `layout`."""
    return _semantic.histogram(input, int(_unwrap_if_constexpr(num_bins)), mask,
                               _unwrap_if_constexpr(layout))


@builtin
def gather(src, index, axis, _semantic=None):
    """`src[..., index[...], ...]` along `axis`; the result has `index`'s shape and layout."""
    return _semantic.gather(src, index, int(_unwrap_if_constexpr(axis)))


@builtin
def to_linear_layout(layout, shape, _semantic=None):
    """`layout` over `shape` as a `DistributedLinearLayout` (a compile-time value)."""
    from ._layouts import layout_from_encoding
    from ....gpu.layouts import LinearEncoding
    layout = _unwrap_if_constexpr(layout)
    shape = [int(_unwrap_if_constexpr(s)) for s in _unwrap_if_constexpr(shape)]
    ll = layout._to_encoding().to_linear_layout(shape)
    return constexpr(layout_from_encoding(LinearEncoding(ll)))


@builtin
def dot_fma(a, b, acc, _semantic=None):
    """`acc + a @ b` on the CUDA cores: `a`, `b` in `DotOperandLayout`s of `acc`'s layout."""
    return _semantic.dot_fma(a, b, acc)


@builtin
def allocate_shared_memory(element_ty, shape, layout, value=None, _semantic=None):
    """A buffer of `shape` `element_ty` elements in shared memory laid out as `layout`,
    initialised from the tensor `value` when given."""
    return _semantic.allocate_shared(_unwrap_if_constexpr(element_ty),
                                     _unwrap_if_constexpr(shape),
                                     _unwrap_if_constexpr(layout), value)


# -- the shared memory descriptor's methods (builtins: they emit IR)
@builtin
def _smem_load(self, layout, _semantic=None):
    """The buffer's contents as a tensor in `layout`."""
    return _semantic.shared_load(self, _unwrap_if_constexpr(layout))


@builtin
def _smem_store(self, value, _semantic=None):
    """Write `value` (same shape and dtype) into the buffer."""
    return _semantic.shared_store(self, value)


@builtin
def _smem_index(self, index, _semantic=None):
    """The `index`-th buffer of a buffer whose leading dimension counts buffers."""
    return _semantic.memdesc_index(self, index)


@builtin
def _smem_slice(self, start, length, dim=0, _semantic=None):
    """`length` rows (along `dim`) of the buffer from `start`."""
    return _semantic.memdesc_slice(self, start, length, dim)


@builtin
def _smem_permute(self, order, _semantic=None):
    """The buffer viewed with its dimensions permuted (no data moves)."""
    return _semantic.memdesc_trans(self, _unwrap_if_constexpr(order))


@builtin
def _smem_reshape(self, shape, _semantic=None):
    """The buffer viewed with another shape of as many elements."""
    return _semantic.memdesc_reshape(self, _unwrap_if_constexpr(shape))


@builtin
def _smem_reinterpret(self, dtype, shape, layout, _semantic=None):
    """The buffer's bytes viewed as other elements, shape and layout."""
    return _semantic.memdesc_reinterpret(self, _unwrap_if_constexpr(dtype),
                                         _unwrap_if_constexpr(shape),
                                         _unwrap_if_constexpr(layout))


@builtin
def _smem_dealloc(self, _semantic=None):
    """End the buffer's life early (its bytes may be reused after)."""
    return _semantic.shared_dealloc(self)


shared_memory_descriptor.load = _smem_load
shared_memory_descriptor.store = _smem_store
shared_memory_descriptor.index = _smem_index
shared_memory_descriptor.slice = _smem_slice
shared_memory_descriptor.permute = _smem_permute
shared_memory_descriptor.reshape = _smem_reshape
shared_memory_descriptor._reinterpret = _smem_reinterpret
