"""Compiler hints, debugging ops and calls out to external code (part of `TritonSemantic`)."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from . import dtypes as tl
from .core import tensor
from .semantic_base import i32_array


class MiscMixin:
    # ------------------------------------------------------------------ axis-info hints
    def _set_hint(self, x: tensor, name: str, values: List[int]) -> tensor:
        attr = i32_array(values)
        owner = x.handle.owner_op
        if owner is not None:
            owner.set_attr(name, attr)
            return x
        # A block argument: loop-carried values keep the hint on their loop op, keyed by
        # argument number; function arguments carry their hints in the signature instead.
        block = x.handle.block
        parent = block.parent_op
        if parent is not None and parent.name != "tt.func" and block is parent.regions[0].entry:
            parent.set_attr(f"{name}_arg{x.handle.index}", attr)
        return x

    def multiple_of(self, x: tensor, values: List[int]) -> tensor:
        if max(1, len(x.shape)) != len(values):
            raise ValueError("Shape of input to multiple_of does not match the length of values")
        return self._set_hint(x, "tt.divisibility", values)

    def max_contiguous(self, x: tensor, values: List[int]) -> tensor:
        if len(x.shape) != len(values):
            raise ValueError("Shape of input to max_contiguous does not match the length of values")
        return self._set_hint(x, "tt.contiguity", values)

    def max_constancy(self, x: tensor, values: List[int]) -> tensor:
        if len(x.shape) != len(values):
            raise ValueError("Shape of input to max_constancy does not match the length of values")
        return self._set_hint(x, "tt.constancy", values)

    def assume(self, cond: tensor) -> tensor:
        return self._emit_void("llvm.intr.assume", [cond])

    # ------------------------------------------------------------------ debugging
    def debug_barrier(self) -> tensor:
        return self._emit_void("ttg.barrier", [])

    def device_print(self, prefix: str, args: Sequence[tensor], hex: bool) -> tensor:
        # Values read best after "prefix: "; a non-empty prefix is set off by a space.
        if not prefix.endswith(" ") and args:
            prefix += " "
        if not prefix.endswith(": ") and args:
            prefix = prefix[:-1] + ": "
        if len(prefix) > 2 and not prefix.startswith(" "):
            prefix = " " + prefix
        is_signed = [1 if a.dtype.is_int_signed() else 0 for a in args]
        attrs = {"prefix": prefix, "hex": bool(hex), "isSigned": i32_array(is_signed)}
        return self._emit_void("tt.print", list(args), attrs)

    def device_assert(self, cond: tensor, msg: str, mask: Optional[tensor] = None):
        if not self._opt("debug"):
            return None
        if mask is not None:
            cond = self.or_(cond, self.not_(mask))
        return self._emit_void("tt.assert", [cond], {"message": msg})

    # ------------------------------------------------------------------ external code
    def _broadcast_args(self, args: List[tensor], arithmetic_check: bool, allow_ptr: bool):
        """Bring every argument to one shape (and, if asked, one arithmetic type) by pairing
        each with a running broadcast operand, as upstream's dispatch does."""
        common = args[0]
        for a in args:
            _, common = self.binary_op_type_checking_impl(
                a, common, allow_lhs_ptr=allow_ptr, allow_rhs_ptr=allow_ptr,
                arithmetic_check=arithmetic_check)
        for i, a in enumerate(args):
            args[i], _ = self.binary_op_type_checking_impl(
                a, common, allow_lhs_ptr=allow_ptr, allow_rhs_ptr=allow_ptr,
                arithmetic_check=arithmetic_check)
        return args, common

    def extern_elementwise(self, lib_name: str, lib_path: str, args: Sequence,
                           arg_type_symbol_dict: Dict, is_pure: bool) -> tensor:
        args = [self.to_tensor(a) for a in args]
        all_scalar = all(not a.type.is_block() for a in args)
        ret_shape = None
        if args:
            exact = tuple(a.dtype for a in args) in arg_type_symbol_dict
            args, common = self._broadcast_args(args, arithmetic_check=not exact, allow_ptr=False)
            if not all_scalar:
                ret_shape = common.type.get_block_shapes()
        if len(arg_type_symbol_dict) == 0:
            raise ValueError("arg_type_symbol_dict is empty")
        num_args = len(next(iter(arg_type_symbol_dict.keys())))
        if len(args) != num_args:
            raise ValueError(f"length of input args does not match."
                             f"Expect {len(args)}, got {num_args}")
        arg_types = tuple(a.dtype for a in args)
        if arg_types not in arg_type_symbol_dict:
            raise ValueError(f"input arg type does not match."
                             f"Expect one of {arg_type_symbol_dict.keys()}, got {arg_types}")
        symbol, ret_type = arg_type_symbol_dict[arg_types]
        if ret_shape:
            ret_type = tl.block_type(ret_type, ret_shape)
        attrs = {"libname": lib_name, "libpath": lib_path, "symbol": symbol, "pure": bool(is_pure)}
        return self._emit("tt.extern_elementwise", args, ret_type, attrs)

    def inline_asm_elementwise(self, asm: str, constraints: str, args: Sequence,
                               dtypes: Sequence[tl.dtype], is_pure: bool, pack: int):
        args = [self.to_tensor(a) for a in args]
        res_tys = list(dtypes)
        if args:
            args, common = self._broadcast_args(args, arithmetic_check=False, allow_ptr=True)
            if common.type.is_block():
                res_tys = [common.type.with_element_ty(dt) for dt in dtypes]
        attrs = {"asm_string": asm, "constraints": constraints, "pure": bool(is_pure),
                 "packed_element": int(pack)}
        op = self.builder.create("tt.elementwise_inline_asm", [a.handle for a in args],
                                 [t.to_ir() for t in res_tys], attrs)
        return [tensor(r, t) for r, t in zip(op.results, res_tys)]

