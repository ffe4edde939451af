"""`tt.reduce` and `tt.scan` on the host: the combine region inlined in a loop nest.

A reduction writes its accumulators into buffers of the result shape, first from the
elements at index 0 of the axis, then combining the rest in row-major order: reducing
along the last axis the accumulator stays in a register (LLVM promotes it), along any other
axis the inner loop runs over contiguous accumulators and vectorises. A combine region that
is one associative float op gets `reassoc`, so LLVM may split the chain into SIMD lanes —
a tree order, like the GPU's, rather than the evaluator's pairwise one.
"""
from __future__ import annotations

from .context import TV, Ctx, lowers, lty

_ASSOC = {"arith.addf": "fadd", "arith.mulf": "fmul"}


def _combine(cx: Ctx, op, accs, curs):
    region = op.regions[0].entry
    body = [o for o in region if o.name not in ("tt.reduce.return", "tt.scan.return")]
    if len(body) == 1 and body[0].name in _ASSOC and len(accs) == 1 \
            and list(body[0].operands) == list(region.args):
        ty = lty(body[0].results[0].type)
        if ty in ("float", "double"):
            return [cx.emit(f"{_ASSOC[body[0].name]} reassoc nsz {ty} {accs[0]}, {curs[0]}")]
    return cx.run_block(region, list(accs) + list(curs))


@lowers("tt.reduce")
def _reduce(cx: Ctx, op):
    axis = int(op.attr("axis"))
    ins = [cx.get(v) for v in op.operands]
    shape = list(op.operand(0).type.shape)
    oshape = shape[:axis] + shape[axis + 1:]
    ts = [r.type for r in op.results]
    scalar = not oshape
    bufs = [cx.alloca(lty(t)) if scalar else cx.new_buf(oshape, t) for t in ts]
    pshape = oshape or [1]

    def slot(i, o):
        if scalar:
            return bufs[i]
        ty = lty(ts[i])
        lin = cx.linear(oshape, o)
        return cx.emit(f"getelementptr inbounds {ty}, ptr {bufs[i]}, i32 {lin}")

    def init(o):
        full = o[:axis] + ["0"] + o[axis:] if not scalar else ["0"] * len(shape)
        for i, x in enumerate(ins):
            cx.do(f"store {lty(ts[i])} {x.at(cx, full)}, ptr {slot(i, o)}")

    cx.loops(pshape, init)

    def step(idx):
        o = idx[:axis] + idx[axis + 1:]
        ptrs = [slot(i, o) for i in range(len(ins))]
        accs = [cx.emit(f"load {lty(t)}, ptr {p}") for t, p in zip(ts, ptrs)]
        curs = [x.at(cx, idx) for x in ins]
        outs = _combine(cx, op, accs, curs)
        for t, p, v in zip(ts, ptrs, outs):
            cx.do(f"store {lty(t)} {v}, ptr {p}")

    if shape[axis] > 1:
        start = [0] * len(shape)
        start[axis] = 1
        cx.loops(shape, step, start=start)
    for r, t, b in zip(op.results, ts, bufs):
        if scalar:
            cx.vals[r] = cx.emit(f"load {lty(t)}, ptr {b}")
        else:
            cx.vals[r] = TV(oshape, t, buf=b)


@lowers("tt.scan")
def _scan(cx: Ctx, op):
    axis = int(op.attr("axis"))
    rev = bool(op.attr("reverse", False))
    ins = [cx.get(v) for v in op.operands]
    shape = list(op.operand(0).type.shape)
    n = shape[axis]
    ts = [r.type for r in op.results]
    bufs = [cx.new_buf(shape, t) for t in ts]

    def at_axis(idx, k):
        return idx[:axis] + [k] + idx[axis + 1:]

    first = str(n - 1 if rev else 0)
    ishape = shape[:axis] + [1] + shape[axis + 1:]

    def init(idx):
        full = at_axis(idx, first)
        for i, x in enumerate(ins):
            cx.store_buf(bufs[i], shape, ts[i], full, x.at(cx, full))
    cx.loops(ishape, init)

    def step(idx):
        j = idx[axis]
        if rev:
            k = cx.emit(f"sub i32 {n - 1}, {j}")
            prev = cx.emit(f"add i32 {k}, 1")
        else:
            k, prev = j, cx.emit(f"sub i32 {j}, 1")
        here, before = at_axis(idx, k), at_axis(idx, prev)
        accs = [cx.load_buf(TV(shape, t, buf=b), before) for t, b in zip(ts, bufs)]
        curs = [x.at(cx, here) for x in ins]
        outs = _combine(cx, op, accs, curs)
        for i, v in enumerate(outs):
            cx.store_buf(bufs[i], shape, ts[i], here, v)

    if n > 1:
        start = [0] * len(shape)
        start[axis] = 1
        cx.loops(shape, step, start=start)
    for r, t, b in zip(op.results, ts, bufs):
        cx.vals[r] = TV(shape, t, buf=b)

