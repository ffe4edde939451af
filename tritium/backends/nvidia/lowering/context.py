"""The lowering framework: LLVM IR text emission, value maps and layout coordinates.

A TTGIR tensor value becomes, in each thread, a Python list of LLVM operands (strings such
as `%v12` or `0x3FF0000000000000`), one per register of its layout (register order of the
tensor's LinearLayout); a scalar becomes one operand. Op families register handlers with
`@lowers("arith.addf", ...)`; a handler reads its operands from `ctx.get(v)` and binds its
results with `ctx.set(result, value)`.

Coordinates come from the LinearLayout: the tensor coordinate of register r in thread t is
LL(register=r) XOR LL(lane=t%32, warp=t/32). The thread part is a GF(2)-linear function of
the bits of `tid.x`; it is emitted once per layout per function in the entry block (a few
and/shift/or instructions), the register part is a constant.
"""
from __future__ import annotations

import itertools
import math
import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from ....ir import types as T
from ....ir.core import Block, Operation, Value
from ....ir.ops import licm_disabled
from ....gpu.linear_layout import LinearLayout

REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"
WARP_SIZE = 32

LLVal = Union[str, List[str]]

# ------------------------------------------------------------------ handler registry
HANDLERS: Dict[str, Callable] = {}


def lowers(*names: str):
    """Register `fn(ctx, op)` as the lowering of the named TTGIR ops."""
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


class LoweringError(RuntimeError):
    pass


# ------------------------------------------------------------------ types
_FLOATS = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}


def elem_type(t: T.Type) -> T.Type:
    return t.element_type if isinstance(t, T.TensorType) else t


def ltype(t: T.Type) -> str:
    """LLVM type of one element of IR type `t` (fp8 types are carried as i8)."""
    t = elem_type(t)
    if isinstance(t, T.IntegerType):
        return f"i{t.width}"
    if isinstance(t, T.FloatType):
        return _FLOATS.get(t.name, "i8")
    if isinstance(t, T.PointerType):
        return f"ptr addrspace({t.address_space})" if t.address_space else "ptr"
    raise LoweringError(f"no LLVM type for {t}")


def bitwidth(t: T.Type) -> int:
    t = elem_type(t)
    if isinstance(t, T.PointerType):
        return 64
    return t.bitwidth


def storage_bits(t: T.Type) -> int:
    """Bits an element takes in memory (i1 is stored as a byte)."""
    return max(8, bitwidth(t))


def is_fp8(t: T.Type) -> bool:
    t = elem_type(t)
    return isinstance(t, T.FloatType) and t.bitwidth == 8


def is_float(t: T.Type) -> bool:
    return isinstance(elem_type(t), T.FloatType)


def is_ptr(t: T.Type) -> bool:
    return isinstance(elem_type(t), T.PointerType)


def int_ty(bits: int) -> str:
    return f"i{bits}"


# ------------------------------------------------------------------ constants
def fconst(ltype_: str, value: float) -> str:
    """An LLVM float literal that represents `value` exactly after rounding to the type."""
    if ltype_ == "double":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    if ltype_ == "float":
        f = struct.unpack("<f", struct.pack("<f", float(value)))[0] if math.isfinite(value) \
            else float(value)
        if math.isnan(value):
            bits32 = struct.unpack("<I", struct.pack("<f", float(value)))[0]
            # float NaN as a double literal: widen the payload.
            sign = bits32 >> 31
            mant = bits32 & 0x7FFFFF
            return "0x%016X" % ((sign << 63) | (0x7FF << 52) | (mant << 29))
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", f))[0]
    if ltype_ == "half":
        import numpy as np
        return "0xH%04X" % int(np.array(value, np.float16).view(np.uint16))
    if ltype_ == "bfloat":
        from ....backends.cpu.dtypes import f32_to_bf16_bits
        import numpy as np
        return "0xR%04X" % int(f32_to_bf16_bits(np.array([value], np.float32))[0])
    raise LoweringError(f"no float literal for {ltype_}")


def iconst(bits: int, value: int) -> str:
    if bits == 1:
        return "true" if value & 1 else "false"
    value &= (1 << bits) - 1
    if value >> (bits - 1):
        value -= 1 << bits
    return str(value)


def const(t: T.Type, value) -> str:
    """LLVM literal of a Python value of IR element type `t`."""
    t = elem_type(t)
    if isinstance(t, T.IntegerType):
        return iconst(t.width, int(value))
    if isinstance(t, T.FloatType):
        if t.bitwidth == 8:
            import numpy as np
            from ....backends.cpu.dtypes import FORMATS, encode
            return str(int(encode(np.array([float(value)]), FORMATS[t.name])[0]))
        return fconst(ltype(t), float(value))
    if isinstance(t, T.PointerType):
        return "null" if not value else f"inttoptr (i64 {int(value)} to {ltype(t)})"
    raise LoweringError(f"no constant of type {t}")


def zero(t: T.Type) -> str:
    t = elem_type(t)
    if isinstance(t, T.PointerType):
        return "null"
    return const(t, 0)


def llvm_string(s: str) -> str:
    """Escape text for an LLVM `c"..."` string or inline-asm string."""
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c == '"' or c == "\\" or ch < 32 or ch >= 127:
            out.append("\\%02X" % ch)
        else:
            out.append(c)
    return "".join(out)


# ------------------------------------------------------------------ module-level state
class ModuleEmitter:
    """Declarations, globals and finished functions of one LLVM module."""

    def __init__(self):
        self.decls: Dict[str, str] = {}
        self.globals: List[str] = []
        self.functions: List[str] = []
        self._strings: Dict[str, str] = {}
        self.uses_smem = False
        self.metadata: List[str] = []   # `!N = ...` lines (ids from ModuleContext.md_ids)

    def declare(self, name: str, text: str) -> None:
        self.decls.setdefault(name, text)

    def string(self, s: str, prefix: str = "str") -> str:
        """A private constant NUL-terminated string; returns its global name."""
        key = s
        g = self._strings.get(key)
        if g is None:
            g = f"@.{prefix}.{len(self._strings)}"
            data = s.encode("utf-8") + b"\0"
            self.globals.append(f'{g} = private unnamed_addr constant [{len(data)} x i8] '
                                f'c"{llvm_string(s)}\\00", align 1')
            self._strings[key] = g
        return g

    def text(self) -> str:
        parts = []
        if self.uses_smem:
            parts.append("@global_smem = external addrspace(3) global [0 x i8], align 16")
        parts.extend(self.globals)
        parts.append("")
        parts.extend(self.decls[k] for k in sorted(self.decls))
        parts.append("")
        parts.extend(self.functions)
        parts.extend(self.metadata)
        return "\n".join(parts) + "\n"


class Emitter:
    """Instruction text of one LLVM function with fresh SSA names and basic blocks."""

    def __init__(self, module: ModuleEmitter):
        self.module = module
        self.lines: List[str] = []
        self.prologue: List[str] = []
        self._once: Dict[tuple, str] = {}
        self.n = 0
        self.nlabels = 0
        self.block = "entry"
        self.dbg = ""  # `, !dbg !N` of the op being lowered when line info is on

    # -- names
    def fresh(self, hint: str = "v") -> str:
        # `%hint.N` never collides with parameter names (`%argN`, `%aI_J`).
        self.n += 1
        return f"%{hint}.{self.n}"

    def new_label(self, hint: str = "bb") -> str:
        self.nlabels += 1
        return f"{hint}{self.nlabels}"

    # -- raw emission
    def emit(self, text: str) -> None:
        self.lines.append("  " + text + self.dbg)

    def inst(self, rhs: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        self.lines.append(f"  {name} = {rhs}{self.dbg}")
        return name

    def pro(self, rhs: str, hint: str = "p") -> str:
        """An instruction in the entry block (dominates everything; for thread-id math)."""
        name = self.fresh(hint)
        self.prologue.append(f"  {name} = {rhs}{self.dbg}")
        return name

    def pro_once(self, key: tuple, rhs: str, hint: str = "p") -> str:
        """`pro(rhs)` emitted once per function for `key` (later calls get the same name)."""
        got = self._once.get(key)
        if got is None:
            got = self._once[key] = self.pro(rhs, hint)
        return got

    def placeholder(self) -> int:
        self.lines.append("")
        return len(self.lines) - 1

    def fill(self, index: int, text: str) -> None:
        self.lines[index] = text

    # -- blocks
    def start_block(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.block = label

    def br(self, label: str, loop_md: str = "") -> None:
        """`loop_md`: a loop's latch carries its `!llvm.loop` hints (", !llvm.loop !N")."""
        self.emit(f"br label %{label}{loop_md}")

    def cond_br(self, cond: str, t: str, f: str) -> None:
        self.emit(f"br i1 {cond}, label %{t}, label %{f}")

    def guarded(self, pred: Optional[str], body, then: str = "pr", done: str = "pr_end") -> None:
        """`body()`'s code run only where i1 `pred` holds (always when `pred` is None): the
        store of one thread of several holding a value, of thread 0 only, and the like."""
        if pred is None:
            body()
            return
        then, done = self.new_label(then), self.new_label(done)
        self.cond_br(pred, then, done)
        self.start_block(then)
        body()
        self.br(done)
        self.start_block(done)

    # -- helpers
    def declare(self, name: str, ret: str, args: Sequence[str], attrs: str = "") -> None:
        self.module.declare(name, f"declare {ret} @{name}({', '.join(args)}){(' ' + attrs) if attrs else ''}")

    def call(self, ret: str, name: str, args: Sequence[Tuple[str, str]], attrs: str = "",
             declare: bool = True, hint: str = "c") -> Optional[str]:
        if declare:
            self.declare(name, ret, [a for a, _ in args])
        arg_text = ", ".join(f"{t} {v}" for t, v in args)
        text = f"call {ret} @{name}({arg_text}){(' ' + attrs) if attrs else ''}"
        if ret == "void":
            self.emit(text)
            return None
        return self.inst(text, hint)

    def asm(self, ret: str, asm: str, constraints: str, args: Sequence[Tuple[str, str]],
            side_effects: bool = False, hint: str = "a") -> Optional[str]:
        se = " sideeffect" if side_effects else ""
        arg_text = ", ".join(f"{t} {v}" for t, v in args)
        text = (f'call {ret} asm{se} "{llvm_string(asm)}", '
                f'"{constraints}"({arg_text})')
        if ret == "void":
            self.emit(text)
            return None
        return self.inst(text, hint)

    def bin(self, op: str, ty: str, a: str, b: str, hint: str = "v") -> str:
        return self.inst(f"{op} {ty} {a}, {b}", hint)

    def icmp(self, pred: str, ty: str, a: str, b: str) -> str:
        return self.inst(f"icmp {pred} {ty} {a}, {b}", "c")

    def select(self, cond: str, ty: str, a: str, b: str) -> str:
        if a == b:
            return a
        return self.inst(f"select i1 {cond}, {ty} {a}, {ty} {b}", "s")

    def cast(self, op: str, from_ty: str, v: str, to_ty: str) -> str:
        if from_ty == to_ty and op in ("bitcast", "zext", "sext", "trunc"):
            return v
        return self.inst(f"{op} {from_ty} {v} to {to_ty}", "t")

    def extract(self, aggr_ty: str, v: str, idx: int) -> str:
        return self.inst(f"extractvalue {aggr_ty} {v}, {idx}", "x")

    def extractelement(self, vec_ty: str, v: str, idx: int) -> str:
        return self.inst(f"extractelement {vec_ty} {v}, i32 {idx}", "x")

    def build_vector(self, elt_ty: str, elems: Sequence[str]) -> str:
        vt = f"<{len(elems)} x {elt_ty}>"
        acc = "poison"
        for i, e in enumerate(elems):
            acc = self.inst(f"insertelement {vt} {acc}, {elt_ty} {e}, i32 {i}", "vec")
        return acc

    def split_vector(self, elt_ty: str, v: str, n: int) -> List[str]:
        vt = f"<{n} x {elt_ty}>"
        return [self.extractelement(vt, v, i) for i in range(n)]

    def gep(self, elt_ty: str, ptr_ty: str, ptr: str, idx_ty: str, idx: str) -> str:
        return self.inst(f"getelementptr {elt_ty}, {ptr_ty} {ptr}, {idx_ty} {idx}", "g")


# ------------------------------------------------------------------ linear functions of tid
def _bits(v: int):
    i = 0
    while v:
        if v & 1:
            yield i
        v >>= 1
        i += 1


def _hw_tid_bases(ll: LinearLayout, out_dim: str) -> List[int]:
    """Per bit of tid.x (lanes then warps), the value it contributes along `out_dim`."""
    ret: List[int] = []
    k = ll.out_dims.index(out_dim)
    for dim, width in ((LANE, 5), (WARP, None)):
        bases = ll.bases.get(dim, [])
        vals = [b[k] for b in bases]
        if dim == LANE:
            vals = (vals + [0] * 5)[:5]
        ret.extend(vals)
    return ret


# ------------------------------------------------------------------ per-function context
def block_representatives(ll: LinearLayout, blocks: Sequence[int],
                          at: Optional[Dict[tuple, int]] = None) -> List[int]:
    """Per register, a register of the same thread whose element lies in the same aligned
    block of `blocks[d]` elements along every dim d (powers of two): a value known to be
    constant over such blocks (AxisInfo constancy) needs computing once per block. The
    element of register r is R(r) ^ H (H: the lane/warp part), so clearing low bits of
    R(r) keeps it in its block whatever H is; `at` maps R(r) to its first register."""
    if at is None:
        at = {}
        for r in range(ll.get_in_dim_size(REG)):
            at.setdefault(tuple(ll.apply({REG: r}).values()), r)
    outs = ll.out_dims
    masks = [b - 1 for b in blocks]
    reps = []
    for r in range(ll.get_in_dim_size(REG)):
        c = ll.apply({REG: r})
        reps.append(at.get(tuple(c[d] & ~m for d, m in zip(outs, masks)), r))
    return reps


class FunctionContext:
    """Lowering state of one tt.func: value map, emitter and cached layout math."""

    def __init__(self, module_ctx: "ModuleContext", func: Operation):
        self.mod = module_ctx
        self.func = func
        self.e = Emitter(module_ctx.out)
        self.values: Dict[Value, LLVal] = {}
        self.num_warps = module_ctx.num_warps
        self._tid: Optional[str] = None
        # ptr addrspace(1): this kernel's global scratch parameter, when it has one
        self.global_scratch: Optional[str] = None
        self._lin_cache: Dict[tuple, str] = {}
        self._coord_cache: Dict[tuple, List[List[str]]] = {}
        self._ll_cache: Dict[tuple, LinearLayout] = {}
        li = module_ctx.line_info
        self.scope = li.subprogram(func.attr("sym_name"), func.loc) if li is not None else None

    # -- values
    def get(self, v: Value) -> LLVal:
        try:
            return self.values[v]
        except KeyError:
            owner = v.owner_op
            raise LoweringError(f"value used before lowering: {v!r}"
                                f"{' defined by ' + owner.name if owner else ''}") from None

    def set(self, v: Value, llv: LLVal) -> None:
        if isinstance(v.type, T.TensorType):
            if not isinstance(llv, list):
                raise LoweringError(f"tensor value bound to a scalar: {v!r}")
            n = self.num_regs(v.type)
            if len(llv) != n:
                raise LoweringError(f"{v!r}: {len(llv)} values for {n} registers")
        self.values[v] = llv

    def regs(self, v: Value, n: Optional[int] = None) -> List[str]:
        """Operand `v` as a list (scalars broadcast to `n` copies)."""
        x = self.get(v)
        if isinstance(x, list):
            return x
        return [x] * (n if n is not None else 1)

    # -- layouts
    def ll(self, t: T.Type) -> LinearLayout:
        if not isinstance(t, T.TensorType):
            raise LoweringError(f"{t} has no layout")
        if t.encoding is None:
            raise LoweringError(f"tensor type {t} has no layout encoding (not TTGIR?)")
        key = (t.encoding, t.dims)
        ll = self._ll_cache.get(key)
        if ll is None:
            ll = t.encoding.to_linear_layout(list(t.dims))
            self._ll_cache[key] = ll
        return ll

    def num_regs(self, t: T.Type) -> int:
        if not isinstance(t, T.TensorType):
            return 1
        return self.ll(t).get_in_dim_size(REG)

    # -- thread ids
    def tid(self) -> str:
        if self._tid is None:
            self.e.declare("llvm.nvvm.read.ptx.sreg.tid.x", "i32", [])
            self._tid = self.e.pro("call i32 @llvm.nvvm.read.ptx.sreg.tid.x()", "tid")
        return self._tid

    def lane_id(self) -> str:
        return self.linear_tid(list(1 << i for i in range(5)))

    def warp_id(self) -> str:
        nw = max(1, self.num_warps)
        return self.linear_tid([0] * 5 + [1 << i for i in range(nw.bit_length() - 1)])

    def linear_tid(self, bases: Sequence[int]) -> str:
        """The i32 value XOR_{bit i of tid set} bases[i], emitted in the entry block."""
        bases = tuple(int(b) for b in bases)
        while bases and not bases[-1]:
            bases = bases[:-1]
        if not bases:
            return "0"
        cached = self._lin_cache.get(bases)
        if cached is not None:
            return cached
        tid = self.tid()
        # Group the (input bit i -> output bit k) pairs by shift k - i.
        groups: Dict[int, int] = {}
        sources: Dict[int, int] = {}
        for i, b in enumerate(bases):
            for k in _bits(b):
                groups[k - i] = groups.get(k - i, 0) | (1 << i)
                sources[k] = sources.get(k, 0) + 1
        disjoint = all(c == 1 for c in sources.values())
        terms = []
        for shift in sorted(groups):
            mask = groups[shift]
            v = self.e.pro(f"and i32 {tid}, {mask}", "m")
            if shift > 0:
                v = self.e.pro(f"shl i32 {v}, {shift}", "m")
            elif shift < 0:
                v = self.e.pro(f"lshr i32 {v}, {-shift}", "m")
            terms.append(v)
        acc = terms[0]
        for t in terms[1:]:
            acc = self.e.pro(f"{'add nuw nsw' if disjoint else 'xor'} i32 {acc}, {t}", "m")
        self._lin_cache[bases] = acc
        return acc

    def warp_uniform_value(self, bases: Sequence[int]) -> Tuple[str, int]:
        """(value, mask) of XOR_{bit j of the warp id set} bases[j], computed from the warp id
        read through `shfl.sync.idx` from lane 0, as upstream does: ptxas then knows the
        value is warp-uniform and keeps what derives from it (wgmma descriptors) in uniform
        registers. Computed from tid.x, LLVM may fold it into lane-dependent expressions of
        the same bits, and the main loop then moves each descriptor through R2UR."""
        bases = tuple(int(b) for b in bases)
        mask = 0
        for b in bases:
            mask |= b
        if not mask:
            return "0", 0
        key = ("warp-uniform",) + bases
        got = self._lin_cache.get(key)
        if got is not None:
            return got, mask
        name = "llvm.nvvm.shfl.sync.idx.i32"
        self.e.declare(name, "i32", ["i32", "i32", "i32", "i32"])
        w = self.e.pro(f"lshr i32 {self.tid()}, 5", "m")
        wid = self.e.pro(f"call i32 @{name}(i32 -1, i32 {w}, i32 0, i32 31)", "wid")
        acc = None
        for j, b in enumerate(bases):
            for k in range(b.bit_length()):
                if not (b >> k) & 1:
                    continue
                v = self.e.pro(f"and i32 {wid}, {1 << j}", "m")
                if k > j:
                    v = self.e.pro(f"shl i32 {v}, {k - j}", "m")
                elif k < j:
                    v = self.e.pro(f"lshr i32 {v}, {j - k}", "m")
                acc = v if acc is None else self.e.pro(f"xor i32 {acc}, {v}", "m")
        self._lin_cache[key] = acc
        return acc, mask

    def hw_from_tid_bases(self, bases: Sequence[int]) -> Tuple[str, int]:
        """(value, mask of bits it can have) of XOR_{bit i of tid.x set} bases[i]."""
        mask = 0
        for b in bases:
            mask |= b
        return self.linear_tid(bases), mask

    def hw_value(self, ll: LinearLayout, out_dim: str) -> Tuple[str, int]:
        """(value, mask of bits it can have) of the lane/warp part of `ll` along `out_dim`."""
        bases = _hw_tid_bases(ll, out_dim)
        mask = 0
        for b in bases:
            mask |= b
        return self.linear_tid(bases), mask

    def combine_const(self, hw: Tuple[str, int], c: int, ty: str = "i32") -> str:
        """hw XOR c, as an `add` when the bits cannot overlap (emitted in the prologue): the
        same value, and LLVM strength-reduces `(base + c) * k` across a thread's registers
        (one multiply per thread in Philox's first round, as upstream gets)."""
        v, mask = hw
        if c == 0:
            return v
        if v == "0":
            return str(c)
        op = "add nuw nsw" if (mask & c) == 0 else "xor"
        return self.e.pro(f"{op} {ty} {v}, {c}", "m")

    def coords(self, ll: LinearLayout) -> List[List[str]]:
        """Per register, per out-dim: the i32 tensor coordinate this thread holds."""
        key = (ll,)
        got = self._coord_cache.get(key)
        if got is not None:
            return got
        outs = ll.out_dims
        hws = [self.hw_value(ll, d) for d in outs]
        res = []
        cache: Dict[Tuple[int, int], str] = {}
        for r in range(ll.get_in_dim_size(REG)):
            rc = ll.apply({REG: r})
            row = []
            for k, d in enumerate(outs):
                c = rc[d]
                key2 = (k, c)
                if key2 not in cache:
                    cache[key2] = self.combine_const(hws[k], c)
                row.append(cache[key2])
            res.append(row)
        self._coord_cache[key] = res
        return res

    def eval_linear(self, ll: LinearLayout) -> List[str]:
        """`ll` with one out-dim (in-dims register/lane/warp): per register, its i32 value."""
        (out,) = ll.out_dims
        hw = self.hw_value(ll, out)
        nreg = ll.get_in_dim_size(REG) if ll.has_in_dim(REG) else 1
        res = []
        for r in range(nreg):
            c = ll.apply({REG: r})[out] if ll.has_in_dim(REG) else 0
            res.append(self.combine_const(hw, c))
        return res

    def owner_info(self, ll: LinearLayout) -> Tuple[Optional[str], int]:
        """(i1 predicate 'this thread owns its elements' or None, mask of duplicate
        register bits): with broadcast layouts several threads hold one element, and only
        the one whose free lane/warp bits are zero should write it."""
        free = ll.free_variable_masks()
        tid_mask = (free.get(LANE, 0) & 31) | (free.get(WARP, 0) << 5)
        pred = None
        if tid_mask:
            key = ("own", tid_mask)
            pred = self._lin_cache.get(key)
            if pred is None:
                m = self.e.pro(f"and i32 {self.tid()}, {tid_mask}", "m")
                pred = self.e.pro(f"icmp eq i32 {m}, 0", "own")
                self._lin_cache[key] = pred
        return pred, free.get(REG, 0)

    def register_at(self, ll: LinearLayout) -> Dict[tuple, int]:
        """Constant part of a register's coordinates (lane and warp 0) -> the first register
        holding it: how dot lowerings find an operand element by its offset in a fragment."""
        key = ("at", ll)
        got = self._coord_cache.get(key)
        if got is None:
            got = {}
            for r in range(ll.get_in_dim_size(REG)):
                got.setdefault(tuple(ll.apply({REG: r}).values()), r)
            self._coord_cache[key] = got
        return got

    def canonical(self, ll: LinearLayout) -> List[int]:
        """Per register, the first register of this thread holding the same element."""
        key = ("canon", ll)
        got = self._coord_cache.get(key)
        if got is None:
            seen: Dict[tuple, int] = {}
            got = []
            for r in range(ll.get_in_dim_size(REG)):
                c = tuple(ll.apply({REG: r}).values())
                got.append(seen.setdefault(c, r))
            self._coord_cache[key] = got
        return got

    # -- shared memory
    def block_representatives(self, ll: LinearLayout, blocks: Sequence[int]) -> List[int]:
        """`block_representatives(ll, blocks)`, cached per layout."""
        key = ("blocks", ll, tuple(blocks))
        got = self._coord_cache.get(key)
        if got is None:
            got = block_representatives(ll, blocks, self.register_at(ll))
            self._coord_cache[key] = got
        return got

    def smem_base(self, op: Operation) -> int:
        off = op.attr("allocation.offset")
        return int(off) if off is not None else 0

    def smem_ptr(self, byte_offset: Union[int, str]) -> str:
        self.mod.out.uses_smem = True
        if isinstance(byte_offset, int) and byte_offset == 0:
            return "@global_smem"
        return self.e.inst(f"getelementptr i8, ptr addrspace(3) @global_smem, i32 {byte_offset}", "sp")

    def barrier(self) -> None:
        self.e.call("void", "llvm.nvvm.barrier0", [], attrs="")

    # -- warp shuffles of any scalar type
    def shfl(self, kind: str, ty: T.Type, v: str, b: str, c: Optional[int] = None) -> str:
        """`shfl.sync.<kind>` of one value of IR element type `ty` (full-warp mask)."""
        if c is None:
            c = 0 if kind == "up" else 0x1F
        lt = ltype(ty)
        bits = bitwidth(ty)
        name = f"llvm.nvvm.shfl.sync.{kind}.i32"

        def one(x: str) -> str:
            return self.e.call("i32", name, [("i32", "-1"), ("i32", x), ("i32", b), ("i32", str(c))],
                               hint="sh")
        if bits == 64:
            if is_ptr(ty):
                x = self.e.cast("ptrtoint", lt, v, "i64")
            else:
                x = self.e.cast("bitcast", lt, v, "i64")
            vec = self.e.cast("bitcast", "i64", x, "<2 x i32>")
            lo, hi = self.e.split_vector("i32", vec, 2)
            y = self.e.build_vector("i32", [one(lo), one(hi)])
            y = self.e.cast("bitcast", "<2 x i32>", y, "i64")
            if is_ptr(ty):
                return self.e.cast("inttoptr", "i64", y, lt)
            return self.e.cast("bitcast", "i64", y, lt)
        if bits == 32:
            x = self.e.cast("bitcast", lt, v, "i32")
            return self.e.cast("bitcast", "i32", one(x), lt)
        ity = int_ty(bits)
        x = self.e.cast("bitcast", lt, v, ity) if lt != ity else v
        x = self.e.cast("zext", ity, x, "i32")
        y = self.e.cast("trunc", "i32", one(x), ity)
        return self.e.cast("bitcast", ity, y, lt) if lt != ity else y

    # -- storage conversions (memory representation of an element)
    def to_storage(self, ty: T.Type, v: str) -> Tuple[str, str]:
        """(storage llvm type, value) for writing an element to memory."""
        lt = ltype(ty)
        if lt == "i1":
            return "i8", self.e.cast("zext", "i1", v, "i8")
        if is_ptr(ty):
            return "i64", self.e.cast("ptrtoint", lt, v, "i64")
        return lt, v

    def from_storage(self, ty: T.Type, v: str) -> str:
        lt = ltype(ty)
        if lt == "i1":
            return self.e.icmp("ne", "i8", v, "0")
        if is_ptr(ty):
            return self.e.cast("inttoptr", "i64", v, lt)
        return v

    @staticmethod
    def storage_type(ty: T.Type) -> str:
        lt = ltype(ty)
        if lt == "i1":
            return "i8"
        if is_ptr(ty):
            return "i64"
        return lt

    # -- blocks and regions
    def lower_block(self, block: Block) -> Optional[Operation]:
        """Lower every op of `block` but its terminator, which is returned."""
        for op in block:
            if op.next is None and _is_terminator(op):
                return op
            self.lower_op(op)
        return None

    def lower_op(self, op: Operation) -> None:
        h = HANDLERS.get(op.name)
        if h is None:
            raise LoweringError(f"no NVIDIA lowering for operation '{op.name}'")
        li, outer = self.mod.line_info, self.e.dbg
        if li is not None:
            self.e.dbg = li.tag(op.loc, self.scope)
        try:
            h(self, op)
        except LoweringError:
            raise
        except NotImplementedError as e:
            raise LoweringError(f"{op.name}: {e}") from e
        finally:
            self.e.dbg = outer

    def run_region(self, block: Block, args: Sequence[LLVal]) -> List[LLVal]:
        """Bind `block`'s arguments, lower its body inline and return what its terminator
        yields (used for combine regions of reduce/scan)."""
        for a, v in zip(block.args, args):
            self.values[a] = v
        term = self.lower_block(block)
        if term is None:
            return []
        return [self.get(v) for v in term.operands]


def _is_terminator(op: Operation) -> bool:
    from ....ir.ops import is_terminator
    return is_terminator(op)


# ------------------------------------------------------------------ module context
class ModuleContext:
    def __init__(self, module: Operation, capability: int = 90, line_info: bool = False,
                 ptx_version: Optional[int] = None, maxnreg: Optional[int] = None):
        from ...line_info import LineInfo
        self.maxnreg = maxnreg
        self.module = module
        # The PTX ISA version ptxas will read (None: unknown, the newest's rules apply).
        self.ptx_version = ptx_version
        # Metadata numbers, shared by the line table and the loops' hints so they never clash.
        self.md_ids = itertools.count()
        self.line_info = LineInfo(self.md_ids) if line_info else None
        self._licm_off: Optional[int] = None
        self.capability = capability
        self.num_warps = int(module.attr("ttg.num-warps", 4) or 4)
        self.threads_per_warp = int(module.attr("ttg.threads-per-warp", 32) or 32)
        if self.threads_per_warp != WARP_SIZE:
            raise LoweringError("only 32 threads per warp are supported")
        self.out = ModuleEmitter()
        self.funcs: Dict[str, Operation] = {}
        self.max_smem = 0

    def loop_md(self, loop: Operation) -> str:
        """The `!llvm.loop` attachment of `loop`'s latch branch: upstream's
        `llvm.loop_annotation = #llvm.loop_annotation<licm = <disable = true>>` (from
        `tl.range(..., disable_licm=True)` / `tl.condition(..., disable_licm=True)`) becomes
        LLVM's `llvm.licm.disable`, which keeps LLVM's LICM from hoisting out of the loop."""
        if not licm_disabled(loop):
            return ""
        if self._licm_off is None:
            self._licm_off = next(self.md_ids)
            self.out.metadata.append(f'!{self._licm_off} = !{{!"llvm.licm.disable"}}')
        loop_id = next(self.md_ids)  # distinct and self-referencing, as LLVM wants loop ids
        self.out.metadata.append(f"!{loop_id} = distinct !{{!{loop_id}, !{self._licm_off}}}")
        return f", !llvm.loop !{loop_id}"


def combine_ops(ctx: FunctionContext, block: Block, acc: Sequence[str],
                cur: Sequence[str]) -> List[str]:
    """Apply a reduce/scan combine region to scalar operands (acc..., cur...)."""
    res = ctx.run_region(block, list(acc) + list(cur))
    return [r if isinstance(r, str) else r[0] for r in res]
