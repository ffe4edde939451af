"""triton-nvidia-keep-tma-descriptors (TTIR, NVIDIA sm_90): mark the kernel's descriptor
parameters TMA can move, so rewrite-tensor-descriptor-to-pointer leaves them descriptors.

A parameter qualifies when its block has a TMA shape (gpu/tma.py) and its every use is a
`tt.descriptor_load`, `tt.descriptor_store` or a `tt.descriptor_reduce` whose kind and element
type TMA's reductions take, with the innermost coordinate provably 16-byte aligned (AxisInfo:
measured on the H100, a box starting elsewhere is an illegal instruction). The mark is the
argument attribute `tt.tma = true`; the rest stay for the pointer rewrite.

A descriptor made on the device (`tt.make_tensor_descriptor` in a kernel) qualifies by the
same rule, plus what the host's `TensorDescriptor` checks at run time and the device cannot:
its base provably 16-byte aligned and every stride but the last a provable multiple of 16
bytes (AxisInfo; `cuTensorMapEncodeTiled`'s rules, which the map written on the device must
meet too), and, when stored through, its last dim a provable multiple of 16 bytes (a TMA
store writes whole 16-byte pieces of a row, see backends/nvidia/tensor_map.py). Such an op
gets the attribute `tt.tma = true`; its map is written into global scratch at run time
(gpu/passes/global_scratch.py, backends/nvidia/lowering/tensormap.py).
"""
from __future__ import annotations

from ...ir import types as T
from ...ir.attrs import ArrayAttr, BoolAttr, DictAttr
from ...ir.core import Operation, Value
from ...ir.ops import DESCRIPTOR_REDUCE_KINDS
from ...passes.manager import Pass, register_pass
from ..tma import tma_block

__all__ = ["KeepTmaDescriptors", "tma_usable", "device_tma_usable", "mark_tma_descriptors"]

_KINDS = {v: k for k, v in DESCRIPTOR_REDUCE_KINDS.items()}
# cp.reduce.async.bulk.tensor's kinds for these element types
_TMA_REDUCE = {"add": ("f16", "bf16", "f32", "i32"), "and": ("i32", "i64"),
               "or": ("i32", "i64"), "xor": ("i32", "i64")}
_TMA_OPS = ("tt.descriptor_load", "tt.descriptor_store", "tt.descriptor_reduce")


def tma_usable(arg: Value, info) -> bool:
    """Every use of descriptor parameter `arg` can be a TMA copy (`info`: AxisInfo)."""
    tb = tma_block(arg.type.block)
    if tb is None:
        return False
    for u in arg.uses:
        op = u.owner
        if op.name not in _TMA_OPS or u.index != 0:
            return False
        inner = op.operands[(1 if op.name == "tt.descriptor_load" else 2) + len(tb.dims) - 1]
        if info.get(inner).divisibility[0] * tb.elem_bits % 128:
            return False
        if op.name == "tt.descriptor_reduce":
            kind = _KINDS[op.attr("kind")]
            if str(op.operand(1).type.element) not in _TMA_REDUCE.get(kind, ()):
                return False
    return True


def _writes(desc: Value) -> bool:
    return any(u.owner.name != "tt.descriptor_load" for u in desc.uses)


def device_tma_usable(op: Operation, info) -> bool:
    """`tt.make_tensor_descriptor` op can be a TMA map written on the device."""
    desc = op.results[0]
    if not tma_usable(desc, info):
        return False
    tb = tma_block(desc.type.block)
    rank = len(tb.dims)
    elem = tb.elem_bits // 8
    base, shape, strides = op.operand(0), op.operands[1:1 + rank], op.operands[1 + rank:]
    if info.get(base).divisibility[0] % 16:            # pointers: bytes
        return False
    if any(info.get(s).divisibility[0] * elem % 16 for s in strides[:-1]):
        return False
    return not (_writes(desc) and info.get(shape[-1]).divisibility[0] * elem % 16)


def mark_tma_descriptors(module: Operation) -> int:
    from ..axis_info import AxisInfoAnalysis
    n = 0
    for func in module.regions[0].entry:
        if func.name != "tt.func" or not func.regions[0].blocks or \
                (func.attr("sym_visibility") or "public") == "private":
            continue
        args = func.regions[0].entry.args
        makes = [op for op in func.walk() if op.name == "tt.make_tensor_descriptor"]
        if not makes and not any(isinstance(a.type, T.TensorDescType) for a in args):
            continue
        info = AxisInfoAnalysis(func)
        for op in makes:
            if device_tma_usable(op, info):
                op.attributes["tt.tma"] = BoolAttr(True)
                n += 1
        attrs = list(func.attr("arg_attrs") or [DictAttr(())] * len(args))
        marked = 0
        for i, a in enumerate(args):
            if isinstance(a.type, T.TensorDescType) and tma_usable(a, info):
                d = dict(attrs[i].value) if isinstance(attrs[i], DictAttr) else {}
                d["tt.tma"] = BoolAttr(True)
                attrs[i] = DictAttr(tuple(d.items()))
                marked += 1
        if marked:
            func.attributes["arg_attrs"] = ArrayAttr(tuple(attrs))
            n += marked
    return n


@register_pass
class KeepTmaDescriptors(Pass):
    name = "triton-nvidia-keep-tma-descriptors"
    aliases = ("keep-tma-descriptors",)
    description = "mark kernel descriptor parameters TMA can move (tt.tma)"

    def run(self, module: Operation) -> None:
        mark_tma_descriptors(module)
