"""Blocks, shapes, broadcasting and conversions (part of `TritonSemantic`)."""
from __future__ import annotations

import builtins
import warnings
from typing import List, Optional, Sequence, Tuple

from ..ir.ops import ROUNDING_MODES
from . import dtypes as tl
from .core import tensor
from .core import tuple as tl_tuple
from .semantic_base import i32_array


class ShapeMixin:
    # ------------------------------------------------------------------ block creation
    def arange(self, start: int, end: int, *, ret_ty: tl.block_type = None) -> tensor:
        start, end = self._unwrap(start), self._unwrap(end)
        if not isinstance(start, int) or not isinstance(end, int):
            raise ValueError("arange's arguments must be of type tl.constexpr")
        if (start >> 32) or (end >> 32):
            raise ValueError("arange must fit in int32")
        if end <= start:
            raise ValueError("arange's end argument must be greater than the start argument")
        n = end - start
        if n & (n - 1):
            raise ValueError("arange's range must be a power of 2")
        if ret_ty is None:
            ret_ty = tl.block_type(tl.int32, [n])
        return self._emit("tt.make_range", [], ret_ty, {"start": start, "end": end})

    def full(self, shape: List[int], value, dtype: tl.dtype) -> tensor:
        return self.splat(self.make_scalar(value, dtype), shape)

    # ------------------------------------------------------------------ shape manipulation
    def splat_like(self, block: tensor, value: tensor) -> tensor:
        """Scalar `value` as a block of `block`'s type (shape, and layout where there is one)."""
        return self._emit("tt.splat", [value], block.type.with_element_ty(value.type.scalar))

    def splat(self, value: tensor, shape: Sequence[int]) -> tensor:
        assert not value.type.is_block(), "Cannot splat a block tensor"
        shape = [int(self._unwrap(s)) for s in shape]
        if len(shape) == 0:
            return value
        return self._emit("tt.splat", [value], tl.block_type(value.dtype, shape))

    def reshape(self, input: tensor, dst_shape: Sequence[int], can_reorder: bool) -> tensor:
        dst_shape = [int(self._unwrap(s)) for s in dst_shape]
        numel = 1
        for s in dst_shape:
            numel *= s
        if not input.type.is_block():
            if numel != 1:
                raise ValueError("reshape() cannot change total number of elements in tensor")
            return self.splat(input, dst_shape)
        if input.type.numel != numel:
            raise ValueError("reshape() cannot change total number of elements in tensor")
        ret_ty = tl.block_type(input.type.scalar, dst_shape)
        return self._emit("tt.reshape", [input], ret_ty, {"allow_reorder": bool(can_reorder)})

    def expand_dims(self, input: tensor, axis: int) -> tensor:
        dst_shape = [self._unwrap(x) for x in input.shape]
        dst_shape.insert(axis, 1)
        if not input.type.is_block():
            return self.splat(input, dst_shape)
        ret_ty = tl.block_type(input.type.scalar, dst_shape)
        return self._emit("tt.expand_dims", [input], ret_ty, {"axis": axis})

    def cat(self, lhs: tensor, rhs: tensor, can_reorder: bool) -> tensor:
        assert can_reorder, "current implementation of `cat` always may reorder elements"
        assert len(lhs.shape) == 1
        ret_ty = tl.block_type(lhs.type.scalar, [lhs.shape[0].value + rhs.shape[0].value])
        return self._emit("tt.cat", [lhs, rhs], ret_ty)

    def join(self, a: tensor, b: tensor) -> tensor:
        a, b = self.broadcast_impl_value(a, b)
        # tt.join needs tensors: lift two scalars to [1] and drop the unit dim afterwards.
        was_scalar = not a.type.is_block()
        if was_scalar:
            a, b = self.expand_dims(a, 0), self.expand_dims(b, 0)
        ret_ty = tl.block_type(a.type.scalar, a.type.get_block_shapes() + [2])
        ret = self._emit("tt.join", [a, b], ret_ty)
        if was_scalar:
            ret = self.reshape(ret, [2], can_reorder=False)
        return ret

    def split(self, a: tensor) -> Tuple[tensor, tensor]:
        assert len(a.shape) > 0
        assert self._unwrap(a.shape[-1]) == 2
        ret_ty = tl.block_type(a.type.scalar, a.type.get_block_shapes()[:-1])
        op = self.builder.create("tt.split", [a.handle], [ret_ty.to_ir(), ret_ty.to_ir()])
        return tensor(op.results[0], ret_ty), tensor(op.results[1], ret_ty)

    def permute(self, input: tensor, dims: Sequence[int]) -> tensor:
        dims = [int(self._unwrap(d)) for d in dims]
        if len(input.shape) != len(dims):
            raise ValueError("permute dims must have the same length as input shape")
        if sorted(dims) != list(builtins.range(len(dims))):
            raise ValueError(f"permute dims must be a permutation of 0, 1, ..., n-1, but were {dims}")
        src = input.type.get_block_shapes()
        ret_ty = tl.block_type(input.type.scalar, [src[d] for d in dims])
        return self._emit("tt.trans", [input], ret_ty, {"order": i32_array(dims)})

    def getitem(self, input: tensor, slices) -> tensor:
        """`x[None, :]`: only `None` (new axis) and a bare `:` are indexes Triton knows."""
        if isinstance(slices, tl_tuple):
            slices = slices.values
        elif not isinstance(slices, (list, tuple)):
            slices = [slices]
        ret = input
        for dim, sl in enumerate(slices):
            raw = self._unwrap(sl)
            if raw is None:
                ret = self.expand_dims(ret, dim)
            elif isinstance(raw, builtins.slice) and all(
                    self._unwrap(v) is None for v in (raw.start, raw.stop, raw.step)):
                pass
            else:
                raise ValueError(f"unsupported tensor index: {sl}")
        return ret

    # ------------------------------------------------------------------ broadcasting
    def broadcast_impl_shape(self, input: tensor, shape: Sequence[int]) -> tensor:
        shape = [int(self._unwrap(s)) for s in shape]
        if not input.type.is_block():
            return self.splat(input, shape)
        src_shape = input.type.get_block_shapes()
        if len(src_shape) != len(shape):
            raise ValueError(f"Cannot broadcast, rank mismatch: {src_shape}, {shape}")
        if shape == src_shape:
            return input
        for i, item in enumerate(src_shape):
            if shape[i] != item and item != 1:
                raise ValueError(f"Cannot broadcast, the expanded size of the tensor ({shape[i]})"
                                 f" must match the existing size ({item}) at non-singleton "
                                 f"dimension {i}: {src_shape}, {shape}")
        return self._emit("tt.broadcast", [input], tl.block_type(input.type.scalar, shape))

    def broadcast_impl_value(self, lhs: tensor, rhs: tensor) -> Tuple[tensor, tensor]:
        lhs_ty, rhs_ty = lhs.type, rhs.type
        if lhs_ty.is_block() and not rhs_ty.is_block():
            rhs = self.splat_like(lhs, rhs)
        elif not lhs_ty.is_block() and rhs_ty.is_block():
            lhs = self.splat_like(rhs, lhs)
        elif lhs_ty.is_block() and rhs_ty.is_block():
            lhs_shape, rhs_shape = lhs_ty.get_block_shapes(), rhs_ty.get_block_shapes()
            # NumPy rule: the lower-rank operand gains leading unit dims.
            while len(lhs_shape) < len(rhs_shape):
                lhs = self.expand_dims(lhs, 0)
                lhs_shape = lhs.type.get_block_shapes()
            while len(rhs_shape) < len(lhs_shape):
                rhs = self.expand_dims(rhs, 0)
                rhs_shape = rhs.type.get_block_shapes()
            ret_shape = []
            for i, left in enumerate(lhs_shape):
                right = rhs_shape[i]
                if left == 1:
                    ret_shape.append(right)
                elif right == 1 or right == left:
                    ret_shape.append(left)
                else:
                    raise ValueError("Cannot make_shape_compatible: incompatible dimensions "
                                     "at index " + str(i) + ": " + str(left) + " and " + str(right))
            if lhs_shape != ret_shape:
                lhs = self._emit("tt.broadcast", [lhs], tl.block_type(lhs.type.scalar, ret_shape))
            if rhs_shape != ret_shape:
                rhs = self._emit("tt.broadcast", [rhs], tl.block_type(rhs.type.scalar, ret_shape))
        return lhs, rhs

    def broadcast_tensors(self, *inputs):
        if not inputs:
            return ()
        head, *tail = inputs
        for i in builtins.range(len(tail)):
            head, tail[i] = self.broadcast_impl_value(head, tail[i])
        # A second pass: later operands may have grown `head` after earlier ones were matched.
        for i in builtins.range(len(tail) - 1):
            head, tail[i] = self.broadcast_impl_value(head, tail[i])
        return (head, *tail)

    # ------------------------------------------------------------------ conversions
    def _str_to_rounding_mode(self, rounding_mode: Optional[str]):
        if rounding_mode is None:
            return None
        if rounding_mode in ROUNDING_MODES:
            return ROUNDING_MODES[rounding_mode]
        raise ValueError(f"Invalid rounding mode: {rounding_mode}. "
                         f"Supported rounding modes are 'rtne' and 'rtz'.")

    def bitcast(self, input: tensor, dst_ty: tl.dtype) -> tensor:
        dst_ty = self._unwrap(dst_ty)
        src_ty = input.type
        if src_ty.is_block():
            dst_ty = src_ty.with_element_ty(dst_ty.scalar)
        if src_ty == dst_ty:
            return input
        src_sca, dst_sca = src_ty.scalar, dst_ty.scalar
        if src_sca.is_ptr() or dst_sca.is_ptr():
            return self.cast(input, dst_ty)
        src_bits, dst_bits = src_sca.primitive_bitwidth, dst_sca.primitive_bitwidth
        if src_bits != dst_bits:
            raise ValueError("Cannot bitcast data-type of size " + str(src_bits) + " to "
                             "data-type of size " + str(dst_bits))
        return self._emit("arith.bitcast", [input], dst_ty)

    def cast(self, input: tensor, dst_ty: tl.dtype, fp_downcast_rounding: Optional[str] = None
             ) -> tensor:
        dst_ty = self._unwrap(dst_ty)
        src_ty = input.type
        src_sca, dst_sca = src_ty.scalar, dst_ty.scalar
        if src_sca == dst_sca:
            return input
        if src_ty.is_block():
            dst_ty = src_ty.with_element_ty(dst_sca)
        else:
            dst_ty = dst_sca

        # Rounding only makes sense when narrowing floats; RTNE is the default there.
        rounding = self._str_to_rounding_mode(fp_downcast_rounding)
        custom_rounding = False
        if dst_sca.is_floating() and src_sca.is_floating() and \
                dst_sca.primitive_bitwidth < src_sca.primitive_bitwidth:
            if rounding is None:
                rounding = ROUNDING_MODES["rtne"]
            elif rounding != ROUNDING_MODES["rtne"]:
                custom_rounding = True
        elif rounding is not None:
            raise ValueError("fp_downcast_rounding should be set only for truncating fp "
                             "conversions. Source scalar type is " + str(src_sca) +
                             " and destination type is " + str(dst_sca))

        if (src_sca.is_fp8() and dst_sca.is_floating()) or \
                (src_sca.is_floating() and dst_sca.is_fp8()) or custom_rounding:
            narrowing = dst_sca.primitive_bitwidth < src_sca.primitive_bitwidth
            attrs = {"rounding": rounding} if narrowing else None
            return self._emit("tt.fp_to_fp", [input], dst_ty, attrs)

        # fp16/bf16 convert to anything but fp32 through fp32.
        if (src_sca.is_fp16() or src_sca.is_bf16()) and not dst_sca.is_fp32():
            return self.cast(self.cast(input, tl.float32), dst_sca)

        if src_sca.is_floating() and dst_sca.is_floating():
            if src_sca.primitive_bitwidth > dst_sca.primitive_bitwidth:
                return self._emit("arith.truncf", [input], dst_ty)
            if src_sca.primitive_bitwidth < dst_sca.primitive_bitwidth:
                return self._emit("arith.extf", [input], dst_ty)

        if src_sca.is_int() and dst_sca.is_int() and (
                src_sca.int_bitwidth != dst_sca.int_bitwidth or
                src_sca.int_signedness != dst_sca.int_signedness):
            if dst_sca.is_bool():
                return self.not_equal(input, self._constant(0, src_sca))
            return self._int_cast(input, dst_ty, src_sca.is_int_signed() and not src_sca.is_bool())

        if src_sca.is_standard_floating() and dst_sca.is_int():
            if dst_sca.is_bool():
                return self.not_equal(input, self._constant(0.0, src_sca))
            name = "arith.fptosi" if dst_sca.is_int_signed() else "arith.fptoui"
            return self._emit(name, [input], dst_ty)

        if src_sca.is_int() and dst_sca.is_standard_floating():
            unsigned = src_sca.is_bool() or not src_sca.is_int_signed()
            return self._emit("arith.uitofp" if unsigned else "arith.sitofp", [input], dst_ty)

        if src_sca.is_ptr() and dst_sca.is_int():
            if dst_sca.int_bitwidth == 64:
                return self._emit("tt.ptr_to_int", [input], dst_ty)
            if dst_sca.int_bitwidth == 1:
                return self.not_equal(self.cast(input, tl.int64), self._constant(0, tl.int64))

        if src_sca.is_int() and dst_sca.is_ptr():
            if src_sca.int_bitwidth != 64:
                input = self._int_cast(input, src_ty.with_element_ty(tl.int64),
                                       src_sca.is_int_signed() and not src_sca.is_bool())
            return self._emit("tt.int_to_ptr", [input], dst_ty)

        if src_sca.is_ptr() and dst_sca.is_ptr():
            return self._emit("tt.bitcast", [input], dst_ty)

        raise AssertionError(f"cannot cast {input} to {dst_ty}")

    def _int_cast(self, input: tensor, dst_ty: tl.dtype, sign_extend: bool) -> tensor:
        src_bits, dst_bits = input.type.scalar.int_bitwidth, dst_ty.scalar.int_bitwidth
        if src_bits == dst_bits:
            # IR integers are signless: a signedness change is only a new frontend type.
            return tensor(input.handle, dst_ty)
        if src_bits > dst_bits:
            return self._emit("arith.trunci", [input], dst_ty)
        return self._emit("arith.extsi" if sign_extend else "arith.extui", [input], dst_ty)

    # ------------------------------------------------------------------ selection
    def where(self, condition, x, y) -> tensor:
        condition = self.to_tensor(condition)
        if condition.dtype != tl.int1:
            warnings.warn("tl.where with a non-boolean condition is deprecated and will error "
                          f"out in a future triton release. Got {condition.dtype}")
        condition = self.cast(condition, tl.int1)
        x, y = self.binary_op_type_checking_impl(x, y, True, True)
        if condition.type.is_block():
            condition, x = self.broadcast_impl_value(condition, x)
            x, y = self.broadcast_impl_value(x, y)
            condition, x = self.broadcast_impl_value(condition, x)
        else:
            condition, _ = self.broadcast_impl_value(condition, x)
        return self._emit("arith.select", [condition, x, y], x.type)
