"""`scf.for`, `scf.if`, `scf.while` on the host.

Values carried by control flow live in slots: a stack slot per scalar (LLVM's mem2reg turns
them into phis) and a buffer per tensor. A yield writes every slot as one parallel copy:
a value that reads any of the slots being written is first computed into a temporary, so
`yield b, a` swaps instead of clobbering.
"""
from __future__ import annotations

from typing import List

from ....ir import types as T
from ....ir.ops import licm_disabled
from .context import TV, Ctx, Unsupported, lowers, lty, mem_ty, operand_at

_EFFECTS = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.print", "tt.assert", "tt.call")


class Slot:
    """Where one carried value lives: `ptr` to a scalar or to a tensor's buffer."""

    def __init__(self, cx: Ctx, t: T.Type):
        self.t = t
        self.tensor = isinstance(t, T.TensorType)
        self.ptr = cx.new_buf(t.shape, t) if self.tensor else cx.alloca(lty(t))

    def read(self, cx: Ctx):
        if self.tensor:
            return TV(self.t.shape, self.t, buf=self.ptr)
        return cx.emit(f"load {lty(self.t)}, ptr {self.ptr}")


def _reads(v, bufs) -> bool:
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if not isinstance(x, TV) or id(x) in seen:
            continue
        seen.add(id(x))
        if x.buf is not None:
            if x.buf in bufs:
                return True
            continue
        stack.extend(x.deps)
    return False


def _pointwise(v) -> bool:
    """Every lazy node up to the buffers reads its operands at its own index."""
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if not isinstance(x, TV) or x.buf is not None or id(x) in seen:
            continue
        seen.add(id(x))
        if not x.pw:
            return False
        stack.extend(x.deps)
    return True


def write_slots(cx: Ctx, slots: List[Slot], vals: List[object]) -> None:
    bufs = {s.ptr for s in slots if s.tensor}
    staged = []
    for s, v in zip(slots, vals):
        if not s.tensor or (isinstance(v, TV) and v.buf == s.ptr):
            staged.append(v)
            continue
        # `p += step` reads only its own slot, element by element: update it in place.
        in_place = _pointwise(v) and not _reads(v, bufs - {s.ptr})
        if not in_place and _reads(v, bufs):
            tmp = TV(s.t.shape, s.t, buf=cx.new_buf(s.t.shape, s.t))
            cx.copy_into(tmp.buf, s.t.shape, s.t, v)
            v = tmp
        staged.append(v)
    for s, v in zip(slots, staged):
        if s.tensor:
            cx.copy_into(s.ptr, s.t.shape, s.t, v)
        else:
            cx.do(f"store {lty(s.t)} {v}, ptr {s.ptr}")


def _before_region_op(cx: Ctx, op) -> None:
    if any(o.name in _EFFECTS for o in op.walk()):
        cx.flush_pending()


class Strided:
    """A pointer tensor the loop moves by one uniform step per iteration (`p += BK *
    stride`): carried as its initial value plus a scalar offset in elements, so loads
    through it stay affine in the index (contiguous SIMD loads, no run-time row checks)
    and no pointer tile is written back every iteration."""

    tensor = False

    def __init__(self, cx: Ctx, t: T.Type, base: TV, step_value):
        self.t, self.base, self.step_value = t, base, step_value
        self.ptr = cx.alloca("i64")
        self.mty = mem_ty(t.element_type.pointee)
        cx.do(f"store i64 0, ptr {self.ptr}")

    def read(self, cx: Ctx):
        off = cx.emit(f"load i64, ptr {self.ptr}")
        base, mty = self.base, self.mty
        return TV(self.t.shape, self.t,
                  lambda c, idx: c.emit(f"getelementptr {mty}, ptr {base.at(c, idx)}, i64 {off}"),
                  deps=[base], pw=True)

    def advance(self, cx: Ctx) -> None:
        if isinstance(self.step_value, int):
            step = str(self.step_value)
        else:
            step = cx.get(self.step_value)
            w = self.step_value.type.width
            if w < 64:
                step = cx.emit(f"sext i{w} {step} to i64")
        off = cx.emit(f"load i64, ptr {self.ptr}")
        cx.do(f"store i64 {cx.emit(f'add i64 {off}, {step}')}, ptr {self.ptr}")


def _uniform_step(body, i: int):
    """The scalar by which iteration arg `i` (a pointer tensor) advances each iteration
    when the yield is `tt.addptr(arg, splat(s))`, else None."""
    arg = body.args[1 + i]
    t = arg.type
    if not (isinstance(t, T.TensorType) and isinstance(t.element_type, T.PointerType)):
        return None
    term = body.terminator
    if term is None or term.name != "scf.yield":
        return None
    add = term.operand(i).owner_op
    if add is None or add.name != "tt.addptr" or add.operand(0) is not arg:
        return None
    splat = add.operand(1).owner_op
    if splat is not None and splat.name == "tt.splat":
        return splat.operand(0)
    if splat is not None and splat.name == "arith.constant":    # dense<c>: a splat too
        import numpy as np
        raw = splat.attributes["value"].value
        if np.ndim(raw) == 0 or np.all(np.asarray(raw) == np.asarray(raw).flat[0]):
            return int(np.asarray(raw).flat[0])
    return None


@lowers("scf.for")
def _for(cx: Ctx, op):
    _before_region_op(cx, op)
    lb, ub, step = (cx.get(v) for v in op.operands[:3])
    inits = [cx.get(v) for v in op.operands[3:]]
    ity = lty(op.operand(0).type)
    body = op.regions[0].entry
    slots = []
    for i, (r, init) in enumerate(zip(op.results, inits)):
        s = _uniform_step(body, i)
        if s is not None and isinstance(init, TV) and not init.impure:
            slots.append(Strided(cx, r.type, init, s))
        else:
            slots.append(Slot(cx, r.type))
    plain = [(s, v) for s, v in zip(slots, inits) if isinstance(s, Slot)]
    write_slots(cx, [s for s, _ in plain], [v for _, v in plain])
    pre = cx.block
    head, loop, done = cx.label("for"), cx.label("body"), cx.label("endfor")
    cx.br(head)
    cx.start_block(head)
    iv = cx.fresh("iv")
    at = len(cx.lines)
    cx.lines.append(None)
    cmp = "ult" if op.attr("unsignedCmp", False) else "slt"
    go = cx.emit(f"icmp {cmp} {ity} {iv}, {ub}")
    cx.do(f"br i1 {go}, label %{loop}, label %{done}")
    cx.start_block(loop)
    saved = cx.pending
    cx.pending = []
    outs = cx.run_block(body, [iv] + [s.read(cx) for s in slots])
    cx.flush_pending(keep=outs)
    plain = [(s, v) for s, v in zip(slots, outs) if isinstance(s, Slot)]
    write_slots(cx, [s for s, _ in plain], [v for _, v in plain])
    for s in slots:
        if isinstance(s, Strided):
            s.advance(cx)
    cx.pending = saved
    nxt = cx.emit(f"add {ity} {iv}, {step}")
    cx.nloops += 1
    cx.do(f"br label %{head}, {cx.loop_md(False, licm=not licm_disabled(op))}")
    cx.lines[at] = f"  {iv} = phi {ity} [ {lb}, %{pre} ], [ {nxt}, %{cx.block} ]"
    cx.start_block(done)
    for r, s in zip(op.results, slots):
        cx.vals[r] = s.read(cx)


@lowers("scf.if")
def _if(cx: Ctx, op):
    _before_region_op(cx, op)
    c = cx.get(op.operand(0))
    slots = [Slot(cx, r.type) for r in op.results]
    yes, no, join = cx.label("then"), cx.label("else"), cx.label("endif")
    cx.do(f"br i1 {c}, label %{yes}, label %{no}")
    for label, region in ((yes, op.regions[0]), (no, op.regions[1])):
        cx.start_block(label)
        if region.blocks:
            saved = cx.pending
            cx.pending = []
            cx.memo.append({})
            outs = cx.run_block(region.entry, [])
            cx.flush_pending(keep=outs)
            write_slots(cx, slots, outs)
            cx.memo.pop()
            cx.pending = saved
        cx.br(join)
    cx.start_block(join)
    for r, s in zip(op.results, slots):
        cx.vals[r] = s.read(cx)


@lowers("scf.while")
def _while(cx: Ctx, op):
    _before_region_op(cx, op)
    before, after = op.regions[0].entry, op.regions[1].entry
    carried = [Slot(cx, a.type) for a in before.args]
    fwd = [Slot(cx, r.type) for r in op.results]
    write_slots(cx, carried, [cx.get(v) for v in op.operands])
    head, body, done = cx.label("while"), cx.label("do"), cx.label("endwhile")
    cx.br(head)
    cx.start_block(head)
    saved = cx.pending
    cx.pending = []
    term = before.terminator
    if term is None or term.name != "scf.condition":
        raise Unsupported("scf.while without scf.condition")
    outs = cx.run_block(before, [s.read(cx) for s in carried])
    cond = cx.get(term.operand(0))
    cx.flush_pending(keep=outs)
    write_slots(cx, fwd, outs[1:])
    cx.do(f"br i1 {cond}, label %{body}, label %{done}")
    cx.start_block(body)
    outs = cx.run_block(after, [s.read(cx) for s in fwd])
    cx.flush_pending(keep=outs)
    write_slots(cx, carried, outs)
    cx.pending = saved
    cx.nloops += 1
    cx.do(f"br label %{head}, {cx.loop_md(False, licm=not licm_disabled(op))}")
    cx.start_block(done)
    for r, s in zip(op.results, fwd):
        cx.vals[r] = s.read(cx)


@lowers("tt.map_elementwise")
def _map_elementwise(cx: Ctx, op):
    """`tl.map_elementwise`: a scalar loop over the elements (groups of `pack` consecutive
    ones along the last dim) running the region inline, branches and all, into result
    buffers; the evaluator's grouping (row-major), so both paths agree."""
    pack = int(op.attr("pack", 1) or 1)
    block = op.regions[0].entry
    ins = [cx.get(v) for v in op.operands]
    rt = op.results[0].type
    if not isinstance(rt, T.TensorType):
        outs = cx.run_block(block, ins)
        for r, v in zip(op.results, outs):
            cx.vals[r] = v
        return
    shape = list(rt.shape)
    if shape[-1] % pack:
        raise Unsupported(f"map_elementwise: pack={pack} does not divide the last dim "
                          f"{shape[-1]}")
    bufs = [cx.new_buf(shape, r.type) for r in op.results]

    def body(idx):
        elems = [idx[:-1] + [idx[-1] if pack == 1 else
                             cx.emit(f"add nuw nsw i32 {cx.emit(f'mul nuw nsw i32 {idx[-1]}, {pack}')}, {j}")]
                 for j in range(pack)]
        outs = cx.run_block(block, [operand_at(cx, x, e) for x in ins for e in elems])
        for k, (r, buf) in enumerate(zip(op.results, bufs)):
            for j, e in enumerate(elems):
                cx.store_buf(buf, shape, r.type, e, outs[k * pack + j])

    # scalar: the region's control flow is per element
    cx.loops(shape[:-1] + [shape[-1] // pack], body, vectorize=False)
    for r, buf in zip(op.results, bufs):
        cx.vals[r] = TV(shape, r.type, buf=buf)
