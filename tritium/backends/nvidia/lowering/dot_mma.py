"""`tt.dot` with an `#ttg.nvidia_mma` v2 accumulator -> `mma.sync.aligned.m16n8kK` (and the
dispatch of `tt.dot` between this and the FMA lowering).

Per thread, the accumulator holds for each 16x8 tile four values at (g, 2t), (g, 2t+1),
(g+8, 2t), (g+8, 2t+1) (g = lane/4, t = lane%4); A's 16xK fragment is four b32 registers of
kWidth elements at rows g / g+8 and K offsets 0 / 4*kWidth; B's Kx8 fragment two such
registers down K. The dot_op layouts put exactly these elements in each thread, so the
lowering only gathers registers by their constant coordinates and packs them into b32s.
"""
from __future__ import annotations

from typing import Dict, Tuple

from .context import REG, FunctionContext, LoweringError, lowers, ltype
from .dot_fma import lower_fma
from .dot_wgmma import pack_halves, unpack_halves

_SHAPES = {"f16": (16, "f32.f16.f16.f32"), "bf16": (16, "f32.bf16.bf16.f32"),
           "tf32": (8, "f32.tf32.tf32.f32"), "s8": (32, "s32.s8.s8.s32"),
           "e4m3": (32, "f32.e4m3.e4m3.f32"), "e5m2": (32, "f32.e5m2.e5m2.f32")}


def _pack(ctx: FunctionContext, vals, lt: str) -> str:
    """Registers of one b32 operand word (kWidth elements of 32/kWidth bits)."""
    e = ctx.e
    if len(vals) == 1:
        return vals[0] if lt == "i32" else e.cast("bitcast", lt, vals[0], "i32")
    v = e.build_vector(lt, vals)
    return e.cast("bitcast", f"<{len(vals)} x {lt}>", v, "i32")


def lower_mma_v2(ctx: FunctionContext, op) -> None:
    from ....gpu.passes.accelerate_matmul import tensor_core_kind
    a, b, c = op.operands
    d_t = op.results[0].type
    kind = tensor_core_kind(a.type, b.type, d_t, int(op.attr("inputPrecision", 0)))
    if kind is None:
        raise LoweringError(f"no mma.sync for {a.type.element_type} x {b.type.element_type}")
    ik, types = _SHAPES[kind]
    kw = a.type.encoding.k_width
    rank = d_t.rank
    la, lb, lc = ctx.ll(a.type), ctx.ll(b.type), ctx.ll(d_t)
    amap, bmap = ctx.register_at(la), ctx.register_at(lb)
    av, bv, acc = ctx.get(a), ctx.get(b), list(ctx.get(c))
    a_lt = "i32" if kind == "tf32" else ltype(a.type)
    if kind == "tf32":
        av = [ctx.e.cast("bitcast", "float", x, "i32") for x in av]
        bv = [ctx.e.cast("bitcast", "float", x, "i32") for x in bv]
    if a_lt.startswith("i") and kind != "tf32":
        a_lt = "i8"
    acc_lt = ltype(d_t)
    K = a.type.dims[-1]
    tiles: Dict[Tuple[int, ...], list] = {}
    for r in range(len(acc)):
        co = tuple(lc.apply({REG: r}).values())
        origin = co[:rank - 2] + (co[-2] & ~15, co[-1] & ~7)
        tiles.setdefault(origin, []).append(r)
    e = ctx.e
    half_acc = acc_lt == "half"  # f16 sums: (row, 2t..2t+1) packed in one b32, two per tile
    if half_acc:
        types = "f16.f16.f16.f16"
    dcon = "=f" if acc_lt == "float" else "=r"
    for origin, regs in tiles.items():
        batch, m0, n0 = origin[:rank - 2], origin[-2], origin[-1]
        order = [(0, 0), (0, 1), (8, 0), (8, 1)]
        idx = {tuple(lc.apply({REG: r}).values())[-2:]: r for r in regs}
        d = [idx[(m0 + dm, n0 + dn)] for dm, dn in order]
        cur = [acc[r] for r in d]
        if half_acc:
            cur = pack_halves(ctx, cur)
        for k0 in range(0, K, ik):
            aw = [_pack(ctx, [av[amap[batch + (m0 + dm, k0 + dk + j)]] for j in range(kw)], a_lt)
                  for dm, dk in ((0, 0), (8, 0), (0, 4 * kw), (8, 4 * kw))]
            bw = [_pack(ctx, [bv[bmap[batch + (k0 + dk + j, n0)]] for j in range(kw)], a_lt)
                  for dk in (0, 4 * kw)]
            if half_acc:
                text = (f"mma.sync.aligned.m16n8k{ik}.row.col.{types} {{$0, $1}}, "
                        "{$4, $5, $6, $7}, {$8, $9}, {$2, $3};")
                cons = ",".join(["=r"] * 2 + ["0", "1"] + ["r"] * 6)
                ret, nd, dt = "{i32, i32}", 2, "i32"
            else:
                text = (f"mma.sync.aligned.m16n8k{ik}.row.col.{types} {{$0, $1, $2, $3}}, "
                        "{$8, $9, $10, $11}, {$12, $13}, {$4, $5, $6, $7};")
                cons = ",".join([dcon] * 4 + ["0", "1", "2", "3"] + ["r"] * 6)
                ret, nd, dt = "{" + ", ".join([acc_lt] * 4) + "}", 4, acc_lt
            args = [(dt, x) for x in cur] + [("i32", x) for x in aw + bw]
            res = e.asm(ret, text, cons, args)
            cur = [e.extract(ret, res, i) for i in range(nd)]
        if half_acc:
            cur = unpack_halves(ctx, cur)
        for r, v in zip(d, cur):
            acc[r] = v
    ctx.set(op.results[0], acc)


@lowers("tt.dot")
def _dot(ctx: FunctionContext, op) -> None:
    enc = op.results[0].type.encoding
    if type(enc).__name__ == "NvidiaMmaEncoding":
        lower_mma_v2(ctx, op)
    else:
        lower_fma(ctx, op)
