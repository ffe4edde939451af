"""`tt.reduce` and `tt.scan` on the host: the combine region inlined in a loop nest.

A reduction writes its accumulators into buffers of the result shape, first from the
elements at index 0 of the axis, then combining the rest in row-major order: reducing
along the last axis the accumulator stays in a register (LLVM promotes it), along any other
axis the inner loop runs over contiguous accumulators and vectorises. A combine region that
is one associative float op gets `reassoc`, so LLVM may split the chain into SIMD lanes —
a tree order, like the GPU's, rather than the evaluator's pairwise one.
"""
from __future__ import annotations

import math
from typing import Optional

from ....ir import types as T
from .context import TV, Ctx, lowers, lty

_ASSOC = {"arith.addf": "fadd", "arith.mulf": "fmul"}
# Combine ops whose result does not depend on the order of the elements (up to float
# rounding for addf/mulf): their reductions may run as SIMD lanes of partial results.
_REORDERABLE = {"arith.addf", "arith.mulf", "arith.maxnumf", "arith.minnumf",
                "arith.maximumf", "arith.minimumf", "arith.addi", "arith.muli", "arith.maxsi",
                "arith.minsi", "arith.maxui", "arith.minui", "arith.andi", "arith.ori",
                "arith.xori"}


_ORDERED_CMP = {"ogt", "olt", "oge", "ole", "sgt", "slt", "sge", "sle", "ugt", "ult", "uge",
                "ule"}


def _is_select_extremum(op) -> bool:
    return _select_extremum(op) is not None


def _select_extremum(op) -> Optional[str]:
    """The predicate of `a` against `b` ("ogt", "slt", ...) when the combine picks one of
    its two operands by an ordering compare: `a if a > b else b` (min alike) on integers,
    or on floats also where `a` is NaN — Inductor's `maximum` and `minimum`
    (triton_helpers.max2/min2). Which element wins then does not depend on the order they
    come in (up to which of two equal values, e.g. -0.0 and 0.0, is kept). A float compare
    without the NaN check is not order free: NaN is neither > nor <. Else None."""
    from .arith import CMPF_PREDICATES, CMPI_PREDICATES, _pred
    region = op.regions[0].entry
    if len(region.args) != 2:
        return None
    a, b = region.args
    body = [o for o in region if o.name != "tt.reduce.return"]
    if len(body) not in (2, 4) or body[-1].name != "arith.select" \
            or list(body[-1].operands)[1:] != [a, b]:
        return None
    made = {o.results[0]: o for o in body[:-1]}
    cmp = made.get(body[-1].operand(0))
    if len(body) == 4:  # mask = (a > b) | isnan(a)
        if cmp is None or cmp.name != "arith.ori":
            return None
        x, y = (made.get(v) for v in cmp.operands)
        for cmp, isnan in ((x, y), (y, x)):
            if cmp is not None and isnan is not None and isnan.name == "arith.cmpf" \
                    and list(isnan.operands) == [a, a] \
                    and _pred(isnan, CMPF_PREDICATES) in ("une", "uno"):
                break
        else:
            return None
    elif cmp is None or cmp.name != "arith.cmpi":
        return None
    if cmp.name not in ("arith.cmpf", "arith.cmpi") or list(cmp.operands) != [a, b]:
        return None
    p = _pred(cmp, CMPF_PREDICATES if cmp.name == "arith.cmpf" else CMPI_PREDICATES)
    return p if p in _ORDERED_CMP else None


def _order_free(op) -> bool:
    """Whether the reduction's result does not depend on the order of its elements, so it
    may run as SIMD lanes of partial results."""
    return _single_op(op) in _REORDERABLE or (len(op.operands) == 1 and
                                              _is_select_extremum(op))


# Combines whose partials may be folded as a tree of neighbours with the same bits as the
# sequential fold: integer ops, and floats' maximumf/minimumf (NaN wins, -0.0 < 0.0).
# Inductor's max2/min2 (`_is_select_extremum`) too: a tie keeps the second operand, so
# both folds keep the highest lane among equal values, and a NaN first operand, so both
# keep the lowest NaN lane (each combine's first operand covers lower lanes). Not
# maxnumf/minnumf (either zero of a -0.0/0.0 tie) nor addf/mulf (`_VECTOR_FOLD`).
_EXACT_TREE = {"arith.addi", "arith.muli", "arith.maxsi", "arith.minsi", "arith.maxui",
               "arith.minui", "arith.andi", "arith.ori", "arith.xori", "arith.maximumf",
               "arith.minimumf"}
# Float sums and products, whose lane partials already associate a row differently from
# its sequential order: folded by LLVM's vector reduction (`reassoc`: a halving tree of
# SIMD ops). A chain of scalar combines through the partials' buffer was left a chain of
# 16 dependent adds in Inductor's variance (64 cycles a row), and a straight-line tree of
# scalar adds ran 10% slower than that in softmax.
_VECTOR_FOLD = {"arith.addf": "fadd", "arith.mulf": "fmul"}


def _tree_fold(op):
    """How `op`'s lane partials are folded: "fadd"/"fmul" (a vector reduction), True (a
    tree of neighbours) or False (a chain from lane 0)."""
    name = _single_op(op)
    if name in _VECTOR_FOLD and lty(op.results[0].type) in ("float", "double"):
        return _VECTOR_FOLD[name]
    return name in _EXACT_TREE or (len(op.operands) == 1 and _is_select_extremum(op))


def _single_op(op):
    region = op.regions[0].entry
    body = [o for o in region if o.name not in ("tt.reduce.return", "tt.scan.return")]
    if len(body) == 1 and len(region.args) == 2 and list(body[0].operands) == list(region.args):
        return body[0].name
    return None


def _combine(cx: Ctx, op, accs, curs):
    region = op.regions[0].entry
    body = [o for o in region if o.name not in ("tt.reduce.return", "tt.scan.return")]
    if len(body) == 1 and body[0].name in _ASSOC and len(accs) == 1 \
            and list(body[0].operands) == list(region.args):
        ty = lty(body[0].results[0].type)
        if ty in ("float", "double"):
            return [cx.emit(f"{_ASSOC[body[0].name]} reassoc nsz {ty} {accs[0]}, {curs[0]}")]
    return cx.run_block(region, list(accs) + list(curs))


# i1 combines done on bytes: an i1 buffer is a byte per element, and LLVM does not turn
# loops over them into SIMD (an `any` over 8x512 flags ran 3x slower than over i8s)
_BYTEWISE = {"arith.ori": "or", "arith.andi": "and", "arith.xori": "xor"}


@lowers("tt.reduce")
def _reduce(cx: Ctx, op):
    from .reduce_fuse import fuse
    if fuse(cx, op):
        return
    ins, ts, combine, post = prepare(cx, op)
    _reduce_with(cx, op, ins, ts, combine)
    post()


def prepare(cx: Ctx, op):
    """(operands, types, combine, post) of a reduction: i1 or/and/xor run on bytes (their
    operand widened, `post()` narrows the result back)."""
    ins = [cx.get(v) for v in op.operands]
    ts = [r.type for r in op.results]
    bitop = _BYTEWISE.get(_single_op(op)) if len(ins) == 1 else None
    if bitop is None or lty(ts[0]) != "i1" or not isinstance(ins[0], TV):
        return ins, ts, (lambda accs, curs: _combine(cx, op, accs, curs)), (lambda: None)
    x = ins[0]
    wide = TV(x.shape, T.i8, fn=lambda c, idx: c.emit(f"zext i1 {x.at(c, idx)} to i8"),
              deps=[x], pw=True)

    def post():
        r = op.results[0]
        got = cx.vals[r]
        if isinstance(got, TV):
            cx.vals[r] = TV(got.shape, ts[0], deps=[got], pw=True,
                            fn=lambda c, idx: c.emit(f"trunc i8 {got.at(c, idx)} to i1"))
        else:
            cx.vals[r] = cx.emit(f"trunc i8 {got} to i1")
    return [wide], [T.i8], lambda accs, curs: [cx.emit(f"{bitop} i8 {accs[0]}, {curs[0]}")], post


def _reduce_with(cx: Ctx, op, ins, ts, combine) -> None:
    axis = int(op.attr("axis"))
    shape = list(op.operand(0).type.shape)
    oshape = shape[:axis] + shape[axis + 1:]
    scalar = not oshape
    bufs, slot = slots(cx, ts, oshape)
    pshape = oshape or [1]

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
        outs = combine(accs, curs)
        for t, p, v in zip(ts, ptrs, outs):
            cx.do(f"store {lty(t)} {v}, ptr {p}")

    K = shape[axis]
    lanes = partial_lanes(cx)
    last = axis == len(shape) - 1
    lanewise = last and K >= 2 * lanes and _order_free(op)
    if lanewise and _reads_columns(cx, op):
        _column_partials(cx, combine, ins[0], ts[0], shape, lanes, lambda o: slot(0, o),
                         tree=_tree_fold(op))
    elif lanewise:
        lane_partials(cx, [(combine, ins[0], ts[0], lambda o: slot(0, o), _tree_fold(op))],
                      shape, lanes)
    elif K > 1:
        start = [0] * len(shape)
        start[axis] = 1
        # Along the last axis the accumulator is carried by the inner loop: keep it scalar.
        cx.loops(shape, step, start=start, vectorize=not last)
    bind(cx, op, ts, bufs, oshape)


def partial_lanes(cx: Ctx) -> int:
    """How many lane partials a reduction along a row keeps: one register of 32-bit lanes."""
    return max(4, cx.vector_bits // 32)


def slots(cx: Ctx, ts, oshape):
    """Result slots of a reduction to `oshape` ([] : scalars), and `slot(i, o)`."""
    bufs = [cx.alloca(lty(t), math.prod(oshape) if oshape else 1) for t in ts]

    def slot(i, o):
        if not oshape:
            return bufs[i]
        lin = cx.linear(oshape, o)
        return cx.emit(f"getelementptr inbounds {lty(ts[i])}, ptr {bufs[i]}, i32 {lin}")
    return bufs, slot


def bind(cx: Ctx, op, ts, bufs, oshape) -> None:
    for r, t, b in zip(op.results, ts, bufs):
        if not oshape:
            cx.vals[r] = cx.emit(f"load {lty(t)}, ptr {b}")
        elif lty(t) == "i1":  # (the slots hold i1 itself, buffers hold bytes)
            cx.vals[r] = TV(oshape, t, pw=True, fn=lambda c, idx, b=b: c.emit(
                f"load i1, ptr {c.emit(f'getelementptr inbounds i1, ptr {b}, i32 {c.linear(oshape, idx)}')}"))
        else:
            cx.vals[r] = TV(oshape, t, buf=b)


def lane_partials(cx: Ctx, specs, shape, lanes) -> None:
    """Reduce the last axis in `lanes` independent partial results (chunk c combines element
    c*lanes + l into partial l, a plain elementwise loop that vectorises; the K % lanes
    elements past the last whole chunk go into the first partials), then fold the
    partials, in halves with `tree` (a chain of `lanes` dependent combines otherwise). Only
    for combines whose result does not depend on the order (up to rounding: addf/mulf);
    `tree`: `_tree_fold`'s answer.

    `specs`: (combine, operand, type, slot, tree) of one or more reductions of one shape,
    run in one loop nest: operands that share values (the same loaded row) compute them
    once per chunk for all (reduce_fuse.py)."""
    K = shape[-1]
    whole, rem = divmod(K, lanes)
    outer = list(shape[:-1]) or [1]
    pshape = outer + [lanes]
    parts = [cx.new_buf(pshape, t) for _, _, t, _, _ in specs]

    def row(o):
        o = o if shape[:-1] else []
        po = o if shape[:-1] else ["0"]

        def first(l):
            for (_, x, t, _, _), part in zip(specs, parts):
                cx.store_buf(part, pshape, t, po + l, x.at(cx, o + l))
        cx.loops([lanes], first)

        def take(l, k):
            for (combine, x, t, _, _), part in zip(specs, parts):
                acc = cx.load_buf(TV(pshape, t, buf=part), po + l)
                cx.store_buf(part, pshape, t, po + l, combine([acc], [x.at(cx, o + [k])])[0])

        def chunk(c):
            cx.loops([lanes], lambda l: take(l, cx.emit(
                f"add nuw nsw i32 {cx.emit(f'mul nuw nsw i32 {c[0]}, {lanes}')}, {l[0]}")))
        cx.loops([whole], chunk, start=[1], vectorize=False)
        if rem:
            cx.loops([rem], lambda l: take(l, cx.emit(f"add nuw nsw i32 {l[0]}, {whole * lanes}")))
        for (combine, _, t, slot, tree), part in zip(specs, parts):
            _fold(cx, combine, t, TV(pshape, t, buf=part), po, lanes, slot(o), tree)
    cx.loops(outer, row, vectorize=False)


def _fold_values(combine, vals, tree) -> str:
    """The partials `vals` (in lane order) combined, straight-line: as a tree with `tree`
    — neighbours paired, the lower as the combine's first operand, as in the sequential
    fold (pairing l with l + lanes/2 instead let max2 keep another NaN) —, else as a
    chain from lane 0 (a vector fold's kind, "fadd"/"fmul", also gets the chain here)."""
    if tree is True:
        while len(vals) > 1:
            vals = [combine([vals[i]], [vals[i + 1]])[0] for i in range(0, len(vals), 2)]
        return vals[0]
    acc = vals[0]
    for v in vals[1:]:
        acc = combine([acc], [v])[0]
    return acc


def _fold(cx: Ctx, combine, t, part: TV, po, lanes, p: str, tree) -> None:
    ty = lty(t)
    if tree in ("fadd", "fmul"):
        at = cx.emit(f"getelementptr inbounds {ty}, ptr {part.buf}, "
                     f"i32 {cx.linear(part.shape, po + ['0'])}")
        v = cx.emit(f"load <{lanes} x {ty}>, ptr {at}, align {_BITS[ty] // 8}")
        name = f"llvm.vector.reduce.{tree}.v{lanes}f{_BITS[ty]}"
        cx.declare(name, f"declare {ty} @{name}({ty}, <{lanes} x {ty}>)")
        ident = "-0.000000e+00" if tree == "fadd" else "1.000000e+00"
        cx.do(f"store {ty} {cx.emit(f'call reassoc {ty} @{name}({ty} {ident}, <{lanes} x {ty}> {v})')}, "
              f"ptr {p}")
        return
    if tree:
        # (straight-line: loops of 8, 4, 2 and 1 trips ran slower than the chain)
        vals = [cx.load_buf(part, po + [str(i)]) for i in range(lanes)]
        cx.do(f"store {ty} {_fold_values(combine, vals, tree)}, ptr {p}")
        return
    cx.do(f"store {ty} {cx.load_buf(part, po + ['0'])}, ptr {p}")

    def fold(l):
        acc = cx.emit(f"load {ty}, ptr {p}")
        cx.do(f"store {ty} {combine([acc], [cx.load_buf(part, po + l)])[0]}, ptr {p}")
    cx.loops([lanes], fold, start=[1], vectorize=False)


_THROUGH = {"arith.select", "tt.broadcast", "tt.splat", "arith.constant", "tt.expand_dims",
            "tt.make_range"}


def _reads_columns(cx: Ctx, op) -> bool:
    """Whether a 2-D reduction along its last axis reads memory consecutive down the other
    axis and strided along the reduced one (Inductor's sums over dim 0: `x0 + 261*r0`):
    every load its operand is computed from (elementwise) has that pointer."""
    t = op.operand(0).type
    if len(op.operands) != 1 or not isinstance(t, T.TensorType) or len(t.shape) != 2 \
            or t.shape[0] < 4 or cx.func is None:
        return False
    from ....ir.ops import lookup
    loads, stack, seen = [], [op.operand(0)], set()
    while stack:
        v = stack.pop()
        d = getattr(v, "op", None)
        if d is None or len(seen) > 64:
            return False
        if id(d) in seen:
            continue
        seen.add(id(d))
        if d.name == "tt.load":
            loads.append(d)
        elif d.name in _THROUGH or ("Elementwise" in lookup(d.name).traits and not d.regions):
            stack.extend(x for x in d.operands if isinstance(x.type, T.TensorType))
        else:
            return False
    info = cx.axis_info()
    return bool(loads) and all(
        info.get(ld.operand(0)).contiguity[0] >= min(4, t.shape[0])
        and info.get(ld.operand(0)).contiguity[1] == 1 for ld in loads)


def _column_partials(cx: Ctx, combine, x, t, shape, lanes, slot, tree) -> None:
    """`lane_partials`' order of combines (partial l of row o takes elements l, l + lanes,
    ... of the row), with the rows innermost: the partials are kept transposed, [lane, row],
    so a step over all rows is one SIMD op on consecutive memory where the operand's rows
    are consecutive (column sums) and the row-wise order would gather every element."""
    X, K = shape
    whole, rem = divmod(K, lanes)
    ps = [lanes, X]
    part = cx.new_buf(ps, t)
    # Rows fewer than a register holds: a narrower vector, unmasked (a masked store of a
    # partial, read back a chunk later, does not forward: 2x slower than gathering rows)
    w = 1 << (min(X, lanes).bit_length() - 1)
    cx.loops(ps, lambda lo: cx.store_buf(part, ps, t, lo, x.at(cx, [lo[1], lo[0]])), width=w)

    def add(lo, base):
        k = cx.emit(f"add nuw nsw i32 {lo[0]}, {base}") if base != "0" else lo[0]
        acc = cx.load_buf(TV(ps, t, buf=part), lo)
        cx.store_buf(part, ps, t, lo, combine([acc], [x.at(cx, [lo[1], k])])[0])

    cx.loops([whole], lambda c: cx.loops(ps, lambda lo: add(
        lo, cx.emit(f"mul nuw nsw i32 {c[0]}, {lanes}")), width=w), start=[1], vectorize=False)
    if rem:
        cx.loops([rem, X], lambda lo: add(lo, str(whole * lanes)), width=w)

    def fold(o):
        vals = [cx.load_buf(TV(ps, t, buf=part), [str(i), o[0]]) for i in range(lanes)]
        cx.do(f"store {lty(t)} {_fold_values(combine, vals, tree)}, ptr {slot(o)}")
    cx.loops([X], fold, width=w)


@lowers("tt.scan")
def _scan(cx: Ctx, op):
    axis = int(op.attr("axis"))
    rev = bool(op.attr("reverse", False))
    ins = [cx.get(v) for v in op.operands]
    shape = list(op.operand(0).type.shape)
    ts = [r.type for r in op.results]
    bufs = [cx.new_buf(shape, t) for t in ts]
    if axis == len(shape) - 1:
        _scan_rows(cx, op, ins, shape, ts, bufs, rev)
    else:
        _scan_columns(cx, op, ins, shape, ts, bufs, rev, axis)
    for r, t, b in zip(op.results, ts, bufs):
        cx.vals[r] = TV(shape, t, buf=b)


def _scan_columns(cx: Ctx, op, ins, shape, ts, bufs, rev: bool, axis: int) -> None:
    """A scan along an axis other than the last: each step reads the previous element
    from the buffer, and the inner loop (along the last axis) runs many chains at once,
    as SIMD."""
    n = shape[axis]

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


def _scan_rows(cx: Ctx, op, ins, shape, ts, bufs, rev: bool) -> None:
    """A scan along the last axis, row by row, the running value carried in a scalar slot
    (a register to LLVM). Reading it back from the row's buffer instead put a store-to-load
    round trip on every step of the chain, unless LLVM happened to forward it: 3x slower
    at some row lengths (256, 261) than at others (272)."""
    n = shape[-1]
    tys = [lty(t) for t in ts]
    if not rev and len(ins) == 1 and _single_op(op) in _VECTOR_SCAN.get(tys[0], ()):
        lanes = cx.vector_bits // _BITS[tys[0]]
        if n >= 2 * lanes:
            _sum_rows_in_registers(cx, ins[0], shape, ts[0], bufs[0], lanes)
            return
    running = [cx.alloca(ty) for ty in tys]

    def row(outer):
        def put(here, vals):
            for i, v in enumerate(vals):
                cx.store_buf(bufs[i], shape, ts[i], here, v)
                cx.do(f"store {tys[i]} {v}, ptr {running[i]}")
        start = outer + [str(n - 1 if rev else 0)]
        put(start, [x.at(cx, start) for x in ins])

        def step(jdx):
            k = cx.emit(f"sub i32 {n - 1}, {jdx[0]}") if rev else jdx[0]
            here = outer + [k]
            accs = [cx.emit(f"load {ty}, ptr {sl}") for ty, sl in zip(tys, running)]
            put(here, _combine(cx, op, accs, [x.at(cx, here) for x in ins]))
        if n > 1:
            cx.loops([n], step, start=[1], vectorize=False)
    cx.loops(shape[:-1] or [1], lambda outer: row(outer if shape[:-1] else []),
             vectorize=False)


_BITS = {"float": 32, "double": 64, "i32": 32, "i64": 64}
_VECTOR_SCAN = {"float": ("arith.addf",), "double": ("arith.addf",), "i32": ("arith.addi",),
                "i64": ("arith.addi",)}


def _sum_rows_in_registers(cx: Ctx, x: TV, shape, t, buf: str, lanes: int) -> None:
    """A cumulative sum along the last axis, a SIMD register at a time: the row copied in
    (a loop LLVM vectorises), then each register's prefix sums by log2(lanes) shifted adds,
    plus the running total of the registers before it; the tail one by one.
    The sequential chain was one dependent add per element (51 of the 89 us of Inductor's
    amax/var/cumsum kernel over 256 rows of 261). Float sums are associated differently
    from a sequential scan's, as upstream's GPU scan's are: within a register as a tree,
    across registers in order. The shifted-in identity is -0.0, so a row of -0.0 sums to
    -0.0 as sequentially."""
    n = shape[-1]
    ty = lty(t)
    vt = f"<{lanes} x {ty}>"
    add = "fadd" if ty in ("float", "double") else "add"
    ident = "-0.000000e+00" if add == "fadd" else "0"
    fill = f"<{', '.join([f'{ty} {ident}'] * lanes)}>"
    carry = cx.alloca(ty)

    def row(outer):
        cx.loops([n], lambda j: cx.store_buf(buf, shape, t, outer + j, x.at(cx, outer + j)))
        base = cx.emit(f"getelementptr inbounds {ty}, ptr {buf}, "
                       f"i32 {cx.linear(shape, outer + ['0'])}")
        cx.do(f"store {ty} {ident}, ptr {carry}")

        def chunk(c):
            p = cx.emit(f"getelementptr inbounds {ty}, ptr {base}, "
                        f"i32 {cx.emit(f'mul nuw nsw i32 {c[0]}, {lanes}')}")
            v = cx.emit(f"load {vt}, ptr {p}, align {_BITS[ty] // 8}")
            s = 1
            while s < lanes:
                mask = ", ".join(f"i32 {i - s if i >= s else lanes}" for i in range(lanes))
                v = cx.emit(f"{add} {vt} {v}, "
                            + cx.emit(f"shufflevector {vt} {v}, {vt} {fill}, <{lanes} x i32> <{mask}>"))
                s *= 2
            one = cx.emit(f"insertelement {vt} poison, {ty} "
                          + cx.emit(f"load {ty}, ptr {carry}") + ", i32 0")
            v = cx.emit(f"{add} {vt} {v}, " + cx.emit(
                f"shufflevector {vt} {one}, {vt} poison, <{lanes} x i32> zeroinitializer"))
            cx.do(f"store {vt} {v}, ptr {p}, align {_BITS[ty] // 8}")
            cx.do(f"store {ty} {cx.emit(f'extractelement {vt} {v}, i32 {lanes - 1}')}, "
                  f"ptr {carry}")
        cx.loops([n // lanes], chunk, vectorize=False)

        def tail(j):
            here = outer + j
            v = cx.emit(f"{add} {ty} {cx.emit(f'load {ty}, ptr {carry}')}, "
                        + cx.load_buf(TV(shape, t, buf=buf), here))
            cx.store_buf(buf, shape, t, here, v)
            cx.do(f"store {ty} {v}, ptr {carry}")
        if n % lanes:
            cx.loops([n], tail, start=[n - n % lanes], vectorize=False)
    cx.loops(shape[:-1] or [1], lambda outer: row(outer if shape[:-1] else []),
             vectorize=False)


@lowers("tt.histogram")
def _histogram(cx: Ctx, op):
    """Counts of each value in [0, bins) (others are not counted), under an optional mask."""
    x = cx.get(op.operand(0))
    mask = cx.get(op.operand(1)) if len(op.operands) > 1 else None
    rt = op.results[0].type
    bins = rt.shape[0]
    xty = lty(op.operand(0).type)
    out = cx.new_buf(rt.shape, rt)
    cx.loops(rt.shape, lambda idx: cx.store_buf(out, rt.shape, rt, idx, "0"))

    def count(idx):
        v = x.at(cx, idx)
        ok = cx.emit(f"icmp ult {xty} {v}, {bins}")
        if mask is not None:
            ok = cx.emit(f"and i1 {ok}, {mask.at(cx, idx)}")

        def bump():
            i = v if xty == "i32" else cx.emit(
                f"{'trunc' if int(xty[1:]) > 32 else 'zext'} {xty} {v} to i32")
            p = cx.emit(f"getelementptr inbounds i32, ptr {out}, i32 {i}")
            old = cx.emit(f"load i32, ptr {p}")
            cx.do(f"store i32 {cx.emit(f'add i32 {old}, 1')}, ptr {p}")
        cx.cond(ok, bump)
    cx.loops(op.operand(0).type.shape, count)
    cx.vals[op.results[0]] = TV(rt.shape, rt, buf=out)
