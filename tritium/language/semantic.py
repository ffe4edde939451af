"""`TritonSemantic`: Triton's typing, promotion and broadcasting rules, emitting TTIR.

Every builtin and every tensor operator ends up here. This module holds the scalar rules
(literal typing, promotion, arithmetic, comparisons, elementwise math); shapes and casts,
memory, reductions and the remaining builtins live in the mixins it is assembled from.
The rules are upstream Triton's, including its C-like `//` and `%` and its quirks, because
user kernels depend on them.
"""
from __future__ import annotations

import builtins
import numbers
from typing import Tuple

from ..ir.ops import CMPF_PREDICATES, CMPI_PREDICATES
from . import dtypes as tl
from .core import check_bit_width, tensor
from .semantic_base import (IncompatibleTypeErrorImpl, SemanticBase, SemanticOptions, i64_attr,
                            type_repr)
from .semantic_block_ptr import BlockPointerMixin
from .semantic_descriptor import DescriptorMixin
from .semantic_dot_scaled import DotScaledMixin
from .semantic_memory import MemoryMixin
from .semantic_misc import MiscMixin
from .semantic_reduce import ReduceMixin
from .semantic_shape import ShapeMixin

__all__ = ["TritonSemantic", "SemanticOptions", "IncompatibleTypeErrorImpl"]

_FP32_MIN_NORMAL = 2.0 ** -126
_FP32_MAX = (2 - 2.0 ** -23) * 2.0 ** 127


def _kind(dt: tl.dtype) -> int:
    k = dt.kind()
    return getattr(k, "value", k)


def _is_scalar(x) -> bool:
    return isinstance(x, numbers.Number)


class TritonSemantic(ShapeMixin, MemoryMixin, BlockPointerMixin, DescriptorMixin, ReduceMixin,
                     DotScaledMixin, MiscMixin, SemanticBase):
    """One method per language operation; `builder` is the IR builder it emits through."""

    # ------------------------------------------------------------------ programming model
    def program_id(self, axis: int) -> tensor:
        if axis not in (0, 1, 2):
            raise ValueError(f"program_id axis must be 0, 1, or 2 but got {axis}")
        return self._emit("tt.get_program_id", [], tl.int32, {"axis": axis})

    def num_programs(self, axis: int) -> tensor:
        if axis not in (0, 1, 2):
            raise ValueError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
        return self._emit("tt.get_num_programs", [], tl.int32, {"axis": axis})

    # ------------------------------------------------------------------ implicit typing
    def integer_promote_impl(self, a_ty: tl.dtype, b_ty: tl.dtype) -> tl.dtype:
        """C's usual arithmetic conversions: the wider type wins; between signed and
        unsigned, the unsigned one wins unless it is narrower."""
        a_rank, b_rank = a_ty.int_bitwidth, b_ty.int_bitwidth
        a_sn, b_sn = a_ty.int_signedness, b_ty.int_signedness
        if a_sn == b_sn:
            return a_ty if a_rank > b_rank else b_ty
        if a_sn == tl.dtype.SIGNEDNESS.UNSIGNED:
            return a_ty if a_rank >= b_rank else b_ty
        if b_sn == tl.dtype.SIGNEDNESS.UNSIGNED:
            return b_ty if b_rank >= a_rank else a_ty
        raise TypeError(f"unexpected signedness {a_sn} and {b_sn}")

    def computation_type_impl(self, a_ty: tl.dtype, a_is_scalar: bool, b_ty: tl.dtype,
                              b_is_scalar: bool, div_or_mod: bool) -> tl.dtype:
        # A Python scalar of a kind no higher than the tensor's (bool < int < float) takes
        # the tensor's type, as in PyTorch; PTX has no fp16 division, hence fp32 for / %.
        if a_is_scalar != b_is_scalar:
            scalar_ty, tensor_ty = (a_ty, b_ty) if a_is_scalar else (b_ty, a_ty)
            if _kind(scalar_ty) <= _kind(tensor_ty):
                if div_or_mod and tensor_ty in (tl.float16, tl.bfloat16):
                    return tl.float32
                return tensor_ty
        if a_ty.is_fp64() or b_ty.is_fp64():
            return tl.float64
        if a_ty.is_fp32() or b_ty.is_fp32():
            return tl.float32
        if a_ty.is_fp16() or b_ty.is_fp16():
            return tl.float32 if div_or_mod else tl.float16
        if a_ty.is_bf16() and b_ty.is_bf16():
            return tl.float32 if div_or_mod else tl.bfloat16
        if a_ty.is_bf16() or b_ty.is_bf16():
            return tl.float32
        if a_ty.is_fp8() and b_ty.is_fp8():
            return a_ty if a_ty == b_ty else tl.float16
        if not a_ty.is_int() or not b_ty.is_int():
            raise TypeError(f"unexpected type {a_ty} and {b_ty}")
        if div_or_mod and a_ty.int_signedness != b_ty.int_signedness:
            raise TypeError("Cannot use /, #, or % with " + repr(a_ty) + " and " + repr(b_ty) +
                            " because they have different signedness;"
                            "this is unlikely to result in a useful answer. "
                            "Cast them to the same signedness.")
        return self.integer_promote_impl(a_ty, b_ty)

    def to_tensor_type(self, x) -> tl.dtype:
        if isinstance(x, tl.dtype):
            return x
        x = self._unwrap(x)
        if isinstance(x, bool):
            return tl.int1
        if isinstance(x, int):
            if -2 ** 31 <= x < 2 ** 31:
                return tl.int32
            if 2 ** 31 <= x < 2 ** 32:
                return tl.uint32
            if -2 ** 63 <= x < 2 ** 63:
                return tl.int64
            if 2 ** 63 <= x < 2 ** 64:
                return tl.uint64
            raise ValueError(f"Nonrepresentable integer {x}.")
        if isinstance(x, float):
            ax = builtins.abs(x)
            if ax == float("inf") or ax == 0.0 or x != x or _FP32_MIN_NORMAL <= ax <= _FP32_MAX:
                return tl.float32
            return tl.float64
        raise TypeError(f"cannot convert {x} of type {type(x)} to tensor")

    def to_tensor(self, x, check_type: bool = True):
        if isinstance(x, tensor):
            return x
        x = self._unwrap(x)
        if isinstance(x, (int, float, bool)):
            return self.scalar_constant(x, dtype=self.to_tensor_type(x))
        if check_type:
            raise TypeError(f"cannot convert {x} of type {type(x)} to tensor")
        return x

    def scalar_constant(self, value, dtype: tl.dtype) -> tensor:
        if dtype is None:
            raise ValueError("dtype must be specified when value is not a tensor")
        return self._constant(value, dtype)

    def make_scalar(self, value, dtype: tl.dtype) -> tensor:
        if isinstance(value, tensor):
            assert value.numel.value == 1, "only accepts size-1 tensor"
            return self.cast(value, dtype)
        return self.scalar_constant(value, dtype)

    # ------------------------------------------------------------------ binary operators
    def check_ptr_type_impl(self, type_a: tl.dtype, type_b: tl.dtype, allow_ptr_a: bool) -> None:
        if type_a.is_ptr():
            if not allow_ptr_a:
                raise IncompatibleTypeErrorImpl(type_a, type_b)
            if type_b.is_ptr() and type_a != type_b:
                raise IncompatibleTypeErrorImpl(type_a, type_b)
            if type_b.is_floating():
                raise IncompatibleTypeErrorImpl(type_a, type_b)

    def binary_op_type_checking_impl(self, lhs, rhs, allow_lhs_ptr=False, allow_rhs_ptr=False,
                                     arithmetic_check=True, div_or_mod=False
                                     ) -> Tuple[tensor, tensor]:
        lhs, rhs = self._unwrap(lhs), self._unwrap(rhs)
        lhs_is_scalar, rhs_is_scalar = _is_scalar(lhs), _is_scalar(rhs)
        lhs_scalar, rhs_scalar = lhs, rhs
        # A Python scalar is typed without being materialised: it becomes a constant only
        # once the result type is known (upstream emits a dead constant first).
        lhs_sca_ty = self.to_tensor_type(lhs) if lhs_is_scalar else lhs.type.scalar
        rhs_sca_ty = self.to_tensor_type(rhs) if rhs_is_scalar else rhs.type.scalar
        self.check_ptr_type_impl(lhs_sca_ty, rhs_sca_ty, allow_lhs_ptr)
        self.check_ptr_type_impl(rhs_sca_ty, lhs_sca_ty, allow_rhs_ptr)
        if not arithmetic_check or lhs_sca_ty.is_ptr() or rhs_sca_ty.is_ptr():
            if lhs_is_scalar:
                lhs = self.to_tensor(lhs)
            if rhs_is_scalar:
                rhs = self.to_tensor(rhs)
        else:
            ret_ty = self.computation_type_impl(lhs_sca_ty, lhs_is_scalar, rhs_sca_ty,
                                                rhs_is_scalar, div_or_mod)
            if ret_ty.is_int_unsigned() and ((lhs_is_scalar and lhs_scalar < 0)
                                             or (rhs_is_scalar and rhs_scalar < 0)):
                raise ValueError("Cannot perform a binary operation between an unsigned tensor "
                                 "and a negative scalar. Perform a explicit cast on one of them.")
            if ret_ty.is_int():
                lo, hi = ret_ty.get_int_min_value(), ret_ty.get_int_max_value()
                if lhs_is_scalar and not lo <= lhs_scalar <= hi:
                    raise ValueError(f"Scalar {lhs_scalar} is out of range for type {ret_ty}")
                if rhs_is_scalar and not lo <= rhs_scalar <= hi:
                    raise ValueError(f"Scalar {rhs_scalar} is out of range for type {ret_ty}")
            lhs = self.scalar_constant(lhs_scalar, ret_ty) if lhs_is_scalar else self.cast(lhs, ret_ty)
            rhs = self.scalar_constant(rhs_scalar, ret_ty) if rhs_is_scalar else self.cast(rhs, ret_ty)
        return self.broadcast_impl_value(lhs, rhs)

    def binary_op_sanitize_overflow_impl(self, lhs: tensor, rhs: tensor, binary_op) -> None:
        sca_ty = lhs.type.scalar
        if sca_ty.int_bitwidth >= 64 or not self._opt("sanitize_overflow") \
                or not self._opt("debug"):
            return
        ret = binary_op(self.cast(lhs, tl.int64), self.cast(rhs, tl.int64), False)
        hi = self.scalar_constant(sca_ty.get_int_max_value(), tl.int64)
        lo = self.scalar_constant(sca_ty.get_int_min_value(), tl.int64)
        cond = self.and_(self.less_equal(ret, hi), self.greater_equal(ret, lo))
        self.device_assert(cond, f"int{sca_ty.int_bitwidth} overflow detected for operation "
                                 f"{binary_op.__name__}", None)

    def add(self, input, other, sanitize_overflow: bool = True) -> tensor:
        input, other = self.binary_op_type_checking_impl(input, other, True, True)
        in_ty, ot_ty = input.type.scalar, other.type.scalar
        if in_ty.is_ptr() and ot_ty.is_ptr():
            raise TypeError("cannot add pointers together")
        if ot_ty.is_ptr() and not in_ty.is_ptr():
            input, other = other, input
            in_ty, ot_ty = ot_ty, in_ty
        if in_ty.is_ptr():
            offset = other
            if ot_ty.is_int_unsigned() and ot_ty.int_bitwidth < 64:
                # tt.addptr reads its offset as signed: widen unsigned offsets first.
                offset = self._emit("arith.extui", [other], other.type.with_element_ty(tl.int64))
            return self._emit("tt.addptr", [input, offset], input.type)
        if in_ty.is_floating():
            return self._emit("arith.addf", [input, other], input.type)
        if in_ty.is_int():
            if sanitize_overflow:
                self.binary_op_sanitize_overflow_impl(input, other, self.add)
            return self._emit("arith.addi", [input, other], input.type)
        raise TypeError(f"unexpected type {in_ty}")

    def sub(self, input, other, sanitize_overflow: bool = True) -> tensor:
        input, other = self.binary_op_type_checking_impl(input, other, True, False)
        sca_ty = input.type.scalar
        if sca_ty.is_ptr():
            return self.add(input, self.minus(other), sanitize_overflow=False)
        if sca_ty.is_floating():
            return self._emit("arith.subf", [input, other], input.type)
        if sca_ty.is_int():
            if sanitize_overflow:
                self.binary_op_sanitize_overflow_impl(input, other, self.sub)
            return self._emit("arith.subi", [input, other], input.type)
        raise TypeError(f"unexpected type {sca_ty}")

    def mul(self, input, other, sanitize_overflow: bool = True) -> tensor:
        input, other = self.binary_op_type_checking_impl(input, other)
        sca_ty = input.type.scalar
        if sca_ty.is_floating():
            return self._emit("arith.mulf", [input, other], input.type)
        if sca_ty.is_int():
            if sanitize_overflow:
                self.binary_op_sanitize_overflow_impl(input, other, self.mul)
            return self._emit("arith.muli", [input, other], input.type)
        raise TypeError(f"unexpected type {sca_ty}")

    def truediv(self, input, other) -> tensor:
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        in_ty, ot_ty = input.type.scalar, other.type.scalar
        if in_ty.is_floating() and ot_ty.is_int():
            other = self.cast(other, in_ty)
        elif in_ty.is_int() and ot_ty.is_floating():
            input = self.cast(input, ot_ty)
        elif in_ty.is_int() and ot_ty.is_int():
            input, other = self.cast(input, tl.float32), self.cast(other, tl.float32)
        elif in_ty.is_floating() and ot_ty.is_floating():
            if in_ty.fp_mantissa_width > ot_ty.fp_mantissa_width:
                other = self.cast(other, in_ty)
            else:
                input = self.cast(input, ot_ty)
        else:
            raise TypeError(f"unexpected type {in_ty}")
        return self._emit("arith.divf", [input, other], input.type)

    def floordiv(self, input, other) -> tensor:
        # C semantics: truncates toward zero, like upstream (not Python's floor).
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        in_ty, ot_ty = input.type.scalar, other.type.scalar
        if in_ty.is_int() and ot_ty.is_int():
            ret_ty = self.integer_promote_impl(in_ty, ot_ty)
            input, other = self.cast(input, ret_ty), self.cast(other, ret_ty)
            name = "arith.divsi" if ret_ty.is_int_signed() else "arith.divui"
            return self._emit(name, [input, other], input.type)
        raise TypeError(f"unexpected type {in_ty}")

    def fdiv(self, input, other, ieee_rounding: bool = False) -> tensor:
        in_ty, ot_ty = input.type.scalar, other.type.scalar
        if not in_ty.is_floating() or not ot_ty.is_floating():
            raise TypeError("both operands of fdiv must have floating scalar type")
        input, other = self.binary_op_type_checking_impl(input, other, False, False, False, True)
        return self._emit("arith.divf", [input, other], input.type)

    def mod(self, input, other) -> tensor:
        # The sign of the result follows the dividend (C's remainder), as upstream.
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        sca_ty, ot_ty = input.type.scalar, other.type.scalar
        if sca_ty.is_floating():
            return self._emit("arith.remf", [input, other], input.type)
        if sca_ty.is_int():
            if sca_ty.int_signedness != ot_ty.int_signedness:
                raise TypeError("Cannot mod " + repr(sca_ty) + " by " + repr(ot_ty) + " "
                                "because they have different signedness;"
                                "this is unlikely to result in a useful answer. "
                                "Cast them to the same signedness.")
            name = "arith.remsi" if sca_ty.is_int_signed() else "arith.remui"
            return self._emit(name, [input, other], input.type)
        raise TypeError(f"unexpected type {sca_ty}")

    def pow(self, input, other):
        # Upstream tensors have no `**`; keep the same failure rather than invent semantics.
        raise AttributeError("'tensor' object has no attribute '__pow__'")

    # ------------------------------------------------------------------ bitwise
    def bitwise_op_type_checking_impl(self, input, other) -> Tuple[tensor, tensor]:
        input, other = self.binary_op_type_checking_impl(input, other)
        in_ty, ot_ty = input.type.scalar, other.type.scalar
        if not in_ty.is_int() or not ot_ty.is_int():
            raise IncompatibleTypeErrorImpl(in_ty, ot_ty)
        ret_ty = self.integer_promote_impl(in_ty, ot_ty)
        if ret_ty != in_ty:
            input = self.cast(input, ret_ty)
        if ret_ty != ot_ty:
            other = self.cast(other, ret_ty)
        return input, other

    def _bitwise(self, name: str, input, other) -> tensor:
        input, other = self.bitwise_op_type_checking_impl(input, other)
        return self._emit(name, [input, other], input.type)

    def and_(self, input, other) -> tensor:
        return self._bitwise("arith.andi", input, other)

    def or_(self, input, other) -> tensor:
        return self._bitwise("arith.ori", input, other)

    def xor_(self, input, other) -> tensor:
        return self._bitwise("arith.xori", input, other)

    def shl(self, input, other) -> tensor:
        check_bit_width(input, other)
        return self._bitwise("arith.shli", input, other)

    def lshr(self, input, other) -> tensor:
        return self._bitwise("arith.shrui", input, other)

    def ashr(self, input, other) -> tensor:
        return self._bitwise("arith.shrsi", input, other)

    def rshift(self, input, other) -> tensor:
        """`>>`: arithmetic or logical by the signedness of the tensor operand *before*
        promotion (for `5 >> x`, of `x`), exactly as upstream's tensor dunders decide."""
        check_bit_width(input, other)
        decider = input if isinstance(input, tensor) else other
        if decider.dtype.is_int_signed():
            return self.ashr(input, other)
        return self.lshr(input, other)

    def _to_bool(self, x: tensor) -> tensor:
        return x if x.type.scalar.is_int1() else self.bitcast(x, tl.int1)

    def logical_and(self, input, other) -> tensor:
        input, other = self.to_tensor(input), self.to_tensor(other)
        return self.and_(self._to_bool(input), self._to_bool(other))

    def logical_or(self, input, other) -> tensor:
        input, other = self.to_tensor(input), self.to_tensor(other)
        return self.or_(self._to_bool(input), self._to_bool(other))

    def not_(self, input) -> tensor:
        return self.invert(self._to_bool(self.to_tensor(input)))

    # ------------------------------------------------------------------ unary
    def plus(self, input) -> tensor:
        return input

    def minus(self, input) -> tensor:
        input = self.to_tensor(input)
        sca_ty = input.type.scalar
        if sca_ty.is_ptr():
            raise ValueError("wrong type argument to unary minus (" + type_repr(sca_ty) + ")")
        return self.sub(self._constant(0, sca_ty), input, True)

    def invert(self, input) -> tensor:
        input = self.to_tensor(input)
        sca_ty = input.type.scalar
        if sca_ty.is_ptr() or sca_ty.is_floating():
            raise ValueError("wrong type argument to unary invert (" + type_repr(sca_ty) + ")")
        return self.xor_(input, self._constant(-1, sca_ty))

    # ------------------------------------------------------------------ comparisons
    def _bool_like(self, v: tensor) -> tl.dtype:
        return v.type.with_element_ty(tl.int1)

    def _compare(self, input, other, fpred: str, spred: str, upred: str) -> tensor:
        # Upstream's tensor dunders turn a Python operand into a tensor before comparing,
        # so the scalar-kind promotion rule does not apply to comparisons.
        input, other = self.to_tensor(input), self.to_tensor(other)
        input, other = self.binary_op_type_checking_impl(input, other)
        sca_ty = input.type.scalar
        if sca_ty.is_floating():
            attrs = {"predicate": i64_attr(CMPF_PREDICATES.index(fpred))}
            return self._emit("arith.cmpf", [input, other], self._bool_like(input), attrs)
        if sca_ty.is_int():
            pred = spred if sca_ty.is_int_signed() else upred
            attrs = {"predicate": i64_attr(CMPI_PREDICATES.index(pred))}
            return self._emit("arith.cmpi", [input, other], self._bool_like(input), attrs)
        raise TypeError(f"unexpected type {sca_ty}")

    def greater_than(self, input, other) -> tensor:
        return self._compare(input, other, "ogt", "sgt", "ugt")

    def greater_equal(self, input, other) -> tensor:
        return self._compare(input, other, "oge", "sge", "uge")

    def less_than(self, input, other) -> tensor:
        return self._compare(input, other, "olt", "slt", "ult")

    def less_equal(self, input, other) -> tensor:
        return self._compare(input, other, "ole", "sle", "ule")

    def equal(self, input, other) -> tensor:
        return self._compare(input, other, "oeq", "eq", "eq")

    def not_equal(self, input, other) -> tensor:
        return self._compare(input, other, "une", "ne", "ne")

    # ------------------------------------------------------------------ min / max / clamp
    def _propagate_nan_all(self, propagate_nan) -> bool:
        v = int(getattr(self._unwrap(propagate_nan), "value", self._unwrap(propagate_nan)))
        if v == 0xFFFF:
            return True
        if v == 0:
            return False
        raise ValueError(f"Unexpected propagate_nan {propagate_nan}")

    def _min_max(self, x, y, propagate_nan, fnames, inames) -> tensor:
        x, y = self.binary_op_type_checking_impl(x, y)
        dt = x.dtype
        if dt.is_floating():
            name = fnames[0] if self._propagate_nan_all(propagate_nan) else fnames[1]
        elif dt.is_int_signed():
            name = inames[0]
        elif dt.is_int_unsigned():
            name = inames[1]
        else:
            raise TypeError(f"Unexpected dtype {dt}")
        return self._emit(name, [x, y], x.type)

    def minimum(self, x, y, propagate_nan=0) -> tensor:
        return self._min_max(x, y, propagate_nan, ("arith.minimumf", "arith.minnumf"),
                             ("arith.minsi", "arith.minui"))

    def maximum(self, x, y, propagate_nan=0) -> tensor:
        return self._min_max(x, y, propagate_nan, ("arith.maximumf", "arith.maxnumf"),
                             ("arith.maxsi", "arith.maxui"))

    def clamp(self, x, min, max, propagate_nan=0) -> tensor:
        min, max = self.binary_op_type_checking_impl(min, max)
        x, min = self.binary_op_type_checking_impl(x, min)
        x, max = self.binary_op_type_checking_impl(x, max)
        if x.dtype.is_floating():
            nan = 0xFFFF if self._propagate_nan_all(propagate_nan) else 0
            return self._emit("tt.clampf", [x, min, max], x.type, {"propagateNan": nan})
        if x.dtype.is_int():
            # Upstream rejects integer clamp; min(max(x, lo), hi) is the obvious meaning.
            return self.minimum(self.maximum(x, min), max)
        raise TypeError(f"Unexpected dtype {x.dtype}. Only floating point clamp is supported")

    # ------------------------------------------------------------------ elementwise math
    def math_unary(self, name: str, x) -> tensor:
        """`math.exp`, `math.sqrt`, ...: same type in and out."""
        x = self.to_tensor(x)
        return self._emit(name, [x], x.type)

    def abs(self, x) -> tensor:
        x = self.to_tensor(x)
        dt = x.dtype
        if dt.is_fp8e4b15():
            # No MLIR type for this fp8: clear the sign bit on the raw byte.
            bits = self.bitcast(x, tl.int8)
            return self.bitcast(self.and_(bits, self._constant(0x7F, tl.int8)), dt)
        if dt.is_floating():
            return self._emit("math.absf", [x], x.type)
        if dt.is_int_signed():
            return self._emit("math.absi", [x], x.type)
        if dt.is_int_unsigned():
            return x
        raise AssertionError(f"Unexpected dtype {dt}")

    def umulhi(self, x, y) -> tensor:
        x, y = self.binary_op_type_checking_impl(self.to_tensor(x), self.to_tensor(y))
        return self._emit("tt.mulhiui", [x, y], x.type)

    def fma(self, x, y, z) -> tensor:
        x, y, z = self.to_tensor(x), self.to_tensor(y), self.to_tensor(z)
        x, y = self.binary_op_type_checking_impl(x, y)
        z, x = self.binary_op_type_checking_impl(z, x)
        z, y = self.binary_op_type_checking_impl(z, y)
        return self._emit("math.fma", [x, y, z], x.type)

    def div_rn(self, x, y) -> tensor:
        x, y = self.binary_op_type_checking_impl(self.to_tensor(x), self.to_tensor(y))
        return self._emit("tt.precise_divf", [x, y], x.type)

    def sqrt_rn(self, x) -> tensor:
        return self.math_unary("tt.precise_sqrt", x)
