"""ttg.convert_layout and the generic data movement behind the shape ops.

`move(ctx, op, vals, src_ll, dst_ll, elt)` takes a thread's registers in layout `src_ll` to
layout `dst_ll` (same tensor coordinates) with the plan of `tritium.gpu.scratch.conversion_plan`:
* none      - nothing to do;
* register  - a renaming of registers;
* shuffle   - rounds of `shfl.sync.idx` (lane-dependent register choices are selects);
* shared    - bar.sync, vectorised `st.shared` into the swizzled scratch at the op's
              `allocation.offset`, bar.sync, vectorised `ld.shared` (repeated per `reps`);
              16-bit tensor-core accumulators whose registers alone give short vectors
              are stored by `stmatrix.x4` (sm_90), 16 bytes per row.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ....gpu.linear_layout import LinearLayout
from ....gpu.scratch import conversion_plan
from ....ir import types as T
from .context import (REG, FunctionContext, LoweringError, elem_type, lowers,
                      storage_bits)


def _affine_lane_value(ctx: FunctionContext, table: Sequence[int]) -> str:
    """i32 value of an affine function of the lane id given by its table."""
    base = table[0]
    bases = [table[1 << i] ^ base for i in range(5)]
    v = ctx.linear_tid(bases)
    if base == 0:
        return v
    if v == "0":
        return str(base)
    return ctx.e.pro(f"xor i32 {v}, {base}", "m")


def _select_by_index(ctx: FunctionContext, idx: str, cands: Dict[int, str], lt: str) -> str:
    items = sorted(cands.items())
    acc = items[0][1]
    for k, v in items[1:]:
        c = ctx.e.icmp("eq", "i32", idx, str(k))
        acc = ctx.e.select(c, lt, v, acc)
    return acc


def move(ctx: FunctionContext, op, vals: List[str], src_ll: LinearLayout, dst_ll: LinearLayout,
         elt: T.Type) -> List[str]:
    """Registers of `src_ll` -> registers of `dst_ll` (see module docstring)."""
    bits = storage_bits(elt)
    plan = conversion_plan(src_ll, dst_ll, bits)
    ndst = dst_ll.get_in_dim_size(REG)
    if plan.kind == "none":
        if len(vals) != ndst:
            raise LoweringError("identity conversion between layouts of different register counts")
        return list(vals)
    if plan.kind == "register":
        return [vals[p] for p in plan.perm]
    if plan.kind == "shuffle":
        return _shuffle(ctx, plan.shuffle, vals, ndst, elt)
    stm = plan.stmatrix and ctx.mod.capability >= 90
    return _through_shared(ctx, op, plan.shared, vals, src_ll, dst_ll, elt, stmatrix=stm)


def _shuffle(ctx: FunctionContext, sp, vals: List[str], ndst: int, elt: T.Type) -> List[str]:
    from .context import ltype
    lt = ltype(elt)
    e = ctx.e
    out: List[Optional[str]] = [None] * ndst
    for k in range(sp.rounds):
        sends = sp.send_reg[k]
        cands = sorted(set(sends))
        if len(cands) == 1:
            v = vals[cands[0]]
        else:
            idx = _affine_lane_value(ctx, sends)
            v = _select_by_index(ctx, idx, {c: vals[c] for c in cands}, lt)
        src_lane = _affine_lane_value(ctx, sp.src_lane[k])
        got = ctx.shfl("idx", elt, v, src_lane)
        dsts = sp.dst_reg[k]
        dc = sorted(set(dsts))
        if len(dc) == 1:
            out[dc[0]] = got
        else:
            idx = _affine_lane_value(ctx, dsts)
            for c in dc:
                prev = out[c] if out[c] is not None else "poison"
                cond = e.icmp("eq", "i32", idx, str(c))
                out[c] = e.inst(f"select i1 {cond}, {lt} {got}, {lt} {prev}", "s")
    mask = sp.dst_broadcast_mask
    for r in range(ndst):
        if out[r] is None:
            out[r] = out[r & ~mask]
    if any(x is None for x in out):
        raise LoweringError("shuffle plan left destination registers unset")
    return out


def _vector_bits(flat: LinearLayout, nvec: int) -> List[int]:
    """Register bits i with flat(reg bit i) == 1 << j for j < log2(nvec)."""
    regs = [b[0] for b in flat.bases.get(REG, [])]
    out = []
    j = 0
    while (1 << j) < nvec:
        try:
            out.append(regs.index(1 << j))
        except ValueError:
            break
        j += 1
    return out


def _alignment(base: int, nbytes: int) -> int:
    a = 16
    while a > 1 and base % a:
        a //= 2
    return max(1, min(a, nbytes))


def access_groups(ctx: FunctionContext, ll: LinearLayout, inv: LinearLayout, nvec: int,
                  sbits: int):
    """How a thread's registers of layout `ll` sit in a shared buffer whose element offset
    is `inv` (tensor coordinates -> offset; bits at and above `sbits` select a repetition
    of the buffer): ((hw offset value, its bit mask), elements per vector access, {rep:
    [(constant offset, [registers of the vector])]}, canonical register of each register).
    Vectors are up to `nvec` elements: registers whose offsets are consecutive and that no
    lane, warp or other register bit can misalign."""
    flat = ll.compose(inv).flatten_outs()
    out = flat.out_dims[0]
    hw, hw_mask = ctx.hw_value(flat, out)
    if hw_mask >> sbits:
        raise LoweringError("shared access: thread bits select a repetition")
    vbits = _vector_bits(flat, nvec)
    others = 0
    for dim, vecs in flat.bases.items():
        for i, b in enumerate(vecs):
            if not (dim == REG and i in vbits):
                others |= b[0]
    while vbits and others & ((1 << len(vbits)) - 1):
        vbits = vbits[:-1]
    nvec = 1 << len(vbits)
    canon = ctx.canonical(ll)
    vmask = sum(1 << b for b in vbits)
    groups: Dict[int, List[tuple]] = {}
    for r in range(ll.get_in_dim_size(REG)):
        if canon[r] != r or r & vmask:
            continue
        off = flat.apply({REG: r})[out]
        rep, off = off >> sbits, off & ((1 << sbits) - 1)
        members = []
        for j in range(nvec):
            rr = r
            for t, b in enumerate(vbits):
                if (j >> t) & 1:
                    rr |= 1 << b
            members.append(rr)
        groups.setdefault(rep, []).append((off, members))
    return (hw, hw_mask), nvec, groups, canon


def store_vectors(ctx: FunctionContext, hw, nvec: int, items, vals: List[str], elt: T.Type,
                  address, base_align: int) -> None:
    """`st.shared` of each (offset, registers) item of `access_groups` (one vector each);
    `address(hw, off)` gives the pointer, `base_align` the buffer's known alignment."""
    e = ctx.e
    st = ctx.storage_type(elt)
    nbytes = storage_bits(elt) // 8
    for off, members in items:
        p = address(hw, off)
        elems = [ctx.to_storage(elt, vals[m])[1] for m in members]
        if nvec == 1:
            e.emit(f"store {st} {elems[0]}, ptr addrspace(3) {p}, align {_alignment(base_align, nbytes)}")
        else:
            v = e.build_vector(st, elems)
            e.emit(f"store <{nvec} x {st}> {v}, ptr addrspace(3) {p}, "
                   f"align {_alignment(base_align, nvec * nbytes)}")


def load_vectors(ctx: FunctionContext, hw, nvec: int, items, out_vals: List[Optional[str]],
                 elt: T.Type, address, base_align: int) -> None:
    """`ld.shared` counterpart of `store_vectors`, filling `out_vals`."""
    e = ctx.e
    st = ctx.storage_type(elt)
    nbytes = storage_bits(elt) // 8
    for off, members in items:
        p = address(hw, off)
        if nvec == 1:
            xs = [e.inst(f"load {st}, ptr addrspace(3) {p}, align {_alignment(base_align, nbytes)}", "ld")]
        else:
            vt = f"<{nvec} x {st}>"
            x = e.inst(f"load {vt}, ptr addrspace(3) {p}, align {_alignment(base_align, nvec * nbytes)}", "ld")
            xs = e.split_vector(st, x, nvec)
        for m, v in zip(members, xs):
            out_vals[m] = ctx.from_storage(elt, v)


def _opaque_hw(ctx: FunctionContext, ll: LinearLayout, inv: LinearLayout) -> tuple:
    """The lane/warp part of the scratch offset of `ll` (as `access_groups`' hw), computed
    here, after the main loop, from a tid.x LLVM cannot see through: computed in the entry
    block it shares subexpressions with the loop's address math and perturbs it (the
    128x128x64 w8 matmul loop: 79 SASS instructions instead of 76; before the wgmma
    descriptors' warp id came through `warp_uniform_value`, 98)."""
    from .context import _hw_tid_bases
    flat = ll.compose(inv).flatten_outs()
    bases = _hw_tid_bases(flat, flat.out_dims[0])
    e = ctx.e
    tid = e.asm("i32", "mov.u32 $0, %tid.x;", "=r", [])
    acc, mask = None, 0
    for i, b in enumerate(bases):
        mask |= b
        for k in range(b.bit_length()):
            if not (b >> k) & 1:
                continue
            bit = e.bin("and", "i32", tid, str(1 << i))
            sh = k - i
            bit = e.bin("shl", "i32", bit, str(sh)) if sh > 0 else \
                e.bin("lshr", "i32", bit, str(-sh)) if sh < 0 else bit
            acc = bit if acc is None else e.bin("xor", "i32", acc, bit)
    return (acc or "0", mask)


def store_matrices(ctx: FunctionContext, hw, items, vals: List[str], elt: T.Type,
                   base: int) -> None:
    """`stmatrix.x4` of each (offset, registers) item of `access_groups` over
    `stmatrix_view(src)`: the item's 8-element row is what lanes 4r..4r+3 hold, so this
    lane passes its own registers (bit 0, and bits 1-2 selecting the matrix) of the item's
    instruction (its register bits from 3 up) and the address of its row. `hw` is computed
    in this block (`_opaque_hw`), so the addresses are too; `base` is the scratch's byte
    offset."""
    e = ctx.e
    st = ctx.storage_type(elt)
    nbytes = storage_bits(elt) // 8
    shift = nbytes.bit_length() - 1
    start = None
    for off, members in items:
        first = members[0] & ~7
        words = []
        for i in range(4):
            pair = [ctx.to_storage(elt, vals[first | (i << 1) | b])[1] for b in (0, 1)]
            words.append(e.inst(f"bitcast <2 x {st}> {e.build_vector(st, pair)} to i32", "w"))
        # The offset goes into the instruction's address (one base register for all of
        # them) when it cannot carry into the lane part; else it is XORed in.
        if hw[1] & off:
            o = e.bin("xor", "i32", hw[0], str(off))
            p, imm = ctx.smem_ptr(e.bin("add", "i32", e.bin("shl", "i32", o, str(shift)),
                                        str(base))), 0
        else:
            if start is None:
                start = ctx.smem_ptr(e.bin("add", "i32", e.bin("shl", "i32", hw[0], str(shift)),
                                           str(base)))
            p, imm = start, off * nbytes
        a = e.inst(f"ptrtoint ptr addrspace(3) {p} to i32", "sa")
        at = f"[$0+{imm}]" if imm else "[$0]"
        e.asm("void", f"stmatrix.sync.aligned.m8n8.x4.shared.b16 {at}, {{$1, $2, $3, $4}};",
              "r,r,r,r,r", [("i32", a)] + [("i32", w) for w in words], side_effects=True)


def _through_shared(ctx: FunctionContext, op, sp, vals: List[str], src_ll: LinearLayout,
                    dst_ll: LinearLayout, elt: T.Type, stmatrix: bool = False) -> List[str]:
    e = ctx.e
    nbytes = storage_bits(elt) // 8
    inv = sp.smem.invert()
    scratch = sp.scratch_elems
    sbits = scratch.bit_length() - 1
    base = ctx.smem_base(op)
    if stmatrix:  # the store side's layout as stmatrix.x4 writes it (scratch.stmatrix_view)
        from ....gpu.scratch import stmatrix_view
        src_ll = stmatrix_view(src_ll)
    sides = [access_groups(ctx, ll, inv, nvec, sbits)
             for ll, nvec in ((src_ll, sp.vec_src), (dst_ll, sp.vec_dst))]
    if stmatrix and (sides[0][1] != 8 or [b[0] for b in src_ll.compose(inv).flatten_outs()
                                          .bases[REG][:3]] != [1, 2, 4]):
        raise LoweringError("stmatrix conversion: the scratch rows are not 16-byte vectors")
    nrep = sp.num_reps
    stm_hw = _opaque_hw(ctx, src_ll, inv) if stmatrix else None
    out_vals: List[Optional[str]] = [None] * dst_ll.get_in_dim_size(REG)

    def address(hw, off):
        o = ctx.combine_const(hw, off) if off else hw[0]
        if o.lstrip("-").isdigit():
            return ctx.smem_ptr(base + int(o) * nbytes)
        byte = o if nbytes == 1 else e.bin("shl", "i32", o, str(nbytes.bit_length() - 1))
        if base:
            byte = e.bin("add", "i32", byte, str(base))
        return ctx.smem_ptr(byte)

    for rep in range(nrep):
        ctx.barrier()
        hw, nvec, groups, _ = sides[0]
        if stmatrix:
            store_matrices(ctx, stm_hw, groups.get(rep, []), vals, elt, base)
        else:
            store_vectors(ctx, hw, nvec, groups.get(rep, []), vals, elt, address, base)
        ctx.barrier()
        hw, nvec, groups, _ = sides[1]
        load_vectors(ctx, hw, nvec, groups.get(rep, []), out_vals, elt, address, base)
    canon = sides[1][3]
    for r in range(len(out_vals)):
        if out_vals[r] is None:
            out_vals[r] = out_vals[canon[r]]
    if any(v is None for v in out_vals):
        raise LoweringError("shared-memory conversion left destination registers unset")
    return out_vals


@lowers("ttg.convert_layout")
def _convert_layout(ctx: FunctionContext, op) -> None:
    src, dst = op.operands[0].type, op.result.type
    vals = ctx.get(op.operands[0])
    if src == dst:
        ctx.set(op.result, list(vals))
        return
    ctx.set(op.result, move(ctx, op, vals, ctx.ll(src), ctx.ll(dst), elem_type(dst)))
