"""Explicit shared-memory buffers: `ttg.local_alloc`, `ttg.local_load`, `ttg.local_store`,
`ttg.local_dealloc`, the views (`ttg.memdesc_index`, `_trans`, `_subslice`, `_reshape`,
`_reinterpret`) and `ttng.fence_async_shared`.

A `!ttg.memdesc` value lowers to one i32: the shared-window address of its first element
(what wgmma descriptors and `cp.async` take). Element (i, j, ...) of a view lives at
address + inv(i, j, ...) * element bytes, where inv is the inverse of the view's shared
encoding as a linear layout; registers move with the same vectorised accesses as the
shared-memory path of convert_layout.

Buffers written with ordinary stores and read by the tensor cores' async proxy need
`fence.proxy.async.shared::cta` before the barrier that publishes them; `local_alloc` of a
tensor therefore ends with fence + barrier, and starts with a barrier so that it does not
overwrite a buffer another warp may still be reading (the allocator reuses offsets, and a
loop reuses its buffer every iteration).
"""
from __future__ import annotations

from typing import List, Optional

from ....ir import types as T
from .context import REG, FunctionContext, LoweringError, lowers, storage_bits
from .convert_layout import access_groups, load_vectors, store_vectors
from .memory import vector_width


def smem_window_base(ctx: FunctionContext) -> str:
    """i32 shared-window address of the kernel's dynamic shared memory."""
    ctx.mod.out.uses_smem = True
    return ctx.e.pro_once(("smem-base",), "ptrtoint ptr addrspace(3) @global_smem to i32",
                          "smem")


def memdesc_layout(t: T.MemDescType):
    """offset -> tensor coordinates of a view (the encoding over the view's own shape)."""
    if t.encoding is None:
        raise LoweringError(f"{t} has no shared encoding")
    return t.encoding.to_linear_layout(list(t.dims))


def buffer_alignment(t: T.MemDescType) -> int:
    enc = t.encoding
    return 1024 if getattr(enc, "swizzling_byte_width", 0) else 16


def _address_fn(ctx: FunctionContext, addr: str, nbytes: int):
    e = ctx.e
    base_ptr = e.cast("inttoptr", "i32", addr, "ptr addrspace(3)")

    def address(hw, off):
        o = ctx.combine_const(hw, off) if off else hw[0]
        if o == "0":
            return base_ptr
        if o.lstrip("-").isdigit():
            byte = str(int(o) * nbytes)
        else:
            byte = o if nbytes == 1 else e.bin("shl", "i32", o, str(nbytes.bit_length() - 1))
        return e.gep("i8", "ptr addrspace(3)", base_ptr, "i32", byte)
    return address


def _view_groups(ctx: FunctionContext, ll, mem_t: T.MemDescType, max_vec: int):
    """`access_groups` of a thread's registers in layout `ll` over the whole view `mem_t`:
    ((hw offset, mask), elements per access, [(offset, registers)], canonical registers)."""
    inv = memdesc_layout(mem_t).invert()
    hw, nvec, groups, canon = access_groups(ctx, ll, inv, max_vec, inv.total_out_size_log2)
    return hw, nvec, groups.get(0, []), canon


def store_tensor(ctx: FunctionContext, vals: List[str], reg_t: T.TensorType,
                 mem_t: T.MemDescType, addr: str) -> None:
    """Every element of a register tensor into the buffer view at `addr` (each element
    once: copies held by several threads are written by their owner only)."""
    elt = reg_t.element_type
    ll = ctx.ll(reg_t)
    hw, nvec, items, _ = _view_groups(ctx, ll, mem_t, 128 // storage_bits(elt))
    address = _address_fn(ctx, addr, storage_bits(elt) // 8)
    pred, _ = ctx.owner_info(ll)
    ctx.e.guarded(pred, lambda: store_vectors(ctx, hw, nvec, items, vals, elt, address,
                                              buffer_alignment(mem_t)), "st_own", "st_done")


def load_tensor(ctx: FunctionContext, reg_t: T.TensorType, mem_t: T.MemDescType,
                addr: str) -> List[str]:
    elt = reg_t.element_type
    ll = ctx.ll(reg_t)
    hw, nvec, items, canon = _view_groups(ctx, ll, mem_t, 128 // storage_bits(elt))
    out: List[Optional[str]] = [None] * ll.get_in_dim_size(REG)
    load_vectors(ctx, hw, nvec, items, out, elt,
                 _address_fn(ctx, addr, storage_bits(elt) // 8), buffer_alignment(mem_t))
    for r in range(len(out)):
        if out[r] is None:
            out[r] = out[canon[r]]
    return out


def fence_async_shared(ctx: FunctionContext) -> None:
    ctx.e.asm("void", "fence.proxy.async.shared::cta;", "", [], side_effects=True)


@lowers("ttg.local_alloc")
def _local_alloc(ctx: FunctionContext, op) -> None:
    off = int(op.attr("allocation.offset", 0) or 0)
    base = smem_window_base(ctx)
    addr = ctx.e.bin("add", "i32", base, str(off)) if off else base
    if op.operands:
        src = op.operand(0)
        ctx.barrier()
        store_tensor(ctx, ctx.get(src), src.type, op.results[0].type, addr)
        fence_async_shared(ctx)
        ctx.barrier()
    ctx.set(op.results[0], addr)


@lowers("ttg.local_store")
def _local_store(ctx: FunctionContext, op) -> None:
    val, mem = op.operand(0), op.operand(1)
    store_tensor(ctx, ctx.get(val), val.type, mem.type, ctx.get(mem))


@lowers("ttg.local_load")
def _local_load(ctx: FunctionContext, op) -> None:
    mem = op.operand(0)
    ctx.set(op.results[0], load_tensor(ctx, op.results[0].type, mem.type, ctx.get(mem)))


@lowers("ttg.local_dealloc")
def _local_dealloc(ctx: FunctionContext, op) -> None:
    return None


@lowers("ttg.memdesc_index")
def _memdesc_index(ctx: FunctionContext, op) -> None:
    buf, idx = op.operand(0), op.operand(1)
    view = op.results[0].type
    slot_bytes = view.numel * storage_bits(view.element_type) // 8
    e = ctx.e
    i = ctx.get(idx)
    off = e.bin("mul", "i32", i, str(slot_bytes)) if i != "0" else "0"
    ctx.set(op.results[0], e.bin("add", "i32", ctx.get(buf), off) if off != "0" else ctx.get(buf))


@lowers("ttg.memdesc_trans")
def _memdesc_trans(ctx: FunctionContext, op) -> None:
    """A transposed view is the same bytes: its encoding (the source's with the order
    swapped) already maps the permuted coordinates to the same offsets."""
    ctx.set(op.results[0], ctx.get(op.operand(0)))


@lowers("ttg.memdesc_subslice")
def _memdesc_subslice(ctx: FunctionContext, op) -> None:
    """A window along the slowest dimension is the buffer from a later row on: the rows of
    the window lay out as the buffer's own (the offset is a whole swizzle period, which
    the Gluon frontend checks)."""
    src = op.operand(0).type
    offsets = [int(o) for o in op.attr("offsets")]
    order = list(getattr(src.encoding, "order", range(len(src.dims) - 1, -1, -1)))
    moved = [d for d, o in enumerate(offsets) if o]
    if not moved:
        ctx.set(op.results[0], ctx.get(op.operand(0)))
        return
    if moved != [order[-1]]:
        raise LoweringError(f"memdesc_subslice of {src} at offsets {offsets}: only windows "
                            "along the slowest dimension are supported")
    d = moved[0]
    row = 1
    for k, size in enumerate(src.dims):
        if k != d:
            row *= size
    byte = offsets[d] * row * storage_bits(src.element_type) // 8
    ctx.set(op.results[0], ctx.e.bin("add", "i32", ctx.get(op.operand(0)), str(byte)))


@lowers("ttg.memdesc_reshape", "ttg.memdesc_reinterpret")
def _memdesc_same_bytes(ctx: FunctionContext, op) -> None:
    ctx.set(op.results[0], ctx.get(op.operand(0)))


@lowers("ttng.fence_async_shared")
def _fence(ctx: FunctionContext, op) -> None:
    fence_async_shared(ctx)



@lowers("ttg.async_copy_global_to_local")
def _async_copy(ctx: FunctionContext, op) -> None:
    """cp.async of each vector of the pointer tensor into the buffer view; masked-off
    vectors copy zero bytes, which fills their destination with zeros."""
    ptr, view = op.operand(0), op.operand(1)
    mask = ctx.get(op.operand(2)) if op.num_operands > 2 else None
    elt = ptr.type.element_type.pointee
    nbytes = storage_bits(elt) // 8
    ll = ctx.ll(ptr.type)
    # The vector may not be wider than the run of elements the pointer layout keeps in one
    # thread (coalesce sized it from the pointers' alignment), or cp.async would misalign.
    run = vector_width(ctx, ptr, op.operand(2) if op.num_operands > 2 else None, nbytes * 8)
    hw, nvec, items, _ = _view_groups(ctx, ll, view.type, min(16 // nbytes, run))
    size = nvec * nbytes
    if size not in (4, 8, 16):
        raise LoweringError(f"cp.async cannot move {size} bytes per thread")
    kind = "cg" if size == 16 else "ca"
    e = ctx.e
    address = _address_fn(ctx, ctx.get(view), nbytes)
    ptrs = ctx.get(ptr)

    def copies():
        for off, members in items:
            dst = e.cast("ptrtoint", "ptr addrspace(3)", address(hw, off), "i32")
            src = ptrs[members[0]]
            if mask is None:
                n = str(size)
            else:
                n = e.select(mask[members[0]], "i32", str(size), "0")
            e.asm("void", f"cp.async.{kind}.shared.global [$0], [$1], {size}, $2;", "r,l,r",
                  [("i32", dst), ("ptr addrspace(1)", src), ("i32", n)], side_effects=True)
    # Where several threads hold one pointer (a layout wider than the tile), only its owner
    # copies: racecheck flags two threads' cp.async of one element as a write-write race.
    e.guarded(ctx.owner_info(ll)[0], copies, "cp_own", "cp_done")


@lowers("ttg.async_commit_group")
def _async_commit(ctx: FunctionContext, op) -> None:
    ctx.e.asm("void", "cp.async.commit_group;", "", [], side_effects=True)


@lowers("ttg.async_wait")
def _async_wait(ctx: FunctionContext, op) -> None:
    """Wait for this thread's copies, then make every thread's copies visible to the whole
    block. (cp.async writes need no proxy fence before wgmma reads them, unlike st.shared.)"""
    ctx.e.asm("void", f"cp.async.wait_group {int(op.attr('num', 0))};", "", [], side_effects=True)
    ctx.barrier()
