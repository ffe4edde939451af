"""tt.scan (inclusive, optionally reversed) over any blocked/slice-like layout.

The axis bits of the layout (tritium.gpu.scratch.scan_geometry) are processed from the least
significant: every element keeps its prefix within the current block and the block's
total. Steps:
* leading register bits: a sequential scan inside the thread;
* a run of consecutive lane bits: Hillis-Steele over the block totals with `shfl.sync.up`
  (`.down` when reversed), an exclusive carry from the neighbour lane, the new total from the
  run's last lane;
* a run of warp bits: block totals through shared memory (bar.sync, store, bar.sync, load
  all K totals of the run, fold, pick this warp's carry);
* a register bit above lanes/warps (layout repetition): combine register pairs.
"""
from __future__ import annotations

from math import prod
from typing import Dict, List

from ....gpu.scratch import align16, scan_geometry
from ....ir import types as T
from .context import (LANE, REG, WARP, FunctionContext, LoweringError, combine_ops, elem_type,
                      lowers, ltype, storage_bits)
from .reduce import _smem_elem_ptr, load_partials


@lowers("tt.scan")
def _scan(ctx: FunctionContext, op) -> None:
    axis = int(op.attr("axis"))
    reverse = bool(op.attr("reverse", False))
    srcs = op.operands
    t = srcs[0].type
    if not isinstance(t, T.TensorType):
        raise LoweringError("tt.scan of a scalar")
    ll = ctx.ll(t)
    shape = list(t.dims)
    g = scan_geometry(ll, axis, shape)
    block = op.regions[0].entry
    elts = [elem_type(v.type) for v in srcs]
    nops = len(srcs)
    vals = [ctx.get(v) for v in srcs]
    canon = ctx.canonical(ll)
    nreg = len(canon)
    e = ctx.e
    live = [r for r in range(nreg) if canon[r] == r]
    prefix: Dict[int, List[str]] = {r: [vals[k][r] for k in range(nops)] for r in live}
    total: Dict[int, List[str]] = {r: list(prefix[r]) for r in live}

    def comb(a, b):
        return combine_ops(ctx, block, a, b)

    def sel(cond, a, b):
        return [e.select(cond, ltype(elts[k]), a[k], b[k]) for k in range(nops)]

    for si, step in enumerate(g.steps):
        last = si == len(g.steps) - 1
        if step.kind == "reg" and si == 0:
            smask = sum(1 << b for b in step.bits)
            bases = sorted({r & ~smask for r in live})
            m = len(step.bits)
            for b0 in bases:
                members = []
                for j in range(1 << m):
                    rr = b0
                    for q, b in enumerate(step.bits):
                        if (j >> q) & 1:
                            rr |= 1 << b
                    if rr not in prefix:
                        raise LoweringError("tt.scan: duplicated registers along the axis")
                    members.append(rr)
                order = members[::-1] if reverse else members
                p = prefix[order[0]]
                for rr in order[1:]:
                    p = comb(p, prefix[rr])
                    prefix[rr] = p
                for rr in members:
                    total[rr] = p
        elif step.kind == "reg":
            (b,) = step.bits
            for r in live:
                if r & (1 << b):
                    continue
                lo, hi = r, r | (1 << b)
                early, late = (hi, lo) if reverse else (lo, hi)
                te, tl = total[early], total[late]
                prefix[late] = comb(te, prefix[late])
                if not last:
                    nt = comb(te, tl)
                    total[lo] = total[hi] = nt
        elif step.kind == "lane":
            m = len(step.bits)
            i0 = step.bits[0]
            runmask = ((1 << m) - 1) << i0
            idx = ctx.linear_tid([(1 << (i - i0)) if runmask >> i & 1 else 0 for i in range(5)])
            if reverse:
                idx = e.pro(f"xor i32 {idx}, {(1 << m) - 1}", "m") if idx != "0" else str((1 << m) - 1)
            kind = "down" if reverse else "up"
            lane = ctx.lane_id()
            src_last = (e.pro(f"and i32 {lane}, {~runmask & 31}", "m") if reverse
                        else e.pro(f"or i32 {lane}, {runmask}", "m"))
            has = e.pro(f"icmp ne i32 {idx}, 0", "c")
            done: Dict[tuple, tuple] = {}
            for r in live:
                key = tuple(total[r])
                if key not in done:
                    inc = list(total[r])
                    for q in range(m):
                        d = 1 << q
                        up = [ctx.shfl(kind, elts[k], inc[k], str(d << i0)) for k in range(nops)]
                        cond = e.pro(f"icmp uge i32 {idx}, {d}", "c")
                        inc = sel(cond, comb(up, inc), inc)
                    excl = [ctx.shfl(kind, elts[k], inc[k], str(1 << i0)) for k in range(nops)]
                    nt = None if last else [ctx.shfl("idx", elts[k], inc[k], src_last) for k in range(nops)]
                    done[key] = (excl, nt)
                excl, nt = done[key]
                prefix[r] = sel(has, comb(excl, prefix[r]), prefix[r])
                if nt is not None:
                    total[r] = nt
        elif step.kind == "warp":
            _warp_step(ctx, op, g, step, ll, shape, axis, reverse, elts, live, prefix, total,
                       last, comb, sel)
        else:
            raise LoweringError(f"unknown scan step {step.kind}")
    outs = [[prefix[canon[r]][k] for r in range(nreg)] for k in range(nops)]
    for k, r in enumerate(op.results):
        ctx.set(r, outs[k])


def _warp_step(ctx, op, g, step, ll, shape, axis, reverse, elts, live, prefix, total, last,
               comb, sel) -> None:
    e = ctx.e
    nops = len(elts)
    m = len(step.bits)
    K = 1 << m
    top = step.sigs[-1]
    sh = top + 1
    shape2 = list(shape)
    shape2[axis] = max(1, shape[axis] >> sh)
    n_elems = g.warp_scratch_elems(step)
    base = ctx.smem_base(op)
    offs = []
    o = base
    for k in range(nops):
        offs.append(o)
        o += align16(n_elems * storage_bits(elts[k]) // 8)

    def key_lin(b) -> int:
        c = list(b)
        c[axis] = c[axis] >> sh
        lin = 0
        for d in range(len(shape2)):
            lin += c[d] * prod(shape2[q] for q in range(d + 1, len(shape2)))
        return lin << m

    widx = {w: t for t, w in enumerate(step.bits)}
    lanes = (list(ll.bases.get(LANE, [])) + [None] * 5)[:5]
    read_b = [key_lin(b) if b is not None else 0 for b in lanes]
    read_b += [key_lin(b) for b in ll.bases.get(WARP, [])]
    write_b = list(read_b)
    for w, t in widx.items():
        write_b[5 + w] |= 1 << t
    hw_w = ctx.linear_tid(write_b)
    hw_r = ctx.linear_tid(read_b)
    mw = 0
    for x in write_b:
        mw |= x
    mr = 0
    for x in read_b:
        mr |= x
    # this warp's position in the run (in scan order)
    pos = ctx.linear_tid([0] * 5 + [(1 << widx[i]) if i in widx else 0
                                    for i in range(len(ll.bases.get(WARP, [])))])
    if reverse:
        pos = e.pro(f"xor i32 {pos}, {K - 1}", "m") if pos != "0" else str(K - 1)
    groups: Dict[tuple, List[int]] = {}
    for r in live:
        c = list(ll.apply({REG: r}).values())
        groups.setdefault((tuple(total[r]), key_lin(c)), []).append(r)
    ctx.barrier()
    for (tot, kl), regs in groups.items():
        idx = ctx.combine_const((hw_w, mw), kl)
        for k in range(nops):
            nb = storage_bits(elts[k]) // 8
            p = _smem_elem_ptr(ctx, offs[k], idx, nb)
            st = ctx.storage_type(elts[k])
            e.emit(f"store {st} {ctx.to_storage(elts[k], tot[k])[1]}, ptr addrspace(3) {p}, align {nb}")
    ctx.barrier()
    has = e.pro(f"icmp ne i32 {pos}, 0", "c")
    for (tot, kl), regs in groups.items():
        parts = load_partials(ctx, elts, offs, ctx.combine_const((hw_r, mr), kl), K)
        seq = list(range(K))[::-1] if reverse else list(range(K))
        accs = []
        a = [parts[k][seq[0]] for k in range(nops)]
        accs.append(a)
        for j in seq[1:]:
            a = comb(a, [parts[k][j] for k in range(nops)])
            accs.append(a)
        # carry = accs[pos - 1]
        carry = accs[0]
        for q in range(2, K):
            c = e.icmp("eq", "i32", pos, str(q))
            carry = sel(c, accs[q - 1], carry)
        for r in regs:
            prefix[r] = sel(has, comb(carry, prefix[r]), prefix[r])
            if not last:
                total[r] = accs[-1]
