"""allocate-shared-memory: byte offsets in the kernel's one shared-memory block.

Two kinds of buffer. The scratch of an op (convert_layout through shared memory,
reductions and scans across warps, scalar atomics, generic data movement; a `tt.call`
reserves its callee's whole block, the callee's offsets being relative to the call's) is
live only while the op runs. Explicit buffers (`ttg.local_alloc`) live from the alloc to
the last use of the descriptor (a use inside a loop keeps the buffer for the whole loop).
Buffers whose live ranges overlap never overlap in memory; the rest share space. Largest
buffers are placed first, each at the lowest 16-byte aligned offset that clears every
interfering buffer already placed. Each op gets `allocation.offset` (i32 bytes) and the
module `ttg.shared` (i32, total bytes of the largest kernel, 0 if none): the lowering
reads both and decides nothing itself.

Scratch sizes come from `tritium.gpu.scratch.scratch_bytes(op)`, the function the lowering
uses; while that module does not exist a conservative local estimate stands in.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from ...ir import types as T
from ...ir.attrs import IntegerAttr
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass

__all__ = ["AllocateSharedMemory", "allocate_shared_memory", "fallback_scratch_bytes",
           "Buffer", "ALIGNMENT"]

ALIGNMENT = 16
DATA_MOVEMENT_OPS = ("tt.trans", "tt.reshape", "tt.join", "tt.split", "tt.cat", "tt.gather",
                     "tt.histogram")


def _elem_bytes(t: T.Type) -> int:
    elt = t.element_type
    if isinstance(elt, T.PointerType):
        return 8
    return max(1, getattr(elt, "bitwidth", 32) // 8)


def _numel(t: T.Type) -> int:
    return t.numel if isinstance(t, T.TensorType) else 1


def _warps_along(enc, shape, axis: int) -> int:
    """Distinct warps that hold different coordinates along `axis`."""
    ll = enc.to_linear_layout(list(shape))
    n = sum(1 for b in ll.bases.get("warp", []) if b[axis])
    return 1 << n


def fallback_scratch_bytes(op: Operation) -> int:
    """Upstream's conservative sizes, in bytes."""
    name = op.name
    if name == "ttg.convert_layout":
        src, dst = op.operand(0).type, op.results[0].type
        if not isinstance(src, T.TensorType) or src.encoding is None or dst.encoding is None:
            return 0
        bits = _elem_bytes(src) * 8
        try:
            from ..convert import plan_conversion
            plan = plan_conversion(src.encoding.to_linear_layout(list(src.dims)),
                                   dst.encoding.to_linear_layout(list(dst.dims)), bits)
        except Exception:
            return src.numel * _elem_bytes(src)
        if plan.kind != "shared":
            return 0
        return plan.shared.scratch_elems * _elem_bytes(src)
    if name in ("tt.reduce", "tt.scan"):
        src = op.operand(0).type
        if not isinstance(src, T.TensorType) or src.encoding is None:
            return 0
        axis = op.attr("axis")
        warps = _warps_along(src.encoding, src.dims, axis)
        if warps == 1:
            return 0
        rows = src.numel // src.dims[axis]
        return sum(rows * warps * _elem_bytes(v.type) for v in op.operands)
    if name in ("tt.atomic_rmw", "tt.atomic_cas"):
        if op.results and not isinstance(op.results[0].type, T.TensorType):
            return _elem_bytes(op.results[0].type)  # one thread's result, broadcast
        return 0
    if name in DATA_MOVEMENT_OPS:
        return max((_numel(r.type) * _elem_bytes(r.type) for r in op.results), default=0)
    return 0


def _scratch_fn() -> Callable[[Operation], int]:
    try:
        from ..scratch import scratch_bytes
        return scratch_bytes
    except ImportError:
        return fallback_scratch_bytes


_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)+)([A-Za-z0-9]+)")


def _memdesc_bytes(t: T.Type) -> int:
    if isinstance(t, T.MemDescType):
        dims = t.alloc_dims or t.dims
        n = 1
        for d in dims:
            n *= d
        return n * max(1, t.element.bitwidth // 8)
    m = _MEMDESC.match(str(t))
    if m is None:
        return 0
    n = 1
    for d in m.group(1).split("x")[:-1]:
        n *= int(d)
    width = re.search(r"\d+", m.group(2))
    bits = int(width.group()) if width else 32
    return n * max(1, bits // 8)


@dataclass
class Buffer:
    op: Operation
    size: int
    start: int   # live range, in positions of the function's op order (inclusive)
    end: int
    offset: int = -1
    align: int = ALIGNMENT

    def interferes(self, other: "Buffer") -> bool:
        return self.start <= other.end and other.start <= self.end


def _positions(func: Operation) -> Dict[Operation, int]:
    return {op: i for i, op in enumerate(func.walk())}


def _end_of_use(pos: Dict[Operation, int], def_op: Operation, user: Operation) -> int:
    """Last position the buffer must survive for `user`: the end of the outermost loop
    that contains the user but not the definition."""
    end = pos[user]
    p = user.parent_op
    while p is not None and not p.is_ancestor_of(def_op):
        if p.name in ("scf.for", "scf.while"):
            end = max(end, max(pos[o] for o in p.walk()))
        p = p.parent_op
    return end


def collect_buffers(func: Operation, scratch: Callable[[Operation], int]) -> List[Buffer]:
    pos = _positions(func)
    bufs: List[Buffer] = []
    for op, i in pos.items():
        if op.name == "ttg.local_alloc" and op.results:
            size = _memdesc_bytes(op.results[0].type)
            if size:
                end = i
                work = list(op.results[0].uses)
                for u in work:
                    end = max(end, _end_of_use(pos, op, u.owner))
                    if u.owner.name in VIEW_OPS:  # a view keeps its buffer alive
                        work.extend(u.owner.results[0].uses)
                bufs.append(Buffer(op, size, i, end, align=_buffer_alignment(op.results[0].type)))
            continue
        size = scratch(op)
        if size > 0:
            bufs.append(Buffer(op, size, i, i, align=_scratch_alignment(op)))
    return bufs


VIEW_OPS = ("ttg.memdesc_index", "ttg.memdesc_trans", "ttg.memdesc_subslice",
            "ttg.memdesc_reshape", "ttg.memdesc_reinterpret")


def _scratch_alignment(op: Operation) -> int:
    from ..scratch import scratch_alignment
    return max(ALIGNMENT, scratch_alignment(op))


def _buffer_alignment(t: T.Type) -> int:
    """Swizzled tensor-core tiles repeat every 8 rows of the swizzle width; the hardware
    (wgmma descriptors, TMA) applies the XOR pattern to absolute address bits, so such a
    buffer starts on a multiple of 8 x 128 bytes."""
    enc = getattr(t, "encoding", None)
    if enc is not None and type(enc).__name__ == "NVMMASharedEncoding" and enc.swizzling_byte_width:
        return 1024
    return ALIGNMENT


def assign_offsets(bufs: List[Buffer], alignment: int = ALIGNMENT) -> int:
    """First fit, largest first; returns the total size."""
    placed: List[Buffer] = []
    for b in sorted(bufs, key=lambda b: (-b.size, b.start)):
        offset = 0
        align = max(alignment, b.align)
        clash = sorted((p for p in placed if p.interferes(b)), key=lambda p: p.offset)
        for p in clash:
            if offset + b.size <= p.offset:
                break
            offset = max(offset, _align(p.offset + p.size, align))
        b.offset = offset
        placed.append(b)
    return max((b.offset + b.size for b in bufs), default=0)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def allocate_shared_memory(module: Operation,
                           scratch: Optional[Callable[[Operation], int]] = None) -> int:
    scratch = scratch or _scratch_fn()
    funcs = {f.attr("sym_name"): f for f in module.regions[0].entry
             if f.name == "tt.func" and f.regions and f.regions[0].blocks}
    totals: Dict[str, int] = {}

    def size_of(op: Operation) -> int:
        # A call reserves its callee's whole block; the callee's offsets are relative to
        # the call's (upstream does the same).
        if op.name == "tt.call":
            return totals.get(op.attr("callee"), 0)
        return scratch(op)

    for name in _callees_first(funcs):
        func = funcs[name]
        bufs = collect_buffers(func, size_of)
        totals[name] = assign_offsets(bufs)
        for b in bufs:
            b.op.attributes["allocation.offset"] = IntegerAttr(b.offset, T.i32)
    kernels = [n for n, f in funcs.items() if f.attr("sym_visibility", "public") != "private"]
    total = max((totals[n] for n in kernels or funcs), default=0)
    module.attributes["ttg.shared"] = IntegerAttr(total, T.i32)
    return total


def _callees_first(funcs: Dict[str, Operation]) -> List[str]:
    order: List[str] = []
    state: Dict[str, int] = {}

    def visit(name: str) -> None:
        if state.get(name) or name not in funcs:
            return
        state[name] = 1
        for op in funcs[name].walk():
            if op.name == "tt.call":
                visit(op.attr("callee"))
        order.append(name)

    for name in funcs:
        visit(name)
    return order


@register_pass
class AllocateSharedMemory(Pass):
    name = "allocate-shared-memory"
    aliases = ("allocate-shared-memory-nv",)
    description = "liveness-based shared-memory offsets for scratch and local buffers"

    def run(self, module: Operation) -> None:
        allocate_shared_memory(module)
