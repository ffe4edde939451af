"""`tl.dot_scaled` (part of `TritonSemantic`): microscaled operands upcast in the language
layer, then one ordinary `tt.dot`.

Hopper has no block-scaled MMA, so upstream decomposes `tt.dot_scaled` there into: upcast each
operand to bf16 (fp16 when either side is fp16), multiply it by its e8m0 scale broadcast over
each group of K elements, and run a plain dot. tritium emits that decomposition directly as
TTIR, so the CPU evaluator runs it and the GPU pipeline sends the dot to wgmma with no new
lowering. Values match upstream's decomposition: the fp4/fp8 upcast and the power-of-two scale
are exact in bf16, a scale byte of 0 gives 0.0 (not 2^-127), and 0xFF makes the whole group
NaN unless `fast_math` (then it is an infinite scale).
"""
from __future__ import annotations

from typing import Optional

from . import dtypes as tl
from .core import tensor

_FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
# Every ScaleDotElemType upstream knows; the ones outside _FORMATS are not implemented.
_KNOWN_FORMATS = _FORMATS + ("e2m3", "e3m2")
_FP_TYPES = {"e5m2": tl.float8e5, "e4m3": tl.float8e4nv, "bf16": tl.bfloat16, "fp16": tl.float16}
_BITS_TYPES = {"e5m2": tl.uint8, "e4m3": tl.uint8, "bf16": tl.uint16, "fp16": tl.uint16}
_F32_ONE_HALF_BITS = 126 << 23  # 0.5f: fp4's exponent field 1 with bias 1 is 2^0, fp32's 126 + 1


class DotScaledMixin:
    def _str_to_fp_type(self, float_format: str) -> str:
        if not isinstance(float_format, str) or float_format.lower() not in _KNOWN_FORMATS:
            raise ValueError(f"Invalid float format: {float_format}.")
        return float_format

    def _bitcast_to_fp_type(self, val: tensor, float_format: str) -> tensor:
        """fp4 stays packed in uint8; other formats become their float type (bitcast from
        the same-width unsigned integer when given as bits)."""
        fp_ty = _FP_TYPES.get(float_format)
        if fp_ty is None:
            assert val.dtype == tl.uint8, f"e2m1 format must be packed as uint8. Got {val.dtype}"
            return val
        if val.dtype == fp_ty:
            return val
        assert val.dtype == _BITS_TYPES[float_format], \
            f"Unexpected dtype for {float_format}. Got {val.dtype}"
        return self.bitcast(val, fp_ty)

    # ------------------------------------------------------------------ upcasting
    def _i32(self, v: int) -> tensor:
        return self._constant(v, tl.int32)

    def _unpack_fp4(self, packed: tensor, dim: int) -> tensor:
        """Two e2m1 values per byte, the first in the low nibble, interleaved back along
        `dim` (which doubles), decoded to fp32."""
        lo = self.and_(packed, self._constant(15, tl.uint8))
        hi = self.lshr(packed, self._constant(4, tl.uint8))
        both = self.join(lo, hi)                      # [..., 2]: the pair sits last
        rank = len(packed.shape)
        if dim != rank - 1:
            perm = list(range(dim + 1)) + [rank] + list(range(dim + 1, rank))
            both = self.permute(both, perm)
        shape = list(packed.type.get_block_shapes())
        shape[dim] *= 2
        nib = self.cast(self.reshape(both, shape, can_reorder=False), tl.int32)
        em = self.and_(nib, self._i32(7))
        # Normal values (exponent field >= 1): move exponent and mantissa into fp32's fields
        # and rebias. em == 1 is the subnormal 0.5 and em == 0 is zero.
        normal = self.add(self.shl(em, self._i32(22)), self._i32(_F32_ONE_HALF_BITS))
        small = self.where(self.equal(em, self._i32(1)), self._i32(_F32_ONE_HALF_BITS),
                           self._i32(0))
        mag = self.where(self.greater_equal(em, self._i32(2)), normal, small)
        sign = self.shl(self.and_(nib, self._i32(8)), self._i32(28))
        return self.bitcast(self.or_(mag, sign), tl.float32)

    def _scale_values(self, scale: tensor, fast_math: bool) -> tensor:
        """e8m0 bytes as fp32: 2^(s-127) by placing s in fp32's exponent field."""
        s = self.cast(scale, tl.int32)
        val = self.bitcast(self.shl(s, self._i32(23)), tl.float32)
        if not fast_math:
            nan = self._constant(float("nan"), tl.float32)
            val = self.where(self.equal(s, self._i32(0xFF)), nan, val)
        return val

    def _broadcast_scale(self, scale: tensor, k: int, is_rhs: bool) -> tensor:
        """[..., R, K/g] -> [..., R, K] by repeating each entry g times, then for the rhs
        transposed to the operand's [..., K, N]."""
        shape = list(scale.type.get_block_shapes())
        group = k // shape[-1]
        wide = self.expand_dims(scale, len(shape))
        wide = self.broadcast_impl_shape(wide, shape + [group])
        wide = self.reshape(wide, shape[:-1] + [k], can_reorder=False)
        if is_rhs:
            rank = len(shape)
            wide = self.permute(wide, list(range(rank - 2)) + [rank - 1, rank - 2])
        return wide

    def _check_scale(self, scale: tensor, name: str, rows: int, k: int, batch) -> None:
        assert isinstance(scale, tensor) and scale.type.is_block(), \
            f"{name} must be a tensor or None"
        assert scale.dtype == tl.uint8, f"{name} must be uint8 (e8m0). Got {scale.dtype}"
        shape = scale.type.get_block_shapes()
        want_rank = 2 if batch is None else 3
        ok = len(shape) == want_rank and shape[-2] == rows and shape[-1] > 0 \
            and k % shape[-1] == 0 and (batch is None or shape[0] == batch)
        lead = "" if batch is None else f"{batch}, "
        assert ok, (f"{name} must have shape [{lead}{rows}, K // group] with K = {k} a multiple "
                    f"of the group size; got {shape}")

    def _scaled_operand(self, v: tensor, fmt: str, k_pack: bool, is_rhs: bool,
                        scale: Optional[tensor], compute: tl.dtype, k: int,
                        fast_math: bool) -> tensor:
        rank = len(v.shape)
        if fmt == "e2m1":
            k_dim = rank - 2 if is_rhs else rank - 1
            mn_dim = rank - 1 if is_rhs else rank - 2
            v = self.cast(self._unpack_fp4(v, k_dim if k_pack else mn_dim), compute)
        else:
            v = self.cast(v, compute)
        if scale is None:
            return v
        s = self.cast(self._scale_values(scale, fast_math), compute)
        return self.mul(v, self._broadcast_scale(s, k, is_rhs))

    # ------------------------------------------------------------------ the builtin
    def dot_scaled(self, lhs: tensor, lhs_scale: Optional[tensor], lhs_format: str, rhs: tensor,
                   rhs_scale: Optional[tensor], rhs_format: str, acc: Optional[tensor],
                   fast_math: bool, lhs_k_pack: bool, rhs_k_pack: bool,
                   out_dtype: tl.dtype) -> tensor:
        assert isinstance(lhs, tensor) and isinstance(rhs, tensor) and \
            lhs.type.is_block() and rhs.type.is_block(), "lhs and rhs must be tensors"
        lhs_rank, rhs_rank = len(lhs.shape), len(rhs.shape)
        assert lhs_rank == rhs_rank == 2 or lhs_rank == rhs_rank == 3, \
            f"Both inputs must be either 2D or 3D; (lhs: {lhs.shape} vs rhs: {rhs.shape})"
        lhs_format = self._str_to_fp_type(self._unwrap(lhs_format))
        rhs_format = self._str_to_fp_type(self._unwrap(rhs_format))
        assert lhs_format in _FORMATS, f"NYI: lhs_format {lhs_format}"
        assert rhs_format in _FORMATS, f"NYI: rhs_format {rhs_format}"
        lhs_scale, rhs_scale = self._unwrap(lhs_scale), self._unwrap(rhs_scale)
        lhs = self._bitcast_to_fp_type(lhs, lhs_format)
        rhs = self._bitcast_to_fp_type(rhs, rhs_format)
        assert lhs_k_pack or lhs_format == "e2m1", \
            "only mxfp4 inputs can be packed along a dimension different than K"
        assert rhs_k_pack or rhs_format == "e2m1", \
            "only mxfp4 inputs can be packed along a dimension different than K"
        M, K_LHS = lhs.type.get_block_shapes()[-2:]
        K_RHS, N = rhs.type.get_block_shapes()[-2:]
        PACKED_A = 2 if lhs_format == "e2m1" else 1
        PACKED_B = 2 if rhs_format == "e2m1" else 1
        PACKED_A_DIM = PACKED_A * K_LHS if lhs_k_pack else K_LHS
        PACKED_B_DIM = PACKED_B * K_RHS if rhs_k_pack else K_RHS
        assert PACKED_B_DIM == PACKED_A_DIM, ("Reduction dimension should pack the same number "
                                              f"of elements; (lhs: {lhs.shape} vs rhs: "
                                              f"{rhs.shape})")
        if not lhs_k_pack:
            M *= PACKED_A
        if not rhs_k_pack:
            N *= PACKED_B
        K = PACKED_A_DIM
        B = lhs.type.get_block_shapes()[0] if lhs_rank == 3 else None
        if lhs_scale is not None:
            self._check_scale(lhs_scale, "lhs_scale", M, K, B)
        if rhs_scale is not None:
            self._check_scale(rhs_scale, "rhs_scale", N, K, B)
        ret_shape = [B, M, N] if B else [M, N]
        if acc is not None:
            assert acc.type.get_block_shapes() == ret_shape and acc.type.scalar == out_dtype, \
                f"acc of type {acc.type} does not match the dot_scaled result {ret_shape} " \
                f"x {out_dtype}"
        compute = tl.float16 if "fp16" in (lhs_format, rhs_format) else tl.bfloat16
        a = self._scaled_operand(lhs, lhs_format, lhs_k_pack, False, lhs_scale, compute, K,
                                 bool(fast_math))
        b = self._scaled_operand(rhs, rhs_format, rhs_k_pack, True, rhs_scale, compute, K,
                                 bool(fast_math))
        return self.dot(a, b, acc, None, None, out_dtype)
