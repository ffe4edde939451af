"""TMA copies and mbarriers: `ttng.init_barrier`, `inval_barrier`, `barrier_expect`,
`arrive_barrier`, `wait_barrier`, `async_tma_copy_global_to_local`, `async_tma_copy_local_to_global`,
`async_tma_reduce`, `async_tma_store_wait`.

A descriptor kernel parameter is the host's 128-byte `CUtensorMap`, passed by value
(`.param .align 64 .b8 [128]`) and marked `nvvm.grid_constant`, so its address is a
generic pointer into the parameter space (`cvta.param`) that TMA instructions take, and
no copy of it is made (a descriptor made on the device is the generic address of its map
in global scratch, lowering/tensormap.py). One thread (tid 0) issues barrier inits, arrivals and copies; every
thread waits on a barrier's phase. A block wider than the swizzle moves as several boxes
side by side (gpu/tma.py): box j lands j * box-bytes further into the buffer, its
innermost coordinate advanced by j * box-width.
"""
from __future__ import annotations

from ....gpu.tma import tma_block
from ....ir.ops import DESCRIPTOR_REDUCE_KINDS
from .context import FunctionContext, LoweringError, lowers

__all__ = ["leader", "TMA_PARAM_TYPE"]

_REDUCE = {v: k for k, v in DESCRIPTOR_REDUCE_KINDS.items()}


def leader(ctx: FunctionContext) -> str:
    """i1: this thread is thread 0 of the block (the one that talks to the TMA unit)."""
    return ctx.e.pro_once(("tma-leader",), f"icmp eq i32 {ctx.tid()}, 0", "lead")


def _pred(ctx: FunctionContext, op, index: int) -> str:
    """The leader, and the op's own predicate operand when it has one."""
    lead = leader(ctx)
    p = ctx.get(op.operand(index))
    if p in ("true", "1"):
        return lead
    return ctx.e.bin("and", "i1", lead, p)


@lowers("ttng.init_barrier")
def _init_barrier(ctx: FunctionContext, op) -> None:
    count = int(op.attr("count", 1))
    ctx.e.asm("void", f"@$0 mbarrier.init.shared::cta.b64 [$1], {count};", "b,r",
              [("i1", leader(ctx)), ("i32", ctx.get(op.operand(0)))], side_effects=True)
    # Makes the init visible to the async proxy (the TMA unit completes bytes on it).
    ctx.e.asm("void", "@$0 fence.mbarrier_init.release.cluster;", "b",
              [("i1", leader(ctx))], side_effects=True)


@lowers("ttng.inval_barrier")
def _inval_barrier(ctx: FunctionContext, op) -> None:
    ctx.e.asm("void", "@$0 mbarrier.inval.shared::cta.b64 [$1];", "b,r",
              [("i1", leader(ctx)), ("i32", ctx.get(op.operand(0)))], side_effects=True)


@lowers("ttng.barrier_expect")
def _barrier_expect(ctx: FunctionContext, op) -> None:
    size = int(op.attr("size"))
    ctx.e.asm("void", f"@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {size};",
              "b,r", [("i1", _pred(ctx, op, 1)), ("i32", ctx.get(op.operand(0)))],
              side_effects=True)


@lowers("ttng.arrive_barrier")
def _arrive_barrier(ctx: FunctionContext, op) -> None:
    count = int(op.attr("count", 1))
    ctx.e.asm("void", f"@$0 mbarrier.arrive.shared::cta.b64 _, [$1], {count};",
              "b,r", [("i1", _pred(ctx, op, 1)), ("i32", ctx.get(op.operand(0)))],
              side_effects=True)


@lowers("ttng.wait_barrier")
def _wait_barrier(ctx: FunctionContext, op) -> None:
    # try_wait suspends the thread for a while in hardware; the loop covers the time-outs.
    asm = ("{\n.reg .pred done;\nwait_phase:\n"
           "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
           "@!done bra.uni wait_phase;\n}")
    ctx.e.asm("void", asm, "r,r", [("i32", ctx.get(op.operand(0))),
                                    ("i32", ctx.get(op.operand(1)))], side_effects=True)


def _tmap(ctx: FunctionContext, desc) -> str:
    """i64 generic address of the descriptor's CUtensorMap: a parameter's, or the global
    scratch slot a device-made descriptor's map was written to (lowering/tensormap.py)."""
    v = ctx.get(desc)
    if desc.owner_op is not None:
        return ctx.e.cast("ptrtoint", "ptr", v, "i64")
    return ctx.e.pro_once(("tmap", v), f"ptrtoint ptr {v} to i64", "tmap")


def _boxes(ctx: FunctionContext, op, buf_index: int):
    """[(shared address, coordinates innermost first)] of each box of the op's block."""
    desc = op.operand(0)
    tb = tma_block(desc.type.block)
    if tb is None:
        raise LoweringError(f"{desc.type} cannot be moved by TMA")
    rank = len(tb.dims)
    coords = [ctx.get(v) for v in op.operands[1:1 + rank]][::-1]
    base = ctx.get(op.operand(buf_index))
    e = ctx.e
    out = []
    for j in range(tb.copies):
        addr = base if j == 0 else e.bin("add", "i32", base, str(j * tb.box_bytes))
        inner = coords[0] if j == 0 else e.bin("add", "i32", coords[0], str(j * tb.box[-1]))
        out.append((addr, [inner] + coords[1:]))
    return out


def _coord_text(first: int, n: int) -> str:
    return "{" + ", ".join(f"${first + i}" for i in range(n)) + "}"


@lowers("ttng.async_tma_copy_global_to_local")
def _tma_load(ctx: FunctionContext, op) -> None:
    rank = op.operand(0).type.block.rank
    buf_i = 1 + rank
    bar = ctx.get(op.operand(buf_i + 1))
    pred = _pred(ctx, op, buf_i + 2)
    tmap = _tmap(ctx, op.operand(0))
    for addr, coords in _boxes(ctx, op, buf_i):
        asm = (f"@$0 cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
               f".mbarrier::complete_tx::bytes [$1], [$2, {_coord_text(4, rank)}], [$3];")
        ctx.e.asm("void", asm, "b,r,l,r" + ",r" * rank,
                  [("i1", pred), ("i32", addr), ("i64", tmap), ("i32", bar)] +
                  [("i32", c) for c in coords], side_effects=True)


def _tma_out(ctx: FunctionContext, op, prefix: str, red: str = "") -> None:
    rank = op.operand(0).type.block.rank
    tmap = _tmap(ctx, op.operand(0))
    lead = leader(ctx)
    for addr, coords in _boxes(ctx, op, 1 + rank):
        asm = (f"@$0 {prefix}.{rank}d.global.shared::cta{red}.tile.bulk_group "
               f"[$1, {_coord_text(3, rank)}], [$2];")
        ctx.e.asm("void", asm, "b,l,r" + ",r" * rank,
                  [("i1", lead), ("i64", tmap), ("i32", addr)] + [("i32", c) for c in coords],
                  side_effects=True)
    ctx.e.asm("void", "@$0 cp.async.bulk.commit_group;", "b", [("i1", lead)], side_effects=True)


@lowers("ttng.async_tma_copy_local_to_global")
def _tma_store(ctx: FunctionContext, op) -> None:
    _tma_out(ctx, op, "cp.async.bulk.tensor")


@lowers("ttng.async_tma_reduce")
def _tma_reduce(ctx: FunctionContext, op) -> None:
    _tma_out(ctx, op, "cp.reduce.async.bulk.tensor", "." + _REDUCE[int(op.attr("kind"))])


@lowers("ttng.async_tma_store_wait")
def _tma_store_wait(ctx: FunctionContext, op) -> None:
    n = int(op.attr("pendings", 0))
    ctx.e.asm("void", f"@$0 cp.async.bulk.wait_group.read {n};", "b", [("i1", leader(ctx))],
              side_effects=True)
    # The buffer may be rewritten once every thread knows the TMA unit has read it.
    ctx.barrier()


# A descriptor parameter in the kernel's signature (see the module docstring).
TMA_PARAM_TYPE = 'ptr byval([128 x i8]) align 64 "nvvm.grid_constant"'
