"""Every arith op on the CPU backend against a numpy / Python-int reference, for every
integer and float type, on random data including edge values, with ragged block sizes."""
import math
import sys
import os

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from irkit import run_elementwise, i1, i8, i16, i32, i64, f16, bf16, f32, f64  # noqa: E402

from tritium.ir.attrs import IntegerAttr  # noqa: E402
from tritium.ir.ops import CMPF_PREDICATES, CMPI_PREDICATES  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

INT_TYPES = {8: i8, 16: i16, 32: i32, 64: i64}
RNG = np.random.default_rng(1234)
N_PER_PROGRAM = 37          # ragged on purpose
P = 3

def _erf_ref(x):
    """libm's erf in float64, element by element (no scipy needed)."""
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, np.float64))


def _erfc_ref(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(np.asarray(x, np.float64))



def rand_ints(width, n=N_PER_PROGRAM * P, nonzero=False):
    dt = np.dtype(f"int{width}")
    info = np.iinfo(dt)
    edge = np.array([0, 1, -1, info.min, info.max, info.min + 1, info.max - 1, 2, -2], dt)
    v = RNG.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    v[: len(edge)] = edge
    small = RNG.integers(-20, 20, n // 3).astype(dt)
    v[len(edge): len(edge) + len(small)] = small
    if nonzero:
        v[v == 0] = 3
    return v


def wrap(x, width):
    x &= (1 << width) - 1
    return x - (1 << width) if x >= 1 << (width - 1) else x


def ref_int(fn, a, b, width):
    return np.array([wrap(fn(int(x), int(y)), width) for x, y in zip(a, b)],
                    dtype=f"int{width}")


def c_div(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def c_rem(x, y):
    return x - y * c_div(x, y)


def u(x, w):
    return x & ((1 << w) - 1)


INT_BINOPS = {
    "addi": lambda x, y, w: x + y,
    "subi": lambda x, y, w: x - y,
    "muli": lambda x, y, w: x * y,
    "andi": lambda x, y, w: x & y,
    "ori": lambda x, y, w: x | y,
    "xori": lambda x, y, w: x ^ y,
    "maxsi": lambda x, y, w: max(x, y),
    "minsi": lambda x, y, w: min(x, y),
    "maxui": lambda x, y, w: max(u(x, w), u(y, w)),
    "minui": lambda x, y, w: min(u(x, w), u(y, w)),
    "divsi": lambda x, y, w: c_div(x, y),
    "remsi": lambda x, y, w: c_rem(x, y),
    "divui": lambda x, y, w: u(x, w) // u(y, w),
    "remui": lambda x, y, w: u(x, w) % u(y, w),
    "ceildivsi": lambda x, y, w: -((-x) // y),
    "floordivsi": lambda x, y, w: x // y,
    "ceildivui": lambda x, y, w: -((-u(x, w)) // u(y, w)),
    "shli": lambda x, y, w: 0 if u(y, w) >= w else x << u(y, w),
    "shrsi": lambda x, y, w: x >> min(u(y, w), w - 1),
    "shrui": lambda x, y, w: 0 if u(y, w) >= w else u(x, w) >> u(y, w),
}


@pytest.mark.parametrize("width", [8, 16, 32, 64])
@pytest.mark.parametrize("name", sorted(INT_BINOPS))
def test_int_binary(name, width):
    t = INT_TYPES[width]
    a = rand_ints(width)
    b = rand_ints(width, nonzero=name in ("divsi", "remsi", "divui", "remui", "ceildivsi",
                                          "floordivsi", "ceildivui"))
    if name.startswith("sh"):
        b = RNG.integers(0, 2 * width, len(a)).astype(a.dtype)
    if name in ("ceildivsi", "floordivsi", "divsi", "remsi"):
        # INT_MIN / -1 overflows (the GPU gives INT_MIN, like the wrap reference); keep it in.
        pass
    out = run_elementwise(f"arith.{name}", [t, t], t, [a, b])
    ref = ref_int(lambda x, y: INT_BINOPS[name](x, y, width), a, b, width)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", ["divsi", "remsi", "divui", "remui"])
def test_int_division_by_zero_does_not_crash(name):
    a = rand_ints(32)
    b = np.zeros_like(a)
    run_elementwise(f"arith.{name}", [i32, i32], i32, [a, b])


@pytest.mark.parametrize("width", [8, 32, 64])
@pytest.mark.parametrize("pred", CMPI_PREDICATES)
def test_cmpi(pred, width):
    t = INT_TYPES[width]
    a = rand_ints(width)
    b = a.copy()
    b[::2] = rand_ints(width)[::2]
    attrs = {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred), i64)}
    out = run_elementwise("arith.cmpi", [t, t], i1, [a, b], attrs)
    w = width
    ops = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
           "slt": lambda x, y: x < y, "sle": lambda x, y: x <= y,
           "sgt": lambda x, y: x > y, "sge": lambda x, y: x >= y,
           "ult": lambda x, y: u(x, w) < u(y, w), "ule": lambda x, y: u(x, w) <= u(y, w),
           "ugt": lambda x, y: u(x, w) > u(y, w), "uge": lambda x, y: u(x, w) >= u(y, w)}
    ref = np.array([ops[pred](int(x), int(y)) for x, y in zip(a, b)], np.uint8)
    np.testing.assert_array_equal(out, ref)


def test_i1_arithmetic():
    a = RNG.integers(0, 2, 60).astype(np.uint8)
    b = RNG.integers(0, 2, 60).astype(np.uint8)
    # i1 is a 1-bit two's complement integer: true == -1 when signed.
    cases = {"addi": a ^ b, "subi": a ^ b, "muli": a & b, "andi": a & b, "ori": a | b,
             "xori": a ^ b, "maxsi": a & b, "minsi": a | b, "maxui": a | b, "minui": a & b}
    for name, ref in cases.items():
        out = run_elementwise(f"arith.{name}", [i1, i1], i1, [a, b])
        np.testing.assert_array_equal(out, ref, err_msg=name)


# ------------------------------------------------------------------ casts
@pytest.mark.parametrize("src,dst", [(8, 32), (16, 64), (32, 64), (8, 64)])
def test_ext(src, dst):
    a = rand_ints(src)
    out = run_elementwise("arith.extsi", [INT_TYPES[src]], INT_TYPES[dst], [a])
    np.testing.assert_array_equal(out, a.astype(f"int{dst}"))
    out = run_elementwise("arith.extui", [INT_TYPES[src]], INT_TYPES[dst], [a])
    np.testing.assert_array_equal(out, a.view(f"uint{src}").astype(f"int{dst}"))
    out = run_elementwise("arith.trunci", [INT_TYPES[dst]], INT_TYPES[src],
                          [rand_ints(dst)])


def test_trunc_wraps_and_i1_casts():
    a = rand_ints(32)
    out = run_elementwise("arith.trunci", [i32], i8, [a])
    np.testing.assert_array_equal(out, a.astype(np.int8))
    out = run_elementwise("arith.trunci", [i32], i1, [a])
    np.testing.assert_array_equal(out, (a & 1).astype(np.uint8))
    bits = RNG.integers(0, 2, 30).astype(np.uint8)
    np.testing.assert_array_equal(run_elementwise("arith.extsi", [i1], i32, [bits]),
                                  -bits.astype(np.int32))
    np.testing.assert_array_equal(run_elementwise("arith.extui", [i1], i32, [bits]),
                                  bits.astype(np.int32))
    np.testing.assert_array_equal(run_elementwise("arith.sitofp", [i1], f32, [bits]),
                                  -bits.astype(np.float32))
    np.testing.assert_array_equal(run_elementwise("arith.uitofp", [i1], f32, [bits]),
                                  bits.astype(np.float32))


@pytest.mark.parametrize("width", [8, 32, 64])
@pytest.mark.parametrize("ft", ["f16", "f32", "f64"])
def test_int_to_float(width, ft):
    a = rand_ints(width)
    T_ = {"f16": f16, "f32": f32, "f64": f64}[ft]
    out = run_elementwise("arith.sitofp", [INT_TYPES[width]], T_, [a])
    np.testing.assert_array_equal(out, a.astype(ft.replace("f", "float")))
    out = run_elementwise("arith.uitofp", [INT_TYPES[width]], T_, [a])
    np.testing.assert_array_equal(out, a.view(f"uint{width}").astype(ft.replace("f", "float")))


def _sat(x, lo, hi):
    if math.isnan(x):
        return 0
    t = math.trunc(x) if math.isfinite(x) else (hi if x > 0 else lo)
    return min(max(t, lo), hi)


@pytest.mark.parametrize("width", [8, 32, 64])
def test_float_to_int_saturates(width):
    x = np.concatenate([RNG.standard_normal(60) * 10.0 ** RNG.integers(0, 20, 60),
                        [np.nan, np.inf, -np.inf, -0.5, 0.5, -1.5, 2.0 ** 63, -2.0 ** 63,
                         2.0 ** 64, 1e30]]).astype(np.float32)
    x = x[: (len(x) // P) * P]
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    out = run_elementwise("arith.fptosi", [f32], INT_TYPES[width], [x])
    ref = np.array([_sat(float(v), lo, hi) for v in x], f"int{width}")
    np.testing.assert_array_equal(out, ref)
    out = run_elementwise("arith.fptoui", [f32], INT_TYPES[width], [x])
    ref = np.array([_sat(float(v), 0, (1 << width) - 1) for v in x], f"uint{width}")
    np.testing.assert_array_equal(out.view(f"uint{width}"), ref)


def test_bitcast_int_float():
    x = RNG.standard_normal(30).astype(np.float32)
    out = run_elementwise("arith.bitcast", [f32], i32, [x])
    np.testing.assert_array_equal(out, x.view(np.int32))
    back = run_elementwise("arith.bitcast", [i32], f32, [out])
    np.testing.assert_array_equal(back.view(np.int32), x.view(np.int32))
    xb = RNG.integers(0, 1 << 16, 30).astype(np.uint16)
    xb[(xb & 0x7F80) == 0x7F80] = 0x3F80    # no NaN patterns: they need not round-trip
    out = run_elementwise("arith.bitcast", [bf16], i16, [xb])
    np.testing.assert_array_equal(out.view(np.uint16), xb)


@pytest.mark.parametrize("src,dst", [("f32", "f16"), ("f64", "f32"), ("f16", "f32"),
                                     ("f32", "f64"), ("f64", "f16")])
def test_float_casts(src, dst):
    x = (RNG.standard_normal(90) * 10.0 ** RNG.integers(-8, 8, 90))
    x = x.astype(src.replace("f", "float"))
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    tt = {"f16": f16, "f32": f32, "f64": f64}
    name = "arith.truncf" if int(src[1:]) > int(dst[1:]) else "arith.extf"
    out = run_elementwise(name, [tt[src]], tt[dst], [x])
    np.testing.assert_array_equal(out, x.astype(dst.replace("f", "float")))


# ------------------------------------------------------------------ floats
FLOAT_NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
FLOAT_T = {"f16": f16, "f32": f32, "f64": f64, "bf16": bf16}


def rand_floats(name, n=N_PER_PROGRAM * P, special=True):
    x = RNG.standard_normal(n) * 4
    if special:
        x[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5]
    if name == "bf16":
        from tritium.backends.cpu.dtypes import f32_to_bf16_bits
        return f32_to_bf16_bits(x.astype(np.float32))
    return x.astype(FLOAT_NP[name])


def as_f32(name, x):
    if name == "bf16":
        from tritium.backends.cpu.dtypes import bf16_bits_to_f32
        return bf16_bits_to_f32(x)
    return x


def to_type(name, x):
    """Round a float64/float32 reference to the type, in memory layout."""
    if name == "bf16":
        from tritium.backends.cpu.dtypes import f32_to_bf16_bits
        return f32_to_bf16_bits(np.asarray(x, np.float32))
    return np.asarray(x).astype(FLOAT_NP[name])


FLOAT_BINOPS = {
    "addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
    "remf": np.fmod, "maximumf": np.maximum, "minimumf": np.minimum, "maxnumf": np.fmax,
    "minnumf": np.fmin,
}


@pytest.mark.parametrize("ft", ["f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("name", sorted(FLOAT_BINOPS))
def test_float_binary(name, ft):
    a, b = rand_floats(ft), rand_floats(ft)
    b[8:16] = a[8:16]              # some equal pairs
    out = run_elementwise(f"arith.{name}", [FLOAT_T[ft]] * 2, FLOAT_T[ft], [a, b])
    with np.errstate(all="ignore"):
        if ft == "bf16":
            ref = to_type(ft, FLOAT_BINOPS[name](as_f32(ft, a), as_f32(ft, b)))
        else:
            ref = FLOAT_BINOPS[name](a, b)
    np.testing.assert_array_equal(as_f32(ft, out), as_f32(ft, ref))


def test_negf_and_select_scalar_condition():
    a = rand_floats("f32")
    out = run_elementwise("arith.negf", [f32], f32, [a])
    np.testing.assert_array_equal(out, -a)


@pytest.mark.parametrize("pred", CMPF_PREDICATES)
def test_cmpf(pred):
    vals = np.array([np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf], np.float32)
    a = np.repeat(vals, len(vals))
    b = np.tile(vals, len(vals))
    a, b = np.concatenate([a, a[:5]]), np.concatenate([b, b[:5]])   # 54 = 3 * 18
    attrs = {"predicate": IntegerAttr(CMPF_PREDICATES.index(pred), i64)}
    out = run_elementwise("arith.cmpf", [f32, f32], i1, [a, b], attrs).astype(bool)
    unord = np.isnan(a) | np.isnan(b)
    base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b,
            "ne": (a != b) & ~unord}
    if pred == "false":
        ref = np.zeros_like(unord)
    elif pred == "true":
        ref = np.ones_like(unord)
    elif pred == "ord":
        ref = ~unord
    elif pred == "uno":
        ref = unord
    elif pred[0] == "o":
        ref = base[pred[1:]] & ~unord
    else:
        ref = base[pred[1:]] | unord
    np.testing.assert_array_equal(out, ref)


# ------------------------------------------------------------------ math
UNARY = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "absf": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": lambda x: np.where(np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x),
                                np.trunc(x)),
    "roundeven": np.rint, "log1p": np.log1p, "expm1": np.expm1, "atan": np.arctan,
    "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh, "cbrt": np.cbrt,
    "erf": None,
}


def _ulp_close(out, ref, ft, ulps):
    out = np.asarray(out, np.float64)
    ref = np.asarray(ref, np.float64)
    both_nan = np.isnan(out) & np.isnan(ref)
    same = (out == ref) | both_nan
    eps = {"f16": 2.0 ** -10, "f32": 2.0 ** -23, "f64": 2.0 ** -52, "bf16": 2.0 ** -7}[ft]
    tiny = {"f16": 6e-5, "f32": 1e-37, "f64": 1e-300, "bf16": 1e-37}[ft]
    tol = ulps * eps * np.maximum(np.abs(ref), tiny)
    close = np.abs(out - ref) <= tol
    bad = ~(same | close)
    assert not bad.any(), (out[bad][:5], ref[bad][:5])


@pytest.mark.parametrize("ft", ["f16", "f32", "f64", "bf16"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_math_unary(name, ft):
    x = rand_floats(ft)
    if name in ("asin", "acos"):
        x = to_type(ft, as_f32(ft, x).astype(np.float64) / 4 % 1.0)
    out = run_elementwise(f"math.{name}", [FLOAT_T[ft]], FLOAT_T[ft], [x])
    xf = as_f32(ft, x).astype(np.float64)
    with np.errstate(all="ignore"):
        if name == "erf":
            r64 = _erf_ref(xf)
        else:
            r64 = UNARY[name](xf)
    ref = as_f32(ft, to_type(ft, r64))
    ulps = 1 if ft in ("f16", "bf16") else 4
    if ft == "f64" and name not in ("sqrt", "absf", "floor", "ceil", "trunc", "round",
                                    "roundeven"):
        ulps = 8
    _ulp_close(as_f32(ft, out), ref, ft, ulps)


@pytest.mark.parametrize("ft", ["f32", "f64"])
def test_erf_precision(ft):
    x = np.concatenate([np.linspace(-7, 7, 3001), np.logspace(-30, 0.8, 300)])
    x = x[: (len(x) // 3) * 3].astype(FLOAT_NP[ft])
    out = run_elementwise("math.erf", [FLOAT_T[ft]], FLOAT_T[ft], [x])
    ref = _erf_ref(x.astype(np.float64))
    _ulp_close(out, ref.astype(FLOAT_NP[ft]), ft, 1 if ft == "f32" else 16)


@pytest.mark.parametrize("ft", ["f16", "f32", "f64"])
def test_binary_math(ft):
    a, b, c = rand_floats(ft, special=False), rand_floats(ft, special=False), \
        rand_floats(ft, special=False)
    t = FLOAT_T[ft]
    a64, b64, c64 = (v.astype(np.float64) for v in (a, b, c))
    out = run_elementwise("math.fma", [t, t, t], t, [a, b, c])
    from fractions import Fraction
    exact = np.array([float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                      for x, y, z in zip(a64, b64, c64)])
    _ulp_close(out, exact.astype(FLOAT_NP[ft]), ft, 1)
    out = run_elementwise("math.copysign", [t, t], t, [a, b])
    np.testing.assert_array_equal(out, np.copysign(a, b))
    out = run_elementwise("math.atan2", [t, t], t, [a, b])
    _ulp_close(out, np.arctan2(a64, b64).astype(FLOAT_NP[ft]), ft, 4)
    pa = np.abs(a)
    out = run_elementwise("math.powf", [t, t], t, [pa, b])
    _ulp_close(out, np.power(pa.astype(np.float64), b64).astype(FLOAT_NP[ft]), ft, 8)


def test_absi():
    a = rand_ints(32)
    out = run_elementwise("math.absi", [i32], i32, [a])
    np.testing.assert_array_equal(out, np.abs(a))


def test_elementwise_rank2_shape():
    a = rand_floats("f32", special=False, n=3 * 24)
    b = rand_floats("f32", special=False, n=3 * 24)
    out = run_elementwise("arith.addf", [f32, f32], f32, [a, b], shape=[4, 6])
    np.testing.assert_array_equal(out, a + b)
