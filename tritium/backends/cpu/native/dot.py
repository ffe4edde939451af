"""`tt.dot` on the host: a register-blocked FMA kernel over materialised tiles.

The accumulator tile is updated in place when the dot is its only reader (the usual
`acc = tl.dot(a, b, acc)` in a K loop), so no copy per iteration. The kernel walks the
output in blocks of `MR` rows by `NR` columns held in LLVM vector registers (NR = two
vectors of the machine's width), streaming one row of B and broadcasting one element of A
per FMA group: 2*MR FMAs per 2 loads of B, enough to keep the FMA units busy. Ragged tile
sizes fall back to the plain loop nest, which LLVM vectorises along N.
"""
from __future__ import annotations

from ....ir import types as T
from .arith import call_fintrinsic, rounded
from .context import TV, Ctx, Unsupported, lowers, lty


def _acc_in_place(cx: Ctx, op, c) -> bool:
    v = op.operand(2)
    return (isinstance(c, TV) and c.buf is not None and c.buf.startswith("%")
            and len({id(u) for u in v.users}) == 1 and len(v.uses) == 1
            and v.parent_block is op.parent)


def _widen(cx: Ctx, x: str, src: str, dst: str) -> str:
    if src == dst:
        return x
    if dst.startswith("i"):
        return cx.emit(f"sext {src} {x} to {dst}")
    return cx.emit(f"fpext {src} {x} to {dst}")


@lowers("tt.dot")
def _dot(cx: Ctx, op):
    a, b, c = (cx.get(v) for v in op.operands[:3])
    at, bt, ct = (elem_of(v.type) for v in op.operands[:3])
    ashape, bshape = op.operand(0).type.shape, op.operand(1).type.shape
    M, K = ashape[-2:]
    N = bshape[-1]
    batch = ashape[0] if len(ashape) == 3 else 1
    rt = op.results[0].type
    cty = lty(ct)
    narrow = cty == "half" or (cty == "float" and ct.name != "f32")     # bf16, fp8
    work = "float" if narrow else cty
    if work not in ("float", "double", "i32", "i64"):
        raise Unsupported(f"tt.dot accumulating in {ct}")
    aty, bty = lty(at), lty(bt)
    cx.materialize(a)
    cx.materialize(b)
    if narrow:
        # As the evaluator: the product in f32, then + c, then one rounding to c's type.
        acc = cx.new_buf(rt.shape, F32)
        cx.loops(rt.shape, lambda idx: cx.store_buf(acc, rt.shape, F32, idx, "0.0"))
    elif _acc_in_place(cx, op, c):
        acc = c.buf
    else:
        acc = cx.new_buf(rt.shape, rt)
        cx.copy_into(acc, rt.shape, rt, c)
    width = max(1, cx.vector_bits // (32 if work in ("float", "i32") else 64))
    for i in range(batch):
        pa, pb, pc = (_sub(cx, buf, i * n, ty) for buf, n, ty in
                      ((a.buf, M * K, aty), (b.buf, K * N, bty), (acc, M * N, work)))
        if work in ("float", "double") and N % (2 * width) == 0 and M % 4 == 0:
            _blocked(cx, pa, pb, pc, M, N, K, aty, bty, work, width)
        else:
            _plain(cx, pa, pb, pc, M, N, K, aty, bty, work)
    if narrow:
        out = cx.new_buf(rt.shape, rt)

        def finish(idx):
            prod = cx.load_buf(TV(rt.shape, F32, buf=acc), idx)
            cv = _widen(cx, c.at(cx, idx), cty, "float")
            s = cx.emit(f"fadd float {prod}, {cv}")
            if cty == "half":
                s = cx.emit(f"fptrunc float {s} to half")
            else:
                s = rounded(cx, ct, s)
            cx.store_buf(out, rt.shape, rt, idx, s)
        cx.loops(rt.shape, finish)
        acc = out
    cx.vals[op.results[0]] = TV(rt.shape, rt, buf=acc)


F32 = T.FloatType("f32")


def _sub(cx: Ctx, buf: str, offset: int, ty: str) -> str:
    if offset == 0:
        return buf
    return cx.emit(f"getelementptr inbounds {ty}, ptr {buf}, i32 {offset}")


def elem_of(t):
    return t.element_type if isinstance(t, T.TensorType) else t


def _plain(cx, a, b, out, M, N, K, aty, bty, cty):
    def body(idx):
        m, k, n = idx
        av = _widen(cx, cx.load_buf(TV((M, K), _t(aty), buf=a), [m, k]), aty, cty)
        bv = _widen(cx, cx.load_buf(TV((K, N), _t(bty), buf=b), [k, n]), bty, cty)
        lin = cx.linear((M, N), [m, n])
        p = cx.emit(f"getelementptr inbounds {cty}, ptr {out}, i32 {lin}")
        cv = cx.emit(f"load {cty}, ptr {p}")
        if cty.startswith("i"):
            r = cx.emit(f"add {cty} {cv}, " + cx.emit(f"mul {cty} {av}, {bv}"))
        else:
            r = call_fintrinsic(cx, "fma", cty, av, bv, cv)
        cx.do(f"store {cty} {r}, ptr {p}")
    cx.loops((M, K, N), body)


_TY = {"half": T.FloatType("f16"), "float": T.FloatType("f32"), "double": T.FloatType("f64"),
       "i8": T.IntegerType(8), "i16": T.IntegerType(16), "i32": T.IntegerType(32),
       "i64": T.IntegerType(64)}


def _t(ty: str):
    return _TY[ty]


def _blocked(cx, a, b, out, M, N, K, aty, bty, cty, w):
    """out[M,N] += a[M,K] @ b[K,N] with MR x (2 vectors) register tiles."""
    MR, NV = 4, 2
    vty = f"<{w} x {cty}>"
    sfx = {"float": "f32", "double": "f64"}[cty]
    fma = f"llvm.fma.v{w}{sfx}"
    cx.declare(fma, f"declare {vty} @{fma}({vty}, {vty}, {vty})")
    bvty = f"<{w} x {bty}>"

    def tile(idx):
        m0 = cx.emit(f"mul nuw nsw i32 {idx[0]}, {MR}")
        n0 = cx.emit(f"mul nuw nsw i32 {idx[1]}, {NV * w}")
        cptr = [[None] * NV for _ in range(MR)]
        accs0 = []
        for r in range(MR):
            row = cx.emit(f"add nuw nsw i32 {m0}, {r}")
            for v in range(NV):
                col = cx.emit(f"add nuw nsw i32 {n0}, {v * w}")
                lin = cx.linear((M, N), [row, col])
                cptr[r][v] = cx.emit(f"getelementptr inbounds {cty}, ptr {out}, i32 {lin}")
                accs0.append(cx.emit(f"load {vty}, ptr {cptr[r][v]}, align 4"))
        pre = cx.block
        head, done = cx.label("k"), cx.label("kdone")
        cx.br(head)
        cx.start_block(head)
        k = cx.fresh("k")
        phis_at = len(cx.lines)
        accs = [cx.fresh("acc") for _ in accs0]
        cx.lines.extend([None] * (len(accs) + 1))
        bvs = []
        for v in range(NV):
            col = cx.emit(f"add nuw nsw i32 {n0}, {v * w}")
            lin = cx.linear((K, N), [k, col])
            p = cx.emit(f"getelementptr inbounds {bty}, ptr {b}, i32 {lin}")
            x = cx.emit(f"load {bvty}, ptr {p}, align 4")
            bvs.append(x if bty == cty else cx.emit(f"fpext {bvty} {x} to {vty}"))
        new = []
        for r in range(MR):
            row = cx.emit(f"add nuw nsw i32 {m0}, {r}")
            lin = cx.linear((M, K), [row, k])
            p = cx.emit(f"getelementptr inbounds {aty}, ptr {a}, i32 {lin}")
            s = cx.emit(f"load {aty}, ptr {p}")
            if aty != cty:
                s = cx.emit(f"fpext {aty} {s} to {cty}")
            ins = cx.emit(f"insertelement {vty} poison, {cty} {s}, i32 0")
            sp = cx.emit(f"shufflevector {vty} {ins}, {vty} poison, <{w} x i32> zeroinitializer")
            for v in range(NV):
                acc = accs[r * NV + v]
                new.append(cx.emit(f"call {vty} @{fma}({vty} {sp}, {vty} {bvs[v]}, "
                                   f"{vty} {acc})"))
        nk = cx.emit(f"add nuw nsw i32 {k}, 1")
        fin = cx.emit(f"icmp eq i32 {nk}, {K}")
        cx.nloops += 1
        cx.do(f"br i1 {fin}, label %{done}, label %{head}, {cx.loop_md(False)}")
        latch = cx.block
        cx.lines[phis_at] = f"  {k} = phi i32 [ 0, %{pre} ], [ {nk}, %{latch} ]"
        for j, (acc, a0, an) in enumerate(zip(accs, accs0, new)):
            cx.lines[phis_at + 1 + j] = f"  {acc} = phi {vty} [ {a0}, %{pre} ], [ {an}, %{latch} ]"
        cx.start_block(done)
        for r in range(MR):
            for v in range(NV):
                cx.do(f"store {vty} {new[r * NV + v]}, ptr {cptr[r][v]}, align 4")

    cx.loops((M // MR, N // (NV * w)), tile)
