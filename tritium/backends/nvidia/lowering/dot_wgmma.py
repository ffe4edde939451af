"""`ttng.warp_group_dot` -> `wgmma.mma_async` (sm_90a) and `ttng.warp_group_dot_wait`.

The accumulator's `#ttg.nvidia_mma` v3 layout puts, in each thread, one instruction's
fragment (instrN/2 registers, in the order of wgmma's `d` operands) per (m, n) block; the
blocks are the layout's remaining register bases, and a warpgroup's own (m, n) origin
comes from the warp bits above the four warps of the group. For each block the K loop is
unrolled into one wgmma per K step, each reading A and B through 64-bit shared-memory
matrix descriptors:

    bits  0-13  start address >> 4
    bits 16-29  leading-dimension byte offset >> 4
    bits 32-45  stride-dimension byte offset >> 4
    bits 62-63  swizzle mode (1: 128 B, 2: 64 B, 3: 32 B)

A swizzle atom is 8 rows of the swizzle width; atoms follow each other down the rows
(stride = 8 x width bytes) and then across the contiguous dim (for MN-major operands the
leading offset: width x rows bytes). The start address of the tile at (row r, column c)
is simply the address of that element: r is a multiple of 8 there, where the XOR pattern
is the identity. A synchronous dot ends with commit + `wgmma.wait_group 0`, with the
accumulators passed through the wait so that LLVM cannot read them before it.
"""
from __future__ import annotations

from typing import List

from ....gpu.passes.accelerate_matmul import tensor_core_kind
from .context import REG, WARP, FunctionContext, LoweringError, lowers
from .shared_mem import memdesc_layout

_SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}
_ZEROS = ("0x0000000000000000", "0", "0.0", "zeroinitializer")


def _k_major(enc, op_idx: int) -> bool:
    return (not enc.transposed) if op_idx == 0 else enc.transposed


class _Operand:
    """Descriptor maker for one shared-memory operand (A: [M, K], B: [K, N])."""

    def __init__(self, ctx: FunctionContext, t, addr: str, op_idx: int, wg_bases):
        enc = t.encoding
        if not enc.swizzling_byte_width:
            raise LoweringError("wgmma operands need a swizzled NVMMA shared layout")
        self.ctx, self.addr = ctx, addr
        self.nbytes = t.element_type.bitwidth // 8
        self.inv = memdesc_layout(t).invert()
        self.k_major = _k_major(enc, op_idx)
        width = enc.swizzling_byte_width
        rows = t.dims[0] if enc.order[0] == 1 else t.dims[1]
        lbo = 16 if self.k_major else width * rows
        sbo = 8 * width
        self.hi = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (_SWIZZLE_MODE[width] << 62)
        # The warpgroup's origin along this operand's non-K dim, as an element offset.
        dim = 0 if op_idx == 0 else 1
        bases = []  # per bit of the warp id (warpgroups start at its bit 2)
        for wb in wg_bases:
            coord = [0, 0]
            coord[dim] = wb[dim]
            bases.append(self._offset(coord) if coord[dim] else 0)
        self.hw = ctx.warp_uniform_value([0, 0] + bases)
        self._base = None

    def _offset(self, coord) -> int:
        return self.inv.apply({"dim0": coord[0], "dim1": coord[1]})["offset"]

    def descriptor(self, coord) -> str:
        c = self._offset(coord)
        if (self.hw[1] & c) == 0 and (c * self.nbytes) % 16 == 0:
            # The tile's offset adds to the warpgroup's (no common bits) and is a whole
            # number of 16-byte units: the base descriptor plus a constant, one 64-bit add
            # per wgmma as upstream (shared addresses are below 2**18, so the 14-bit
            # address field cannot carry into the next field).
            base = self._base_descriptor()
            step = (c * self.nbytes) >> 4
            return self.ctx.e.bin("add", "i64", base, str(step)) if step else base
        return self._make_descriptor(self.ctx.combine_const(self.hw, c))

    def _base_descriptor(self) -> str:
        if self._base is None:
            self._base = self._make_descriptor(self.hw[0])
        return self._base

    def _make_descriptor(self, off: str) -> str:
        e = self.ctx.e
        if off.lstrip("-").isdigit():
            byte = str(int(off) * self.nbytes)
        else:
            byte = e.bin("shl", "i32", off, str(self.nbytes.bit_length() - 1)) if self.nbytes > 1 else off
        a = e.bin("add", "i32", self.addr, byte) if byte != "0" else self.addr
        lo = e.bin("lshr", "i32", a, "4")
        lo = e.bin("and", "i32", lo, str(0x3FFF))
        lo64 = e.cast("zext", "i32", lo, "i64")
        return e.bin("or", "i64", lo64, str(self.hi - (1 << 64) if self.hi >> 63 else self.hi))


class _RegisterA:
    """A in registers (`#ttg.dot_op<{opIdx = 0, parent = #mma v3, kWidth = 2}>`): per
    (m, k) step the four b32 registers of the m64k16 fragment, each two 16-bit elements at
    (row, k), (row, k+1) with rows g, g+8 and k offsets 0, 8 in the order a0..a3."""
    k_major = True
    _FRAGMENT = ((0, 0), (8, 0), (0, 8), (8, 8))

    def __init__(self, ctx: FunctionContext, a):
        self.ctx = ctx
        ll = ctx.ll(a.type)
        self.vals = ctx.get(a)
        self.where = ctx.register_at(ll)
        self.lt = "half" if a.type.element_type.name == "f16" else "bfloat"

    def descriptor(self, coord):
        m0, k0 = coord
        e = self.ctx.e
        out = []
        for dm, dk in self._FRAGMENT:
            pair = [self.vals[self.where[(m0 + dm, k0 + dk + j)]] for j in (0, 1)]
            v = e.build_vector(self.lt, pair)
            out.append(e.cast("bitcast", f"<2 x {self.lt}>", v, "i32"))
        return out


def _instruction(kind: str, acc_ty: str, n: int, k: int, ta: int, tb: int, nregs: int,
                 a_regs: int = 0, tied: bool = True) -> str:
    """The wgmma text; `a_regs` > 0 when A comes from that many b32 registers. Untied, the
    accumulator is only written (the caller passes scale-d 0: D = A*B)."""
    d = ", ".join(f"${i}" for i in range(nregs))
    # Operands number outputs first, then every input (the tied accumulators included).
    base = 2 * nregs if tied else nregs
    if a_regs:
        a = "{" + ", ".join(f"${base + i}" for i in range(a_regs)) + "}"
        base += a_regs - 1
    else:
        a = f"${base}"
    b, p = f"${base + 1}", f"${base + 2}"
    if kind in ("f16", "bf16"):
        tail = f"p, 1, 1, {tb}" if a_regs else f"p, 1, 1, {ta}, {tb}"
    elif kind == "s8":
        tail = "p"
    else:
        tail = "p, 1, 1"
    shape = f"m64n{n}k{k}"
    return (f"{{ .reg .pred p; setp.ne.b32 p, {p}, 0; wgmma.mma_async.sync.aligned.{shape}."
            f"{acc_ty}.{kind}.{kind} {{{d}}}, {a}, {b}, {tail}; }}")


def wgmma_wait(ctx: FunctionContext, vals: List[str], lt: str, pendings: int) -> List[str]:
    """`wgmma.wait_group.sync.aligned pendings` with `vals` flowing through it."""
    e = ctx.e
    n = len(vals)
    if n == 0:
        e.asm("void", f"wgmma.wait_group.sync.aligned {pendings};", "", [], side_effects=True)
        return []
    cons = ",".join([f"={'f' if lt == 'float' else 'r'}"] * n + [str(i) for i in range(n)])
    ret = "{" + ", ".join([lt] * n) + "}"
    res = e.asm(ret, f"// wait for wgmma\n\twgmma.wait_group.sync.aligned {pendings};", cons,
                [(lt, v) for v in vals], side_effects=True)
    return [e.extract(ret, res, i) for i in range(n)]


@lowers("ttng.warp_group_dot")
def _warp_group_dot(ctx: FunctionContext, op) -> None:
    a, b, c = op.operands[:3]
    d_t = op.results[0].type
    mma = d_t.encoding
    a_in_regs = isinstance(a.type, type(d_t))
    kind = tensor_core_kind(a.type, b.type, d_t, int(op.attr("inputPrecision", 0)))
    if kind is None:
        raise LoweringError(f"no wgmma for {a.type.element_type} x {b.type.element_type}")
    _, instr_n, instr_k = mma.instr_shape
    ll = ctx.ll(d_t)
    acc = list(ctx.get(c))
    per = instr_n // 2
    if len(acc) % per:
        raise LoweringError("accumulator registers do not tile into wgmma fragments")
    wg_bases = ll.bases.get(WARP, [])[2:]
    opa = _RegisterA(ctx, a) if a_in_regs else _Operand(ctx, a.type, ctx.get(a), 0, wg_bases)
    opb = _Operand(ctx, b.type, ctx.get(b), 1, wg_bases)
    lt = "float" if kind != "s8" else "i32"
    acc_ty = "f32" if kind != "s8" else "s32"
    half_acc = d_t.element_type.bitwidth == 16  # f16 sums: two per b32 register
    if half_acc:
        acc = pack_halves(ctx, acc)
        per //= 2
        lt, acc_ty = "i32", "f16"
    shape = (kind, acc_ty, instr_n, instr_k, int(not opa.k_major), int(not opb.k_major), per,
             4 if a_in_regs else 0)
    text = _instruction(*shape)
    a_cons = ["r"] * 4 if a_in_regs else ["l"]
    out_cons = [f"={'f' if lt == 'float' else 'r'}"] * per
    cons = ",".join(out_cons + [str(i) for i in range(per)] + a_cons + ["l", "r"])
    # A zero accumulator (a dot without `acc`, attention's Q K^T) is not read: scale-d 0 and
    # no input registers. Passing zeros as tied inputs made ptxas copy them into registers
    # a previous tile's wgmma still owned, and inject a wait (its C7517 note).
    text0 = _instruction(*shape, tied=False)
    cons0 = ",".join(out_cons + a_cons + ["l", "r"])
    ret = "{" + ", ".join([lt] * per) + "}"
    e = ctx.e
    K = a.type.dims[1]
    steps = list(range(0, K, instr_k))
    chunk = len(steps)
    limit = int(op.attr("maxNumImpreciseAcc", 0) or 0)
    if kind in ("e4m3", "e5m2") and limit <= K:
        # fp8: sum `limit` K elements in the tensor cores, then add that partial sum into
        # the fp32 accumulator (upstream's max_num_imprecise_acc).
        chunk = max(1, limit // instr_k)
    tiles = []
    for j in range(len(acc) // per):
        first = j * per * (2 if half_acc else 1)  # the layout counts f16 sums one by one
        tiles.append((j, *(ll.apply({REG: first})[d] for d in ("dim0", "dim1"))))
    if a_in_regs:
        # Every A fragment is made before the fence, which takes them as inputs: a register
        # written between the fence and the wgmma reading it makes ptxas fence (and
        # serialise) each wgmma on its own, as LLVM sinks the f32->f16 packing to its use.
        frags = {(m0, k0): opa.descriptor((m0, k0)) for _, m0, _ in tiles for k0 in steps}
        regs_in = [r for f in frags.values() for r in f]
        e.asm("void", "wgmma.fence.sync.aligned;", ",".join(["r"] * len(regs_in)),
              [("i32", r) for r in regs_in], side_effects=True)
        a_descriptor = frags.__getitem__
    else:
        e.asm("void", "wgmma.fence.sync.aligned;", "", [], side_effects=True)
        a_descriptor = opa.descriptor
    # useC (the pipeliner's form of an accumulator reset): the first step's scale-d.
    use_c = e.cast("zext", "i1", ctx.get(op.operand(3)), "i32") if op.num_operands > 3 else "1"
    for j, m0, n0 in tiles:
        regs = acc[j * per:(j + 1) * per]
        partial = chunk < len(steps)
        zero = all(r in _ZEROS for r in regs)
        if partial and use_c != "1":  # partial sums are added to the accumulator, or to 0
            keep = e.cast("trunc", "i32", use_c, "i1")
            regs = [e.select(keep, lt, r, "0.0" if lt == "float" else "0") for r in regs]
        for c0 in range(0, len(steps), chunk):
            cur = regs  # a partial sum's first step reads no accumulator (scale-d 0)
            for i, k0 in enumerate(steps[c0:c0 + chunk]):
                da = a_descriptor((m0, k0))
                db = opb.descriptor((k0, n0))
                a_args = [("i32", x) for x in da] if a_in_regs else [("i64", da)]
                if i == 0 and (partial or zero and c0 == 0):
                    args = a_args + [("i64", db), ("i32", "0")]
                    res = e.asm(ret, text0, cons0, args, side_effects=True)
                    cur = [e.extract(ret, res, t) for t in range(per)]
                    continue
                scale_d = use_c if i == 0 and c0 == 0 else "1"
                args = [(lt, r) for r in cur] + a_args + [("i64", db), ("i32", scale_d)]
                res = e.asm(ret, text, cons, args, side_effects=True)
                cur = [e.extract(ret, res, t) for t in range(per)]
            if partial:
                e.asm("void", "wgmma.commit_group.sync.aligned;", "", [], side_effects=True)
                cur = wgmma_wait(ctx, cur, lt, 0)
                regs = [e.bin("fadd", lt, r, p) for r, p in zip(regs, cur)]
            else:
                regs = cur
        acc[j * per:(j + 1) * per] = regs
    e.asm("void", "wgmma.commit_group.sync.aligned;", "", [], side_effects=True)
    if not op.attr("isAsync", False):
        acc = wgmma_wait(ctx, acc, lt, 0)
    if half_acc:
        acc = unpack_halves(ctx, acc)
    ctx.set(op.results[0], acc)


def pack_halves(ctx: FunctionContext, vals: List[str]) -> List[str]:
    """Consecutive pairs of f16 registers (columns 2t, 2t+1 of a fragment) as b32 words."""
    e = ctx.e
    return [e.cast("bitcast", "<2 x half>", e.build_vector("half", vals[i:i + 2]), "i32")
            for i in range(0, len(vals), 2)]


def unpack_halves(ctx: FunctionContext, words: List[str]) -> List[str]:
    e = ctx.e
    out: List[str] = []
    for w in words:
        out.extend(e.split_vector("half", e.cast("bitcast", "i32", w, "<2 x half>"), 2))
    return out


@lowers("ttng.warp_group_dot_wait")
def _warp_group_dot_wait(ctx: FunctionContext, op) -> None:
    pend = int(op.attr("pendings", 0))
    for v, r in zip(op.operands, op.results):
        vals = list(ctx.get(v))
        if v.type.element_type.bitwidth == 16:
            ctx.set(r, unpack_halves(ctx, wgmma_wait(ctx, pack_halves(ctx, vals), "i32", pend)))
            continue
        lt = "i32" if str(v.type.element_type).startswith("i") else "float"
        ctx.set(r, wgmma_wait(ctx, vals, lt, pend))
    if not op.operands:
        wgmma_wait(ctx, [], "float", pend)
