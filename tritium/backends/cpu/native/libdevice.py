"""`tt.extern_elementwise` (libdevice's `__nv_*` functions) on the host.

Most libdevice functions are the C library's under another name (`__nv_powf` is `powf`),
so they become calls into libm; bit and integer helpers become LLVM intrinsics; the
rounding-mode variants (`_rz`, `_rd`, `_ru`) round to nearest, as the evaluator does.
"""
from __future__ import annotations

from .arith import call_fintrinsic
from .context import Ctx, Unsupported, elem, elementwise, lowers, lty
from .mathops import FAST_MATH

_LIBM = {"exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "cbrt", "sin",
         "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "erf", "erfc", "lgamma", "tgamma", "pow", "fmod", "remainder",
         "hypot", "fdim", "nextafter", "logb"}
_INTR = {"sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
         "round": "round", "rint": "roundeven", "nearbyint": "roundeven",
         "copysign": "copysign", "fma": "fma", "fmax": "maxnum", "fmin": "minnum",
         "fmaf_rn": "fma", "fma_rn": "fma", "fsqrt_rn": "sqrt", "dsqrt_rn": "sqrt"}
_BIN = {"div_rn": "fdiv", "fdiv_rn": "fdiv", "ddiv_rn": "fdiv", "fmul_rn": "fmul",
        "dmul_rn": "fmul", "fadd_rn": "fadd", "dadd_rn": "fadd"}
_FAST = {"fast_expf": "exp", "fast_exp10f": "exp10", "fast_logf": "log", "fast_log2f": "log2",
         "fast_log10f": "log10", "fast_sinf": "sin", "fast_cosf": "cos", "fast_tanf": "tan",
         "fast_powf": "pow", "fast_fdividef": "div_rn"}
_INT2 = {"min": "smin", "max": "smax", "llmin": "smin", "llmax": "smax", "umin": "umin",
         "umax": "umax", "ullmin": "umin", "ullmax": "umax"}
_BITS = {"popc": "ctpop", "popcll": "ctpop", "clz": "ctlz", "clzll": "ctlz", "brev": "bitreverse",
         "brevll": "bitreverse"}


def _base(symbol: str) -> str:
    name = symbol[5:] if symbol.startswith("__nv_") else symbol
    name = _FAST.get(name, name)
    for sfx in ("_rz", "_rd", "_ru"):
        if name.endswith(sfx):
            name = name[:-3] + "_rn"
    return name



def _int_intrinsic(c: Ctx, fn: str, ty: str, args, extra: str = "") -> str:
    c.declare(f"{fn}.{ty}", f"declare {ty} @llvm.{fn}.{ty}({', '.join([ty] * len(args))}"
              f"{', i1' if extra else ''})")
    ops = ", ".join(f"{ty} {a}" for a in args) + (f", i1 {extra}" if extra else "")
    return c.emit(f"call {ty} @llvm.{fn}.{ty}({ops})")


def _resize(c: Ctx, v: str, src: str, dst: str) -> str:
    if src == dst:
        return v
    return c.emit(f"{'trunc' if int(src[1:]) > int(dst[1:]) else 'zext'} {src} {v} to {dst}")


def _scalar_fn(op):
    name = _base(op.attr("symbol", ""))
    rt = lty(op.results[0].type)
    at = [lty(v.type) for v in op.operands]
    fty = at[0] if at else rt
    f16 = fty == "half"
    if name.endswith("f") and name[:-1] in (_LIBM | set(_INTR) | {"rsqrt", "rcp", "saturate",
                                                                   "isnan", "isinf", "finite",
                                                                   "signbit"}):
        name = name[:-1]
    if name in _LIBM or name in _INTR or name in _BIN or name in ("rsqrt", "rcp", "frcp_rn",
                                                                  "drcp_rn", "saturate"):
        def flt(c, *a):
            ty = "float" if f16 else fty
            a = [c.emit(f"fpext half {x} to float") for x in a] if f16 else list(a)
            if name in FAST_MATH and ty == "float":   # inline: the loop stays SIMD
                r = FAST_MATH[name](c, a[0])
            elif name in _LIBM:
                r = c.libm_call(name, ty, a)
            elif name in _INTR:
                r = call_fintrinsic(c, _INTR[name], ty, *a)
            elif name in _BIN:
                r = c.emit(f"{_BIN[name]} {ty} {a[0]}, {a[1]}")
            elif name == "rsqrt":
                r = c.emit(f"fdiv {ty} 1.0, {call_fintrinsic(c, 'sqrt', ty, a[0])}")
            elif name == "saturate":
                r = call_fintrinsic(c, "minnum", ty, call_fintrinsic(c, "maxnum", ty, a[0], "0.0"),
                                    "1.0")
            else:
                r = c.emit(f"fdiv {ty} 1.0, {a[0]}")
            return c.emit(f"fptrunc float {r} to half") if f16 else r
        return flt
    if name in ("isnan", "isnand", "isinf", "isinfd", "finite", "isfinited", "signbit",
                "signbitd"):
        def pred(c, x):
            if name.startswith("isnan"):
                b = c.emit(f"fcmp uno {fty} {x}, 0.0")
            elif name.startswith("isinf"):
                b = c.emit(f"fcmp oeq {fty} {call_fintrinsic(c, 'fabs', fty, x)}, "
                           f"0x7FF0000000000000")
            elif name.startswith(("finite", "isfinite")):
                b = c.emit(f"fcmp one {fty} {call_fintrinsic(c, 'fabs', fty, x)}, "
                           f"0x7FF0000000000000")
            else:
                ity = {"half": "i16", "float": "i32", "double": "i64"}[fty]
                b = c.emit(f"icmp slt {ity} {c.emit(f'bitcast {fty} {x} to {ity}')}, 0")
            return c.emit(f"zext i1 {b} to {rt}") if rt != "i1" else b
        return pred
    if name in ("abs", "llabs"):
        return lambda c, x: _int_intrinsic(c, "abs", rt, [x], "false")
    if name in _INT2:
        return lambda c, a, b: _int_intrinsic(c, _INT2[name], rt, [a, b])
    if name in _BITS:
        return lambda c, x: _resize(c, _int_intrinsic(c, _BITS[name], at[0], [x],
                                                      "false" if "ctlz" == _BITS[name] else ""),
                                    at[0], rt)
    if name in ("ffs", "ffsll"):
        def ffs(c, x):
            t = _int_intrinsic(c, "cttz", at[0], [x], "false")
            t = c.emit(f"add {at[0]} {t}, 1")
            z = c.emit(f"icmp eq {at[0]} {x}, 0")
            return _resize(c, c.emit(f"select i1 {z}, {at[0]} 0, {at[0]} {t}"), at[0], rt)
        return ffs
    if name in ("mulhi", "umulhi", "mul64hi", "umul64hi"):
        w = int(rt[1:])
        ext = "zext" if name.startswith("u") else "sext"

        def mulhi(c, a, b):
            wide = f"i{2 * w}"
            p = c.emit(f"mul {wide} {c.emit(f'{ext} {rt} {a} to {wide}')}, "
                       f"{c.emit(f'{ext} {rt} {b} to {wide}')}")
            return c.emit(f"trunc {wide} {c.emit(f'lshr {wide} {p}, {w}')} to {rt}")
        return mulhi
    if name in ("hadd", "rhadd"):
        def hadd(c, a, b):
            s = c.emit(f"add i64 {c.emit(f'sext {rt} {a} to i64')}, "
                       f"{c.emit(f'sext {rt} {b} to i64')}")
            if name == "rhadd":
                s = c.emit(f"add i64 {s}, 1")
            return c.emit(f"trunc i64 {c.emit(f'ashr i64 {s}, 1')} to {rt}")
        return hadd
    raise Unsupported(f"extern function '{op.attr('symbol', '')}' on the host")


@lowers("tt.extern_elementwise")
def _extern(cx: Ctx, op):
    if any(lty(v.type) == "float" and elem(v.type).name != "f32" for v in op.operands):
        raise Unsupported("libdevice on bf16 or fp8")
    elementwise(cx, op, _scalar_fn(op), cost=20)
