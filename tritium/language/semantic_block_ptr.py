"""Block pointers: `tl.make_block_ptr`, `tl.advance`, and `tl.load`/`tl.store` through them
(part of `TritonSemantic`). Typing and messages follow upstream's semantic.py; the IR is
upstream's `tt.make_tensor_ptr` / `tt.advance` / `tt.load {boundaryCheck, padding}`."""
from __future__ import annotations

from ..ir.ops import PADDING_OPTIONS
from . import dtypes as tl
from .core import _unwrap_if_constexpr, constexpr, tensor
from .semantic_base import i32_array


def _as_list(x) -> list:
    x = _unwrap_if_constexpr(x)
    if isinstance(x, (list, tuple)) or (hasattr(x, "__iter__") and not isinstance(x, tensor)):
        return [_unwrap_if_constexpr(e) for e in x]
    return [x]


class BlockPointerMixin:
    # ------------------------------------------------------------------ helpers
    def _convert_elem_to_ir_value(self, elem, require_i64: bool):
        if isinstance(elem, constexpr):
            elem = elem.value
        if isinstance(elem, bool):
            return self._constant(elem, tl.int1).handle
        if isinstance(elem, int):
            if require_i64:
                if not -2 ** 63 <= elem < 2 ** 63:
                    raise ValueError(f"Block pointers only support 64 bit `shape/strides`, got a "
                                     f"value {elem} which is out of the range")
                return self._constant(elem, tl.int64).handle
            if not -2 ** 31 <= elem < 2 ** 31:
                raise ValueError(f"Block pointers only support 32 bit `offsets/block_shape`, got "
                                 f"a value {elem} which is out of the range")
            return self._constant(elem, tl.int32).handle
        if isinstance(elem, tensor):
            if elem.type.is_block() and elem.type.numel != 1:
                raise ValueError("Expected a scalar in shape/strides/offsets")
            if not elem.dtype.is_int():
                raise ValueError("Expected an integer scalar type in shape/strides/offsets")
            if require_i64:
                return self.cast(elem, tl.int64).handle if elem.dtype != tl.int64 else elem.handle
            if elem.dtype != tl.int32:
                raise ValueError("Block pointers only support 32 bit `offsets/block_shape`, add a "
                                 "`.to(tl.int32)` or use regular indexing for 64 bit support")
            return elem.handle
        raise ValueError(f"Unsupported element type in shape/strides/offsets: {type(elem)}")

    def _convert_to_ir_values(self, list_like, require_i64: bool = True) -> list:
        return [self._convert_elem_to_ir_value(e, require_i64) for e in _as_list(list_like)]

    @staticmethod
    def _canonicalize_boundary_check(boundary_check, block_shape) -> tuple:
        boundary_check = _unwrap_if_constexpr(boundary_check)
        if boundary_check is None or (isinstance(boundary_check, (list, tuple))
                                      and not boundary_check):
            return ()
        dims = _as_list(boundary_check)
        for dim in dims:
            if not isinstance(dim, int) or not 0 <= dim < len(block_shape):
                raise ValueError(f"boundary_check dimension {dim!r} is out of range for a block "
                                 f"of rank {len(block_shape)}")
        if len(dims) != len(set(dims)):
            raise ValueError("Duplicate dimension in `boundary_check`")
        return tuple(sorted(dims))

    # ------------------------------------------------------------------ builtins
    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order) -> tensor:
        shape = self._convert_to_ir_values(shape)
        strides = self._convert_to_ir_values(strides)
        offsets = self._convert_to_ir_values(offsets, require_i64=False)
        if not isinstance(base, tensor) or not base.type.is_ptr() or base.type.is_block() \
                or base.type.element_ty.is_block():
            raise ValueError("Expected `base` to be a pointer type (but not a block pointer type "
                             "or others)")
        if base.type.element_ty == tl.int1:
            base = self.cast(base, tl.pointer_type(tl.int8, base.type.address_space))
        block_shape = _as_list(block_shape)
        if not all(isinstance(e, int) and not isinstance(e, bool) and 0 < e < 2 ** 31
                   for e in block_shape):
            raise ValueError("Expected a list of constant integers (`int32_t` range) in "
                             "`block_shape`")
        order = _as_list(order)
        if sorted(order) != list(range(len(order))):
            raise ValueError("Expected a permutation of (0, 1, ..., len(order)-1) in order")
        if not all(len(block_shape) == len(x) for x in (shape, strides, offsets, order)):
            raise ValueError("Expected shape/strides/offsets/block_shape to have the same length")
        from .builtins import validate_block_shape
        validate_block_shape(block_shape)
        ty = tl.pointer_type(tl.block_type(base.type.element_ty, block_shape),
                             base.type.address_space)
        return self._emit("tt.make_tensor_ptr", [base] + shape + strides + offsets, ty,
                          {"order": i32_array(order)})

    def advance(self, base, offsets) -> tensor:
        if not isinstance(base, tensor) or not self._is_block_pointer(base):
            raise ValueError("`tl.advance` expects a block pointer (made by `tl.make_block_ptr`)")
        offsets = self._convert_to_ir_values(offsets, require_i64=False)
        rank = len(base.type.element_ty.shape)
        if len(offsets) != rank:
            raise ValueError(f"Expected {rank} offsets to advance a rank-{rank} block pointer, "
                             f"got {len(offsets)}")
        return self._emit("tt.advance", [base] + offsets, base.type)

    def _load_block_pointer(self, ptr, mask, other, boundary_check, padding, cache, eviction,
                            is_volatile) -> tensor:
        if mask is not None or other is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for loading block "
                             "pointers")
        dst_ty = ptr.type.element_ty
        elt_ty = dst_ty.element_ty
        if elt_ty.is_int() and padding == "nan":
            raise ValueError("Padding option `nan` is not supported for integer block pointers")
        dims = self._canonicalize_boundary_check(boundary_check, dst_ty.get_block_shapes())
        attrs = {"cache": cache, "evict": eviction, "isVolatile": bool(is_volatile)}
        if dims:
            attrs["boundaryCheck"] = i32_array(dims)
        if padding:
            attrs["padding"] = PADDING_OPTIONS[padding]
        return self._emit("tt.load", [ptr], dst_ty, attrs)

    def _store_block_pointer(self, ptr, val, mask, boundary_check, cache, eviction) -> tensor:
        if mask is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for loading block "
                             "pointers")
        block_shape = ptr.type.element_ty.get_block_shapes()
        if not val.type.is_block():
            val = self.broadcast_impl_shape(val, block_shape)
        if block_shape != val.type.get_block_shapes():
            raise ValueError(f"Block shape({block_shape}) and value shape"
                             f"({val.type.get_block_shapes()}) mismatch")
        dims = self._canonicalize_boundary_check(boundary_check, block_shape)
        val = self.cast(val, ptr.type.element_ty.element_ty)
        attrs = {"cache": cache, "evict": eviction}
        if dims:
            attrs["boundaryCheck"] = i32_array(dims)
        return self._emit_void("tt.store", [ptr, val], attrs)
