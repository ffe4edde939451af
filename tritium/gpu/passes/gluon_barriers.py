"""gluon-insert-shared-barriers: `ttg.barrier`s between a Gluon kernel's shared-memory
accesses that different threads may make to the same bytes.

A Gluon kernel reads and writes its buffers explicitly (`smem.store(x)` then
`smem.load(layout)` in another layout: each thread reads what others wrote), so a barrier
must separate a write from any later access, and a read from a later write. As upstream's
membar analysis, the compiler places them; this is its conservative form: any two
accesses of one kind of memory are assumed to touch the same bytes, and a loop's body
starts with whatever its own body leaves pending (the back edge). `ttg.local_alloc` of a
value brackets its write with barriers in the lowering already, so nothing is pending
after it.

Two kinds of memory, so that using an mbarrier never orders the data it guards:
- mbarriers: `init_barrier`/`inval_barrier` write one (thread 0), every other use
  (`wait_barrier`, `barrier_expect`, `arrive_barrier`, a TMA copy completing on it) reads
  it: all threads must see the init before their first use, and be done waiting before
  the inval.
- data: loads, stores, cp.async, wgmma operands, TMA stores read or write it; a TMA load
  writes it asynchronously: it needs a barrier behind earlier readers (refilling a slot
  wgmma or another warp read), and what reads it later is ordered by `wait_barrier` on its
  mbarrier, not by a CTA barrier, so the wait is what settles it.
"""
from __future__ import annotations

from typing import FrozenSet, Set, Tuple

from ...ir.builder import Builder
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass

__all__ = ["insert_shared_barriers", "GluonSharedBarriers"]

BAR, DATA = "mbarrier", "data"
READ, WRITE, ASYNC = "r", "w", "a"   # ASYNC: a TMA load in flight, settled by a wait

Access = Tuple[str, str]

_ACCESSES = {
    "ttg.local_load": {(DATA, READ)},
    "ttng.warp_group_dot": {(DATA, READ)},
    "ttng.async_tma_copy_local_to_global": {(DATA, READ)},
    "ttg.local_store": {(DATA, WRITE)},
    "ttg.async_copy_global_to_local": {(DATA, WRITE)},
    "ttng.async_tma_copy_global_to_local": {(DATA, ASYNC), (BAR, READ)},
    "ttng.init_barrier": {(BAR, WRITE)},
    "ttng.inval_barrier": {(BAR, WRITE)},
    "ttng.wait_barrier": {(BAR, READ)},
    "ttng.barrier_expect": {(BAR, READ)},
    "ttng.arrive_barrier": {(BAR, READ)},
}


def _hazard(access: Access, pending: Set[Access]) -> bool:
    kind, how = access
    if how == READ:
        return (kind, WRITE) in pending
    return (kind, READ) in pending or (kind, WRITE) in pending


def _effects(op: Operation) -> FrozenSet[Access]:
    return frozenset(a for o in op.walk() for a in _ACCESSES.get(o.name, ()))


def _barrier_before(op: Operation) -> None:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    b.create("ttg.barrier", [], [])


def _after_barrier(pending: Set[Access]) -> Set[Access]:
    # A CTA barrier orders every thread's accesses, but not a TMA load still in flight.
    return {a for a in pending if a[1] == ASYNC}


def _block(block, pending: Set[Access]) -> Set[Access]:
    pending = set(pending)
    for op in list(block.ops):
        accesses = _ACCESSES.get(op.name)
        if op.name == "ttg.barrier":
            pending = _after_barrier(pending)
        elif accesses:
            if any(_hazard(a, pending) for a in accesses):
                _barrier_before(op)
                pending = _after_barrier(pending)
            pending |= accesses
            if op.name == "ttng.wait_barrier":
                pending.discard((DATA, ASYNC))
        elif op.name == "ttg.local_alloc" and op.operands:
            pending = _after_barrier(pending)
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
