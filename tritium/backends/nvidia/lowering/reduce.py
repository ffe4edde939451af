"""tt.reduce: within a thread, across lanes (shfl.sync.bfly), across warps (shared memory).

The operand layout's bases are classified (tritium.gpu.scratch.reduce_geometry): register,
lane and warp bits that step along the axis are reduced, duplicate (free) bits are skipped.
1. each thread folds its registers that share the non-axis coordinate, in axis order;
2. a butterfly `shfl.sync.bfly` per lane bit along the axis;
3. with warps along the axis: bar.sync, every warp stores its partials at
   [output element][warp index along the axis] of the scratch at `allocation.offset`,
   bar.sync, and every thread loads the K partials of its outputs (one vector load) and
   folds them in warp order.
The combine region is inlined at each step with the ordinary op lowerings.
"""
from __future__ import annotations

from math import prod
from typing import Dict, List

from ....gpu.scratch import align16, reduce_geometry
from ....ir import types as T
from .context import (LANE, REG, WARP, FunctionContext, LoweringError, combine_ops, elem_type,
                      lowers, storage_bits)


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
        e = ctx.e
        kbits = len(g.warp_axis)
        K = 1 << kbits
        base = ctx.smem_base(op)
        n_elems = g.scratch_elems()
        offs = []
        o = base
        for k in range(nops):
            offs.append(o)
            o += align16(n_elems * storage_bits(elts[k]) // 8)
        widx = {w: t for t, w in enumerate(g.warp_axis)}

        def write_fn(dim, i, b):
            v = _proj_lin(b, axis, shape) << kbits
            if dim == WARP and i in widx:
                v |= 1 << widx[i]
            return v

        def read_fn(dim, i, b):
            return _proj_lin(b, axis, shape) << kbits

        hw_w = ctx.linear_tid(_lin_tid_bases(ll, write_fn))
        hw_r = ctx.linear_tid(_lin_tid_bases(ll, read_fn))
        mask_w = 0
        for x in _lin_tid_bases(ll, write_fn):
            mask_w |= x
        mask_r = 0
        for x in _lin_tid_bases(ll, read_fn):
            mask_r |= x
        ctx.barrier()
        for key, regs in groups.items():
            reg_lin = _proj_lin(list(ll.apply({REG: regs[0]}).values()), axis, shape) << kbits
            idx = ctx.combine_const((hw_w, mask_w), reg_lin)
            for k in range(nops):
                st = ctx.storage_type(elts[k])
                nb = storage_bits(elts[k]) // 8
                p = _smem_elem_ptr(ctx, offs[k], idx, nb)
                v = ctx.to_storage(elts[k], acc[key][k])[1]
                e.emit(f"store {st} {v}, ptr addrspace(3) {p}, align {nb}")
        ctx.barrier()
        for key, regs in groups.items():
            reg_lin = _proj_lin(list(ll.apply({REG: regs[0]}).values()), axis, shape) << kbits
            idx = ctx.combine_const((hw_r, mask_r), reg_lin)
            parts: List[List[str]] = [[] for _ in range(nops)]
            for k in range(nops):
                st = ctx.storage_type(elts[k])
                nb = storage_bits(elts[k]) // 8
                chunk = max(1, min(K, 16 // nb))
                for j0 in range(0, K, chunk):
                    p = _smem_elem_ptr(ctx, offs[k] + j0 * nb, idx, nb)
                    if chunk == 1:
                        xs = [e.inst(f"load {st}, ptr addrspace(3) {p}, align {nb}", "ld")]
                    else:
                        vt = f"<{chunk} x {st}>"
                        x = e.inst(f"load {vt}, ptr addrspace(3) {p}, align {chunk * nb}", "ld")
                        xs = e.split_vector(st, x, chunk)
                    parts[k].extend(ctx.from_storage(elts[k], x) for x in xs)
            cur = [parts[k][0] for k in range(nops)]
            for j in range(1, K):
                cur = combine_ops(ctx, block, cur, [parts[k][j] for k in range(nops)])
            acc[key] = cur

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


def _check_same_threads(src_ll, res_ll, axis: int) -> None:
    for dim in (LANE, WARP):
        a = [tuple(x for j, x in enumerate(b) if j != axis) for b in src_ll.bases.get(dim, [])]
        b = [tuple(x) for x in res_ll.bases.get(dim, [])]
        if a != b:
            raise LoweringError("tt.reduce: result layout is not the slice of the operand's")


def _smem_elem_ptr(ctx: FunctionContext, byte_base: int, idx: str, nbytes: int) -> str:
    e = ctx.e
    if idx.lstrip("-").isdigit():
        return ctx.smem_ptr(byte_base + int(idx) * nbytes)
    b = idx if nbytes == 1 else e.bin("shl", "i32", idx, str(nbytes.bit_length() - 1))
    if byte_base:
        b = e.bin("add", "i32", b, str(byte_base))
    return ctx.smem_ptr(b)
