"""What the pipeliner needs for loops with branches, the fused loops of
tritongpu-fuse-nested-loops (a persistent kernel's tile loop and its K loop as one loop):
what a branch reads, the shared memory its ops need beside the rings, the wgmma wait an
epilogue branch makes before reading the accumulator, and the accumulator reset at a
tile's start as wgmma's useC."""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T
from ...ir.attrs import DenseElementsAttr
from ...ir.builder import Builder
from ...ir.core import Block, Operation, Value

def is_zero_const(v: Value) -> bool:
    """`v` is zero (a masked cp.async fills zeros): a constant, possibly splatted or cast
    (an fp8 `other` arrives as a splat of a converted scalar)."""
    op = v.owner_op
    while op is not None and op.name in ("tt.splat", "tt.fp_to_fp", "arith.truncf",
                                         "arith.extf", "arith.sitofp", "ttg.convert_layout"):
        op = op.operand(0).owner_op
    if op is None or op.name != "arith.constant":
        return False
    a = op.attributes.get("value")
    if isinstance(a, DenseElementsAttr):
        return not isinstance(a.value, (list, tuple)) and float(a.value) == 0.0
    return a is not None and not isinstance(a.value, (list, tuple)) and float(a.value) == 0.0


def reads(op: Operation) -> List[Value]:
    """Values `op` reads: its operands and, for an op with regions (a pure `scf.if`: the
    fused loop's prologue), what its nested ops read from outside it."""
    if not op.regions:
        return list(op.operands)
    out = list(op.operands)
    for inner in op.walk():
        if inner is op:
            continue
        for v in inner.operands:
            o = v.owner_op
            p = v.parent_block.parent_op if o is None else o.parent_op
            while p is not None and p is not op:
                p = p.parent_op
            if p is None:
                out.append(v)
    return out


def top_op(op: Operation, body: Block) -> Operation:
    """The op of `body` that is or holds `op`."""
    while op.parent is not body:
        op = op.parent_op
    return op


def branch_bytes(loop: Operation) -> int:
    """Shared memory that ops in the loop's branches need while the rings are live (the
    fused loop's epilogue): the largest TMA store tile plus the largest scratch."""
    from .allocate_shared_memory import _scratch_fn
    scratch = _scratch_fn()
    store = other = 0
    for top in loop.regions[0].entry:
        if not top.regions:
            continue
        for op in top.walk():
            if op.name in ("tt.descriptor_store", "tt.descriptor_reduce"):
                t = op.operand(1).type
                store = max(store, t.numel * t.element_type.bitwidth // 8)
            elif op is not top:
                other = max(other, scratch(op))
    return store + other


def wait_in_branches(body: Block, v: Value) -> None:
    """Uses of in-flight `v` nested in a branch of the loop (the fused loop's epilogue read
    the tile's accumulator) wait there for every wgmma: once per branch block."""
    waits: Dict[Block, Value] = {}
    for u in list(v.uses):
        op = u.owner
        if op.parent is body:
            continue
        while op.parent.parent_op.parent is not body:
            op = op.parent_op
        blk = op.parent
        if blk not in waits:
            b = Builder()
            b.set_insertion_point_to_start(blk)
            b.loc = u.owner.loc
            waits[blk] = b.create1("ttng.warp_group_dot_wait", [v], v.type, {"pendings": 0})
        u.set(waits[blk])


def fold_acc_reset(body: Block) -> None:
    """`warp_group_dot(a, b, select(c, 0, acc))` with `acc` carried by the loop (the fused
    loop's accumulator restarting at each tile) becomes `warp_group_dot(a, b, acc,
    useC = !c)`: wgmma's scale-d drops the old sum, and the accumulator chains in place."""
    for dot in list(body):
        if dot.name != "ttng.warp_group_dot" or dot.num_operands != 3:
            continue
        sel = dot.operand(2).owner_op
        if sel is None or sel.name != "arith.select" or sel.parent is not body \
                or len(sel.results[0].uses) != 1:
            continue
        cond, zero, acc = sel.operands
        if isinstance(cond.type, T.TensorType) or not is_zero_const(zero) \
                or acc not in body.args:
            continue
        b = Builder.before_op_at_its_loc(dot)
        i1 = T.IntegerType(1)
        use_c = b.create1("arith.xori", [cond, b.constant(1, i1)], i1)
        dot.set_operand(2, acc)
        dot.add_operand(use_c)
        sel.erase()
