"""Pointers, loads, stores and atomics on the host.

A pointer is a real address; `tt.addptr` is a GEP over the pointee's storage type, so a
pointer tensor built from `base + offsets` stays affine in the loop index and LLVM sees
contiguous accesses. Masked elements branch around the access (the vectoriser turns that
into masked SIMD loads and stores); nothing is checked per access, as on the GPU. Atomics
are LLVM's `atomicrmw` / `cmpxchg`, so programs running on other cores synchronise for real.
"""
from __future__ import annotations

from ....ir import types as T
from ....ir.ops import ATOMIC_RMW_OPS
from .context import TV, Ctx, Unsupported, elem, elementwise, lowers, lty, mem_ty, operand_at
from .stream import can_stream, streaming_store

_RMW = {v: k for k, v in ATOMIC_RMW_OPS.items()}
_LLVM_RMW = {"and": "and", "or": "or", "xor": "xor", "add": "add", "fadd": "fadd",
             "max": "max", "min": "min", "umax": "umax", "umin": "umin", "exch": "xchg"}


def pointee(t: T.Type) -> T.Type:
    return elem(t).pointee


def _align(mty: str) -> int:
    return {"i8": 1, "i16": 2, "half": 2, "i32": 4, "float": 4, "i64": 8, "double": 8,
            "ptr": 8}[mty]


def from_mem(cx: Ctx, t: T.Type, raw: str) -> str:
    mty = mem_ty(t)
    if mty == "i8" and lty(t) == "i1":
        return cx.emit(f"icmp ne i8 {raw}, 0")
    if mty == "i8" and lty(t) == "float":             # fp8 bits -> float
        from .fp8 import decode, fp8_format
        return decode(cx, fp8_format(t), raw)
    if mty == "i16" and lty(t) == "float":            # bf16 bits -> float
        w = cx.emit(f"zext i16 {raw} to i32")
        w = cx.emit(f"shl i32 {w}, 16")
        return cx.emit(f"bitcast i32 {w} to float")
    return raw


def to_mem(cx: Ctx, t: T.Type, v: str) -> str:
    mty = mem_ty(t)
    if mty == "i8" and lty(t) == "i1":
        return cx.emit(f"zext i1 {v} to i8")
    if mty == "i8" and lty(t) == "float":             # fp8: the value is exact
        from .fp8 import encode, fp8_format
        return encode(cx, fp8_format(t), v)
    if mty == "i16" and lty(t) == "float":
        w = cx.emit(f"bitcast float {v} to i32")
        w = cx.emit(f"lshr i32 {w}, 16")
        return cx.emit(f"trunc i32 {w} to i16")
    return v


def load_one(cx: Ctx, t: T.Type, p: str, volatile: bool) -> str:
    mty = mem_ty(t)
    vol = "volatile " if volatile else ""
    return from_mem(cx, t, cx.emit(f"load {vol}{mty}, ptr {p}, align {_align(mty)}"))


def store_one(cx: Ctx, t: T.Type, p: str, v: str) -> None:
    mty = mem_ty(t)
    cx.do(f"store {mty} {to_mem(cx, t, v)}, ptr {p}, align {_align(mty)}")


@lowers("tt.addptr")
def _addptr(cx: Ctx, op):
    mty = mem_ty(pointee(op.operand(0).type))
    oty = lty(op.operand(1).type)
    elementwise(cx, op, lambda c, p, o: c.emit(f"getelementptr {mty}, ptr {p}, {oty} {o}"))


@lowers("tt.int_to_ptr")
def _itp(cx: Ctx, op):
    ty = lty(op.operand(0).type)
    elementwise(cx, op, lambda c, a: c.emit(f"inttoptr {ty} {a} to ptr"))


@lowers("tt.ptr_to_int")
def _pti(cx: Ctx, op):
    ty = lty(op.results[0].type)
    elementwise(cx, op, lambda c, a: c.emit(f"ptrtoint ptr {a} to {ty}"))


def _zero(t: T.Type) -> str:
    ty = lty(t)
    return {"half": "0xH0000", "float": "0.0", "double": "0.0", "ptr": "null",
            "i1": "false"}.get(ty, "0")


@lowers("tt.load")
def _load(cx: Ctx, op):
    rt = op.results[0].type
    t = elem(rt)
    ty = lty(t)
    vol = bool(op.attr("isVolatile", False))
    ins = [cx.get(v) for v in op.operands]
    ptr, mask, other = (ins + [None, None])[:3]

    def one(c, idx):
        p = operand_at(c, ptr, idx)
        if mask is None or id(mask) in c.known_true:
            return load_one(c, t, p, vol)
        m = operand_at(c, mask, idx)
        o = operand_at(c, other, idx) if other is not None else _zero(t)
        return c.cond(m, lambda: load_one(c, t, p, vol), o, ty)
    if not isinstance(rt, T.TensorType):
        cx.set(op.results[0], one(cx, []))
        return
    tv = TV(rt.shape, rt, one, deps=ins, impure=True, cost=2, pw=True)
    if isinstance(ptr, TV) and rt.shape[-1] > 1 and (
            _reads_buffer(ptr) or _rows_contiguous(cx, op.operand(0))):
        fill = lambda c, dst: _fill_rows(c, dst, tv, ptr, mask, other, vol,  # noqa: E731
                                         _rows_contiguous(c, op.operand(0)))
    else:
        fill = lambda c, dst: c.loops(tv.shape, lambda idx: c.store_buf(  # noqa: E731
            dst, tv.shape, t, idx, tv.at(c, idx)))
    mask_v = op.operand(1) if len(op.operands) > 1 else None
    group = _run_length(cx, op.operand(0)) if isinstance(ptr, TV) and not vol else 0
    if group:
        fill = lambda c, dst: _fill_groups(c, dst, tv, ptr, mask, other, group)  # noqa: E731
    tv.fill = lambda c, dst: unmasked_if_full(c, mask, lambda: fill(c, dst), mask_v)
    cx.set(op.results[0], tv)
    if group and tv.buf is None:
        # Loaded whole here, in runs, rather than element by element where it is used:
        # there LLVM sees `base + i % 16` (Inductor's per-channel parameters) as a gather
        cx.materialize(tv)


def unmasked_if_full(cx: Ctx, mask, emit, mask_value=None) -> None:
    """Emit `emit()` twice, behind a run-time test of whether `mask` is true everywhere:
    in the copy for a full block the mask is known true, so loads and stores are plain SIMD
    (only the ragged last block takes the masked copy). Masks that read memory, or
    that are already known, are not tested. `mask_value` (the TTIR value) lets the test
    look through broadcasts and `&` (`all_true`)."""
    if not isinstance(mask, TV) or mask.impure or id(mask) in cx.known_true:
        emit()
        return
    full = all_true(cx, mask_value) if mask_value is not None else _all_elements(cx, mask)
    yes, no, join = cx.label("full"), cx.label("ragged"), cx.label("joined")
    cx.do(f"br i1 {full}, label %{yes}, label %{no}")
    cx.start_block(yes)
    cx.known_true.add(id(mask))
    emit()
    cx.known_true.discard(id(mask))
    cx.br(join)
    cx.start_block(no)
    emit()
    cx.br(join)
    cx.start_block(join)


_SAME_ELEMENTS = ("tt.broadcast", "tt.expand_dims", "tt.splat", "tt.reshape")


def all_true(cx: Ctx, v) -> str:
    """An i1: whether every element of mask `v` holds. A broadcast (or splat, expand_dims,
    reshape) holds everywhere when its source does, and `a & b` when both do, so the
    [64, 32] mask `(rm < M)[:, None] & (rk < K - k)[None, :]` costs 64 + 32 tests, not
    2048."""
    x = cx.get(v)
    if not isinstance(x, TV):
        return x
    op = v.owner_op
    if op is not None and op.name in _SAME_ELEMENTS:
        return all_true(cx, op.operand(0))
    if op is not None and op.name == "arith.andi":
        return cx.emit(f"and i1 {all_true(cx, op.operand(0))}, {all_true(cx, op.operand(1))}")
    last = _increasing_last(cx, op) if op is not None and op.name == "arith.cmpi" else None
    if last is not None:
        return last
    return _all_elements(cx, x)


def _increasing_last(cx: Ctx, op):
    """`offs < n` (or <=, signed) with `offs` consecutive along its one dim (AxisInfo) and `n` the
    same everywhere holds everywhere when it holds for the last, largest element (AxisInfo
    assumes index arithmetic does not wrap, as upstream). None when that does not apply."""
    from .arith import CMPI_PREDICATES, _pred
    p = _pred(op, CMPI_PREDICATES)
    lhs, rhs = op.operand(0), op.operand(1)
    t = lhs.type
    # signed only: [-2, -1, 0, 1] increases, but not as unsigned numbers
    if p not in ("slt", "sle") or not isinstance(t, T.TensorType) or \
            len(t.shape) != 1 or cx.func is None:
        return None
    info = cx.axis_info()
    if info.get(lhs).contiguity[0] < t.shape[0] or info.get(rhs).constancy[0] < t.shape[0]:
        return None
    a, b = cx.get(lhs), cx.get(rhs)
    if not isinstance(a, TV):
        return None
    end = [str(t.shape[0] - 1)]
    bv = b.at(cx, end) if isinstance(b, TV) else b
    return cx.emit(f"icmp {p} {lty(t)} {a.at(cx, end)}, {bv}")


def _all_elements(cx: Ctx, mask: TV) -> str:
    flag = cx.alloca("i1")
    cx.do(f"store i1 true, ptr {flag}")

    def check(idx):
        acc = cx.emit(f"load i1, ptr {flag}")
        cx.do(f"store i1 {cx.emit(f'and i1 {acc}, {mask.at(cx, idx)}')}, ptr {flag}")
    cx.loops(mask.shape, check, interleave=4)    # 4 chains of mask ANDs, not one
    return cx.emit(f"load i1, ptr {flag}")


def _reads_buffer(tv: TV) -> bool:
    stack = [tv]
    while stack:
        x = stack.pop()
        if x.buf is not None:
            return True
        stack.extend(x.deps)
    return False


def _rows_contiguous(cx: Ctx, ptr) -> bool:
    """Whether the AxisInfo analysis proves each row of pointer tensor `ptr` consecutive."""
    t = ptr.type
    return isinstance(t, T.TensorType) and cx.func is not None and \
        cx.axis_info().get(ptr).contiguity[-1] >= t.shape[-1]


def _fill_rows(cx: Ctx, dst: str, tv: TV, ptr: TV, mask, other, vol: bool,
               known: bool = False) -> None:
    """Materialise a load row by row from each row's first pointer, where LLVM cannot see
    that a row is contiguous (pointers from a buffer, a pointer tensor carried by a loop, or
    i32 offset arithmetic it cannot prove free of overflow): with `known` (AxisInfo proved
    it) SIMD loads directly; else check each row at run time and load it with SIMD loads
    when its pointers are consecutive, element by element (gathers) otherwise."""
    t, shape = tv.t, list(tv.shape)
    mty = mem_ty(t)
    n = shape[-1]

    def row(outer):
        p0 = ptr.at(cx, outer + ["0"])
        if known:
            load_row(outer, p0, True)
            return
        okp = cx.alloca("i1")
        cx.do(f"store i1 true, ptr {okp}")

        def check(idx):
            want = cx.emit(f"getelementptr {mty}, ptr {p0}, i32 {idx[-1]}")
            same = cx.emit(f"icmp eq ptr {want}, {ptr.at(cx, outer + idx[-1:])}")
            acc = cx.emit(f"load i1, ptr {okp}")
            cx.do(f"store i1 {cx.emit(f'and i1 {acc}, {same}')}, ptr {okp}")
        cx.loops([n], check)
        ok = cx.emit(f"load i1, ptr {okp}")
        fast, slow, join = cx.label("contig"), cx.label("gather"), cx.label("rowdone")
        cx.do(f"br i1 {ok}, label %{fast}, label %{slow}")
        for label, contiguous in ((fast, True), (slow, False)):
            cx.start_block(label)
            load_row(outer, p0, contiguous)
            cx.br(join)
        cx.start_block(join)

    def load_row(outer, p0, contiguous):
        def elem_(idx):
            full = outer + idx[-1:]
            if contiguous:
                p = cx.emit(f"getelementptr {mty}, ptr {p0}, i32 {idx[-1]}")
            else:
                p = ptr.at(cx, full)
            cx.store_buf(dst, shape, t, full, _masked_load(cx, t, p, vol, mask, other, full))
        cx.loops([n], elem_)
    cx.loops(shape[:-1] or [1], lambda outer: row(outer if shape[:-1] else []))


def _masked_load(cx: Ctx, t, p: str, vol: bool, mask, other, full) -> str:
    """One element loaded from p, or `other` (zero) where the mask is off."""
    if mask is None or id(mask) in cx.known_true:
        return load_one(cx, t, p, vol)
    m = operand_at(cx, mask, full)
    o = operand_at(cx, other, full) if other is not None else _zero(t)
    return cx.cond(m, lambda: load_one(cx, t, p, vol), o, lty(t))


def _run_length(cx: Ctx, ptr) -> int:
    """c when AxisInfo proves the pointer tensor's last dimension consecutive in runs of c
    (aligned at multiples of c), with whole SIMD registers per run but not a whole row
    (rows already load as runs: `_fill_rows`); else 0."""
    t = ptr.type
    if not isinstance(t, T.TensorType) or cx.func is None:
        return 0
    n = t.shape[-1]
    c = cx.axis_info().get(ptr).contiguity[-1]
    lanes = max(4, cx.vector_bits // 32)
    return c if lanes <= c < n and n % c == 0 and c % lanes == 0 else 0


def _fill_groups(cx: Ctx, dst: str, tv: TV, ptr: TV, mask, other, c: int) -> None:
    """Materialise a load run by run: each run of c elements from its first pointer."""
    t, shape = tv.t, list(tv.shape)
    mty = mem_ty(t)

    def run(o):
        outer, g = o[:-1] if len(shape) > 1 else [], o[-1]
        first = cx.emit(f"mul nuw nsw i32 {g}, {c}")
        p0 = ptr.at(cx, outer + [first])

        def one(l):
            full = outer + [cx.emit(f"add nuw nsw i32 {first}, {l[0]}")]
            p = cx.emit(f"getelementptr {mty}, ptr {p0}, i32 {l[0]}")
            cx.store_buf(dst, shape, t, full, _masked_load(cx, t, p, False, mask, other, full))
        cx.loops([c], one)
    cx.loops(shape[:-1] + [shape[-1] // c], run)


@lowers("tt.store")
def _store(cx: Ctx, op):
    ins = [cx.get(v) for v in op.operands]
    ptr, val, mask = (ins + [None])[:3]
    t = elem(op.operand(1).type)
    cx.flush_pending(keep=ins)

    def one(c, idx):
        p = operand_at(c, ptr, idx)
        if mask is None or id(mask) in c.known_true:
            store_one(c, t, p, operand_at(c, val, idx))
            return
        m = operand_at(c, mask, idx)
        c.cond(m, lambda: store_one(c, t, p, operand_at(c, val, idx)))
    st = op.operand(0).type
    if isinstance(st, T.TensorType):
        def emit():
            plain = lambda: cx.loops(st.shape, lambda idx: one(cx, idx))  # noqa: E731
            if (mask is None or id(mask) in cx.known_true) and can_stream(cx, op, st.shape):
                streaming_store(cx, op, ptr, st.shape,
                                lambda idx, p: store_one(cx, t, p, operand_at(cx, val, idx)),
                                plain)
            else:
                plain()
        unmasked_if_full(cx, mask, emit, op.operand(2) if len(op.operands) > 2 else None)
    else:
        one(cx, [])


def _atomic(cx: Ctx, op, emit_one) -> None:
    """Shared shape of the atomics: one access per (unmasked) element, old values kept."""
    ins = [cx.get(v) for v in op.operands]
    cx.flush_pending(keep=ins)
    rt = op.results[0].type
    t = elem(rt)
    if lty(t) == "i1" or mem_ty(t) != lty(t):
        raise Unsupported(f"atomics on {t}")
    mask = ins[2] if op.name == "tt.atomic_rmw" and len(ins) > 2 else None

    def one(c, idx):
        vals = [operand_at(c, x, idx) for x in ins]
        if mask is None:
            return emit_one(c, t, *vals[:3 if op.name == "tt.atomic_cas" else 2])
        m = operand_at(c, mask, idx)
        return c.cond(m, lambda: emit_one(c, t, *vals[:2]), _zero(t), lty(t))
    if not isinstance(rt, T.TensorType):
        cx.set(op.results[0], one(cx, []))
        return
    buf = cx.new_buf(rt.shape, rt)
    cx.loops(rt.shape, lambda idx: cx.store_buf(buf, rt.shape, t, idx, one(cx, idx)))
    cx.vals[op.results[0]] = TV(rt.shape, rt, buf=buf)


@lowers("tt.atomic_rmw")
def _rmw(cx: Ctx, op):
    kind = op.attr("atomic_rmw_op")
    kind = kind if isinstance(kind, str) else _RMW[int(kind)]
    instr = _LLVM_RMW[kind]

    def one(c, t, p, v):
        ty = lty(t)
        return c.emit(f"atomicrmw {instr} ptr {p}, {ty} {v} seq_cst, align {_align(ty)}")
    _atomic(cx, op, one)


@lowers("tt.atomic_cas")
def _cas(cx: Ctx, op):
    def one(c, t, p, cmp, v):
        ty = lty(t)
        if ty in ("half", "float", "double"):
            ity = {"half": "i16", "float": "i32", "double": "i64"}[ty]
            cmp = c.emit(f"bitcast {ty} {cmp} to {ity}")
            v = c.emit(f"bitcast {ty} {v} to {ity}")
            pair = c.emit(f"cmpxchg ptr {p}, {ity} {cmp}, {ity} {v} seq_cst seq_cst")
            old = c.emit(f"extractvalue {{ {ity}, i1 }} {pair}, 0")
            return c.emit(f"bitcast {ity} {old} to {ty}")
        pair = c.emit(f"cmpxchg ptr {p}, {ty} {cmp}, {ty} {v} seq_cst seq_cst")
        return c.emit(f"extractvalue {{ {ty}, i1 }} {pair}, 0")
    _atomic(cx, op, one)

