"""triton-nvidia-tma-lowering: the descriptor loads and stores the pipeliner did not take
become explicit TMA copies through a shared-memory buffer.

    %v = tt.descriptor_load %d[%i, %j]          %buf = ttg.local_alloc            (mutable, the
                                                %bar = ttg.local_alloc             block's TMA
                                         →      ttg.barrier                        layout)
                                                ttng.init_barrier %bar {count=1}
                                                ttng.fence_async_shared + ttg.barrier
                                                ttng.barrier_expect %bar, %true {size}
                                                ttng.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %true
                                                ttng.wait_barrier %bar, %c0
                                                %v = ttg.local_load %buf
                                                ttg.barrier + ttng.inval_barrier %bar

    tt.descriptor_store %d[%i, %j], %v   →      %buf = ttg.local_alloc %v          (written, fenced
                                                ttng.async_tma_copy_local_to_global  for the async
                                                ttng.async_tma_store_wait {pendings=0}  proxy)

    in a loop:                                  %buf = ttg.local_alloc (mutable, before the loop)
                                                ttng.async_tma_store_wait {pendings=0}  (the last
                                                ttg.local_store %v, %buf                 tile's)
                                                ttng.fence_async_shared + ttg.barrier
                                                ttng.async_tma_copy_local_to_global
                                                ... and one store_wait after the loop

`tt.descriptor_reduce` is the store with `ttng.async_tma_reduce`. The fence and barrier
after the init order every thread's earlier use of the buffer's bytes (the allocator
reuses offsets) before the TMA unit writes them; the barrier before the inval keeps a slow
warp from waiting on a dead barrier. Loads inside pipelined loops never reach this pass:
the pipeliner gives them rings of buffers and barriers instead.
"""
from __future__ import annotations

from ...ir import types as T
from ...ir.attrs import i32_attr
from ...ir.builder import Builder
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass
from ..layouts import SwizzledSharedEncoding
from ..tma import tma_block

__all__ = ["TmaLowering", "lower_tma", "barrier_type"]


def barrier_type(n: int = 1) -> T.MemDescType:
    """`n` mbarriers (8 bytes each) in shared memory."""
    return T.MemDescType((n,), T.i64, SwizzledSharedEncoding(1, 1, 1, (0,)), mutable=True)


def _load(op: Operation) -> None:
    desc = op.operand(0)
    res = op.results[0]
    tb = tma_block(desc.type.block)
    b = Builder.before_op_at_its_loc(op)
    buf = b.create1("ttg.local_alloc", [], T.MemDescType(tb.dims, res.type.element_type,
                                                         tb.encoding, mutable=True))
    bar = b.create1("ttg.local_alloc", [], barrier_type())
    # Earlier ops' scratch may share these bytes and ends with its reads (see the pipeliner).
    b.create("ttg.barrier", [], [])
    b.create("ttng.init_barrier", [bar], [], {"count": i32_attr(1)})
    b.create("ttng.fence_async_shared", [], [], {"bCluster": False})
    b.create("ttg.barrier", [], [])
    true = b.constant(1, T.i1)
    b.create("ttng.barrier_expect", [bar, true], [], {"size": i32_attr(tb.bytes)})
    b.create("ttng.async_tma_copy_global_to_local", [desc, *op.operands[1:], buf, bar, true], [])
    b.create("ttng.wait_barrier", [bar, b.constant(0, T.i32)], [])
    val = b.create1("ttg.local_load", [buf], res.type)
    b.create("ttg.barrier", [], [])
    b.create("ttng.inval_barrier", [bar], [])
    res.replace_all_uses_with(val)
    op.erase()


def _enclosing_loop(op: Operation):
    p = op.parent_op
    while p is not None and p.name != "tt.func":
        if p.name == "scf.for":
            return p
        p = p.parent_op
    return None


def _store(op: Operation) -> None:
    desc, val = op.operand(0), op.operand(1)
    tb = tma_block(desc.type.block)
    b = Builder.before_op_at_its_loc(op)
    coords = list(op.operands[2:])
    loop = _enclosing_loop(op)
    if loop is None:
        buf = b.create1("ttg.local_alloc", [val], T.MemDescType(tb.dims, val.type.element_type,
                                                                tb.encoding))
    else:
        # A store per iteration (a persistent kernel's tiles): one buffer for them all, and
        # the wait for the TMA unit to have read the last tile moves to just before the
        # buffer is rewritten, so the store drains under the next tile's loop (its wait
        # ends with a barrier: every thread knows the buffer is free). One more wait after
        # the loop: the block must not exit while the unit still reads its shared memory.
        lb = Builder.before_op_at_its_loc(loop)
        buf = lb.create1("ttg.local_alloc", [], T.MemDescType(
            tb.dims, val.type.element_type, tb.encoding, mutable=True))
        b.create("ttng.async_tma_store_wait", [], [], {"pendings": i32_attr(0)})
        b.create("ttg.local_store", [val, buf], [])
        b.create("ttng.fence_async_shared", [], [], {"bCluster": False})
        b.create("ttg.barrier", [], [])
        ab = Builder()
        ab.set_insertion_point_after(loop)
        ab.loc = op.loc
        ab.create("ttng.async_tma_store_wait", [], [], {"pendings": i32_attr(0)})
    if op.name == "tt.descriptor_store":
        b.create("ttng.async_tma_copy_local_to_global", [desc, *coords, buf], [])
    else:
        b.create("ttng.async_tma_reduce", [desc, *coords, buf], [], {"kind": op.attributes["kind"]})
    if loop is None:
        b.create("ttng.async_tma_store_wait", [], [], {"pendings": i32_attr(0)})
    op.erase()


def lower_tma(module: Operation) -> int:
    n = 0
    for op in list(module.walk()):
        if op.name not in ("tt.descriptor_load", "tt.descriptor_store", "tt.descriptor_reduce"):
            continue
        if tma_block(op.operand(0).type.block) is None:
            raise ValueError(f"triton-nvidia-tma-lowering: {op.operand(0).type} cannot be moved "
                             f"by TMA (at {op.loc.file}:{op.loc.line})")
        (_load if op.name == "tt.descriptor_load" else _store)(op)
        n += 1
    return n


@register_pass
class TmaLowering(Pass):
    name = "triton-nvidia-tma-lowering"
    aliases = ("tma-lowering",)
    description = "descriptor loads/stores become TMA copies through shared memory"

    def run(self, module: Operation) -> None:
        lower_tma(module)
