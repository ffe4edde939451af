"""Tensor descriptors (part of `TritonSemantic`): `tl.make_tensor_descriptor` and the
descriptor loads, stores, reductions, gathers and scatters. Checks and messages follow
upstream's semantic.py; the IR is upstream's `tt.make_tensor_descriptor` /
`tt.descriptor_*` ops (see `ir/ops.py`)."""
from __future__ import annotations

from ..ir.ops import DESCRIPTOR_REDUCE_KINDS, PADDING_OPTIONS
from . import dtypes as tl
from .core import _unwrap_if_constexpr, tensor
from .tensor_descriptor import tensor_descriptor, tensor_descriptor_base

_ADD_TYPES = (tl.uint32, tl.int32, tl.uint64, tl.float32, tl.float16, tl.bfloat16)
_MINMAX_TYPES = (tl.uint32, tl.int32, tl.uint64, tl.int64, tl.float16, tl.bfloat16)
_BITWISE_TYPES = (tl.uint32, tl.int32, tl.uint64, tl.int64)


def _check_desc(desc):
    if not isinstance(desc, tensor_descriptor_base):
        raise TypeError(f"expected a tensor descriptor, got {type(desc).__name__}")


class DescriptorMixin:
    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero"):
        shape, strides = list(_unwrap_if_constexpr(shape)), list(_unwrap_if_constexpr(strides))
        block_shape = _unwrap_if_constexpr(block_shape)
        ndim = len(shape)
        if not 1 <= ndim <= 5:
            raise ValueError(f"Expected 1 <= ndim <= 5 but got {ndim} dimensions")
        if len(strides) != ndim:
            raise ValueError(f"Expected {ndim} strides but got {len(strides)}")
        if len(block_shape) != ndim:
            raise ValueError(f"Expected block_shape to have {ndim} dimensions but got "
                             f"{len(block_shape)}")
        if not isinstance(base, tensor) or not base.type.is_ptr() or base.type.is_block():
            raise ValueError("Expected `base` to be a scalar pointer")
        elt = base.type.element_ty
        elem_size = elt.primitive_bitwidth // 8
        contig = _unwrap_if_constexpr(block_shape[-1])
        if contig * elem_size < 16:
            raise ValueError(f"Descriptor block shape must have at least 16 bytes in the last "
                             f"dimension, but got {contig} * {elem_size} = {contig * elem_size} "
                             f"bytes")
        last_stride = _unwrap_if_constexpr(strides[-1])
        if last_stride != 1:
            raise ValueError(f"Tensor descriptor last dim must be 1 but got {last_stride}")
        shape = [self.make_scalar(_unwrap_if_constexpr(x), tl.int32) for x in shape]
        strides = [self.make_scalar(_unwrap_if_constexpr(x), tl.int64) for x in strides]
        from .builtins import validate_block_shape
        block_shape = [int(_unwrap_if_constexpr(b)) for b in block_shape]
        validate_block_shape(block_shape)
        padding = self._str_to_padding_option(padding_option)
        if elt.is_int() and padding == "nan":
            raise ValueError("Padding option `nan` is not supported for integer blocks")
        block = tl.block_type(elt, block_shape)
        from .tensor_descriptor import tensor_descriptor_base_type
        ir_ty = tensor_descriptor_base_type(block).to_ir()
        handle = self.builder.create1("tt.make_tensor_descriptor",
                                      [base.handle] + [s.handle for s in shape + strides], ir_ty,
                                      {"padding": PADDING_OPTIONS[padding or "zero"]})
        return tensor_descriptor(handle, shape, strides, block)

    def _descriptor_offsets(self, desc, offsets):
        offsets = _unwrap_if_constexpr(offsets)
        if isinstance(offsets, tensor) or not hasattr(offsets, "__len__"):
            offsets = [offsets]
        ndim = len(desc.block_shape)
        if len(offsets) != ndim:
            raise ValueError(f"expected {ndim} offsets, but got {len(offsets)}")
        return self._convert_to_ir_values(offsets, require_i64=False)

    def descriptor_load(self, desc, offsets, cache_modifier, eviction_policy) -> tensor:
        _check_desc(desc)
        idx = self._descriptor_offsets(desc, offsets)
        attrs = {"cache": self._str_to_load_cache_modifier(cache_modifier),
                 "evict": self._str_to_eviction_policy(eviction_policy)}
        return self._emit("tt.descriptor_load", [desc.handle] + idx, desc.block_type, attrs)

    def _store_like(self, desc, value, offsets):
        _check_desc(desc)
        idx = self._descriptor_offsets(desc, offsets)
        value = self.to_tensor(value)
        if not value.type.is_block():
            value = self.splat(value, desc.block_shape)
        if list(value.type.get_block_shapes()) != desc.block_shape:
            raise ValueError(f"value shape {value.type.get_block_shapes()} does not match the "
                             f"descriptor's block shape {desc.block_shape}")
        return self.cast(value, desc.dtype), idx

    def descriptor_store(self, desc, value, offsets):
        value, idx = self._store_like(desc, value, offsets)
        attrs = {"cache": 1, "evict": 1}
        return self._emit_void("tt.descriptor_store", [desc.handle, value] + idx, attrs)

    def _descriptor_reduce(self, kind, desc, value, offsets, allowed):
        _check_desc(desc)
        if desc.dtype not in allowed:
            raise ValueError(f"Unsupported dtype {desc.dtype} for descriptor atomic_{kind} "
                             f"(supported: {', '.join(str(t) for t in allowed)})")
        value, idx = self._store_like(desc, value, offsets)
        attrs = {"kind": DESCRIPTOR_REDUCE_KINDS[kind], "cache": 1, "evict": 1}
        return self._emit_void("tt.descriptor_reduce", [desc.handle, value] + idx, attrs)

    def descriptor_atomic_add(self, desc, value, offsets):
        return self._descriptor_reduce("add", desc, value, offsets, _ADD_TYPES)

    def _minmax_supported(self, kind, desc):
        _check_desc(desc)
        if desc.dtype in (tl.float16, tl.bfloat16):
            # Upstream allows these only with native TMA, which tritium does not use yet.
            raise ValueError("16-bit float types require native tma support")
        if desc.dtype.is_int_unsigned():
            # The IR's integers are signless and tt.descriptor_reduce has no signedness.
            raise NotImplementedError(f"descriptor atomic_{kind} on unsigned integers "
                                      f"({desc.dtype}) is not supported by tritium yet")

    def descriptor_atomic_min(self, desc, value, offsets):
        self._minmax_supported("min", desc)
        return self._descriptor_reduce("min", desc, value, offsets, _MINMAX_TYPES)

    def descriptor_atomic_max(self, desc, value, offsets):
        self._minmax_supported("max", desc)
        return self._descriptor_reduce("max", desc, value, offsets, _MINMAX_TYPES)

    def descriptor_atomic_and(self, desc, value, offsets):
        return self._descriptor_reduce("and", desc, value, offsets, _BITWISE_TYPES)

    def descriptor_atomic_or(self, desc, value, offsets):
        return self._descriptor_reduce("or", desc, value, offsets, _BITWISE_TYPES)

    def descriptor_atomic_xor(self, desc, value, offsets):
        return self._descriptor_reduce("xor", desc, value, offsets, _BITWISE_TYPES)

    def _gather_checks(self, desc, x_offsets, what):
        _check_desc(desc)
        if len(desc.block_shape) != 2:
            raise ValueError(f"descriptor must be 2D, but got {desc.block_shape}")
        if desc.block_shape[0] != 1:
            raise ValueError(f"descriptor block must have 1 row, but got {desc.block_shape}")
        if not isinstance(x_offsets, tensor) or len(x_offsets.shape) != 1:
            shape = getattr(x_offsets, "shape", None)
            raise ValueError(f"x offsets must be 1D, but got {shape}")
        n = x_offsets.shape[0].value
        if n < 8:
            raise ValueError(f"descriptor {what} must have at least 8 rows, but got [{n}]")
        min_cols = 32 // desc.dtype.primitive_bitwidth * 8
        if desc.block_shape[1] < min_cols:
            raise ValueError(f"descriptor {what} of {desc.dtype} must have at least {min_cols} "
                             f"columns, but got {desc.block_shape[1]}")
        x = self.cast(x_offsets, tl.int32) if x_offsets.dtype != tl.int32 else x_offsets
        return x, tl.block_type(desc.dtype, [n, desc.block_shape[1]])

    def descriptor_gather(self, desc, x_offsets, y_offset, cache_modifier, eviction_policy):
        if cache_modifier or eviction_policy:
            raise ValueError("cache modifier and eviction policy are not supported by gather")
        x, ty = self._gather_checks(desc, x_offsets, "gather")
        y = self._convert_to_ir_values([y_offset], require_i64=False)[0]
        return self._emit("tt.descriptor_gather", [desc.handle, x, y], ty)

    def descriptor_scatter(self, desc, value, x_offsets, y_offset):
        x, ty = self._gather_checks(desc, x_offsets, "scatter")
        value = self.to_tensor(value)
        if value.type.is_block() and value.type.get_block_shapes() != ty.get_block_shapes():
            raise ValueError(f"value shape {value.type.get_block_shapes()} does not match the "
                             f"scattered block {ty.get_block_shapes()}")
        value = self.cast(self.broadcast_impl_shape(value, ty.get_block_shapes()), desc.dtype)
        y = self._convert_to_ir_values([y_offset], require_i64=False)[0]
        return self._emit_void("tt.descriptor_scatter", [desc.handle, x, y, value])
