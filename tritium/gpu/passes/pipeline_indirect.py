"""Plain loads in the address computation of pipelined tiles (an indirect tile: the next
block's index read from a table, as Inductor's flex attention and block-sparse matmuls do).

The pipeliner issues a tile's copy D iterations ahead, so everything its address is computed
from must run D iterations ahead too. For pure ops that is a clone; a load may be cloned
only when

* nothing in the loop writes global memory (the load, run early, would miss the write), and
  it is not volatile;
* the clone is predicated on its iteration existing (`iv + k*step < ub`): the original ran
  only inside the loop, and a read of the table past its end may fault. A predicated-off
  load gives an undefined value, which only feeds copies predicated off as well.

Loads the copy's address reads in the same iteration (the index load and what it reads:
the "early" ops) run one iteration before the copy they feed and hand their values on
through the loop's carried values, so the copy never waits for the index load; loads in the
carried values' advance (a block offset updated from the table) already run an iteration
ahead of the copy that reads their result.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set

from ...ir import types as T
from ...ir.builder import Builder
from ...ir.core import Block, Operation, Value
from ...passes.pattern import is_effect_free, may_write
from .pipeline_branches import reads

__all__ = ["writes_global", "slice_ops", "clone_predicated", "early_ops", "early_outputs"]

# Ops that write only shared memory or registers (or order them): running a global load
# ahead of them cannot change what it reads.
_SHARED_ONLY = frozenset({
    "ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttg.local_dealloc",
    "ttng.warp_group_dot", "ttng.warp_group_dot_wait", "ttg.barrier", "ttg.async_wait",
    "ttg.async_commit_group", "ttg.async_copy_global_to_local", "ttng.fence_async_shared",
    "ttg.convert_layout", "tt.reduce", "tt.scan", "tt.dot", "gpu.barrier",
})


def writes_global(body: Block) -> bool:
    """Could an op of `body` (or nested in one) write global memory?"""
    for top in body:
        for op in top.walk():
            if op.name in _SHARED_ONLY or op.regions:
                continue  # a region op's nested ops are walked themselves
            if may_write(op):
                return True
    return False


def _ahead_load(op: Operation) -> bool:
    """A load the pipeliner may run in an earlier iteration (given no global writes): a
    plain pointer load (block pointers are rewritten before this pass), not volatile."""
    if op.name != "tt.load" or op.attr("isVolatile", False):
        return False
    ptr = op.operand(0).type
    if isinstance(ptr, T.TensorType):
        ptr = ptr.element_type
    return isinstance(ptr, T.PointerType) and not isinstance(ptr.pointee, T.TensorType)


def slice_ops(body: Block, roots: Iterable[Value], loads_ok: bool) -> Optional[List[Operation]]:
    """Ops of `body` that compute `roots`, in body order; None if one has effects (other
    than a load that may run ahead, when `loads_ok`)."""
    seen: Set[Operation] = set()
    work = list(roots)
    while work:
        v = work.pop()
        op = v.owner_op
        if op is None or op.parent is not body or op in seen:
            continue
        if op.name == "tt.load":
            if not (loads_ok and _ahead_load(op)):
                return None
        elif not is_effect_free(op) or (op.regions and op.name != "scf.if"):
            return None
        seen.add(op)
        work.extend(reads(op))
    return [op for op in body if op in seen]


def clone_predicated(bld: Builder, op: Operation, mapping: Dict[Value, Value],
                     pred: Value) -> Operation:
    """Clone `op` at `bld`; a load is masked by `pred` besides its own mask."""
    new = bld.insert(op.clone(mapping))
    if op.name != "tt.load":
        return new
    ptr_t = new.operand(0).type
    b = Builder()
    b.set_insertion_point_before(new)
    b.loc = op.loc
    if isinstance(ptr_t, T.TensorType):
        mask_t = T.TensorType(ptr_t.dims, T.IntegerType(1), ptr_t.encoding)
        p = b.create1("tt.splat", [pred], mask_t)
    else:
        mask_t, p = T.IntegerType(1), pred
    if new.num_operands > 1:
        new.set_operand(1, b.create1("arith.andi", [new.operand(1), p], mask_t))
    else:
        new.add_operand(p)
    return new


def early_ops(addr_ops: List[Operation]) -> List[Operation]:
    """The loads of `addr_ops` and the ops of `addr_ops` they read, in body order."""
    inside = set(addr_ops)
    seen: Set[Operation] = set()
    work = [op for op in addr_ops if op.name == "tt.load"]
    while work:
        op = work.pop()
        if op in seen:
            continue
        seen.add(op)
        work.extend(v.owner_op for v in reads(op) if v.owner_op in inside)
    return [op for op in addr_ops if op in seen]


def early_outputs(early: List[Operation], readers: Iterable[Operation]) -> List[Value]:
    """Results of the early ops that `readers` (the other ops cloned with the copies) read."""
    made = {r for op in early for r in op.results}
    out: List[Value] = []
    for op in readers:
        for v in reads(op):
            if v in made and v not in out:
                out.append(v)
    return out
