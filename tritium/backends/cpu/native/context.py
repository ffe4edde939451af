"""The host lowering framework: LLVM IR text, tensor values as loops, materialisation.

A TTIR tensor is never one LLVM vector. It is a `TV`: either *lazy* — a function that emits
the scalar code computing one element at a given index (a list of i32 LLVM operands, one
per dimension) — or *materialised* in a stack buffer (row-major, in the entry block's
allocas). Elementwise chains stay lazy and are emitted inside the loop nest of whoever
consumes them (a store, a reduction, a materialisation), so `load; add; store` becomes one
loop that LLVM's loop vectoriser turns into native-width SIMD with masked loads and stores.
Pointer arithmetic stays affine in the loop index, which is how LLVM sees contiguity.

A value is materialised when recomputing it would cost (several uses, or used in another
region, and more than a few ops), when a non-elementwise op needs it whole, or — for values
that read memory — when a side effect comes between the read and its use.
"""
from __future__ import annotations

import itertools
import math
import struct
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from ....ir import types as T
from ....ir.core import Block, Operation, Value
from ...line_info import LineInfo

HANDLERS: Dict[str, Callable] = {}
CHEAP = 4          # lazy values this cheap (ops per element) are recomputed, not stored
# Tensors live on the stack of the thread running the programs (8 MiB on the main thread
# by default); kernels whose tiles need more run on the evaluator.
MAX_FRAME = 6 << 20


class Unsupported(NotImplementedError):
    """The compiled path cannot lower this kernel; the evaluator runs it instead."""


def lowers(*names: str):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


# ------------------------------------------------------------------ types
def elem(t: T.Type) -> T.Type:
    return t.element_type if isinstance(t, T.TensorType) else t


def is_fp8(t: T.Type) -> bool:
    t = elem(t)
    return isinstance(t, T.FloatType) and t.name.startswith("f8")


def is_emulated(t: T.Type) -> bool:
    """Computed as float, rounded to a narrower format after every op (bf16, fp8)."""
    return is_bf16(t) or is_fp8(t)


def is_bf16(t: T.Type) -> bool:
    t = elem(t)
    return isinstance(t, T.FloatType) and t.name == "bf16"


def lty(t: T.Type) -> str:
    """LLVM type of an element as computed (bf16 and fp8 are computed as float, as the
    evaluator does: fp8.py)."""
    t = elem(t)
    if isinstance(t, T.IntegerType):
        return f"i{t.width}"
    if isinstance(t, T.PointerType):
        return "ptr"
    if isinstance(t, T.FloatType):
        ty = {"f16": "half", "bf16": "float", "f32": "float", "f64": "double"}.get(t.name)
        if ty is None and is_fp8(t):
            return "float"
        if ty is None:
            raise Unsupported(f"element type {t}")
        return ty
    raise Unsupported(f"type {t}")


def buf_ty(t: T.Type) -> str:
    """LLVM type of an element in a stack buffer (Ctx.new_buf): i1 is kept as i8."""
    ty = lty(t)
    return "i8" if ty == "i1" else ty


def mem_ty(t: T.Type) -> str:
    """LLVM type of an element in user memory."""
    t = elem(t)
    if isinstance(t, T.IntegerType) and t.width == 1:
        return "i8"
    if is_bf16(t):
        return "i16"
    if is_fp8(t):
        return "i8"
    return lty(t)


def fconst(ty: str, value: float) -> str:
    if ty == "half":
        return "0xH%04X" % int(np.array(value, np.float16).view(np.uint16))
    if ty == "float" and math.isfinite(value):
        value = struct.unpack("<f", struct.pack("<f", value))[0]
    elif ty == "float" and math.isnan(value):
        b = struct.unpack("<I", struct.pack("<f", value))[0]
        return "0x%016X" % (((b >> 31) << 63) | (0x7FF << 52) | ((b & 0x7FFFFF) << 29))
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(value)))[0]


def const(t: T.Type, value) -> str:
    ty = lty(t)
    if ty in ("half", "float", "double"):
        if is_emulated(t):
            from ..dtypes import convert_float
            value = float(convert_float(np.array([value], np.float64), elem(t))[0])
        return fconst(ty, float(value))
    if ty == "ptr":
        return "null" if not value else f"inttoptr (i64 {int(value)} to ptr)"
    w = elem(t).width
    v = int(value) & ((1 << w) - 1)
    if w == 1:
        return "true" if v else "false"
    return str(v - (1 << w) if v >> (w - 1) else v)


# ------------------------------------------------------------------ tensor values
class TV:
    """A tensor value: lazy (`fn(cx, idx) -> operand`) and/or materialised (`buf`)."""

    __slots__ = ("shape", "t", "fn", "buf", "deps", "impure", "cost", "pw", "fill", "dbg")

    def __init__(self, shape, t: T.Type, fn=None, deps=(), impure=False, cost=1, buf=None,
                 pw=False):
        self.shape = tuple(shape)
        self.t = elem(t)
        self.fn = fn
        self.buf = buf
        self.pw = pw            # reads every operand at its own index (no remapping)
        self.fill = None        # a custom way to materialise: fill(cx, dst_buffer)
        self.dbg = None         # the line tag of the op that made it (Ctx.set)
        self.deps = [d for d in deps if isinstance(d, TV)]
        self.impure = impure or any(d.impure and d.buf is None for d in self.deps)
        self.cost = cost + sum(d.cost for d in self.deps if d.buf is None)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def at(self, cx: "Ctx", idx: Sequence[str]) -> str:
        if self.buf is not None:
            return cx.load_buf(self, idx)
        key = (id(self), tuple(idx))
        hit = cx.memo_get(key)
        if hit is None:
            # Lazy values are emitted where they are used, but their instructions carry
            # the line of the op that made them.
            saved = cx.dbg
            cx.dbg = self.dbg if self.dbg is not None else saved
            hit = self.fn(cx, list(idx))
            cx.dbg = saved
            cx.memo_put(key, hit)
        return hit


def operand_at(cx: "Ctx", v, idx) -> str:
    return v.at(cx, idx) if isinstance(v, TV) else v


# ------------------------------------------------------------------ the function context
class Ctx:
    def __init__(self, name: str, vector_bits: int = 512, line_info: bool = False):
        self.name = name
        self.lines: List[str] = []
        self.allocas: List[str] = []
        self.decls: Dict[str, str] = {}
        self.globals: List[str] = []
        self.n = 0
        self.block = "entry"
        self.vals: Dict[Value, object] = {}
        self.memo: List[dict] = [{}]
        self.pending: List[TV] = []      # lazy values that read memory, not yet consumed
        self.vector_bits = vector_bits
        self.pid: List[str] = ["0", "0", "0"]
        self.nprog: List[str] = ["1", "1", "1"]
        self.meta: List[str] = []
        self.md_ids = itertools.count()  # metadata numbers (loop hints, line table)
        self.line_info = LineInfo(self.md_ids) if line_info else None
        self.scope: Optional[int] = None  # the kernel's DISubprogram (line_info)
        self.dbg = ""                   # `, !dbg !N` of the op being lowered
        self.nloops = 0
        self.frame_bytes = 0
        self.known_true: set = set()    # ids of mask TVs known to be all true here
        self._vectorize = True
        self._interleave = 0
        self._width = 0                 # a narrower vector width for the loops being made
        self.early: set = set()         # ops lowered ahead of their place (reduce_fuse.py)
        self.libm_calls = 0             # calls into libm emitted so far (see libm_call)
        self.print_sites: list = []     # tt.print call sites (see debug.py)
        self.assert_sites: list = []    # tt.assert call sites (debug.py)
        self.launch_id = "0"            # what the callbacks find the sites by
        self.op: Optional[Operation] = None
        # Streaming stores (memory.py): whether this kernel may use them, the launch's
        # threshold and program count (LLVM operands), whether any was emitted.
        self.stream_ok = False
        self.stream_bytes = "0"
        self.total_programs = "1"
        self.streamed = False
        self.nt_node: Optional[int] = None
        self.func: Optional[Operation] = None
        self._axis = None

    def axis_info(self):
        """Contiguity and divisibility of the kernel's integers and pointers (the GPU's
        AxisInfo analysis), computed on first use."""
        if self._axis is None:
            from ....gpu.axis_info import AxisInfoAnalysis
            self._axis = AxisInfoAnalysis(self.func)
        return self._axis

    # -- names and text
    def fresh(self, stem: str = "v") -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def emit(self, text: str, stem: str = "v") -> str:
        r = self.fresh(stem)
        self.lines.append(f"  {r} = {text}{self.dbg}")
        return r

    def do(self, text: str) -> None:
        self.lines.append(f"  {text}{self.dbg}")

    def label(self, stem: str = "b") -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def start_block(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.block = label

    def br(self, label: str) -> None:
        self.do(f"br label %{label}")

    def loop_md(self, vectorize: bool, interleave: int = 0, licm: bool = True) -> str:
        """Metadata for a loop's latch branch. Inner loops get an explicit vector width:
        it is what we want anyway (one SIMD register of 32-bit lanes), and it keeps LLVM 22's
        vectoriser off a cost-model path that trips an internal assertion (an abort, in the
        assertion-enabled LLVM that llvmlite ships) on maxnum reductions. Other loops are
        left scalar."""
        k = next(self.md_ids)
        if vectorize:
            # No full unrolling before the vectoriser sees the loop: a 32-trip masked loop
            # unrolled first becomes 32 scalar branches instead of 2 masked SIMD loads.
            w = max(4, self.vector_bits // 32)
            if self._width:   # (a loop over fewer elements than one register holds)
                w = max(4, min(w, self._width))
            hints = [f'!{{!"llvm.loop.vectorize.width", i32 {w}}}',
                     '!{!"llvm.loop.unroll.disable"}']
            if interleave:
                hints.append(f'!{{!"llvm.loop.interleave.count", i32 {interleave}}}')
        else:
            hints = ['!{!"llvm.loop.vectorize.enable", i1 false}']
        if not licm:  # upstream's `disable_licm=True` (see scf_loop_md)
            hints.append('!{!"llvm.licm.disable"}')
        ids = [next(self.md_ids) for _ in hints]
        self.meta.append(f'!{k} = distinct !{{!{k}, {", ".join(f"!{i}" for i in ids)}}}')
        self.meta += [f"!{i} = {h}" for i, h in zip(ids, hints)]
        return f"!llvm.loop !{k}"

    def libm_call(self, name: str, ty: str, args) -> str:
        """A call of libm's `name` (`namef` for float). LLVM has no vector form of these
        (no vector library is set), so a loop that makes one is left scalar: pinned to a
        vector width instead, LLVM prints "loop not vectorized" remarks on stderr."""
        sym = name + ("f" if ty == "float" else "")
        self.declare(sym, f"declare {ty} @{sym}({', '.join([ty] * len(args))})")
        self.libm_calls += 1
        return self.emit(f"call {ty} @{sym}({', '.join(f'{ty} {a}' for a in args)})")

    def declare(self, name: str, text: str) -> None:
        self.decls[name] = text

    def alloca(self, ty: str, count: int = 1, align: int = 64) -> str:
        self.frame_bytes += max(align, type_bytes(ty) * count)
        if self.frame_bytes > MAX_FRAME:
            raise Unsupported(f"tensors need more than {MAX_FRAME >> 20} MiB of stack")
        self.n += 1
        r = f"%a{self.n}"
        if count == 1:
            self.allocas.append(f"  {r} = alloca {ty}, align {align}")
        else:
            self.allocas.append(f"  {r} = alloca [{count} x {ty}], align {align}")
        return r

    # -- memo (per loop body, scoped by conditional blocks)
    def memo_get(self, key):
        for m in reversed(self.memo):
            if key in m:
                return m[key]
        return None

    def memo_put(self, key, v) -> None:
        self.memo[-1][key] = v

    # -- values
    def get(self, v: Value):
        try:
            return self.vals[v]
        except KeyError:
            raise Unsupported(f"value {v} used before it was lowered") from None

    def set(self, v: Value, x) -> None:
        if isinstance(x, TV) and x.dbg is None:
            x.dbg = self.dbg
        if isinstance(x, TV) and x.buf is None:
            self._decide(v, x)
        self.vals[v] = x

    def _decide(self, v: Value, tv: TV) -> None:
        users = v.users
        home = v.parent_block
        local = len({id(u) for u in users}) == 1 and users[0].parent is home
        if tv.impure:
            if local:
                self.pending.append(tv)
            else:
                self.materialize(tv)
        elif not local and tv.cost > CHEAP and users:
            self.materialize(tv)

    # -- buffers and loops
    def strides(self, shape) -> List[int]:
        st, acc = [], 1
        for s in reversed(shape):
            st.append(acc)
            acc *= s
        return st[::-1]

    def linear(self, shape, idx) -> str:
        terms = []
        for s, st, i in zip(shape, self.strides(shape), idx):
            if s == 1 or i == "0":
                continue
            terms.append(i if st == 1 else self.emit(f"mul nuw nsw i32 {i}, {st}"))
        if not terms:
            return "0"
        acc = terms[0]
        for t in terms[1:]:
            acc = self.emit(f"add nuw nsw i32 {acc}, {t}")
        return acc

    # Buffers hold i1 as i8 (0 or 1): LLVM keeps loops over i1 memory scalar, and a masked
    # SIMD op reading an i1 buffer built its mask a byte at a time (~80 instructions per
    # 16 lanes); bytes are one vector load and a compare.
    def new_buf(self, tv_or_shape, t: T.Type = None) -> str:
        if isinstance(tv_or_shape, TV):
            shape, t = tv_or_shape.shape, tv_or_shape.t
        else:
            shape = tv_or_shape
        return self.alloca(buf_ty(t), math.prod(shape))

    def load_buf(self, tv: TV, idx) -> str:
        ty = buf_ty(tv.t)
        lin = self.linear(tv.shape, idx)
        p = self.emit(f"getelementptr inbounds {ty}, ptr {tv.buf}, i32 {lin}")
        v = self.emit(f"load {ty}, ptr {p}")
        return self.emit(f"trunc i8 {v} to i1") if ty != lty(tv.t) else v

    def store_buf(self, buf: str, shape, t: T.Type, idx, val: str) -> None:
        ty = buf_ty(t)
        lin = self.linear(shape, idx)
        p = self.emit(f"getelementptr inbounds {ty}, ptr {buf}, i32 {lin}")
        if ty != lty(t):
            val = self.emit(f"zext i1 {val} to i8")
        self.do(f"store {ty} {val}, ptr {p}")

    def materialize(self, tv: TV, buf: Optional[str] = None) -> TV:
        """Compute every element of `tv` into a buffer (a fresh one unless given)."""
        if tv.buf is not None and buf is None:
            return tv
        dst = buf or self.new_buf(tv)
        saved = self.dbg
        if tv.dbg is not None:  # the loop computing it belongs to the op that made it
            self.dbg = tv.dbg
        if tv.fill is not None and tv.buf is None:
            tv.fill(self, dst)
        else:
            self.loops(tv.shape, lambda idx: self.store_buf(dst, tv.shape, tv.t, idx,
                                                            tv.at(self, idx)))
        self.dbg = saved
        if buf is None:
            tv.buf = dst
        if tv in self.pending:
            self.pending.remove(tv)
        return tv

    def flush_pending(self, keep: Sequence[object] = ()) -> None:
        """A side effect is about to happen: memory reads still lazy must happen first,
        except those that only feed the op about to run (they run in its loop)."""
        live = set()
        stack = [k for k in keep if isinstance(k, TV)]
        while stack:
            tv = stack.pop()
            if id(tv) in live or tv.buf is not None:
                continue
            live.add(id(tv))
            stack.extend(tv.deps)
        for tv in list(self.pending):
            if id(tv) not in live and tv.buf is None:
                self.materialize(tv)
        self.pending = [tv for tv in self.pending if tv.buf is None]

    def loops(self, shape, body: Callable[[List[str]], None], *, start=None,
              vectorize: bool = True, interleave: int = 0, width: int = 0) -> None:
        """A loop nest over `shape` (row-major order, innermost dim last), `body(idx)`.
        `start` gives a per-dimension first index (default 0). `vectorize=False` keeps the
        innermost loop scalar (loops that carry a value from one iteration to the next:
        LLVM 22 miscompiles some vectorised min/max reductions into endless loops)."""
        self.memo.append({})
        saved = self._vectorize, self._interleave, self._width
        self._vectorize, self._interleave, self._width = vectorize, interleave, width
        self._nest(list(shape), 0, [], body, start or [0] * len(shape))
        self._vectorize, self._interleave, self._width = saved
        self.memo.pop()

    def _nest(self, shape, d, idx, body, start) -> None:
        if d == len(shape):
            body(idx)
            return
        n = shape[d]
        if n - start[d] <= 0:
            return
        if n == 1:
            self._nest(shape, d + 1, idx + ["0"], body, start)
            return
        pre = self.block
        head = self.label("loop")
        exit_ = self.label("exit")
        self.br(head)
        self.start_block(head)
        iv = self.fresh("i")
        phi_at = len(self.lines)
        self.lines.append(None)
        self.memo.append({})
        self.nloops += 1
        before, calls = self.nloops, self.libm_calls
        self._nest(shape, d + 1, idx + [iv], body, start)
        self.memo.pop()
        nxt = self.emit(f"add nuw nsw i32 {iv}, 1")
        done = self.emit(f"icmp eq i32 {nxt}, {n}")
        # (A loop of 2 or 3 trips is left to LLVM's unroller: pinned to a vector width it
        # cannot use, LLVM prints "loop not vectorized" remarks on stderr.)
        md = self.loop_md(self.nloops == before and self._vectorize and n - start[d] >= 4
                          and self.libm_calls == calls, self._interleave)
        self.do(f"br i1 {done}, label %{exit_}, label %{head}, {md}")
        self.lines[phi_at] = f"  {iv} = phi i32 [ {start[d]}, %{pre} ], [ {nxt}, %{self.block} ]"
        self.start_block(exit_)

    def fold(self, shape, ty: str, init: str, step: Callable[[List[str], str], str]) -> str:
        """A value carried through a scalar loop nest over `shape`: `step(idx, acc)` gives
        the next from the last (through a stack slot, which LLVM keeps in a register)."""
        slot = self.alloca(ty)
        self.do(f"store {ty} {init}, ptr {slot}")

        def body(idx):
            self.do(f"store {ty} {step(idx, self.emit(f'load {ty}, ptr {slot}'))}, ptr {slot}")
        self.loops(shape, body, vectorize=False)
        return self.emit(f"load {ty}, ptr {slot}")

    def cond(self, c: str, then: Callable[[], Optional[str]], other: Optional[str] = None,
             ty: Optional[str] = None) -> Optional[str]:
        """`if c: then()`; with `other`, the value `c ? then() : other` (then() runs only
        where c holds, so it may touch memory that is invalid elsewhere)."""
        if c == "true":
            return then()
        pre = self.block
        yes, join = self.label("then"), self.label("join")
        self.do(f"br i1 {c}, label %{yes}, label %{join}")
        self.start_block(yes)
        self.memo.append({})
        v = then()
        self.memo.pop()
        end = self.block
        self.br(join)
        self.start_block(join)
        if other is not None:
            return self.emit(f"phi {ty} [ {v}, %{end} ], [ {other}, %{pre} ]")
        return None

    def copy_into(self, dst: str, shape, t: T.Type, src) -> None:
        """Write tensor `src` (TV) into buffer `dst`."""
        if isinstance(src, TV) and src.buf is not None:
            if src.buf == dst:
                return
            nbytes = math.prod(shape) * (1 if lty(t) == "i1" else max(1, _bytes(lty(t))))
            self.declare("llvm.memcpy", "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)")
            self.do(f"call void @llvm.memcpy.p0.p0.i64(ptr {dst}, ptr {src.buf}, "
                    f"i64 {nbytes}, i1 false)")
            return
        self.loops(shape, lambda idx: self.store_buf(dst, shape, t, idx,
                                                     operand_at(self, src, idx)))

    # -- regions run inline (reduce/scan combiners, scf bodies)
    def run_block(self, block: Block, args: Sequence[object]) -> List[object]:
        for a, v in zip(block.args, args):
            self.vals[a] = v
        term = None
        for op in block:
            if op.name in TERMINATORS:
                term = op
                break
            if op not in self.early:
                self.lower_op(op)
        return [self.get(v) for v in term.operands] if term is not None else []

    def lower_op(self, op: Operation) -> None:
        h = HANDLERS.get(op.name)
        if h is None:
            raise Unsupported(f"no host lowering for '{op.name}'")
        prev, self.op = self.op, op
        outer = self.dbg
        if self.line_info is not None:
            self.dbg = self.line_info.tag(op.loc, self.scope)
        try:
            h(self, op)
        finally:
            self.op, self.dbg = prev, outer


TERMINATORS = {"scf.yield", "scf.condition", "tt.return", "tt.reduce.return",
               "tt.scan.return", "tt.map_elementwise.return"}


def _bytes(ty: str) -> int:
    return {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "float": 4, "double": 8,
            "ptr": 8}[ty]


def type_bytes(ty: str) -> int:
    return 1 if ty == "i1" else _bytes(ty)


# ------------------------------------------------------------------ elementwise helper
def elementwise(cx: Ctx, op: Operation, scalar: Callable[..., str], cost: int = 1) -> None:
    """Bind op's single result: `scalar(cx, *operand_values)` per element (lazy for
    tensors, immediate for scalars)."""
    ins = [cx.get(v) for v in op.operands]
    rt = op.results[0].type
    if not isinstance(rt, T.TensorType):
        cx.set(op.results[0], scalar(cx, *ins))
        return
    def fn(c, idx):
        return scalar(c, *[operand_at(c, x, idx) for x in ins])
    cx.set(op.results[0], TV(rt.shape, rt, fn, deps=ins, cost=cost, pw=True))
