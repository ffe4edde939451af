"""`tt.dot` on the FMA units: operands in `#ttg.dot_op` layouts of a blocked parent.

The operand layouts give a thread, for each accumulator row (column) it holds, the whole
K extent of A (B), with the same lane and warp bits as the accumulator. So the thread's
part of the product needs no communication: accumulator register r at (m, n) (constant
part of its coordinates; the thread part is shared with the operands) takes
acc + sum_k A[m, k] * B[k, n], with K in order as the CPU backend sums it.
"""
from __future__ import annotations

from .context import REG, FunctionContext, LoweringError, elem_type, is_float, ltype


def lower_fma(ctx: FunctionContext, op) -> None:
    a, b, c = op.operands
    d_t = op.results[0].type
    enc_a = a.type.encoding
    if type(enc_a).__name__ != "DotOperandEncoding":
        raise LoweringError("tt.dot reached the lowering without dot operand layouts "
                            "(run tritongpu-accelerate-matmul)")
    rank = d_t.rank
    K = a.type.dims[-1]
    la, lb, lc = ctx.ll(a.type), ctx.ll(b.type), ctx.ll(d_t)
    amap, bmap = ctx.register_at(la), ctx.register_at(lb)
    av, bv, acc = ctx.get(a), ctx.get(b), list(ctx.get(c))
    e = ctx.e
    t = ltype(d_t)
    fp = is_float(d_t)
    av = _upcast(ctx, av, a.type, d_t)
    bv = _upcast(ctx, bv, b.type, d_t)
    out = []
    for r in range(len(acc)):
        coord = tuple(lc.apply({REG: r}).values())
        batch = coord[:rank - 2]
        m, n = coord[rank - 2], coord[rank - 1]
        s = acc[r]
        for k in range(K):
            ra = amap.get(batch + (m, k))
            rb = bmap.get(batch + (k, n))
            if ra is None or rb is None:
                raise LoweringError("FMA dot operand layouts do not match the accumulator's")
            if fp:
                s = e.call(t, f"llvm.fma.{_suffix(t)}", [(t, av[ra]), (t, bv[rb]), (t, s)],
                           hint="fma")
            else:
                p = e.bin("mul", t, av[ra], bv[rb])
                s = e.bin("add", t, s, p)
        out.append(s)
    ctx.set(op.results[0], out)


def _upcast(ctx: FunctionContext, vals, src_t, dst_t):
    """Operand registers in the accumulator's type (16-bit floats extend exactly, int8
    sign-extends, as the tensor-core instructions treat them)."""
    src, dst = elem_type(src_t), elem_type(dst_t)
    if src == dst:
        return vals
    st, dt = ltype(src), ltype(dst)
    if is_float(src_t) and is_float(dst_t) and src.bitwidth > 8:
        return [ctx.e.cast("fpext", st, v, dt) for v in vals]
    if not is_float(src_t) and not is_float(dst_t):
        return [ctx.e.cast("sext", st, v, dt) for v in vals]
    raise LoweringError(f"FMA dot cannot take {src} operands into a {dst} accumulator")


def _suffix(t: str) -> str:
    return {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}[t]
