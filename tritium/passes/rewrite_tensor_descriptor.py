"""rewrite-tensor-descriptor-to-pointer: tensor descriptors become plain pointer loads and
stores (upstream runs its pass of this name where there is no TMA; tritium's NVIDIA backend
runs it until TMA lands, so descriptor kernels compile and run anywhere).

A descriptor is carried as its components: base pointer, `padding_nan` (i1), shape (i32 per
dim), strides (i64 per dim). `tt.make_tensor_descriptor` gives them directly (padding from
its attribute). A kernel parameter `!tt.tensordesc<...>` becomes two parameters, the base
pointer and `padding_nan`, followed by the shape and stride parameters the JIT already put
after it (the layout `backends/nvidia/tensordesc_abi.py` documents for the launcher).

  tt.descriptor_load %d[%i, %j]     → tt.load %ptrs, %inbounds, %pad   (pad: 0, or NaN when
  tt.descriptor_store %d[..], %v    → tt.store %ptrs, %v, %inbounds     padding_nan)
  tt.descriptor_reduce add, ...     → tt.atomic_rmw fadd/add/min/max/and/or/xor (relaxed, gpu)
  tt.descriptor_gather %d[%x, %y]   → rows x, columns y.., the same masks
  tt.descriptor_scatter             → the matching masked store

Every dim is bounds-checked, as TMA does.

A kernel parameter marked `tt.tma` (by the NVIDIA backend's keep-tma-descriptors pass on
sm_90: every use is a load, store or reduction TMA can do) is left alone: it reaches TTGIR
as a `!tt.tensordesc` and becomes TMA copies there; so does a `tt.make_tensor_descriptor`
that pass marked `tt.tma` (its map is written on the device). A parameter that is rewritten gets the
argument attribute `tt.pointer_descriptor` on its base pointer, so the compiled kernel can
tell the launcher which descriptors travel how.
"""
from __future__ import annotations

from typing import List

from ..ir import types as T
from ..ir.attrs import BoolAttr, DictAttr
from ..ir.builder import Builder
from ..ir.core import BlockArgument, Operation, Value
from ..ir.ops import ATOMIC_RMW_OPS, DESCRIPTOR_REDUCE_KINDS, MEM_SCOPES, MEM_SEMANTICS
from .expand_values import ValueExpander
from .manager import Pass, register_pass
from .rewrite_tensor_pointer import Components, _i64, element_offsets, in_bounds, pointers_and_mask

_REDUCE = {v: k for k, v in DESCRIPTOR_REDUCE_KINDS.items()}


def descriptor_component_types(t: T.TensorDescType) -> List[T.Type]:
    r = t.block.rank
    return [T.PointerType(t.block.element), T.i1] + [T.i32] * r + [T.i64] * r


class _Descriptors(ValueExpander):
    pass_name = "rewrite-tensor-descriptor-to-pointer"

    def __init__(self):
        super().__init__()
        self.kept: set = set()

    def run(self, module: Operation) -> None:
        for func in module.regions[0].entry:
            if func.name == "tt.func" and func.regions[0].blocks:
                attrs = list(func.attr("arg_attrs") or [])
                self.kept |= {a for a, d in zip(func.regions[0].entry.args, attrs)
                              if isinstance(a.type, T.TensorDescType) and
                              isinstance(d, DictAttr) and d.get("tt.tma")}
                self.kept |= {op.results[0] for op in func.walk()
                              if op.name == "tt.make_tensor_descriptor" and op.attr("tt.tma")}
        super().run(module)

    def run_op(self, op: Operation) -> None:
        if op.name in ("tt.descriptor_load", "tt.descriptor_store", "tt.descriptor_reduce") \
                and op.operand(0) in self.kept:
            return
        super().run_op(op)

    def drop_old_params(self, func: Operation) -> None:
        block = func.regions[0].entry
        attrs = list(func.attr("arg_attrs") or [DictAttr(())] * len(block.args))
        for i in reversed(range(len(block.args))):
            if self.expands(block.args[i].type) and block.args[i] not in self.kept:
                block.erase_argument(i)
                del attrs[i]
        self.set_signature(func, attrs)

    def expands(self, t: T.Type) -> bool:
        return isinstance(t, T.TensorDescType)

    def component_types(self, t: T.Type) -> List[T.Type]:
        return descriptor_component_types(t)

    # ------------------------------------------------------------------ function boundaries
    # Functions (kernels included) pass a descriptor as the descriptor followed by its shape
    # and strides (the JIT flattens it so); only the descriptor itself becomes
    # (base, padding_nan), and the shape and stride values that follow it complete it.
    def slot_types(self, t: T.Type) -> List[T.Type]:
        return self.component_types(t)[:2] if self.expands(t) else [t]

    def expand_params(self, func: Operation) -> None:
        block = func.regions[0].entry
        attrs = list(func.attr("arg_attrs") or [DictAttr(())] * len(block.args))
        k = 0
        while k < len(block.args):
            arg = block.args[k]
            if not self.expands(arg.type) or arg in self.kept:
                k += 1
                continue
            r = arg.type.block.rank
            tail = block.args[k + 1:k + 1 + 2 * r]
            if [a.type for a in tail] != [T.i32] * r + [T.i64] * r:
                raise ValueError(f"{self.pass_name}: parameter {k} of @{func.attr('sym_name')} "
                                 f"is a descriptor not followed by its shape (i32) and strides "
                                 f"(i64) parameters")
            new = [BlockArgument(t, block, 0) for t in
                   (T.PointerType(arg.type.block.element), T.i1)]
            block.args[k:k] = new
            base_attrs = dict(attrs[k].value) if isinstance(attrs[k], DictAttr) else {}
            base_attrs["tt.pointer_descriptor"] = BoolAttr(True)
            attrs[k:k] = [DictAttr(tuple(base_attrs.items())), DictAttr(())]
            # The last stride is 1 (the host TensorDescriptor checks it): as a constant it
            # lets axis analysis see contiguous rows and vectorize.
            b = Builder(block)
            b.set_insertion_point_to_start(block)
            self.comps[arg] = new + list(tail[:-1]) + [b.constant(1, T.i64)]
            k += 3 + 2 * r
        for i, a in enumerate(block.args):
            a.index = i
        self.set_signature(func, attrs)

    def _tt_call(self, op):
        if not any(self.expands(v.type) for v in op.operands + op.results):
            return False
        types = [t for r in op.results for t in self.slot_types(r.type)]
        new = Operation("tt.call", self.slots(op.operands), types, dict(op.attributes), 0,
                        op.loc)
        op.parent.insert_before(new, op)
        res, i = new.results, 0
        for r in op.results:
            if self.expands(r.type):
                n = 2 * r.type.block.rank
                self.comps[r] = [res[i], res[i + 1]] + list(res[i + 2:i + 2 + n])
                i += 2
            else:
                r.replace_all_uses_with(res[i])
                i += 1
        self.dead.append(op)

    # ------------------------------------------------------------------ ops
    def _tt_make_tensor_descriptor(self, op):
        if op.results[0] in self.kept:
            return None
        b = self.builder(op)
        nan = b.constant(op.attr("padding", 1) == 2, T.i1)
        self.comps[op.results[0]] = [op.operand(0), nan] + list(op.operands[1:])
        self.dead.append(op)

    def _block(self, b, desc: Value, idx, block_ty: T.TensorType):
        """Pointers and in-bounds mask of the block at `idx` (every dim checked)."""
        c = self.comps[desc]
        r = block_ty.rank
        values = [c[0]] + [_i64(b, s) for s in c[2:2 + r]] + list(c[2 + r:]) + \
            [_i64(b, i) for i in idx]
        return pointers_and_mask(b, Components(values, r), block_ty, range(r))

    def _padding(self, b, desc: Value, ty: T.TensorType) -> Value:
        if not T.is_float(ty):
            return b.constant(0, ty)
        elt = ty.element
        nan, zero = b.constant(float("nan"), elt), b.constant(0.0, elt)
        pad = b.create1("arith.select", [self.comps[desc][1], nan, zero], elt)
        return b.create1("tt.splat", [pad], ty)

    def _tt_descriptor_load(self, op):
        b = self.builder(op)
        ty = op.results[0].type
        ptrs, mask = self._block(b, op.operand(0), op.operands[1:], ty)
        other = self._padding(b, op.operand(0), ty)
        attrs = {"cache": op.attr("cache", 1), "evict": op.attr("evict", 1), "isVolatile": False}
        op.results[0].replace_all_uses_with(b.create1("tt.load", [ptrs, mask, other], ty, attrs))
        self.dead.append(op)

    def _tt_descriptor_store(self, op):
        b = self.builder(op)
        val = op.operand(1)
        ptrs, mask = self._block(b, op.operand(0), op.operands[2:], val.type)
        attrs = {"cache": op.attr("cache", 1), "evict": op.attr("evict", 1)}
        b.create("tt.store", [ptrs, val, mask], [], attrs)
        self.dead.append(op)

    def _tt_descriptor_reduce(self, op):
        b = self.builder(op)
        val = op.operand(1)
        kind = _REDUCE[op.attr("kind")]
        if T.is_float(val.type):
            if kind != "add":
                raise ValueError(f"{self.pass_name}: no atomic {kind} on {val.type.element} "
                                 f"without TMA (at {op.loc.file}:{op.loc.line})")
            kind = "fadd"
        ptrs, mask = self._block(b, op.operand(0), op.operands[2:], val.type)
        attrs = {"atomic_rmw_op": ATOMIC_RMW_OPS[kind], "sem": MEM_SEMANTICS["relaxed"],
                 "scope": MEM_SCOPES["gpu"]}
        b.create("tt.atomic_rmw", [ptrs, val, mask], [val.type], attrs)
        self.dead.append(op)

    def _gather_block(self, b, op, ty: T.TensorType):
        """Pointers and mask of rows `x` (a tensor), columns `y`.. of a 2-D descriptor."""
        c = self.comps[op.operand(0)]
        x, y = op.operand(1), op.operand(2)
        n, w = ty.shape
        full = T.TensorType((n, w), T.i64)
        rows = b.create1("arith.extsi", [x], T.TensorType((n,), T.i64))
        rows = b.create1("tt.expand_dims", [rows], T.TensorType((n, 1), T.i64), {"axis": 1})
        rows = b.create1("tt.broadcast", [rows], full)
        comp = Components([c[0], _i64(b, c[2]), _i64(b, c[3]), c[4], c[5],
                           b.constant(0, T.i64), _i64(b, y)], 2)
        cols = element_offsets(b, comp, (n, w), 1)
        ptrs = b.create1("tt.splat", [c[0]], T.TensorType((n, w), c[0].type))
        mask = None
        for off, d in ((rows, 0), (cols, 1)):
            stride = b.create1("tt.splat", [comp.stride(d)], full)
            ptrs = b.create1("tt.addptr", [ptrs, b.create1("arith.muli", [off, stride], full)],
                             ptrs.type)
            inside = in_bounds(b, off, comp.shape(d))
            mask = inside if mask is None else b.create1("arith.andi", [mask, inside],
                                                         inside.type)
        return ptrs, mask

    def _tt_descriptor_gather(self, op):
        b = self.builder(op)
        ty = op.results[0].type
        ptrs, mask = self._gather_block(b, op, ty)
        other = self._padding(b, op.operand(0), ty)
        attrs = {"cache": 1, "evict": 1, "isVolatile": False}
        op.results[0].replace_all_uses_with(b.create1("tt.load", [ptrs, mask, other], ty, attrs))
        self.dead.append(op)

    def _tt_descriptor_scatter(self, op):
        b = self.builder(op)
        val = op.operand(3)
        ptrs, mask = self._gather_block(b, op, val.type)
        b.create("tt.store", [ptrs, val, mask], [], {"cache": 1, "evict": 1})
        self.dead.append(op)


def rewrite_tensor_descriptors(module: Operation) -> None:
    _Descriptors().run(module)


@register_pass
class RewriteTensorDescriptorToPointer(Pass):
    name = "rewrite-tensor-descriptor-to-pointer"
    aliases = ("triton-rewrite-tensor-descriptor-to-pointer",)
    description = "lower tensor descriptors to pointer tensors + masks (no TMA)"
    def run(self, module: Operation) -> None:
        rewrite_tensor_descriptors(module)


__all__ = ["RewriteTensorDescriptorToPointer", "rewrite_tensor_descriptors",
           "descriptor_component_types"]
