"""`math.*`, `tt.precise_*`, `tt.clampf`, `tt.mulhiui`, `tt.fp_to_fp` on the host.

Functions are LLVM intrinsics where LLVM has them (they become instructions or calls into the
C library, libm-accurate), plain libm calls otherwise. As in the evaluator, f16 is computed in
float and rounded once, bf16 in float and rounded to bf16.
"""
from __future__ import annotations

from ....ir import types as T
from .arith import call_fintrinsic, convert_float, rounded
from .context import Ctx, Unsupported, elem, elementwise, is_bf16, is_fp8, lowers, lty

_INTRINSIC = {"exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt",
              "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "absf": "fabs",
              "floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "round",
              "roundeven": "roundeven", "asin": "asin", "acos": "acos", "atan": "atan",
              "sinh": "sinh", "cosh": "cosh", "fma": "fma", "copysign": "copysign",
              "powf": "pow", "atan2": "atan2", "log10": "log10"}
_LIBM = {"erf": "erf", "log1p": "log1p", "expm1": "expm1", "cbrt": "cbrt"}
_COST = {"fabs": 1, "floor": 1, "ceil": 1, "trunc": 1, "round": 1, "roundeven": 1,
         "sqrt": 2, "fma": 1, "copysign": 1}



def _in_precision(t: T.Type, compute):
    """Wrap `compute(c, ty, *args)` so f16 runs in float and bf16 is rounded."""
    ty = lty(t)
    if ty == "half":
        def f16(c, *args):
            wide = [c.emit(f"fpext half {a} to float") for a in args]
            return c.emit(f"fptrunc float {compute(c, 'float', *wide)} to half")
        return f16
    return lambda c, *args: rounded(c, t, compute(c, ty, *args))


def _horner(c: Ctx, coefs, x: str) -> str:
    """coefs[0] x^n + ... + coefs[n] in float, by fused multiply-adds."""
    p = coefs[0]
    for coef in coefs[1:]:
        p = call_fintrinsic(c, "fma", "float", p, x, coef)
    return p


# e^r on |r| <= ln2/2: a degree-6 polynomial fitted here (iteratively reweighted least
# squares in relative error, 1.9e-9 before rounding to float), coefficients of r^6 ... 1;
# 0.88 ulp in float Horner
_EXP_P = ("0x3F56AB9AC0000000", "0x3F8126D660000000", "0x3FA55589C0000000",
          "0x3FC55540A0000000", "0x3FDFFFFFA0000000", "0x3FF0000000000000",
          "0x3FF0000000000000")


def has_scalef() -> bool:
    """Whether this host scales by powers of two in one SIMD instruction (AVX-512's
    `vscalefps`, which LLVM emits for `llvm.ldexp`; elsewhere ldexp is a libm call)."""
    from .jit import host_key
    return "+avx512f" in host_key()


def fast_expf(c: Ctx, x: str) -> str:
    """exp(x) in float within 2 ulp (the GPU's `ex2.approx` path is no closer), inline so
    the loop vectoriser keeps it in SIMD registers; `expf` from libm is a scalar call.
    x = n*ln2 + r with |r| <= ln2/2 (Cody-Waite, two-part ln2), e^r by `_EXP_P`, times 2^n
    so that subnormal results come out right: by `llvm.ldexp` where that is one instruction
    (`vscalefps` rounds once and overflows to inf itself, so x is only clamped), else as two
    halves with the ends selected."""
    scalef = has_scalef()
    if scalef:
        # clamped ends: e^-104 rounds to 0 and e^88.75 overflows; NaN is put back below
        x0 = x
        x = call_fintrinsic(c, "maxnum", "float", x, "-1.040000e+02")
        x = call_fintrinsic(c, "minnum", "float", x, "0x4056300000000000")
    n = call_fintrinsic(c, "roundeven", "float", c.emit(f"fmul float {x}, 0x3FF7154760000000"))
    r = call_fintrinsic(c, "fma", "float", n, "0xBFE62E4000000000", x)
    r = call_fintrinsic(c, "fma", "float", n, "0xBEB7F7D1C0000000", r)
    p = _horner(c, _EXP_P, r)
    if scalef:
        c.declare("ldexp.f32", "declare float @llvm.ldexp.f32.i32(float, i32)")
        y = c.emit(f"call float @llvm.ldexp.f32.i32(float {p}, i32 "
                   f"{c.emit(f'fptosi float {n} to i32')})")
        nan = c.emit(f"fcmp uno float {x0}, 0.0")
        return c.emit(f"select i1 {nan}, float {x0}, float {y}")
    ni = c.emit(f"fptosi float {call_fintrinsic(c, 'maxnum', 'float', n, '-1.600000e+02')} to i32")
    ni = c.emit(f"call i32 @llvm.smin.i32(i32 {ni}, i32 160)")
    c.declare("smin.i32", "declare i32 @llvm.smin.i32(i32, i32)")
    h1 = c.emit(f"ashr i32 {ni}, 1")
    h2 = c.emit(f"sub i32 {ni}, {h1}")
    s1 = c.emit("bitcast i32 " + c.emit(f"shl i32 {c.emit(f'add i32 {h1}, 127')}, 23") + " to float")
    s2 = c.emit("bitcast i32 " + c.emit(f"shl i32 {c.emit(f'add i32 {h2}, 127')}, 23") + " to float")
    y = c.emit(f"fmul float {c.emit(f'fmul float {p}, {s1}')}, {s2}")
    big = c.emit(f"fcmp ogt float {x}, 0x40562E4300000000")       # > ln(FLT_MAX)
    small = c.emit(f"fcmp olt float {x}, -1.040000e+02")
    y = c.emit(f"select i1 {big}, float 0x7FF0000000000000, float {y}")
    y = c.emit(f"select i1 {small}, float 0.0, float {y}")
    nan = c.emit(f"fcmp uno float {x}, 0.0")
    return c.emit(f"select i1 {nan}, float {x}, float {y}")


# tanh(x) = x + x^3 P(x^2) for |x| < 0.625: P fitted here (least squares in relative error,
# coefficients of x^3 ... x^11), 0.8 ulp in float Horner
_TANH_P = ("0xBF775D1F40000000", "0x3F95221780000000", "0xBFAB83B2E0000000",
           "0x3FC1107180000000", "0xBFD5555320000000")


def fast_tanhf(c: Ctx, x: str) -> str:
    """tanh(x) in float within 3 ulp, inline (vectorisable, as `fast_expf`; `tanhf` from
    libm is a scalar call that keeps the whole loop scalar): an odd polynomial below
    |x| = 0.625, 1 - 2/(e^2|x| + 1) above, the sign copied back (so tanh(-0) = -0)."""
    ax = call_fintrinsic(c, "fabs", "float", x)
    z = c.emit(f"fmul float {ax}, {ax}")
    p = _horner(c, _TANH_P, z)
    small = call_fintrinsic(c, "fma", "float", c.emit(f"fmul float {ax}, {z}"), p, ax)
    e = fast_expf(c, c.emit(f"fadd float {ax}, {ax}"))
    large = c.emit(f"fdiv float 2.0, {c.emit(f'fadd float {e}, 1.0')}")
    large = c.emit(f"fsub float 1.0, {large}")
    below = c.emit(f"fcmp olt float {ax}, 0x3FE4000000000000")     # 0.625
    return call_fintrinsic(c, "copysign", "float",
                           c.emit(f"select i1 {below}, float {small}, float {large}"), x)


# erf(x) = x + x Q(x^2) below |x| = 1 (Q's coefficients of x^12 ... x^0); above,
# 1 - e^(-x^2) R(t) with t = 1/(1 + x/2) (R's of t^7 ... t^0), both fitted here (least
# squares, in erf's relative and absolute error); float(erf) rounds to 1 above 3.92
_ERF_Q = ("0x3F149234E0000000", "0xBF4A3DC180000000", "0x3F75401DC0000000",
          "0xBF9B7F88C0000000", "0x3FBCE2CF00000000", "0xBFD81273E0000000",
          "0x3FC06EBA80000000")
_ERF_R = ("0x3FBE351020000000", "0xBFDDC46E80000000", "0x3FE1A860C0000000",
          "0xBFB78387A0000000", "0x3FD5CDD580000000", "0x3FD0C86360000000",
          "0x3FD233D8E0000000", "0xBF1D99B900000000")


def fast_erff(c: Ctx, x: str) -> str:
    """erf(x) in float within 2 ulp, inline (vectorisable, where libm's `erff` is a scalar
    call: Inductor's exact GELU is `x * (1 + erf(x / sqrt 2)) / 2`)."""
    ax = call_fintrinsic(c, "fabs", "float", x)
    small = call_fintrinsic(c, "fma", "float", ax,
                            _horner(c, _ERF_Q, c.emit(f"fmul float {ax}, {ax}")), ax)
    t = c.emit(f"fdiv float 1.0, {call_fintrinsic(c, 'fma', 'float', ax, '5.000000e-01', '1.0')}")
    e = fast_expf(c, c.emit(f"fneg float {c.emit(f'fmul float {ax}, {ax}')}"))
    large = call_fintrinsic(c, "fma", "float", c.emit(f"fneg float {e}"), _horner(c, _ERF_R, t),
                            "1.0")
    large = c.emit(f"select i1 {c.emit(f'fcmp ogt float {ax}, 0x400F5C2900000000')}, float 1.0, "
                   f"float {large}")
    below = c.emit(f"fcmp olt float {ax}, 1.0")
    return call_fintrinsic(c, "copysign", "float",
                           c.emit(f"select i1 {below}, float {small}, float {large}"), x)


# float functions computed inline, so that loops holding them stay SIMD
FAST_MATH = {"exp": fast_expf, "tanh": fast_tanhf, "erf": fast_erff}


def _math(name):
    @lowers(f"math.{name}")
    def h(cx, op):
        t = elem(op.results[0].type)
        if name in FAST_MATH and lty(t) in ("float", "half"):
            fast = FAST_MATH[name]
            elementwise(cx, op, _in_precision(t, lambda c, ty, x: fast(c, x)), cost=20)
            return
        if name in _INTRINSIC:
            fn = _INTRINSIC[name]
            compute = lambda c, ty, *a: call_fintrinsic(c, fn, ty, *a)  # noqa: E731
        else:
            compute = lambda c, ty, *a: c.libm_call(_LIBM[name], ty, a)  # noqa: E731
        elementwise(cx, op, _in_precision(t, compute), cost=_COST.get(name, 20))


for _n in list(_INTRINSIC) + list(_LIBM):
    _math(_n)


@lowers("math.rsqrt")
def _rsqrt(cx, op):
    t = elem(op.results[0].type)

    def compute(c, ty, x):
        one = {"float": "1.0", "double": "1.0"}[ty]
        return c.emit(f"fdiv {ty} {one}, {call_fintrinsic(c, 'sqrt', ty, x)}")
    elementwise(cx, op, _in_precision(t, compute), cost=3)


@lowers("math.absi")
def _absi(cx, op):
    ty = lty(op.results[0].type)
    if ty == "i1":
        elementwise(cx, op, lambda c, x: x, cost=0)
        return
    cx.declare(f"abs.{ty}", f"declare {ty} @llvm.abs.{ty}({ty}, i1)")
    elementwise(cx, op, lambda c, x: c.emit(f"call {ty} @llvm.abs.{ty}({ty} {x}, i1 false)"))


@lowers("tt.precise_sqrt")
def _psqrt(cx, op):
    t = elem(op.results[0].type)
    elementwise(cx, op, _in_precision(t, lambda c, ty, x: call_fintrinsic(c, "sqrt", ty, x)))


@lowers("tt.precise_divf")
def _pdiv(cx, op):
    t = elem(op.results[0].type)
    elementwise(cx, op, _in_precision(t, lambda c, ty, x, y: c.emit(f"fdiv {ty} {x}, {y}")))


@lowers("tt.clampf")
def _clampf(cx, op):
    prop = op.attr("propagateNan", 0)
    if isinstance(prop, str):
        prop = 0 if prop.upper() == "NONE" else 1
    hi_fn, lo_fn = ("minimum", "maximum") if prop else ("minnum", "maxnum")
    t = elem(op.results[0].type)

    def compute(c, ty, x, lo, hi):
        return call_fintrinsic(c, hi_fn, ty, call_fintrinsic(c, lo_fn, ty, x, lo), hi)
    elementwise(cx, op, _in_precision(t, compute), cost=2)


@lowers("tt.mulhiui")
def _mulhi(cx, op):
    ty = lty(op.results[0].type)
    w = int(ty[1:])
    wide = f"i{2 * w}"

    def f(c, a, b):
        p = c.emit(f"mul {wide} " + c.emit(f"zext {ty} {a} to {wide}") + ", "
                   + c.emit(f"zext {ty} {b} to {wide}"))
        return c.emit(f"trunc {wide} " + c.emit(f"lshr {wide} {p}, {w}") + f" to {ty}")
    elementwise(cx, op, f, cost=3)


def _rtz_from_float(c: Ctx, x: str, dt) -> str:
    """float -> half or bf16 rounding toward zero: round to nearest, then step back toward
    zero when that went past x in magnitude (bf16: drop the low bits; NaN stays NaN)."""
    if is_bf16(dt):
        b = c.emit(f"bitcast float {x} to i32")
        t = c.emit(f"bitcast i32 {c.emit(f'and i32 {b}, -65536')} to float")
        nan = c.emit(f"fcmp uno float {x}, 0.0")
        return c.emit(f"select i1 {nan}, float {x}, float {t}")
    h = c.emit(f"fptrunc float {x} to half")
    back = call_fintrinsic(c, "fabs", "float", c.emit(f"fpext half {h} to float"))
    over = c.emit(f"fcmp ogt float {back}, {call_fintrinsic(c, 'fabs', 'float', x)}")
    hb = c.emit(f"bitcast half {h} to i16")
    hb = c.emit(f"sub i16 {hb}, {c.emit(f'zext i1 {over} to i16')}")
    return c.emit(f"bitcast i16 {hb} to half")


@lowers("tt.fp_to_fp")
def _fp_to_fp(cx, op):
    st, dt = elem(op.operand(0).type), elem(op.results[0].type)
    r = op.attr("rounding", 1)
    mode = r if isinstance(r, str) else ("rtz" if r == 0 else "rtne")
    src, dst = lty(st), lty(dt)
    if is_fp8(dt):
        def to_fp8(c, x):
            if st == dt:
                return x
            if src == "double":
                from .arith import float_to_odd
                x = float_to_odd(c, x)           # rounded to odd: one rounding in all
            elif src == "half":
                x = c.emit(f"fpext half {x} to float")
            return rounded(c, dt, x, mode)
        elementwise(cx, op, to_fp8)
        return
    narrowing = is_bf16(dt) or {"half": 16, "float": 32, "double": 64}[dst] < \
        {"half": 16, "float": 32, "double": 64}[src]
    if mode == "rtz" and narrowing:
        if src != "float":
            raise Unsupported(f"tt.fp_to_fp rtz from {st}")
        elementwise(cx, op, lambda c, x: _rtz_from_float(c, x, dt))
        return
    def f(c, x):
        y = convert_float(c, src, dst, x)
        return rounded(c, dt, y) if is_bf16(dt) and not is_bf16(st) else y
    elementwise(cx, op, f)

