"""A tensor descriptor made on the device (`tt.make_tensor_descriptor` marked `tt.tma`):
its 128-byte `CUtensorMap` written at run time into this program's global scratch slot.

The map's bit layout is opaque; PTX's `tensormap.replace` sets one field at a time. So the
op, in one program:

  1. barrier: the 128 bytes of shared scratch the op owns (`allocation.offset`) may still
     be read by an earlier op that shared them; thread 0 first waits for its own bulk
     stores to finish (`cp.async.bulk.wait_group 0`): in a loop, the slot's previous map
     may still be read by a store in flight;
  2. warp 0 zeroes the shared template (4 bytes a lane), `bar.warp.sync`;
  3. thread 0 replaces every field: global address, rank, box dims (the box of one copy,
     gpu/tma.py, innermost first), global dims, byte strides of the outer dims, element
     strides 1, element type, no interleave, the swizzle, the fill (zero or NaN); then
     `bar.warp.sync` so the whole warp sees the finished template;
  4. warp 0 copies it to the global slot with `tensormap.cp_fenceproxy ... release.gpu`
     (a copy plus the release fence that orders it before later tensormap-proxy reads),
     then `fence.proxy.tensormap::generic.acquire.gpu` on the slot: thread 0, which
     issues every TMA copy (lowering/tma.py), now reads the new map, not a stale one;
  5. barrier: the shared template may be reused.

The descriptor value is the slot's generic address (what `cp.async.bulk.tensor` takes,
as for a parameter's map). The slot is the kernel's last parameter (`global_scratch`,
from the launcher's allocator) + linear program id × `ttg.global_scratch_memory_size` +
the op's `ttg.global_scratch_memory_offset` (gpu/passes/global_scratch.py).
"""
from __future__ import annotations

from ....gpu.tma import tma_block
from ....ir import types as T
from .context import FunctionContext, LoweringError, lowers
from .misc import _sreg
from .shared_mem import smem_window_base
from .tma import leader

__all__ = ["tma_elem_type"]

# CUtensorMapDataType codes (the host's choice for the same element type,
# backends/nvidia/tensor_map.py): fp8 types move as bytes.
_ELEM = {"f16": 6, "bf16": 10, "f32": 7, "f64": 9, "i8": 0, "i16": 1, "i32": 3, "i64": 5}
_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}


def tma_elem_type(t: T.Type) -> int:
    name = str(t)
    if name in _ELEM:
        return _ELEM[name]
    if name.startswith("f8"):
        return 0
    raise LoweringError(f"no TMA element type for {t}")


def _slot(ctx: FunctionContext, op) -> str:
    """ptr addrspace(1) of this program's map of `op`."""
    size = ctx.mod.module.attr("ttg.global_scratch_memory_size")
    off = op.attr("ttg.global_scratch_memory_offset")
    if size is None or off is None or ctx.global_scratch is None:
        raise LoweringError("a device-made TMA descriptor outside a kernel, or before "
                            "tritongpu-global-scratch-memory-allocation ran")
    e = ctx.e
    x, y, z = (_sreg(ctx, "ctaid", a) for a in range(3))
    nx, ny = _sreg(ctx, "nctaid", 0), _sreg(ctx, "nctaid", 1)
    pid = e.bin("add", "i32", x, e.bin("mul", "i32", nx,
                                       e.bin("add", "i32", y, e.bin("mul", "i32", ny, z))))
    byte = e.bin("add", "i64", e.bin("mul", "i64", e.cast("zext", "i32", pid, "i64"),
                                     str(int(size))), str(int(off)))
    return e.inst(f"getelementptr i8, ptr addrspace(1) {ctx.global_scratch}, i64 {byte}", "tm")


def _replace(ctx: FunctionContext, field: str, tmpl: str, value, ord_: int = None,
             bits: int = 32) -> None:
    """thread 0: `tensormap.replace` of one field of the shared template."""
    ordtxt = f"{ord_}, " if ord_ is not None else ""
    args = [("i1", leader(ctx)), ("i32", tmpl)]
    if isinstance(value, int):
        val, cons = str(value), "b,r"
    else:
        val, cons = "$2", "b,r," + ("l" if bits == 64 else "r")
        args.append((f"i{bits}", value))
    ctx.e.asm("void", f"@$0 tensormap.replace.tile.{field}.shared::cta.b1024.b{bits} "
                      f"[$1], {ordtxt}{val};", cons, args, side_effects=True)


@lowers("tt.make_tensor_descriptor")
def _make_tensor_descriptor(ctx: FunctionContext, op) -> None:
    if not op.attr("tt.tma"):
        raise LoweringError("tt.make_tensor_descriptor reached the lowering without the "
                            "tt.tma mark (rewrite-tensor-descriptor-to-pointer should have "
                            "turned it into pointers)")
    tb = tma_block(op.results[0].type.block)
    rank = len(tb.dims)
    e = ctx.e
    slot = _slot(ctx, op)
    gaddr = e.cast("ptrtoint", "ptr addrspace(1)", slot, "i64")
    generic = e.cast("addrspacecast", "ptr addrspace(1)", slot, "ptr")
    tmpl = e.bin("add", "i32", smem_window_base(ctx), str(ctx.smem_base(op)))
    lead = leader(ctx)
    warp0 = e.icmp("ult", "i32", ctx.tid(), "32")
    # 1.
    e.asm("void", "@$0 cp.async.bulk.wait_group 0;", "b", [("i1", lead)], side_effects=True)
    ctx.barrier()
    # 2.
    lane_addr = e.bin("add", "i32", tmpl, e.bin("shl", "i32", ctx.tid(), "2"))
    e.asm("void", "@$0 st.shared.b32 [$1], $2;", "b,r,r",
          [("i1", warp0), ("i32", lane_addr), ("i32", "0")], side_effects=True)
    e.asm("void", "bar.warp.sync -1;", "", [], side_effects=True)
    # 3.
    base = ctx.get(op.operand(0))
    shape = [ctx.get(v) for v in op.operands[1:1 + rank]]
    strides = [ctx.get(v) for v in op.operands[1 + rank:]]
    elem = tb.elem_bits // 8
    shift = 4 if ctx.mod.ptx_version is not None and ctx.mod.ptx_version <= 85 else 0
    byte_strides = []
    for s in reversed(strides[:-1]):
        nbytes = e.bin("mul", "i64", s, str(elem))
        if shift:   # ptxas of PTX ISA <= 8.5 takes this field in 16-byte units
            nbytes = e.bin("lshr", "i64", nbytes, str(shift))
        byte_strides.append(nbytes)
    _replace(ctx, "global_address", tmpl, e.cast("ptrtoint", "ptr addrspace(1)", base, "i64"),
             bits=64)
    _replace(ctx, "rank", tmpl, rank - 1)
    for i, b in enumerate(reversed(tb.box)):
        _replace(ctx, "box_dim", tmpl, int(b), i)
    for i, d in enumerate(reversed(shape)):
        _replace(ctx, "global_dim", tmpl, d, i)
    for i, nbytes in enumerate(byte_strides):
        _replace(ctx, "global_stride", tmpl, nbytes, i, bits=64)
    for i in range(rank):
        _replace(ctx, "element_stride", tmpl, 1, i)
    _replace(ctx, "elemtype", tmpl, tma_elem_type(op.operand(0).type.pointee))
    _replace(ctx, "interleave_layout", tmpl, 0)
    _replace(ctx, "swizzle_mode", tmpl, _SWIZZLE[tb.swizzle])
    _replace(ctx, "fill_mode", tmpl, 1 if op.attr("padding", 1) == 2 else 0)
    e.asm("void", "bar.warp.sync -1;", "", [], side_effects=True)
    # 4.
    e.asm("void", "@$0 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
                  ".gpu.sync.aligned [$1], [$2], 128;", "b,l,r",
          [("i1", warp0), ("i64", gaddr), ("i32", tmpl)], side_effects=True)
    e.asm("void", "@$0 fence.proxy.tensormap::generic.acquire.gpu [$1], 128;", "b,l",
          [("i1", warp0), ("i64", e.cast("ptrtoint", "ptr", generic, "i64"))],
          side_effects=True)
    # 5.
    ctx.barrier()
    ctx.set(op.results[0], generic)
