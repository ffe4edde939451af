"""Loads, stores and atomics (part of `TritonSemantic`)."""
from __future__ import annotations

from typing import Optional, Tuple

from ..ir.ops import (ATOMIC_RMW_OPS, CACHE_MODIFIERS, EVICTION_POLICIES, MEM_SCOPES,
                      MEM_SEMANTICS)
from . import dtypes as tl
from .core import tensor
from .semantic_base import type_repr

_LOAD_CACHE = (".ca", ".cg", ".cv")
_STORE_CACHE = (".wb", ".cg", ".cs", ".wt")


class MemoryMixin:
    # ------------------------------------------------------------------ option strings
    def _str_to_load_cache_modifier(self, cache_modifier) -> int:
        if cache_modifier:
            if cache_modifier not in _LOAD_CACHE:
                raise ValueError(f"Cache modifier {cache_modifier} not supported")
            return CACHE_MODIFIERS[cache_modifier]
        return CACHE_MODIFIERS[""]

    def _str_to_store_cache_modifier(self, cache_modifier) -> int:
        if cache_modifier:
            if cache_modifier not in _STORE_CACHE:
                raise ValueError(f"Cache modifier {cache_modifier} not supported")
            return CACHE_MODIFIERS[cache_modifier]
        return CACHE_MODIFIERS[""]

    def _str_to_eviction_policy(self, eviction_policy) -> int:
        if eviction_policy:
            if eviction_policy not in ("evict_last", "evict_first"):
                raise ValueError(f"Eviction policy {eviction_policy} not supported")
            return EVICTION_POLICIES[eviction_policy]
        return EVICTION_POLICIES[""]

    def _str_to_padding_option(self, padding_option):
        if padding_option:
            if padding_option not in ("zero", "nan"):
                raise ValueError(f"Padding option {padding_option} not supported")
            return padding_option
        return None

    def _str_to_sem(self, sem_option) -> int:
        if sem_option:
            if sem_option not in MEM_SEMANTICS:
                raise ValueError(f"Memory semantic {sem_option} not supported")
            return MEM_SEMANTICS[sem_option]
        return MEM_SEMANTICS["acq_rel"]

    def _str_to_scope(self, scope_option) -> int:
        if scope_option:
            if scope_option not in MEM_SCOPES:
                # Upstream's message says "semantic" here too; kept so errors match.
                raise ValueError(f"Memory semantic {scope_option} not supported")
            return MEM_SCOPES[scope_option]
        return MEM_SCOPES["gpu"]

    @staticmethod
    def _is_block_pointer(ptr: tensor) -> bool:
        return ptr.type.is_ptr() and not ptr.type.is_block() and ptr.type.element_ty.is_block()

    def _bool_ptr_to_int8(self, ptr: tensor) -> tensor:
        # i1 is not addressable: bool tensors live in memory as bytes.
        ptr_ty = ptr.type.scalar
        return self.cast(ptr, tl.pointer_type(tl.int8, ptr_ty.address_space))

    # ------------------------------------------------------------------ load / store
    def load(self, ptr: tensor, mask: Optional[tensor], other: Optional[tensor], boundary_check,
             padding_option: str, cache_modifier: str, eviction_policy: str, is_volatile: bool
             ) -> tensor:
        cache = self._str_to_load_cache_modifier(cache_modifier)
        eviction = self._str_to_eviction_policy(eviction_policy)
        padding = self._str_to_padding_option(padding_option)
        mask = None if mask is None else self.to_tensor(mask)
        other = None if other is None else self.to_tensor(other)
        if self._is_block_pointer(ptr):
            return self._load_block_pointer(ptr, mask, other, boundary_check, padding, cache,
                                            eviction, is_volatile)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {type_repr(ptr.type)} in `tl.load`")
        if mask is None and other is not None:
            raise ValueError("`other` cannot be provided without `mask`")
        if padding or boundary_check:
            raise ValueError("`padding_option` or `boundary_check` argument is not supported for "
                             "loading a tensor of" "pointers or loading a scalar. Because the "
                             "compiler does not know the boundary; please use block pointers "
                             "(defined by `make_block_ptr`) instead")
        if not ptr.type.is_block():
            if mask is not None and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is not a block")
            if other is not None and other.type.is_block():
                raise ValueError("Other argument cannot be block type if pointer argument is not a block")
        if ptr.type.is_block():
            if mask is not None:
                ptr, mask = self.broadcast_impl_value(ptr, mask)
            if other is not None:
                ptr, other = self.broadcast_impl_value(ptr, other)
                if mask is not None:
                    ptr, mask = self.broadcast_impl_value(ptr, mask)
        if mask is not None and not mask.type.scalar.is_bool():
            raise ValueError("Mask must have boolean scalar type")

        elt_ty = ptr.type.scalar.element_ty
        is_bool = elt_ty == tl.int1
        if is_bool:
            elt_ty = tl.int8
            ptr = self._bool_ptr_to_int8(ptr)
        if other is not None:
            other = self.cast(other, elt_ty)
        dst_ty = ptr.type.with_element_ty(elt_ty) if ptr.type.is_block() else elt_ty
        operands = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        attrs = {"cache": cache, "evict": eviction, "isVolatile": bool(is_volatile)}
        ret = self._emit("tt.load", operands, dst_ty, attrs)
        if is_bool:
            ret = self.cast(ret, tl.int1)
        return ret

    def store(self, ptr: tensor, val: tensor, mask: Optional[tensor], boundary_check,
              cache_modifier: str, eviction_policy: str) -> tensor:
        cache = self._str_to_store_cache_modifier(cache_modifier)
        eviction = self._str_to_eviction_policy(eviction_policy)
        val = self.to_tensor(val)
        mask = None if mask is None else self.to_tensor(mask)
        if ptr.type.is_const() or ptr.type.scalar.is_const():
            raise ValueError("Cannot store to a constant pointer")
        if self._is_block_pointer(ptr):
            return self._store_block_pointer(ptr, val, mask, boundary_check, cache, eviction)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {type_repr(ptr.type)} in `tl.store`")
        if boundary_check:
            raise ValueError("`boundary_check` argument is not supported for storing a tensor of "
                             "pointers or storing a scalar. Because the compiler does not know "
                             "the boundary; please use block pointers (defined by "
                             "`make_block_ptr`) instead")
        if not ptr.type.is_block():
            if val.type.is_block():
                raise ValueError("Value argument cannot be block type if pointer argument is not a block")
            if mask is not None and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is not a block")
        if ptr.type.is_block():
            ptr_shape = ptr.type.get_block_shapes()
            if mask is None:
                ptr, val = self.broadcast_tensors(ptr, val)
            else:
                ptr, val, mask = self.broadcast_tensors(ptr, val, mask)
            if ptr_shape != ptr.type.get_block_shapes():
                raise ValueError(f"Expected pointer argument to have shape {ptr.shape} but got "
                                 f"{ptr_shape}")
        elt_ty = ptr.type.scalar.element_ty
        if elt_ty == tl.int1:
            elt_ty = tl.int8
            ptr = self._bool_ptr_to_int8(ptr)
        val = self.cast(val, elt_ty)
        attrs = {"cache": cache, "evict": eviction}
        if mask is None:
            return self._emit_void("tt.store", [ptr, val], attrs)
        if not mask.type.scalar.is_bool():
            raise ValueError("Mask must have boolean scalar type")
        return self._emit_void("tt.store", [ptr, val, mask], attrs)

    # ------------------------------------------------------------------ atomics
    def atom_red_typechecking_impl(self, ptr: tensor, val: tensor, mask: Optional[tensor],
                                   op: str) -> Tuple[tensor, tensor, tensor]:
        val = self.to_tensor(val)
        mask = None if mask is None else self.to_tensor(mask)
        if not ptr.type.scalar.is_ptr():
            raise ValueError("Pointer argument of store instruction is " + type_repr(ptr.type))
        if ptr.type.is_const() or ptr.type.scalar.is_const():
            raise ValueError("Cannot store to a constant pointer")
        element_ty = ptr.type.scalar.element_ty
        if element_ty == tl.float16 and op != "add":
            raise ValueError("atomic_" + op + " does not support fp16")
        if element_ty == tl.bfloat16 and op != "add":
            raise ValueError("atomic_" + op + " does not support bf16")
        if element_ty in (tl.int16, tl.uint16) or element_ty.primitive_bitwidth < 16:
            raise ValueError("atomic_" + op + " does not support " + str(element_ty))
        if mask is None:
            mask = self._constant(True, tl.int1)
        if ptr.type.is_block():
            # A scalar takes the pointer block's type (in Gluon, its layout too); a block
            # broadcasts to its shape.
            shape = ptr.type.get_block_shapes()
            mask, val = [self.splat_like(ptr, x) if not x.type.is_block()
                         else self.broadcast_impl_shape(x, shape) for x in (mask, val)]
        val = self.cast(val, element_ty)
        return ptr, val, mask

    def _atomic_rmw(self, kind: str, ptr: tensor, val: tensor, mask: tensor, sem: int,
                    scope: int) -> tensor:
        attrs = {"atomic_rmw_op": ATOMIC_RMW_OPS[kind], "sem": sem, "scope": scope}
        return self._emit("tt.atomic_rmw", [ptr, val, mask], val.type, attrs)

    def atomic_cas(self, ptr: tensor, cmp: tensor, val: tensor, sem: str, scope: str) -> tensor:
        sem, scope = self._str_to_sem(sem), self._str_to_scope(scope)
        element_ty = ptr.type.scalar.element_ty
        if element_ty.primitive_bitwidth not in (16, 32, 64):
            raise ValueError("atomic_cas only supports elements with width {16, 32, 64}")
        cmp, val = self.to_tensor(cmp), self.to_tensor(val)
        if ptr.type.is_block():
            shape = ptr.type.get_block_shapes()
            cmp, val = self.broadcast_impl_shape(cmp, shape), self.broadcast_impl_shape(val, shape)
        cmp, val = self.cast(cmp, element_ty), self.cast(val, element_ty)
        return self._emit("tt.atomic_cas", [ptr, cmp, val], val.type, {"sem": sem, "scope": scope})

    def _signbit(self, x: tensor) -> tensor:
        bits = x.dtype.primitive_bitwidth
        ix = self.bitcast(x, tl.dtype(f"uint{bits}"))
        return self.cast(self.lshr(ix, bits - 1), tl.int1)

    def _atomic_float_minmax(self, ptr, val, mask, sem, scope, pos_op: str, neg_op: str):
        # IEEE floats order like sign-magnitude ints: non-negative values compare as
        # signed ints, negative ones in reverse as unsigned ints.
        sca_ty = val.type.scalar
        i_ty = tl.int32 if sca_ty == tl.float32 else tl.int64
        u_ty = tl.uint32 if sca_ty == tl.float32 else tl.uint64
        i_val, u_val = self.bitcast(val, i_ty), self.bitcast(val, u_ty)
        i_ptr = self.bitcast(ptr, tl.pointer_type(i_ty, 1))
        u_ptr = self.bitcast(ptr, tl.pointer_type(u_ty, 1))
        neg = self._signbit(val)
        pos = self.not_(neg)
        pos_ret = self._atomic_rmw(pos_op, i_ptr, i_val, self.and_(mask, pos), sem, scope)
        neg_ret = self._atomic_rmw(neg_op, u_ptr, u_val, self.and_(mask, neg), sem, scope)
        return self.bitcast(self.where(pos, pos_ret, neg_ret), sca_ty)

    def _atomic_minmax(self, which: str, ptr, val, mask, sem, scope) -> tensor:
        ptr, val, mask = self.atom_red_typechecking_impl(ptr, val, mask, which)
        sem, scope = self._str_to_sem(sem), self._str_to_scope(scope)
        sca_ty = val.type.scalar
        if sca_ty.is_int():
            kind = which if sca_ty.is_int_signed() else "u" + which
            return self._atomic_rmw(kind, ptr, val, mask, sem, scope)
        if sca_ty not in (tl.float32, tl.float64):
            raise TypeError(f"atomic_{which} not supported for dtype {sca_ty}")
        pos_op, neg_op = ("max", "umin") if which == "max" else ("min", "umax")
        return self._atomic_float_minmax(ptr, val, mask, sem, scope, pos_op, neg_op)

    def atomic_max(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_minmax("max", ptr, val, mask, sem, scope)

    def atomic_min(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_minmax("min", ptr, val, mask, sem, scope)

    def _atomic_simple(self, name: str, kind: str, ptr, val, mask, sem, scope) -> tensor:
        ptr, val, mask = self.atom_red_typechecking_impl(ptr, val, mask, name)
        return self._atomic_rmw(kind, ptr, val, mask, self._str_to_sem(sem), self._str_to_scope(scope))

    def atomic_add(self, ptr, val, mask, sem, scope) -> tensor:
        ptr, val, mask = self.atom_red_typechecking_impl(ptr, val, mask, "add")
        kind = "fadd" if val.type.scalar.is_floating() else "add"
        return self._atomic_rmw(kind, ptr, val, mask, self._str_to_sem(sem), self._str_to_scope(scope))

    def atomic_and(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_simple("and", "and", ptr, val, mask, sem, scope)

    def atomic_or(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_simple("or", "or", ptr, val, mask, sem, scope)

    def atomic_xor(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_simple("xor", "xor", ptr, val, mask, sem, scope)

    def atomic_xchg(self, ptr, val, mask, sem, scope) -> tensor:
        return self._atomic_simple("xchg", "exch", ptr, val, mask, sem, scope)
