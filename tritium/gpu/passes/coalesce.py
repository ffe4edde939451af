"""tritongpu-coalesce: give every global load/store/atomic the blocked layout that lets
each thread move one aligned vector of up to 128 bits, consecutive threads touching
consecutive vectors.

Per memory op (pointer tensors only): dims are ordered by the pointer's contiguity; the
elements per thread along the fastest dim are min(alignment, contiguity, 128 bits) and,
for masked ops, the mask's constancy (a vector is loaded whole or not at all, so a mask
that changes every element forces scalar accesses; upstream leaves that to the lowering,
here the layout reflects it). Memory ops in the same dataflow slice with the same shape
and order agree on the widest of their widths, cut to numel / threads; stores and
atomics keep at most their own width so that a warp writes without gaps. The op is then
wrapped in converts to and from that layout (remove-layout-conversions cleans up).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.core import Operation, Value
from ...passes.manager import Pass, register_pass
from ..axis_info import AxisInfoAnalysis, contiguity_order, elem_bytes
from ..layouts import default_blocked_encoding
from .legality import insert_convert, with_encoding

__all__ = ["Coalesce", "coalesce", "coalesced_encoding"]

_MASK_INDEX = {"tt.load": 1, "tt.store": 2, "tt.atomic_rmw": 2}


def _mem_ptr(op: Operation) -> Optional[Value]:
    if op.name in ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas") and op.operands:
        ptr = op.operand(0)
        if isinstance(ptr.type, T.TensorType) and isinstance(ptr.type.element,
                                                               T.PointerType):
            return ptr
    return None


def _elements_per_thread(op: Operation, order: List[int], info: AxisInfoAnalysis) -> int:
    ptr = op.operand(0)
    ai = info.get(ptr)
    d = order[0]
    nbytes = elem_bytes(ptr.type)
    bits = nbytes * 8
    multiple = max(ai.divisibility[d] // nbytes, 1)
    contig = min(ai.contiguity[d], ptr.type.dims[d])
    per = min(multiple, contig, max(1, 128 // bits))
    mi = _MASK_INDEX.get(op.name)
    if mi is not None and op.num_operands > mi and isinstance(op.operand(mi).type,
                                                                T.TensorType):
        per = min(per, max(1, info.get(op.operand(mi)).constancy[d]))
    return max(1, per)


def _slices(func: Operation) -> Dict[Operation, int]:
    """Connected components of the def-use graph (upstream's multi-root getSlice)."""
    parent: Dict[object, object] = {}

    def find(x):
        root = x
        while parent.get(root, root) is not root:
            root = parent[root]
        while parent.get(x, x) is not x:
            parent[x], x = root, parent[x]
        return root

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra is not rb:
            parent[ra] = rb

    for op in func.walk():
        if op is func:
            continue
        for v in op.operands:
            d = v.owner_op
            if d is not None and d is not func:
                union(op, d)
    ids: Dict[object, int] = {}
    out = {}
    for op in func.walk():
        out[op] = ids.setdefault(find(op), len(ids))
    return out


def coalesced_encoding(op: Operation, info: AxisInfoAnalysis, group: List[Operation],
                       num_warps: int, threads_per_warp: int, num_ctas: int = 1):
    ptr = op.operand(0)
    shape = ptr.type.dims
    order = contiguity_order(info.get(ptr).contiguity)
    per = _elements_per_thread(op, order, info)
    for other in group:
        optr = other.operand(0)
        if other is op or optr.type.dims != shape:
            continue
        if contiguity_order(info.get(optr).contiguity) == order:
            per = max(per, _elements_per_thread(other, order, info))
    numel = 1
    for s in shape:
        numel *= s
    per = min(per, max(numel // (num_warps * threads_per_warp), 1))
    if op.name != "tt.load":
        per = min(per, _elements_per_thread(op, order, info))
    spt = [1] * len(shape)
    spt[order[0]] = per
    return default_blocked_encoding(shape, num_warps, threads_per_warp, spt, order, num_ctas)


def coalesce(module: Operation) -> Operation:
    num_warps = int(module.attr("ttg.num-warps", 4))
    tpw = int(module.attr("ttg.threads-per-warp", 32))
    num_ctas = int(module.attr("ttg.num-ctas", 1))
    for func in list(module.regions[0].entry):
        if func.name != "tt.func" or not func.regions[0].blocks:
            continue
        info = AxisInfoAnalysis(func)
        comp = _slices(func)
        mem_ops = [op for op in func.walk() if _mem_ptr(op) is not None]
        groups: Dict[int, List[Operation]] = {}
        for op in mem_ops:
            groups.setdefault(comp[op], []).append(op)
        layouts = {op: coalesced_encoding(op, info, groups[comp[op]], num_warps, tpw, num_ctas)
                   for op in mem_ops}
        for op, enc in layouts.items():
            _wrap(op, enc)
    return module


def _wrap(op: Operation, enc) -> None:
    for i, v in enumerate(op.operands):
        if isinstance(v.type, T.TensorType) and v.type.encoding != enc:
            op.set_operand(i, insert_convert(v, enc, op))
    for r in op.results:
        if not isinstance(r.type, T.TensorType) or r.type.encoding == enc:
            continue
        old = r.type
        users = list(r.uses)
        r.type = with_encoding(old, enc)
        if not users:
            continue
        nxt = op.next
        back = insert_convert(r, old.encoding, nxt)
        cvt = back.owner_op
        for use in users:
            if use.owner is not cvt:
                use.set(back)


@register_pass
class Coalesce(Pass):
    name = "tritongpu-coalesce"
    aliases = ("coalesce",)
    description = "AxisInfo-driven blocked layouts for global memory accesses"

    def run(self, module: Operation) -> None:
        coalesce(module)
