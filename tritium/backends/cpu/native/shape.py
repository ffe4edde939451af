"""Shape ops on the host: they only remap the index at which an operand is read, so none
of them moves data (except `join`/`cat`, which pick between two operands per element)."""
from __future__ import annotations

import math

from .context import TV, Ctx, Unsupported, lowers, lty


def _rt(op):
    return op.results[0].type


def remap(cx: Ctx, op, src, fn, cost=0) -> None:
    """Bind op's result to `src` read at `fn(cx, idx)`."""
    rt = _rt(op)
    cx.set(op.results[0], TV(rt.shape, rt, lambda c, idx: src.at(c, fn(c, idx)), deps=[src],
                             cost=cost))


@lowers("tt.make_range")
def _make_range(cx: Ctx, op):
    start = int(op.attr("start"))
    rt = _rt(op)
    if start == 0:
        fn = lambda c, idx: idx[0]  # noqa: E731
    else:
        fn = lambda c, idx: c.emit(f"add i32 {idx[0]}, {start}")  # noqa: E731
    cx.set(op.results[0], TV(rt.shape, rt, fn, cost=0, pw=True))


@lowers("tt.splat")
def _splat(cx: Ctx, op):
    s = cx.get(op.operand(0))
    rt = _rt(op)
    cx.set(op.results[0], TV(rt.shape, rt, lambda c, idx: s, cost=0, pw=True))


@lowers("tt.broadcast")
def _broadcast(cx: Ctx, op):
    src = cx.get(op.operand(0))
    ishape = op.operand(0).type.shape
    remap(cx, op, src, lambda c, idx: ["0" if n == 1 else i for n, i in zip(ishape, idx)])


@lowers("tt.expand_dims")
def _expand_dims(cx: Ctx, op):
    src = cx.get(op.operand(0))
    axis = int(op.attr("axis"))
    if not isinstance(src, TV):       # a scalar made a 1-element tensor
        rt = _rt(op)
        cx.set(op.results[0], TV(rt.shape, rt, lambda c, idx: src, cost=0))
        return
    remap(cx, op, src, lambda c, idx: idx[:axis] + idx[axis + 1:])


def _delinear(cx: Ctx, lin: str, shape):
    out = []
    for i, s in enumerate(shape):
        inner = math.prod(shape[i + 1:])
        q = lin if inner == 1 else cx.emit(f"udiv i32 {lin}, {inner}")
        out.append("0" if s == 1 else (q if i == 0 else cx.emit(f"urem i32 {q}, {s}")))
    return out


@lowers("tt.reshape")
def _reshape(cx: Ctx, op):
    src = cx.get(op.operand(0))
    ishape = op.operand(0).type.shape
    oshape = _rt(op).shape
    remap(cx, op, src, lambda c, idx: _delinear(c, c.linear(oshape, idx), ishape), cost=2)


@lowers("tt.trans")
def _trans(cx: Ctx, op):
    src = cx.get(op.operand(0))
    order = [int(o) for o in op.attr("order")]
    inv = [0] * len(order)
    for i, o in enumerate(order):
        inv[o] = i
    remap(cx, op, src, lambda c, idx: [idx[inv[d]] for d in range(len(order))])


@lowers("ttg.convert_layout", "builtin.unrealized_conversion_cast")
def _identity(cx: Ctx, op):
    cx.vals[op.results[0]] = cx.get(op.operand(0))


@lowers("llvm.intr.assume", "ttg.barrier")
def _nothing(cx: Ctx, op):
    pass


@lowers("tt.join")
def _join(cx: Ctx, op):
    a, b = cx.get(op.operand(0)), cx.get(op.operand(1))
    rt = _rt(op)
    ty = lty(rt)

    def fn(c, idx):
        va, vb = a.at(c, idx[:-1]), b.at(c, idx[:-1])
        last = idx[-1]
        if last == "0":
            return va
        k = c.emit(f"icmp eq i32 {last}, 0")
        return c.emit(f"select i1 {k}, {ty} {va}, {ty} {vb}")
    cx.set(op.results[0], TV(rt.shape, rt, fn, deps=[a, b], cost=2))


@lowers("tt.split")
def _split(cx: Ctx, op):
    src = cx.get(op.operand(0))
    for k, r in enumerate(op.results):
        cx.set(r, TV(r.type.shape, r.type, lambda c, idx, k=k: src.at(c, idx + [str(k)]),
                     deps=[src], cost=0))


@lowers("tt.cat")
def _cat(cx: Ctx, op):
    a, b = cx.get(op.operand(0)), cx.get(op.operand(1))
    rt = _rt(op)
    ty = lty(rt)
    n0 = op.operand(0).type.shape[0]
    # Both halves are read at a clamped index; the select keeps the right one.

    def fn(c, idx):
        lo = c.emit(f"icmp ult i32 {idx[0]}, {n0}")
        ia = c.emit(f"select i1 {lo}, i32 {idx[0]}, i32 0")
        ib = c.emit(f"select i1 {lo}, i32 0, i32 " + c.emit(f"sub i32 {idx[0]}, {n0}"))
        va, vb = a.at(c, [ia] + idx[1:]), b.at(c, [ib] + idx[1:])
        return c.emit(f"select i1 {lo}, {ty} {va}, {ty} {vb}")
    if op.operand(0).type.shape[1:] != rt.shape[1:]:
        raise Unsupported("tt.cat of unequal trailing shapes")
    cx.set(op.results[0], TV(rt.shape, rt, fn, deps=[a, b], cost=4))


@lowers("tt.get_program_id")
def _pid(cx: Ctx, op):
    cx.set(op.results[0], cx.pid[_axis(op)])


@lowers("tt.get_num_programs")
def _nprog(cx: Ctx, op):
    cx.set(op.results[0], cx.nprog[_axis(op)])


def _axis(op) -> int:
    a = op.attr("axis")
    if isinstance(a, str):
        return "xyz".index(a)
    return int(a)



@lowers("tt.gather")
def _gather(cx: Ctx, op):
    """out[..., j, ...] = src[..., idx[..., j, ...], ...] along `axis` (indices out of range
    are undefined, as on the GPU; the evaluator reports them)."""
    src, index = cx.get(op.operand(0)), cx.get(op.operand(1))
    axis = int(op.attr("axis"))
    ity = lty(op.operand(1).type)
    rt = _rt(op)

    def fn(c, idx):
        i = index.at(c, idx)
        if ity != "i32":
            i = c.emit(f"{'trunc' if int(ity[1:]) > 32 else 'sext'} {ity} {i} to i32")
        return src.at(c, idx[:axis] + [i] + idx[axis + 1:])
    cx.set(op.results[0], TV(rt.shape, rt, fn, deps=[src, index], cost=2))
