"""Loads of a loop without dots, pipelined because the loop asks for a stage count.

Upstream's pipeliner, given a loop with an explicit `tl.range(..., num_stages=N)` and no dot
in it, software-pipelines the loop's other loads as well (AssignLatencies'
`pipelineWithoutDot`): each becomes a cp.async copy into a ring of N shared-memory slots,
issued N-1 iterations ahead, read back with a `ttg.local_load` in the load's own layout. A
loop with the option's default stage count, or with a dot, is not touched by this rule.

Which loads (what upstream's rules decide, narrowed to the simple cases):

* a `tt.load` of a pointer tensor in the loop's body, not volatile, with no `other` (masked
  elements of a cp.async copy are zeros; a load with `other` stays as it is);
* cp.async can move at least 4 bytes of it per thread (upstream's `isSmallLoad`): the
  layout's run along the fastest dim, cut by the pointers' contiguity and alignment and
  the mask's constancy, times the element width;
* its address computation holds no load, and its result feeds no other load's address
  (upstream would split the stages between the levels of such a chain; left unpipelined).

The rings' sizes are not capped here, as upstream does not cap them: a ring set larger than
the device's shared memory makes the kernel fail to load with `OutOfResources`
(backends/nvidia/driver.py), which autotuners skip. The ring layout is unswizzled
(vec = perPhase = maxPhase = 1), in the load's order, as upstream's for a load no dot reads.
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.core import Operation
from ..layouts import SwizzledSharedEncoding, get_order
from .pipeline_indirect import slice_ops

__all__ = ["has_dot", "nodot_loads", "nodot_ring_types"]

_DOTS = ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "ttng.tc_gen5_mma")


def has_dot(loop: Operation) -> bool:
    """A dot among the body's own ops (upstream looks no deeper: a dot in a branch does not
    stop the rule)."""
    return any(op.name in _DOTS for op in loop.regions[0].entry)


def nodot_loads(loop: Operation, info, copy_bits) -> List[Operation]:
    """The loads of a dot-less loop's body that become cp.async rings."""
    body = loop.regions[0].entry
    loads = []
    for op in body:
        if op.name != "tt.load" or op.attr("isVolatile", False) or op.num_operands > 2:
            continue
        ptr_t = op.operand(0).type
        if not isinstance(ptr_t, T.TensorType) or not isinstance(ptr_t.element_type, T.PointerType):
            continue
        if copy_bits(op, info) < 32:
            continue  # cp.async moves 4, 8 or 16 bytes
        if slice_ops(body, list(op.operands), False) is None:
            continue  # an address read by a load of this loop (or by an op with effects)
        loads.append(op)
    # A load whose result some load's address is computed from: a chain, left alone.
    feeding = set()
    for op in body:
        if op.name == "tt.load":
            for a in slice_ops(body, list(op.operands), True) or ():
                if a.name == "tt.load":
                    feeding.add(a)
    return [op for op in loads if op not in feeding]


def nodot_ring_types(load: Operation, NB: int):
    """(ring type, slot type) of a dot-less load: its tile, unswizzled, NB slots."""
    rt = load.results[0].type
    enc = SwizzledSharedEncoding(1, 1, 1, tuple(get_order(rt.encoding)))
    dims = tuple(rt.dims)
    return (T.MemDescType((NB,) + dims, rt.element_type, enc, mutable=True),
            T.MemDescType(dims, rt.element_type, enc, True, (NB,) + dims))
