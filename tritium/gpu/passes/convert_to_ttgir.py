"""convert-triton-to-tritongpu: TTIR -> TTGIR.

Every tensor gets the default blocked layout of its shape (reduce results the slice of
their operand's layout), the module records the launch shape, and wherever the contract
wants another layout for an operand a `ttg.convert_layout` is inserted. The result is
legal by construction and deliberately naive: coalesce picks the real layouts of memory
ops and remove-layout-conversions deletes the converts this pass scattered.
"""
from __future__ import annotations

from typing import Dict, Tuple

from ...ir import types as T
from ...ir.attrs import IntegerAttr, StringAttr, TypeAttr
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass
from ..layouts import SliceEncoding, default_blocked_encoding
from .legality import legalize_op, retype

__all__ = ["ConvertToTTGIR", "convert_to_ttgir"]


def convert_to_ttgir(module: Operation, num_warps: int = 4, threads_per_warp: int = 32,
                     num_ctas: int = 1, target: str = "cuda:90") -> Operation:
    attrs = module.attributes
    attrs["ttg.num-ctas"] = IntegerAttr(num_ctas, T.i32)
    attrs["ttg.num-warps"] = IntegerAttr(num_warps, T.i32)
    attrs["ttg.target"] = StringAttr(target)
    attrs["ttg.threads-per-warp"] = IntegerAttr(threads_per_warp, T.i32)
    cache: Dict[Tuple[int, ...], object] = {}

    def default(shape):
        enc = cache.get(shape)
        if enc is None:
            enc = cache[shape] = default_blocked_encoding(shape, num_warps, threads_per_warp,
                                                          num_ctas=num_ctas)
        return enc

    def give_default(v):
        if isinstance(v.type, T.TensorType):
            retype(v, default(v.type.dims))

    # Program order: a reduce sees its operand's final layout.
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    give_default(a)
        if op.name == "tt.reduce":
            src = op.operand(0).type.encoding
            for r in op.results:
                if isinstance(r.type, T.TensorType):
                    retype(r, SliceEncoding(op.attr("axis"), src))
        elif op.name == "tt.scan":
            for r in op.results:
                retype(r, op.operand(0).type.encoding)
        else:
            for r in op.results:
                give_default(r)
    for op in list(module.walk()):
        if op.name == "tt.func":
            _update_signature(op)
        legalize_op(op)
    return module


def _update_signature(func: Operation) -> None:
    """Tensor parameters (of noinline callees) carry layouts in the signature too."""
    ftype = func.attr("function_type")
    if not isinstance(ftype, T.FunctionType) or not func.regions[0].blocks:
        return
    ins = tuple(a.type for a in func.regions[0].entry.args)
    outs = ftype.results
    ret = func.regions[0].entry.terminator
    if ret is not None and ret.name == "tt.return" and len(ret.operands) == len(outs):
        outs = tuple(v.type for v in ret.operands)
    if (ins, outs) != (ftype.inputs, ftype.results):
        func.attributes["function_type"] = TypeAttr(T.FunctionType(ins, outs))


@register_pass
class ConvertToTTGIR(Pass):
    name = "convert-triton-to-tritongpu"
    aliases = ("convert-to-ttgir",)
    description = "attach default blocked layouts and the launch shape (TTIR -> TTGIR)"
    options = {
        "num-warps": (int, 4, "warps per CTA"),
        "threads-per-warp": (int, 32, "lanes per warp"),
        "num-ctas": (int, 1, "CTAs per cluster"),
        "target": (str, "cuda:90", "backend:capability"),
    }

    def run(self, module: Operation) -> None:
        convert_to_ttgir(module, self.num_warps, self.threads_per_warp, self.num_ctas,
                         self.target)
