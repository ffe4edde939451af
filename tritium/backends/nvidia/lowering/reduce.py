"""tt.reduce: within a thread, across lanes (shfl.sync.bfly), across warps (shared memory).

The operand layout's bases are classified (tritium.gpu.scratch.reduce_geometry): register,
lane and warp bits that step along the axis are reduced, duplicate (free) bits are skipped.
1. each thread folds its registers that share the non-axis coordinate, in axis order;
2. a butterfly `shfl.sync.bfly` per lane bit along the axis;
3. with warps along the axis: bar.sync (unless nothing before used shared memory), every
   warp stores its partials at [output element][warp index along the axis] of the scratch
   at `allocation.offset`, bar.sync, then either every thread loads the K partials of its outputs (vector loads)
   and folds them in warp order (few partials), or the slots are spread one per thread,
   a shfl.sync.bfly tree folds each output's K partials, its first lane writes the result
   back, bar.sync, and every thread loads its outputs (many partials; `use_shuffle_tree`).
The combine region is inlined at each step with the ordinary op lowerings.
"""
from __future__ import annotations

import os
from math import prod
from typing import Dict, List

from ....gpu.scratch import align16, reduce_geometry
from ....ir import types as T
from .context import (LANE, REG, WARP, FunctionContext, LoweringError, combine_ops, elem_type,
                      lowers, storage_bits)
from .misc import _is_kernel


def _proj_lin(basis, axis: int, shape) -> int:
    """Row-major linear index (over the non-axis dims) of a basis vector's projection."""
    dims = [d for d in range(len(shape)) if d != axis]
    lin = 0
    for d in dims:
        stride = prod(shape[e] for e in dims if e > d)
        lin += basis[d] * stride
    return lin


def _lin_tid_bases(ll, fn) -> List[int]:
    lanes = (list(ll.bases.get(LANE, [])) + [None] * 5)[:5]
    out = [fn(LANE, i, b) if b is not None else 0 for i, b in enumerate(lanes)]
    out += [fn(WARP, i, b) for i, b in enumerate(ll.bases.get(WARP, []))]
    return out


@lowers("tt.reduce")
def _reduce(ctx: FunctionContext, op) -> None:
    axis = int(op.attr("axis"))
    srcs = op.operands
    t = srcs[0].type
    if not isinstance(t, T.TensorType):
        raise LoweringError("tt.reduce of a scalar")
    ll = ctx.ll(t)
    shape = list(t.dims)
    g = reduce_geometry(ll, axis, shape)
    block = op.regions[0].entry
    elts = [elem_type(v.type) for v in srcs]
    vals = [ctx.get(v) for v in srcs]
    nops = len(srcs)
    canon = ctx.canonical(ll)
    dname = f"dim{axis}"
    others = [d for d in ll.out_dims if d != dname]

    # 1. within the thread
    groups: Dict[tuple, List[int]] = {}
    for r in range(len(canon)):
        if canon[r] != r:
            continue
        c = ll.apply({REG: r})
        groups.setdefault(tuple(c[d] for d in others), []).append(r)
    acc: Dict[tuple, List[str]] = {}
    for key, regs in groups.items():
        regs.sort(key=lambda r: ll.apply({REG: r})[dname])
        cur = [vals[k][regs[0]] for k in range(nops)]
        for r in regs[1:]:
            cur = combine_ops(ctx, block, cur, [vals[k][r] for k in range(nops)])
        acc[key] = cur

    # 2. across lanes: butterfly over the lane bits along the axis
    for b in reversed(g.lane_axis):
        for key in acc:
            got = [ctx.shfl("bfly", elts[k], acc[key][k], str(1 << b)) for k in range(nops)]
            acc[key] = combine_ops(ctx, block, acc[key], got)

    # 3. across warps through shared memory
    if g.warp_axis:
        _cross_warp(ctx, op, g, ll, axis, shape, groups, acc, elts, block)

    # 4. results in the slice layout
    res_t = op.results[0].type
    if not isinstance(res_t, T.TensorType):
        (only,) = acc.values()
        for k, r in enumerate(op.results):
            ctx.set(r, only[k])
        return
    rll = ctx.ll(res_t)
    _check_same_threads(ll, rll, axis)
    outs = [[] for _ in range(nops)]
    for r in range(rll.get_in_dim_size(REG)):
        c = rll.apply({REG: r})
        key = tuple(c[f"dim{i}"] for i in range(len(rll.out_dims)))
        if key not in acc:
            raise LoweringError("tt.reduce: result layout is not the slice of the operand's")
        for k in range(nops):
            outs[k].append(acc[key][k])
    for k, r in enumerate(op.results):
        ctx.set(r, outs[k])


def _cross_warp(ctx: FunctionContext, op, g, ll, axis: int, shape, groups, acc, elts,
                block) -> None:
    """Stage 3: combine the K = 2^len(warp_axis) per-warp partials of every output.

    Every warp stores its partials at slot [output element][warp index along the axis]
    (n_slots = outputs * K, row-major over the non-axis dims), then either
    * serial: every thread loads the K partials of each of its outputs (vector loads) and
      folds them in warp order — cheapest for few partials, as no warp waits on another; or
    * tree: the slots are spread over the CTA's threads, one per thread per round, so the K
      partials of an output sit in K consecutive lanes of one warp; a shfl.sync.bfly tree
      of log2(K) levels combines them, the first lane of each group writes the result back
      to the group's first slot, and after a barrier every thread loads its outputs from
      there. Only n_slots/32 warps do the combining, instead of every warp repeating all
      K-1 combines of every output it holds."""
    nops = len(elts)
    kbits = len(g.warp_axis)
    K = 1 << kbits
    base = ctx.smem_base(op)
    n_slots = g.scratch_elems()
    offs = []
    o = base
    for k in range(nops):
        offs.append(o)
        o += align16(n_slots * storage_bits(elts[k]) // 8)
    widx = {w: t for t, w in enumerate(g.warp_axis)}

    def write_fn(dim, i, b):
        v = _proj_lin(b, axis, shape) << kbits
        if dim == WARP and i in widx:
            v |= 1 << widx[i]
        return v

    def read_fn(dim, i, b):
        return _proj_lin(b, axis, shape) << kbits

    def mask_of(bases):
        m = 0
        for x in bases:
            m |= x
        return m

    w_bases = _lin_tid_bases(ll, write_fn)
    r_bases = _lin_tid_bases(ll, read_fn)
    hw_w, mask_w = ctx.linear_tid(w_bases), mask_of(w_bases)
    hw_r, mask_r = ctx.linear_tid(r_bases), mask_of(r_bases)

    def slot_of(key_regs, hw):
        reg_lin = _proj_lin(list(ll.apply({REG: key_regs[0]}).values()), axis, shape) << kbits
        return ctx.combine_const(hw, reg_lin)

    if not (shuffle_tree_enabled() and _first_shared_access(ctx, op)):
        ctx.barrier()  # earlier readers of this scratch are done before it is overwritten
    for key, regs in groups.items():
        idx = slot_of(regs, (hw_w, mask_w))
        for k in range(nops):
            _smem_store(ctx, elts[k], offs[k], idx, ctx.to_storage(elts[k], acc[key][k])[1])
    ctx.barrier()
    nthreads = 32 * max(1, ctx.num_warps)
    if shuffle_tree_enabled() and use_shuffle_tree(K, len(groups), n_slots, ctx.num_warps):
        _shuffle_tree(ctx, block, elts, offs, K, n_slots, nthreads)
        ctx.barrier()
        for key, regs in groups.items():
            idx = slot_of(regs, (hw_r, mask_r))
            acc[key] = [_smem_load(ctx, elts[k], offs[k], idx) for k in range(nops)]
        return
    for key, regs in groups.items():
        parts = load_partials(ctx, elts, offs, slot_of(regs, (hw_r, mask_r)), K)
        cur = [parts[k][0] for k in range(nops)]
        for j in range(1, K):
            cur = combine_ops(ctx, block, cur, [parts[k][j] for k in range(nops)])
        acc[key] = cur


_LOOPS = ("scf.for", "scf.while")
_SHARED_USERS = ("tt.call", "tt.elementwise_inline_asm")


def _first_shared_access(ctx: FunctionContext, op) -> bool:
    """Whether no thread of the CTA can have touched shared memory before `op`: it is in
    the kernel itself (a device function may run several times) and in no loop, and no op
    before it, or before an op enclosing it, uses shared memory (scratch, buffers, calls,
    inline asm). Its writes then need no barrier before them, as upstream's membar analysis
    finds for a kernel's first reduction."""
    if not _is_kernel(ctx.func):
        return False
    cur = op
    while cur is not ctx.func:
        parent = cur.parent_op
        if parent is None or parent.name in _LOOPS:
            return False
        prev = cur.prev
        while prev is not None:
            if any(_may_use_shared(o) for o in prev.walk()):
                return False
            prev = prev.prev
        cur = parent
    return True


def _may_use_shared(o) -> bool:
    if o.attr("allocation.offset") is not None or o.name in _SHARED_USERS:
        return True
    return any(isinstance(v.type, T.MemDescType) for v in list(o.operands) + list(o.results))


SHUFFLE_TREE_ENV = "TRITIUM_REDUCE_SHUFFLE_TREE"


def shuffle_tree_enabled() -> bool:
    """The cross-warp shuffle tree and the barrier-free first reduce are on unless
    TRITIUM_REDUCE_SHUFFLE_TREE=0 (kept as a switch to compare against the serial fold;
    checked on the H100 by tests/gpu_diff/test_gpu_reduce_warps.py and, under
    compute-sanitizer, bench/sanitize_reduce.py). Part of the NVIDIA backend's hash, so the
    disk cache keeps the two flavours apart."""
    return os.environ.get(SHUFFLE_TREE_ENV, "1") not in ("", "0")


def use_shuffle_tree(K: int, n_groups: int, n_slots: int, num_warps: int) -> bool:
    """Whether the shuffle tree beats the serial fold, counted in warp instructions per CTA
    (an SM runs several CTAs, so issue slots are what the redundant folds cost).
    Serial: every warp folds K-1 partials for each of its n_groups outputs. Tree: n_slots/32
    warp-rounds of log2(K) shuffle + combine levels, plus per warp a store, a barrier and
    one load per output. 16 warps, 2 rows (Inductor's softmax): 480 vs 104 — tree;
    4 warps, one output: 12 vs 24 — serial."""
    nthreads = 32 * num_warps
    if K < 4 or K > 32 or n_slots & (n_slots - 1) or nthreads & (nthreads - 1):
        return False
    levels = K.bit_length() - 1
    serial = num_warps * n_groups * (K - 1)
    tree = max(1, n_slots // 32) * 2 * levels + num_warps * (n_groups + 4)
    return tree < serial


def _shuffle_tree(ctx: FunctionContext, block, elts, offs, K: int, n_slots: int,
                  nthreads: int) -> None:
    """Thread t takes slot t (+ nthreads per further round; threads past the last slot's
    warp skip the fold); groups of K slots are one output's partials, in K consecutive
    lanes (K divides 32). Ascending butterfly distances
    make the group's first lane fold its partials in warp order: (p0 p1)(p2 p3), then
    ((p0 p1)(p2 p3)), as the serial fold does for an associative combine."""
    e = ctx.e
    tid = ctx.tid()
    nops = len(elts)
    sub = e.pro(f"and i32 {tid}, {K - 1}", "m")
    lead = e.pro(f"icmp eq i32 {sub}, 0", "p")
    skip = None
    if n_slots < nthreads:
        # Fewer slots than threads: only the first max(32, n_slots) threads (whole warps,
        # so the branch is warp-uniform and the shuffles see full warps) fold; below 32
        # slots the rest of warp 0 re-reads valid slots and does not write back.
        slots = [e.pro(f"and i32 {tid}, {n_slots - 1}", "m") if n_slots < 32 else tid]
        if n_slots < 32:
            inr = e.pro(f"icmp ult i32 {tid}, {n_slots}", "p")
            lead = e.pro(f"and i1 {lead}, {inr}", "p")
        active = e.pro(f"icmp ult i32 {tid}, {max(32, n_slots)}", "p")
        body, skip = e.new_label("red_tree"), e.new_label("red_tree_done")
        e.cond_br(active, body, skip)
        e.start_block(body)
    else:
        slots = [tid] + [e.pro(f"add nuw nsw i32 {tid}, {r * nthreads}", "m")
                         for r in range(1, n_slots // nthreads)]
    for slot in slots:
        cur = [_smem_load(ctx, elts[k], offs[k], slot) for k in range(nops)]
        d = 1
        while d < K:
            got = [ctx.shfl("bfly", elts[k], cur[k], str(d)) for k in range(nops)]
            cur = combine_ops(ctx, block, cur, got)
            d <<= 1
        if n_slots < 32:
            # lanes past n_slots read the slots their group leads write next: the shuffles
            # already order those reads first, but only a warp barrier says so to
            # racecheck (it flags the write-after-read as a warp-level hazard)
            e.asm("void", "bar.warp.sync -1;", "", [], side_effects=True)
        def stores():
            for k in range(nops):
                _smem_store(ctx, elts[k], offs[k], slot, ctx.to_storage(elts[k], cur[k])[1])
        e.guarded(lead, stores, "red_st", "red_done")
    if skip is not None:
        e.br(skip)
        e.start_block(skip)


def _smem_store(ctx: FunctionContext, elt, byte_base: int, idx: str, v: str) -> None:
    st = ctx.storage_type(elt)
    nb = storage_bits(elt) // 8
    p = _smem_elem_ptr(ctx, byte_base, idx, nb)
    ctx.e.emit(f"store {st} {v}, ptr addrspace(3) {p}, align {nb}")


def _smem_load(ctx: FunctionContext, elt, byte_base: int, idx: str) -> str:
    st = ctx.storage_type(elt)
    nb = storage_bits(elt) // 8
    p = _smem_elem_ptr(ctx, byte_base, idx, nb)
    return ctx.from_storage(elt, ctx.e.inst(f"load {st}, ptr addrspace(3) {p}, align {nb}", "ld"))


def _check_same_threads(src_ll, res_ll, axis: int) -> None:
    for dim in (LANE, WARP):
        a = [tuple(x for j, x in enumerate(b) if j != axis) for b in src_ll.bases.get(dim, [])]
        b = [tuple(x) for x in res_ll.bases.get(dim, [])]
        if a != b:
            raise LoweringError("tt.reduce: result layout is not the slice of the operand's")


def load_partials(ctx: FunctionContext, elts, offs, idx: str, K: int) -> List[List[str]]:
    """Per operand, the K consecutive partials from slot `idx` of its shared-memory
    array (byte base offs[k]), read in vectors of up to 16 bytes."""
    e = ctx.e
    parts: List[List[str]] = [[] for _ in elts]
    for k, elt in enumerate(elts):
        st = ctx.storage_type(elt)
        nb = storage_bits(elt) // 8
        chunk = max(1, min(K, 16 // nb))
        for j0 in range(0, K, chunk):
            p = _smem_elem_ptr(ctx, offs[k] + j0 * nb, idx, nb)
            if chunk == 1:
                xs = [e.inst(f"load {st}, ptr addrspace(3) {p}, align {nb}", "ld")]
            else:
                x = e.inst(f"load <{chunk} x {st}>, ptr addrspace(3) {p}, align {chunk * nb}",
                           "ld")
                xs = e.split_vector(st, x, chunk)
            parts[k].extend(ctx.from_storage(elt, x) for x in xs)
    return parts


def _smem_elem_ptr(ctx: FunctionContext, byte_base: int, idx: str, nbytes: int) -> str:
    e = ctx.e
    if idx.lstrip("-").isdigit():
        return ctx.smem_ptr(byte_base + int(idx) * nbytes)
    b = idx if nbytes == 1 else e.bin("shl", "i32", idx, str(nbytes.bit_length() - 1))
    if byte_base:
        b = e.bin("add", "i32", b, str(byte_base))
    return ctx.smem_ptr(b)
