"""`arith.*` on the host: integer and float arithmetic, compares, select, casts, constants.

Semantics follow the numpy evaluator (`../ops_arith.py`), not LLVM's undefined corners: a
zero divisor gives -1 (quotient) or the dividend (remainder), `INT_MIN / -1` wraps, shifts by
the width or more give 0 (or the sign fill), float -> int saturates with NaN -> 0. bf16 is
computed in float and rounded to nearest-even after every op, exactly as the evaluator does.
"""
from __future__ import annotations

import numpy as np

from ....ir import types as T
from ....ir.attrs import DenseElementsAttr
from ....ir.ops import CMPF_PREDICATES, CMPI_PREDICATES
from .context import (TV, Ctx, Unsupported, buf_ty, const, elem, elementwise, is_bf16,
                      is_emulated, is_fp8, lowers, lty)


# ------------------------------------------------------------------ bf16 rounding
def round_bf16(cx: Ctx, x: str) -> str:
    """The float `x` rounded to the nearest bf16 (ties to even), still as a float."""
    b = cx.emit(f"bitcast float {x} to i32")
    lsb = cx.emit(f"lshr i32 {b}, 16")
    lsb = cx.emit(f"and i32 {lsb}, 1")
    r = cx.emit(f"add i32 {b}, 32767")
    r = cx.emit(f"add i32 {r}, {lsb}")
    r = cx.emit(f"and i32 {r}, -65536")
    nan = cx.emit(f"fcmp uno float {x}, 0.0")
    q = cx.emit(f"or i32 {b}, 4194304")
    q = cx.emit(f"and i32 {q}, -65536")
    r = cx.emit(f"select i1 {nan}, i32 {q}, i32 {r}")
    return cx.emit(f"bitcast i32 {r} to float")


def float_to_odd(cx: Ctx, x: str) -> str:
    """double -> float rounded *to odd* (truncate, then set the last bit when inexact): a
    later rounding of the float to a format of at most 22 mantissa bits (half, bf16, fp8)
    is then the one rounding of the double would give."""
    f = cx.emit(f"fptrunc double {x} to float")
    back = cx.emit(f"fpext float {f} to double")
    fa = call_fintrinsic(cx, "fabs", "double", back)
    xa = call_fintrinsic(cx, "fabs", "double", x)
    over = cx.emit(f"fcmp ogt double {fa}, {xa}")
    b = cx.emit(f"bitcast float {f} to i32")
    b = cx.emit(f"sub i32 {b}, " + cx.emit(f"zext i1 {over} to i32"))
    inexact = cx.emit(f"fcmp one double {back}, {x}")
    b = cx.emit(f"or i32 {b}, " + cx.emit(f"zext i1 {inexact} to i32"))
    return cx.emit(f"bitcast i32 {b} to float")


def double_to_half(cx: Ctx, x: str) -> str:
    """fptrunc double -> half with one rounding. LLVM would call compiler-rt's
    `__truncdfhf2`, which this process does not have; through float rounded to odd."""
    return cx.emit(f"fptrunc float {float_to_odd(cx, x)} to half")


def convert_float(cx: Ctx, src: str, dst: str, x: str) -> str:
    """fpext/fptrunc between half, float and double (bf16 is handled by the callers)."""
    bits = {"half": 16, "float": 32, "double": 64}
    if src == dst:
        return x
    if bits[dst] > bits[src]:
        return cx.emit(f"fpext {src} {x} to {dst}")
    if src == "double" and dst == "half":
        return double_to_half(cx, x)
    return cx.emit(f"fptrunc {src} {x} to {dst}")


def rounded(cx: Ctx, t: T.Type, x: str, mode: str = "rtne") -> str:
    """Float `x` rounded to `t` when `t` is computed as a wider float (bf16, fp8)."""
    if is_fp8(t):
        from .fp8 import fp8_format, round_to
        return round_to(cx, fp8_format(t), x, mode)
    return round_bf16(cx, x) if is_bf16(t) else x


def _rt(op):
    return op.results[0].type


# ------------------------------------------------------------------ constants
@lowers("ub.poison")
def _poison(cx: Ctx, op):
    t = _rt(op)   # never read before it is overwritten: zeros
    c = const(t.element_type if isinstance(t, T.TensorType) else t, 0)
    cx.set(op.results[0], TV(t.shape, t, lambda c_, idx: c, cost=0, pw=True)
           if isinstance(t, T.TensorType) else c)


@lowers("arith.constant")
def _constant(cx: Ctx, op):
    attr = op.attributes["value"]
    t = _rt(op)
    raw = attr.value
    if not isinstance(t, T.TensorType):
        cx.set(op.results[0], const(t, raw))
        return
    if np.ndim(raw) == 0:
        c = const(t, raw)
        cx.set(op.results[0], TV(t.shape, t, lambda c_, idx: c, cost=0, pw=True))
        return
    flat = np.asarray(raw).reshape(-1)
    ty = buf_ty(t)   # (read as a buffer: i1 as bytes)
    cx.n += 1
    g = f"@cst{cx.n}"
    body = ", ".join(f"{ty} {int(bool(v.item())) if ty != lty(t) else const(t.element_type, v.item())}"
                     for v in flat)
    cx.globals.append(f"{g} = private unnamed_addr constant [{len(flat)} x {ty}] [{body}], "
                      f"align 64")
    cx.vals[op.results[0]] = TV(t.shape, t, buf=g)


# ------------------------------------------------------------------ integers
def _int(name, instr):
    @lowers(name)
    def h(cx, op):
        ty = lty(_rt(op))
        elementwise(cx, op, lambda c, a, b: c.emit(f"{instr} {ty} {a}, {b}"))


for _n, _i in [("addi", "add"), ("subi", "sub"), ("muli", "mul"), ("andi", "and"),
               ("ori", "or"), ("xori", "xor")]:
    _int(f"arith.{_n}", _i)


def _intrinsic2(name, fn):
    @lowers(name)
    def h(cx, op):
        ty = lty(_rt(op))
        sfx = ty if ty.startswith("i") or ty == "ptr" else {"half": "f16", "float": "f32",
                                                             "double": "f64"}[ty]
        cx.declare(f"{fn}.{sfx}", f"declare {ty} @llvm.{fn}.{sfx}({ty}, {ty})")
        elementwise(cx, op, lambda c, a, b: c.emit(f"call {ty} @llvm.{fn}.{sfx}({ty} {a}, "
                                                   f"{ty} {b})"))


for _n, _f in [("maxsi", "smax"), ("minsi", "smin"), ("maxui", "umax"), ("minui", "umin")]:
    _intrinsic2(f"arith.{_n}", _f)


def _div_parts(c, ty, a, b, signed):
    """Quotient and remainder with the evaluator's rules for zero (and -1) divisors."""
    zero = c.emit(f"icmp eq {ty} {b}, 0")
    if ty == "i1":
        nb = c.emit(f"xor i1 {b}, true")
        return c.emit(f"or i1 {a}, {nb}"), c.emit(f"and i1 {a}, {nb}")
    if signed:
        m1 = c.emit(f"icmp eq {ty} {b}, -1")
        bad = c.emit(f"or i1 {zero}, {m1}")
        bs = c.emit(f"select i1 {bad}, {ty} 1, {ty} {b}")
        q = c.emit(f"sdiv {ty} {a}, {bs}")
        r = c.emit(f"srem {ty} {a}, {bs}")
        neg = c.emit(f"sub {ty} 0, {a}")
        q = c.emit(f"select i1 {m1}, {ty} {neg}, {ty} {q}")
        r = c.emit(f"select i1 {m1}, {ty} 0, {ty} {r}")
    else:
        bs = c.emit(f"select i1 {zero}, {ty} 1, {ty} {b}")
        q = c.emit(f"udiv {ty} {a}, {bs}")
        r = c.emit(f"urem {ty} {a}, {bs}")
    q = c.emit(f"select i1 {zero}, {ty} -1, {ty} {q}")
    r = c.emit(f"select i1 {zero}, {ty} {a}, {ty} {r}")
    return q, r


def _divop(name, which):
    @lowers(f"arith.{name}")
    def h(cx, op):
        ty = lty(_rt(op))
        signed = not name.endswith("ui")

        def f(c, a, b):
            q, r = _div_parts(c, ty, a, b, signed)
            if which == "q":
                return q
            if which == "r":
                return r
            if ty == "i1":
                return q
            nz = c.emit(f"icmp ne {ty} {r}, 0")
            if name == "ceildivui":
                return c.emit(f"add {ty} {q}, " + c.emit(f"zext i1 {nz} to {ty}"))
            sa = c.emit(f"icmp slt {ty} {a}, 0")
            sb = c.emit(f"icmp slt {ty} {b}, 0")
            same = c.emit(f"icmp eq i1 {sa}, {sb}")
            if name == "ceildivsi":
                fix = c.emit(f"and i1 {nz}, {same}")
                return c.emit(f"add {ty} {q}, " + c.emit(f"zext i1 {fix} to {ty}"))
            fix = c.emit(f"and i1 {nz}, " + c.emit(f"xor i1 {same}, true"))
            return c.emit(f"sub {ty} {q}, " + c.emit(f"zext i1 {fix} to {ty}"))
        elementwise(cx, op, f, cost=8)


for _n, _w in [("divsi", "q"), ("divui", "q"), ("remsi", "r"), ("remui", "r"),
               ("ceildivsi", "c"), ("floordivsi", "c"), ("ceildivui", "c")]:
    _divop(_n, _w)


def _shift(name, instr):
    @lowers(f"arith.{name}")
    def h(cx, op):
        ty = lty(_rt(op))
        w = int(ty[1:])

        def f(c, a, b):
            big = c.emit(f"icmp uge {ty} {b}, {w}" if w > 1 else f"icmp ne i1 {b}, false")
            amt = c.emit(f"select i1 {big}, {ty} {w - 1 if w > 1 else 0}, {ty} {b}")
            r = c.emit(f"{instr} {ty} {a}, {amt}")
            if instr == "ashr":
                return r
            return c.emit(f"select i1 {big}, {ty} 0, {ty} {r}")
        elementwise(cx, op, f, cost=3)


for _n, _i in [("shli", "shl"), ("shrsi", "ashr"), ("shrui", "lshr")]:
    _shift(_n, _i)


# ------------------------------------------------------------------ floats
def _fbin(name, instr):
    @lowers(f"arith.{name}")
    def h(cx, op):
        t = _rt(op)
        ty = lty(t)
        elementwise(cx, op, lambda c, a, b: rounded(c, t, c.emit(f"{instr} {ty} {a}, {b}")))


for _n, _i in [("addf", "fadd"), ("subf", "fsub"), ("mulf", "fmul"), ("divf", "fdiv"),
               ("remf", "frem")]:
    _fbin(_n, _i)


@lowers("arith.negf")
def _negf(cx, op):
    ty = lty(_rt(op))
    elementwise(cx, op, lambda c, a: c.emit(f"fneg {ty} {a}"))


def fsuffix(ty: str) -> str:
    return {"half": "f16", "float": "f32", "double": "f64"}[ty]


def call_fintrinsic(cx: Ctx, fn: str, ty: str, *args: str) -> str:
    sfx = fsuffix(ty)
    cx.declare(f"{fn}.{sfx}", f"declare {ty} @llvm.{fn}.{sfx}({', '.join([ty] * len(args))})")
    return cx.emit(f"call {ty} @llvm.{fn}.{sfx}({', '.join(f'{ty} {a}' for a in args)})")


def _fminmax(name, fn):
    @lowers(f"arith.{name}")
    def h(cx, op):
        t = _rt(op)
        ty = lty(t)
        elementwise(cx, op, lambda c, a, b: call_fintrinsic(c, fn, ty, a, b))


for _n, _f in [("maximumf", "maximum"), ("minimumf", "minimum"), ("maxnumf", "maxnum"),
               ("minnumf", "minnum")]:
    _fminmax(_n, _f)


# ------------------------------------------------------------------ compares and select
def _pred(op, names):
    p = op.attr("predicate")
    return p if isinstance(p, str) else names[int(p)]


@lowers("arith.cmpi")
def _cmpi(cx, op):
    p = _pred(op, CMPI_PREDICATES)
    ty = lty(op.operand(0).type)
    elementwise(cx, op, lambda c, a, b: c.emit(f"icmp {p} {ty} {a}, {b}"))


@lowers("arith.cmpf")
def _cmpf(cx, op):
    p = _pred(op, CMPF_PREDICATES)
    ty = lty(op.operand(0).type)
    elementwise(cx, op, lambda c, a, b: c.emit(f"fcmp {p} {ty} {a}, {b}"))


@lowers("arith.select")
def _select(cx, op):
    ty = lty(_rt(op))
    elementwise(cx, op, lambda c, k, a, b: c.emit(f"select i1 {k}, {ty} {a}, {ty} {b}"))


# ------------------------------------------------------------------ casts
def _width(t):
    return elem(t).width


@lowers("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast")
def _icast(cx, op):
    src, dst = lty(op.operand(0).type), lty(_rt(op))
    ws, wd = int(src[1:]), int(dst[1:])
    if ws == wd:
        elementwise(cx, op, lambda c, a: a, cost=0)
        return
    if wd < ws:
        if wd == 1:     # the evaluator keeps the low bit
            elementwise(cx, op, lambda c, a: c.emit(f"trunc {src} {a} to i1"))
        else:
            elementwise(cx, op, lambda c, a: c.emit(f"trunc {src} {a} to {dst}"))
        return
    instr = "zext" if op.name == "arith.extui" else "sext"
    elementwise(cx, op, lambda c, a: c.emit(f"{instr} {src} {a} to {dst}"))


@lowers("arith.sitofp", "arith.uitofp")
def _itof(cx, op):
    src, dt = lty(op.operand(0).type), _rt(op)
    dst = lty(dt)
    instr = "sitofp" if op.name == "arith.sitofp" else "uitofp"
    if is_emulated(dt):
        elementwise(cx, op, lambda c, a: rounded(c, dt, c.emit(f"{instr} {src} {a} to float")))
    elif dst == "half":      # through double: exact for every integer up to 2**53
        elementwise(cx, op, lambda c, a: double_to_half(
            c, c.emit(f"{instr} {src} {a} to double")))
    else:
        elementwise(cx, op, lambda c, a: c.emit(f"{instr} {src} {a} to {dst}"))


@lowers("arith.fptosi", "arith.fptoui")
def _ftoi(cx, op):
    src, dst = lty(op.operand(0).type), lty(_rt(op))
    if dst == "i1":
        def f(c, a):
            t = call_fintrinsic(c, "trunc", src, a)
            return c.emit(f"fcmp une {src} {t}, 0.0")
        elementwise(cx, op, f)
        return
    kind = "fptosi" if op.name == "arith.fptosi" else "fptoui"
    name = f"llvm.{kind}.sat.{dst}.{fsuffix(src)}"
    cx.declare(name, f"declare {dst} @{name}({src})")
    elementwise(cx, op, lambda c, a: c.emit(f"call {dst} @{name}({src} {a})"))


@lowers("arith.extf", "arith.truncf")
def _fcast(cx, op):
    st, dt = op.operand(0).type, _rt(op)
    src, dst = lty(st), lty(dt)
    if is_emulated(dt):
        def f(c, a):
            if src == "double":
                x = float_to_odd(c, a)           # one rounding in all
            else:
                x = a if src == "float" else c.emit(f"fpext {src} {a} to float")
            return x if elem(st) == elem(dt) else rounded(c, dt, x)
        elementwise(cx, op, f)
        return
    elementwise(cx, op, lambda c, a: convert_float(c, src, dst, a), cost=0 if src == dst else 1)


@lowers("arith.bitcast", "tt.bitcast")
def _bitcast(cx, op):
    st, dt = elem(op.operand(0).type), elem(_rt(op))
    src, dst = lty(st), lty(dt)
    if src == dst and is_emulated(st) == is_emulated(dt) and is_fp8(st) == is_fp8(dt):
        elementwise(cx, op, lambda c, a: a, cost=0)
        return
    if is_fp8(st) or is_fp8(dt):             # fp8 <-> i8: the bit pattern
        from .fp8 import decode, encode, fp8_format
        if is_fp8(dt) and is_fp8(st):
            elementwise(cx, op, lambda c, a: decode(c, fp8_format(dt),
                                                    encode(c, fp8_format(st), a)))
        elif is_fp8(dt):
            elementwise(cx, op, lambda c, a: decode(c, fp8_format(dt), a))
        else:
            elementwise(cx, op, lambda c, a: encode(c, fp8_format(st), a))
        return
    if is_bf16(dt):
        def f(c, a):
            w = c.emit(f"zext i16 {a} to i32")
            w = c.emit(f"shl i32 {w}, 16")
            return c.emit(f"bitcast i32 {w} to float")
        elementwise(cx, op, f)
        return
    if is_bf16(st):
        def g(c, a):
            w = c.emit(f"bitcast float {a} to i32")
            w = c.emit(f"lshr i32 {w}, 16")
            return c.emit(f"trunc i32 {w} to {dst}")
        elementwise(cx, op, g)
        return
    if "ptr" in (src, dst):
        raise Unsupported("bitcast between pointers and integers")
    elementwise(cx, op, lambda c, a: c.emit(f"bitcast {src} {a} to {dst}"))
