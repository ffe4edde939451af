"""gluon-insert-shared-barriers: `ttg.barrier`s between a Gluon kernel's shared-memory
accesses that different threads may make to the same bytes.

A Gluon kernel reads and writes its buffers explicitly (`smem.store(x)` then
`smem.load(layout)` in another layout: each thread reads what others wrote), so a barrier
must separate a write from any later access, and a read from a later write. As upstream's
membar analysis, the compiler places them; this is its conservative form: any two
accesses are assumed to touch the same bytes, and a loop's body starts with whatever its
own body leaves pending (the back edge). `ttg.local_alloc` of a value brackets its write
with barriers in the lowering already, so nothing is pending after it.
"""
from __future__ import annotations

from typing import Set

from ...ir.builder import Builder
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass

__all__ = ["insert_shared_barriers", "GluonSharedBarriers"]

_READS = {"ttg.local_load", "ttng.warp_group_dot", "ttng.async_tma_copy_local_to_global"}
_WRITES = {"ttg.local_store", "ttg.async_copy_global_to_local"}


def _effects(op: Operation) -> Set[str]:
    out: Set[str] = set()
    for o in op.walk():
        if o.name in _READS:
            out.add("r")
        elif o.name in _WRITES:
            out.add("w")
    return out


def _barrier_before(op: Operation) -> None:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    b.create("ttg.barrier", [], [])


def _block(block, pending: Set[str]) -> Set[str]:
    pending = set(pending)
    for op in list(block.ops):
        if op.name == "ttg.barrier":
            pending.clear()
        elif op.name in _READS:
            if "w" in pending:
                _barrier_before(op)
                pending.clear()
            pending.add("r")
        elif op.name in _WRITES:
            if pending:
                _barrier_before(op)
                pending.clear()
            pending.add("w")
        elif op.name == "ttg.local_alloc" and op.operands:
            pending.clear()
        elif op.regions and op.name not in ("tt.func", "tt.reduce", "tt.scan",
                                            "tt.map_elementwise"):
            inner = _effects(op)
            if not inner:
                continue
            loop = op.name in ("scf.for", "scf.while")
            entry = pending | inner if loop else pending
            for region in op.regions:
                for blk in region.blocks:
                    _block(blk, entry)
            pending |= inner
    return pending


def insert_shared_barriers(module: Operation) -> Operation:
    for op in module.walk():
        if op.name == "tt.func" and op.regions and op.regions[0].blocks:
            _block(op.regions[0].entry, set())
    return module


@register_pass
class GluonSharedBarriers(Pass):
    name = "gluon-insert-shared-barriers"
    description = "barriers between a Gluon kernel's shared-memory writes and other accesses"

    def run(self, module: Operation) -> None:
        insert_shared_barriers(module)
