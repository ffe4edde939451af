"""`math.*`, the Triton float helpers (precise sqrt/div, clampf, fp_to_fp, mulhiui) and
`tt.extern_elementwise` (libdevice symbols mapped onto numpy).

Math runs in the operand's precision: f32 and f64 natively, f16 in f32 then rounded (as the
GPU does through libdevice), bf16/fp8 in f32 then rounded to the type.
"""
from __future__ import annotations

import math

import numpy as np

from tritium.ir import types as T

from .dtypes import F32, compute_dtype, convert_float, rounder, unsigned
from .evaluator import register

_F16 = np.dtype(np.float16)
_SQRT_PI = math.sqrt(math.pi)


# ------------------------------------------------------------------ erf
def erf(x: np.ndarray) -> np.ndarray:
    """erf in float64 to ~1e-15 relative: the all-positive series
    erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (1*3*...*(2n+1)) below 2.5 (no
    cancellation), the continued fraction of erfc above."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.empty_like(a)
    small = a < 2.5
    if small.any():
        out[small] = _erf_series(a[small])
    big = ~small & ~np.isnan(a)
    if big.any():
        out[big] = 1.0 - _erfc_cf(a[big])
    out[np.isnan(a)] = np.nan
    return np.copysign(out, x)


def erfc(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = 1.0 - erf(x)
    big = x >= 2.5
    if big.any():
        out[big] = _erfc_cf(x[big])
    return out


def _erf_series(a):
    x2 = a * a
    term = a.copy()
    s = a.copy()
    n = 0
    while True:
        n += 1
        term *= 2.0 * x2 / (2 * n + 1)
        s += term
        if n % 4 == 0 and np.all(term <= 1e-17 * s):
            break
    return (2.0 / _SQRT_PI) * np.exp(-x2) * s


def _erfc_cf(a):
    f = a.copy()
    for k in range(50, 0, -1):       # 50 levels: converged to 1e-16 for a >= 2.5
        f = a + (0.5 * k) / f
    return np.exp(-a * a) / _SQRT_PI / f


def _round_half_away(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _fma(a, b, c):
    if a.dtype == np.float64:
        # Exact product by Dekker's split, then a compensated sum: the rounding of a*b is
        # recovered, so the result is a*b+c rounded (almost always) once.
        p = a * b
        s = 134217729.0
        ah = a * s; ah = ah - (ah - a); al = a - ah
        bh = b * s; bh = bh - (bh - b); bl = b - bh
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        r = p + c
        bb = r - p
        return r + (((p - (r - bb)) + (c - bb)) + err)
    dt = a.dtype
    # For f32 (and smaller) a*b is exact in float64. Rounding the sum to float64 and then to
    # f32 would round twice; rounding the sum to *odd* in float64 first makes the final
    # rounding exact (53 >= 2*24 + 2 bits), so the result is a*b+c rounded once, as fma.rn.
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    r = p + c64
    bb = r - p
    err = (p - (r - bb)) + (c64 - bb)  # exact error of the sum (TwoSum)
    bits = r.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(r)
    # Sign-magnitude bits: +1 moves away from zero, toward the exact value when err has
    # the sign of r.
    step = np.where((err > 0) == (r > 0), 1, -1)
    r = np.where(fix, bits + step, bits).view(np.float64)
    return r.astype(dt)


# ------------------------------------------------------------------ precision wrapper
def _in_precision(fn, rt: T.Type):
    """Make `fn` (numpy on arrays) run in the precision of result type `rt`."""
    elt = rt.element_type
    if isinstance(elt, T.IntegerType):
        return fn
    dd = compute_dtype(elt)
    rnd = rounder(elt)
    if dd == _F16:
        return lambda *a: fn(*[x.astype(F32) for x in a]).astype(_F16)
    if rnd is not None:
        return lambda *a: rnd(np.asarray(fn(*a), dtype=F32))
    if fn in (erf, erfc):
        if dd == np.float64:
            # The vectorized series is good to ~1e-15 (a few ulp of f64); libdevice is within
            # 2 ulp, so f64 results use the C library's erf/erfc element by element.
            scalar = math.erf if fn is erf else math.erfc
            vec = np.frompyfunc(scalar, 1, 1)
            return lambda x: vec(np.asarray(x, np.float64)).astype(np.float64)
        return lambda *a: fn(*a).astype(dd)
    return fn


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


_MATH = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": _rsqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "absf": np.abs, "absi": np.abs, "floor": np.floor, "ceil": np.ceil, "erf": erf,
    "trunc": np.trunc, "round": _round_half_away, "roundeven": np.rint, "log1p": np.log1p,
    "expm1": np.expm1, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos,
    "sinh": np.sinh, "cosh": np.cosh, "cbrt": np.cbrt, "fma": _fma, "copysign": np.copysign,
    "powf": np.power, "atan2": np.arctan2,
}


def _math_factory(fn):
    def factory(pc, op):
        rt = op.results[0].type
        if fn is np.abs and compute_dtype(rt) == np.bool_:
            return lambda env, x: x
        f = _in_precision(fn, rt)
        return lambda env, *a: f(*a)
    return factory


for _n, _f in _MATH.items():
    register(f"math.{_n}")(_math_factory(_f))

register("tt.precise_sqrt")(_math_factory(np.sqrt))
register("tt.precise_divf")(_math_factory(np.divide))


@register("tt.clampf")
def _clampf(pc, op):
    prop = op.attr("propagateNan", 0)
    if isinstance(prop, str):
        prop = 0 if prop.upper() == "NONE" else 0xFFFF
    hi_fn, lo_fn = (np.minimum, np.maximum) if prop else (np.fmin, np.fmax)
    f = _in_precision(lambda x, lo, hi: hi_fn(lo_fn(x, lo), hi), op.results[0].type)
    return lambda env, x, lo, hi: f(x, lo, hi)


@register("tt.fp_to_fp")
def _fp_to_fp(pc, op):
    dst = op.results[0].type.element_type
    r = op.attr("rounding", 1)
    mode = r if isinstance(r, str) else ("rtz" if r == 0 else "rtne")
    return lambda env, x: convert_float(x, dst, mode)


def mulhi(a: np.ndarray, b: np.ndarray, signed: bool = False) -> np.ndarray:
    """High half of the full product of two same-width integers."""
    dt = a.dtype
    w = dt.itemsize * 8
    if w < 64:
        wide = np.int64 if signed else np.uint64
        src = a if signed else a.view(unsigned(dt))
        srcb = b if signed else b.view(unsigned(dt))
        p = src.astype(wide) * srcb.astype(wide)
        return (p >> w).astype(dt if signed else unsigned(dt)).view(dt)
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    alo, ahi, blo, bhi = ua & m32, ua >> s32, ub & m32, ub >> s32
    ll, hl, lh, hh = alo * blo, ahi * blo, alo * bhi, ahi * bhi
    cross = (ll >> s32) + (hl & m32) + lh
    hi = hh + (hl >> s32) + (cross >> s32)
    if signed:  # hi(a*b) signed = hi unsigned - (a<0)*b - (b<0)*a (mod 2^64)
        hi = hi - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return hi.view(dt)


@register("tt.mulhiui")
def _mulhiui(pc, op):
    return lambda env, a, b: mulhi(a, b)


# ------------------------------------------------------------------ libdevice
def _int_fn(fn):
    return ("int", fn)


def _popc(x):
    u = x.view(unsigned(x.dtype))
    out = np.zeros(u.shape, np.int32)
    for i in range(u.dtype.itemsize * 8):
        out += ((u >> np.array(i, u.dtype)) & np.array(1, u.dtype)).astype(np.int32)
    return out


def _clz(x):
    u = x.view(unsigned(x.dtype))
    w = u.dtype.itemsize * 8
    out = np.full(u.shape, w, np.int32)
    for i in range(w):
        bit = ((u >> np.array(i, u.dtype)) & np.array(1, u.dtype)) != 0
        out = np.where(bit, w - 1 - i, out)
    return out


def _ffs(x):
    u = x.view(unsigned(x.dtype))
    w = u.dtype.itemsize * 8
    out = np.zeros(u.shape, np.int32)
    for i in range(w - 1, -1, -1):
        bit = ((u >> np.array(i, u.dtype)) & np.array(1, u.dtype)) != 0
        out = np.where(bit, i + 1, out)
    return out


def _brev(x):
    u = x.view(unsigned(x.dtype))
    w = u.dtype.itemsize * 8
    out = np.zeros_like(u)
    for i in range(w):
        bit = (u >> np.array(i, u.dtype)) & np.array(1, u.dtype)
        out |= bit << np.array(w - 1 - i, u.dtype)
    return out.view(x.dtype)


def _lgamma(x):
    return np.frompyfunc(lambda v: math.lgamma(v) if math.isfinite(v) and not (
        v <= 0 and v == int(v)) else math.inf, 1, 1)(x).astype(np.float64)


def _tgamma(x):
    def g(v):
        try:
            return math.gamma(v)
        except (ValueError, OverflowError):
            return math.nan if v <= 0 and v == int(v) or math.isnan(v) else math.inf
    return np.frompyfunc(g, 1, 1)(x).astype(np.float64)


# Base names; the f32 symbol is the base name + "f" (`__nv_expf`), f64 the base name.
_LIBDEVICE = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x),
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "logb": lambda x: np.floor(np.log2(np.abs(x))), "sqrt": np.sqrt, "rsqrt": _rsqrt,
    "cbrt": np.cbrt, "rcbrt": lambda x: np.reciprocal(np.cbrt(x)), "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "sinpi": lambda x: np.sin(np.pi * x.astype(np.float64)).astype(x.dtype),
    "cospi": lambda x: np.cos(np.pi * x.astype(np.float64)).astype(x.dtype),
    "erf": erf, "erfc": erfc, "lgamma": _lgamma, "tgamma": _tgamma,
    "pow": np.power, "powi": lambda x, n: np.power(x, n.astype(x.dtype)),
    "fmod": np.fmod, "remainder": lambda x, y: x - y * np.rint(x / y), "hypot": np.hypot,
    "fmax": np.fmax, "fmin": np.fmin, "fdim": lambda x, y: np.where(x > y, x - y, 0 * x),
    "fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": _round_half_away, "rint": np.rint, "nearbyint": np.rint,
    "copysign": np.copysign, "fma": _fma, "ldexp": lambda x, e: np.ldexp(x, e),
    "scalbn": lambda x, e: np.ldexp(x, e), "nextafter": np.nextafter,
    "div_rn": np.divide, "fdiv_rn": np.divide, "frcp_rn": np.reciprocal, "rcp": np.reciprocal,
    "fsqrt_rn": np.sqrt, "dsqrt_rn": np.sqrt, "fmul_rn": np.multiply, "dmul_rn": np.multiply,
    "fadd_rn": np.add, "dadd_rn": np.add, "ddiv_rn": np.divide, "drcp_rn": np.reciprocal,
    "fmaf_rn": _fma, "fma_rn": _fma, "saturate": lambda x: np.clip(x, 0, 1),
    "isnan": np.isnan, "isnand": np.isnan, "isinf": np.isinf, "isinfd": np.isinf,
    "finite": np.isfinite, "isfinited": np.isfinite, "signbit": np.signbit,
    "signbitd": np.signbit,
    # integer helpers
    "abs": np.abs, "llabs": np.abs, "min": np.minimum, "max": np.maximum,
    "llmin": np.minimum, "llmax": np.maximum,
    "umin": lambda a, b: np.minimum(a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))),
    "umax": lambda a, b: np.maximum(a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))),
    "ullmin": lambda a, b: np.minimum(a.view(np.uint64), b.view(np.uint64)),
    "ullmax": lambda a, b: np.maximum(a.view(np.uint64), b.view(np.uint64)),
    "mulhi": lambda a, b: mulhi(a, b, True), "umulhi": mulhi,
    "mul64hi": lambda a, b: mulhi(a, b, True), "umul64hi": mulhi,
    "popc": _popc, "popcll": _popc, "clz": _clz, "clzll": _clz, "ffs": _ffs, "ffsll": _ffs,
    "brev": _brev, "brevll": _brev,
    "hadd": lambda a, b: ((a.astype(np.int64) + b) >> 1).astype(a.dtype),
    "rhadd": lambda a, b: ((a.astype(np.int64) + b + 1) >> 1).astype(a.dtype),
}
_FAST = {"fast_expf": "exp", "fast_exp10f": "exp10", "fast_logf": "log", "fast_log2f": "log2",
         "fast_log10f": "log10", "fast_sinf": "sin", "fast_cosf": "cos", "fast_tanf": "tan",
         "fast_powf": "pow", "fast_fdividef": "div_rn"}


def libdevice_function(symbol: str):
    """The numpy implementation of a libdevice symbol, or None."""
    name = symbol[5:] if symbol.startswith("__nv_") else symbol
    name = _FAST.get(name, name)
    if name in _LIBDEVICE:
        return _LIBDEVICE[name]
    if name.endswith("f") and name[:-1] in _LIBDEVICE:
        return _LIBDEVICE[name[:-1]]
    for suffix in ("_rn", "_rz", "_rd", "_ru"):   # other roundings: nearest is close enough
        if name.endswith(suffix) and name[:-3] + "_rn" in _LIBDEVICE:
            return _LIBDEVICE[name[:-3] + "_rn"]
    return None


@register("tt.extern_elementwise")
def _extern(pc, op):
    symbol = op.attr("symbol", "")
    fn = libdevice_function(symbol)
    if fn is None:
        raise NotImplementedError(
            f"CPU backend: extern function '{symbol}' (library '{op.attr('libname', '')}') has "
            f"no CPU implementation (at {op.loc.file}:{op.loc.line} in kernel '{pc.kernel}')")
    rt = op.results[0].type.element_type
    dd = compute_dtype(rt)
    float_args = any(isinstance(v.type.element_type, T.FloatType) for v in op.operands)
    if isinstance(rt, T.FloatType) or float_args:
        f = _in_precision(fn, rt) if isinstance(rt, T.FloatType) else fn
    else:
        f = fn

    def run(env, *args):
        r = np.asarray(f(*args))
        if r.dtype != dd:
            r = r.view(dd) if r.dtype.itemsize == dd.itemsize and r.dtype.kind in "iu" \
                and dd.kind in "iu" else r.astype(dd)
        return r
    return run
