"""rewrite-tensor-pointer: lower block pointers to tensors of pointers plus masks.

Upstream's pass of the same name (make_ttir, right after the inliner): after it no
`!tt.ptr<tensor<...>>` value is left, so later stages only see ordinary `tt.load`/`tt.store`.

    %p = tt.make_tensor_ptr %base, [%M, %N], [%sM, %sN], [%o0, %o1] : <tensor<BMxBNxf16>>
    %v = tt.load %p {boundaryCheck = array<i32: 0>, padding = 1 : i32}
  becomes, per dim d: off_d = splat(o_d) + make_range(0, B_d) (i64), expanded and broadcast
  to the block; ptrs = base + sum_d off_d * s_d; mask = and over checked d of
  0 <= off_d < shape_d; `other` = the padding (0 or NaN) when one was given:
    %v = tt.load %ptrs, %mask, %zero : tensor<BMxBNx!tt.ptr<f16>>

A block pointer is tracked as its components (base, shapes, strides, offsets as i64); a
`tt.advance` adds to the offsets. Block pointers carried by `scf.for`/`scf.while`/`scf.if`,
or passed to and returned from non-inlined functions, become their components there
(canonicalize then drops those that never change); anything else using one is reported.
"""
from __future__ import annotations

from typing import List, Sequence

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Operation, Value
from ..ir.ops import CMPI_PREDICATES, PADDING_OPTIONS
from .expand_values import ValueExpander
from .manager import Pass, register_pass

_SGE, _SLT = CMPI_PREDICATES.index("sge"), CMPI_PREDICATES.index("slt")


class Components:
    """A block pointer as values: `base`, then `shape`, `strides`, `offsets` (i64, per dim)."""

    def __init__(self, values: Sequence[Value], rank: int):
        self.values, self.rank = list(values), rank

    @property
    def base(self) -> Value:
        return self.values[0]

    def shape(self, d):
        return self.values[1 + d]

    def stride(self, d):
        return self.values[1 + self.rank + d]

    def offset(self, d):
        return self.values[1 + 2 * self.rank + d]

    def with_offsets(self, offsets) -> "Components":
        return Components(self.values[:1 + 2 * self.rank] + list(offsets), self.rank)


def component_types(t: T.Type) -> List[T.Type]:
    """The types a value of type `t` becomes (itself unless it is a block pointer)."""
    if not T.is_block_ptr(t):
        return [t]
    r = t.pointee.rank
    return [T.PointerType(t.pointee.element, t.address_space)] + [T.i64] * (3 * r)


def _i64(b: Builder, v: Value) -> Value:
    return v if v.type == T.i64 else b.create1("arith.extsi", [v], T.i64)


def element_offsets(b: Builder, comp: Components, block: Sequence[int], d: int) -> Value:
    """offset_d + [0, B_d) along dim d, broadcast to the whole block (i64)."""
    n = block[d]
    rng = b.create1("tt.make_range", [], T.TensorType((n,), T.i32), {"start": 0, "end": n})
    rng = b.create1("arith.extsi", [rng], T.TensorType((n,), T.i64))
    start = b.create1("tt.splat", [comp.offset(d)], T.TensorType((n,), T.i64))
    off = b.create1("arith.addi", [start, rng], rng.type)
    shape = [n]
    for j in range(len(block)):
        if j != d:
            shape.insert(j, 1)
            off = b.create1("tt.expand_dims", [off], T.TensorType(tuple(shape), T.i64),
                            {"axis": j})
    full = T.TensorType(tuple(block), T.i64)
    if off.type != full:
        off = b.create1("tt.broadcast", [off], full)
    return off


def pointers_and_mask(b: Builder, comp: Components, block_ty: T.TensorType, check):
    """The tensor of element pointers of a block, and its boundary mask (or None)."""
    block = block_ty.shape
    full64 = T.TensorType(block, T.i64)
    ptr_ty = T.TensorType(block, comp.base.type)
    ptrs = b.create1("tt.splat", [comp.base], ptr_ty)
    mask = None
    for d in range(len(block)):
        off = element_offsets(b, comp, block, d)
        stride = b.create1("tt.splat", [comp.stride(d)], full64)
        ptrs = b.create1("tt.addptr", [ptrs, b.create1("arith.muli", [off, stride], full64)],
                         ptr_ty)
        if d in check:
            inside = in_bounds(b, off, comp.shape(d))
            mask = inside if mask is None else b.create1("arith.andi", [mask, inside],
                                                         inside.type)
    return ptrs, mask


def in_bounds(b: Builder, off: Value, limit: Value) -> Value:
    """0 <= off < limit, elementwise (`off` an i64 tensor, `limit` an i64 scalar)."""
    bool_ty = T.with_element(off.type, T.i1)
    lo = b.create1("arith.cmpi", [off, b.constant(0, off.type)], bool_ty, {"predicate": _SGE})
    hi = b.create1("arith.cmpi", [off, b.create1("tt.splat", [limit], off.type)], bool_ty,
                   {"predicate": _SLT})
    return b.create1("arith.andi", [lo, hi], bool_ty)


class _BlockPointers(ValueExpander):
    pass_name = "rewrite-tensor-pointer"

    def expands(self, t: T.Type) -> bool:
        return T.is_block_ptr(t)

    def component_types(self, t: T.Type) -> List[T.Type]:
        return component_types(t)

    def _comp(self, v: Value) -> Components:
        return Components(self.comps[v], v.type.pointee.rank)

    def _tt_make_tensor_ptr(self, op):
        b = self.builder(op)
        r = op.results[0].type.pointee.rank
        self.comps[op.results[0]] = (op.operands[:1 + 2 * r]
                                     + [_i64(b, v) for v in op.operands[1 + 2 * r:]])
        self.dead.append(op)

    def _tt_advance(self, op):
        b = self.builder(op)
        comp = self._comp(op.operand(0))
        offs = [b.create1("arith.addi", [comp.offset(d), _i64(b, v)], T.i64)
                for d, v in enumerate(op.operands[1:])]
        self.comps[op.results[0]] = comp.with_offsets(offs).values
        self.dead.append(op)

    def _tt_load(self, op):
        if not T.is_block_ptr(op.operand(0).type):
            return False
        b = self.builder(op)
        ty = op.results[0].type
        ptrs, mask = pointers_and_mask(b, self._comp(op.operand(0)), ty,
                                       tuple(op.attr("boundaryCheck", ())))
        operands = [ptrs]
        padding = op.attr("padding")
        if mask is not None:
            operands.append(mask)
            if padding is not None:
                nan = padding == PADDING_OPTIONS["nan"] and T.is_float(ty)
                operands.append(b.constant(float("nan") if nan else 0, ty))
        attrs = {k: v for k, v in op.attributes.items() if k not in ("boundaryCheck", "padding")}
        new = b.create1("tt.load", operands, ty, attrs)
        op.results[0].replace_all_uses_with(new)
        self.dead.append(op)

    def _tt_store(self, op):
        if not T.is_block_ptr(op.operand(0).type):
            return False
        b = self.builder(op)
        val = op.operand(1)
        ptrs, mask = pointers_and_mask(b, self._comp(op.operand(0)), val.type,
                                       tuple(op.attr("boundaryCheck", ())))
        attrs = {k: v for k, v in op.attributes.items() if k != "boundaryCheck"}
        b.create("tt.store", [ptrs, val] + ([mask] if mask is not None else []), [], attrs)
        self.dead.append(op)


def rewrite_tensor_pointers(module: Operation) -> None:
    _BlockPointers().run(module)


@register_pass
class RewriteTensorPointer(Pass):
    name = "rewrite-tensor-pointer"
    aliases = ("triton-rewrite-tensor-pointer",)
    description = "lower block pointers (tt.make_tensor_ptr/tt.advance) to pointer tensors + masks"

    def run(self, module: Operation) -> None:
        rewrite_tensor_pointers(module)


__all__ = ["RewriteTensorPointer", "rewrite_tensor_pointers", "pointers_and_mask",
           "element_offsets", "Components", "component_types"]
