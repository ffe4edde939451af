"""Per-op fold hooks: constant folding of arith/math/tt ops on scalar and splat-tensor
constants, and the identities that return an existing value (x+0 → x, trans(trans) → x).

Numeric semantics follow MLIR's folders: integers are two's complement of the type width
(signless; the op picks signed or unsigned), division truncates like C, division by zero and
signed overflow of division do not fold (undefined), shifts by the width or more do not
fold. Floats fold in the op's own precision: the exact result is rounded once, to nearest
even, to f16/bf16/f32/f64; NaN, infinities and -0.0 behave as IEEE-754 says. fp8 types are
not folded.
"""
from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Optional

import numpy as np

from ..ir.attrs import DenseElementsAttr, FloatAttr, IntegerAttr
from ..ir.builder import normalize_int
from ..ir.ops import CMPF_PREDICATES, CMPI_PREDICATES, OPS
from ..ir.types import FloatType, IntegerType, Type
from .pattern import IN_PLACE, defining, make_const_attr, register_fold

# ---------------------------------------------------------------- integers


def sext(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def zext(v: int, w: int) -> int:
    return v & ((1 << w) - 1)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cdiv(a: int, b: int) -> int:
    return -((-a) // b)


def _int_bin(name: str, a: int, b: int, w: int) -> Optional[int]:
    """`name` on two w-bit integers; None where the result is undefined."""
    sa, sb, ua, ub = sext(a, w), sext(b, w), zext(a, w), zext(b, w)
    smin = -(1 << (w - 1))
    if name == "addi":
        return a + b
    if name == "subi":
        return a - b
    if name == "muli":
        return a * b
    if name in ("divsi", "ceildivsi", "floordivsi", "remsi"):
        if sb == 0 or (name != "remsi" and sa == smin and sb == -1):
            return None
        if name == "divsi":
            return _tdiv(sa, sb)
        if name == "ceildivsi":
            return _cdiv(sa, sb)
        if name == "floordivsi":
            return sa // sb
        return sa - sb * _tdiv(sa, sb)
    if name in ("divui", "ceildivui", "remui"):
        if ub == 0:
            return None
        return {"divui": ua // ub, "ceildivui": _cdiv(ua, ub), "remui": ua % ub}[name]
    if name == "andi":
        return ua & ub
    if name == "ori":
        return ua | ub
    if name == "xori":
        return ua ^ ub
    if name in ("shli", "shrsi", "shrui"):
        if ub >= w:
            return None
        return {"shli": ua << ub, "shrsi": sa >> ub, "shrui": ua >> ub}[name]
    if name == "maxsi":
        return max(sa, sb)
    if name == "minsi":
        return min(sa, sb)
    if name == "maxui":
        return max(ua, ub)
    if name == "minui":
        return min(ua, ub)
    if name == "mulhiui":
        return (ua * ub) >> w
    return None


def _cmpi(pred: str, a: int, b: int, w: int) -> bool:
    if pred in ("eq", "ne"):
        return (zext(a, w) == zext(b, w)) == (pred == "eq")
    x, y = (sext(a, w), sext(b, w)) if pred[0] == "s" else (zext(a, w), zext(b, w))
    return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[pred[1:]]


# ---------------------------------------------------------------- floats
# (significand bits including the implicit one, minimum normal exponent, maximum exponent)
FLOAT_FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127),
                 "f64": (53, -1022, 1023)}


def foldable_float(t: Type) -> bool:
    return isinstance(t, FloatType) and t.name in FLOAT_FORMATS


def round_float(x, t: FloatType) -> float:
    """Round the exact value `x` (float or Fraction) to type `t`, to nearest even."""
    if isinstance(x, float):
        if math.isnan(x):
            return math.nan  # one canonical quiet NaN, as APFloat produces
        if math.isinf(x) or x == 0.0:
            return x
    if t.name == "f64":
        return float(x)
    p, emin, emax = FLOAT_FORMATS[t.name]
    a = abs(Fraction(x))
    sign = -1.0 if x < 0 else 1.0
    if a == 0:
        return math.copysign(0.0, sign)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = max(e, emin) - (p - 1)
    scale = Fraction(2) ** quantum
    r = round(a / scale) * scale  # Fraction.__round__ rounds half to even
    if r > (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax:
        return sign * math.inf
    return math.copysign(float(r), sign)


def _f64(name: str, *xs: float) -> float:
    with np.errstate(all="ignore"):
        a = [np.float64(x) for x in xs]
        if name == "addf":
            r = a[0] + a[1]
        elif name == "subf":
            r = a[0] - a[1]
        elif name == "mulf":
            r = a[0] * a[1]
        elif name in ("divf", "precise_divf"):
            r = a[0] / a[1]
        elif name == "remf":
            r = np.fmod(a[0], a[1])
        elif name == "powf":
            r = np.power(a[0], a[1])
        elif name == "atan2":
            r = np.arctan2(a[0], a[1])
        elif name == "copysign":
            r = np.copysign(a[0], a[1])
        else:
            r = _MATH1[name](a[0])
    return float(r)


def _round_half_away(x):
    if not np.isfinite(x):
        return x
    f = math.floor(abs(x))
    r = f + 1 if abs(x) - f >= 0.5 else f
    return math.copysign(float(r), x)


_MATH1 = {
    "negf": np.negative, "absf": np.abs, "sqrt": np.sqrt, "precise_sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "exp": np.exp, "exp2": np.exp2, "log": np.log,
    "log2": np.log2, "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "cbrt": np.cbrt, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "roundeven": np.rint,
    "round": _round_half_away, "erf": lambda x: math.erf(x) if np.isfinite(x) else
    (np.nan if np.isnan(x) else math.copysign(1.0, x)),
}


def _minmax(name: str, a: float, b: float) -> float:
    an, bn = math.isnan(a), math.isnan(b)
    if name in ("maximumf", "minimumf"):
        if an or bn:
            return math.nan
    elif an or bn:  # maxnumf/minnumf return the number
        return b if an else a
    if a == b == 0.0:  # -0.0 orders below +0.0
        neg = math.copysign(1, a) < 0 or math.copysign(1, b) < 0
        pos = math.copysign(1, a) > 0 or math.copysign(1, b) > 0
        want_neg = neg if name.startswith("min") else not pos
        return -0.0 if want_neg else 0.0
    return max(a, b) if name.startswith("max") else min(a, b)


def _cmpf(pred: str, a: float, b: float) -> bool:
    unordered = math.isnan(a) or math.isnan(b)
    if pred == "false":
        return False
    if pred == "true":
        return True
    if pred == "ord":
        return not unordered
    if pred == "uno":
        return unordered
    if unordered:
        return pred[0] == "u"
    rel = pred[1:]
    return {"eq": a == b, "ne": a != b, "gt": a > b, "ge": a >= b, "lt": a < b,
            "le": a <= b}[rel]


def float_to_bits(x: float, t: FloatType) -> int:
    if t.name == "f64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if t.name == "f16":
        return int(np.array(x, np.float16).view(np.uint16))
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return b >> 16 if t.name == "bf16" else b


def bits_to_float(bits: int, t: FloatType) -> float:
    if t.name == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t.name == "f16":
        return float(np.array(bits, np.uint16).view(np.float16))
    if t.name == "bf16":
        bits <<= 16
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# ---------------------------------------------------------------- scalar evaluation
def eval_scalar(op, vals, in_types, out_type):
    """Evaluate `op` on Python scalars (ints normalized as the IR stores them, floats).
    Returns the result scalar, or None when it does not fold."""
    dialect, _, name = op.name.partition(".")
    t0 = in_types[0] if in_types else None
    if name == "select":
        return vals[1] if vals[0] else vals[2]
    if name == "cmpi":
        return int(_cmpi(CMPI_PREDICATES[op.attr("predicate")], vals[0], vals[1], t0.width))
    if name == "cmpf":
        if not foldable_float(t0):
            return None
        return int(_cmpf(CMPF_PREDICATES[op.attr("predicate")], vals[0], vals[1]))
    if name in _CASTS:
        return _cast(name, vals[0], t0, out_type, op)
    if isinstance(out_type, IntegerType):
        w = out_type.width
        if name == "absi":
            r = abs(sext(vals[0], w))
        elif len(vals) == 2:
            r = _int_bin(name, vals[0], vals[1], w)
        else:
            return None
        return None if r is None else normalize_int(r, w)
    if not foldable_float(out_type) or not all(foldable_float(t) for t in in_types):
        return None
    if name in ("maximumf", "minimumf", "maxnumf", "minnumf"):
        return round_float(_minmax(name, vals[0], vals[1]), out_type)
    if name == "fma":
        a, b, c = vals
        if any(math.isnan(v) or math.isinf(v) for v in vals):
            return round_float(_f64("addf", _f64("mulf", a, b), c), out_type)
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:  # the sign of an exact zero follows IEEE's rules for a*b + c
            return _f64("addf", _f64("mulf", a, b), c)
        return round_float(exact, out_type)
    if name == "clampf":
        x, lo, hi = vals
        if math.isnan(x):
            return x if op.attr("propagateNan", 0) else lo
        return _minmax("minnumf", _minmax("maxnumf", x, lo), hi)
    if name not in _MATH1 and name not in ("addf", "subf", "mulf", "divf", "precise_divf",
                                           "remf", "powf", "atan2", "copysign"):
        return None
    return round_float(_f64(name, *vals), out_type)


_CASTS = {"extsi", "extui", "trunci", "index_cast", "extf", "truncf", "sitofp", "uitofp",
          "fptosi", "fptoui", "bitcast", "fp_to_fp"}


def _cast(name, x, src: Type, dst: Type, op):
    if name in ("extsi", "index_cast"):
        return normalize_int(sext(x, src.width), dst.width)
    if name == "extui":
        return normalize_int(zext(x, src.width), dst.width)
    if name == "trunci":
        return normalize_int(x, dst.width)
    if name in ("sitofp", "uitofp"):
        if not foldable_float(dst):
            return None
        v = sext(x, src.width) if name == "sitofp" else zext(x, src.width)
        return round_float(Fraction(v), dst)
    if name in ("fptosi", "fptoui"):
        if not foldable_float(src) or math.isnan(x) or math.isinf(x):
            return None
        v = math.trunc(x)
        w = dst.width
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if name == "fptosi" else (0, (1 << w) - 1)
        if w == 1 and name == "fptosi":
            lo, hi = -1, 0
        return normalize_int(v, w) if lo <= v <= hi else None  # out of range is poison
    if name in ("extf", "truncf", "fp_to_fp"):
        if not (foldable_float(src) and foldable_float(dst)):
            return None
        if name != "extf" and (op.attr("roundingmode") not in (None, 0)
                               or op.attr("rounding", 1) != 1):
            return None  # only round-to-nearest-even folds
        return round_float(x, dst)
    if name == "bitcast":
        if isinstance(src, IntegerType) and foldable_float(dst):
            v = bits_to_float(zext(x, src.width), dst)
            return None if math.isnan(v) else v  # NaN payloads are not representable here
        if foldable_float(src) and isinstance(dst, IntegerType):
            return normalize_int(float_to_bits(x, src), dst.width)
        if isinstance(src, IntegerType) and isinstance(dst, IntegerType):
            return normalize_int(x, dst.width)
    return None


# ---------------------------------------------------------------- constant folding hook
_SCALAR_ATTRS = (IntegerAttr, FloatAttr, DenseElementsAttr)


def fold_constants(op, consts):
    """All operands constant (scalar or splat): compute the result."""
    if not consts or any(not isinstance(c, _SCALAR_ATTRS) for c in consts):
        return None
    if len(op.results) != 1:
        return None
    vals = []
    for c in consts:
        v = c.value
        if isinstance(v, bool):
            v = int(v)
        vals.append(v)
    in_types = [v.type.element_type for v in op.operands]
    out = op.results[0].type
    try:
        r = eval_scalar(op, vals, in_types, out.element_type)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    if r is None:
        return None
    return [make_const_attr(r, out)]


def _is_zero(c) -> bool:
    return c is not None and isinstance(c, _SCALAR_ATTRS) and c.value == 0


def _is_one(c) -> bool:
    return c is not None and isinstance(c, _SCALAR_ATTRS) and c.value == 1


def _is_all_ones(c, t: Type) -> bool:
    if c is None or not isinstance(c, _SCALAR_ATTRS):
        return False
    w = t.element_type.width
    return normalize_int(int(c.value), w) == normalize_int(-1, w)


def _fbits_equal(c, value: float) -> bool:
    if c is None or not isinstance(c, (FloatAttr, DenseElementsAttr)):
        return False
    v = float(c.value)
    return v == value and math.copysign(1, v) == math.copysign(1, value)


def _zero_attr(op):
    return [make_const_attr(0, op.results[0].type)]


_COMMUTATIVE = [n for n, d in OPS.items() if "Commutative" in d.traits]
_ELEMENTWISE_FOLDABLE = [n for n in OPS if n.startswith(("arith.", "math."))
                         and n != "arith.constant"] + [
    "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.clampf", "tt.fp_to_fp"]

_SWAPPED_PRED = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "ult": "ugt",
                 "ule": "uge", "ugt": "ult", "uge": "ule", "eq": "eq", "ne": "ne"}


def _identity(op, consts):
    """Algebraic identities that return an existing value or a constant."""
    n = op.name.partition(".")[2]
    x = op.operand(0)
    y = op.operand(1) if op.num_operands > 1 else None
    rhs = consts[1] if len(consts) > 1 else None
    t = op.results[0].type if op.results else None
    if n in ("addi", "subi", "ori", "xori", "shli", "shrsi", "shrui") and _is_zero(rhs):
        return [x]
    if n in ("muli", "divsi", "divui") and _is_one(rhs):
        return [x]
    if n in ("muli", "andi") and _is_zero(rhs):
        return _zero_attr(op)
    if n in ("remsi", "remui") and _is_one(rhs):
        return _zero_attr(op)
    if n in ("subi", "xori") and x is y:
        return _zero_attr(op)
    if n in ("andi", "ori", "maxsi", "minsi", "maxui", "minui", "maximumf", "minimumf",
             "maxnumf", "minnumf") and x is y:
        return [x]
    if n == "andi" and _is_all_ones(rhs, t):
        return [x]
    if n == "ori" and _is_all_ones(rhs, t):
        return [y]
    if n == "addi":  # (a - b) + b → a ; b + (a - b) → a
        for u, v in ((x, y), (y, x)):
            s = defining(u, "arith.subi")
            if s is not None and s.operand(1) is v:
                return [s.operand(0)]
    if n == "subi":  # (a + b) - b → a ; (a + b) - a → b
        s = defining(x, "arith.addi")
        if s is not None:
            if s.operand(1) is y:
                return [s.operand(0)]
            if s.operand(0) is y:
                return [s.operand(1)]
    # Floats: only the identities that are exact for NaN, infinities and signed zeros.
    if n == "addf" and _fbits_equal(rhs, -0.0):
        return [x]
    if n == "subf" and _fbits_equal(rhs, 0.0):
        return [x]
    if n in ("mulf", "divf") and _fbits_equal(rhs, 1.0):
        return [x]
    if n == "negf":
        inner = defining(x, "arith.negf")
        if inner is not None:
            return [inner.operand(0)]
    if n == "cmpi" and x is y:
        pred = CMPI_PREDICATES[op.attr("predicate")]
        return [make_const_attr(int(pred in ("eq", "sle", "sge", "ule", "uge")), t)]
    return None


def _cast_chain(op, consts):
    n = op.name
    src = op.operand(0)
    inner = src.owner_op
    t = op.results[0].type
    if src.type == t and n in ("arith.bitcast", "tt.bitcast"):
        return [src]
    if inner is None:
        return None
    if n == inner.name and n in ("arith.extsi", "arith.extui", "arith.extf", "arith.trunci",
                                 "arith.bitcast", "tt.bitcast"):
        if inner.operand(0).type == t:
            return [inner.operand(0)]  # bitcast(bitcast x) back to x's type
        op.set_operand(0, inner.operand(0))
        return IN_PLACE
    if n == "arith.trunci" and inner.name in ("arith.extsi", "arith.extui") \
            and inner.operand(0).type == t:
        return [inner.operand(0)]
    if n == "arith.truncf" and inner.name == "arith.extf" and inner.operand(0).type == t \
            and op.attr("roundingmode") in (None, 0):
        return [inner.operand(0)]
    return None


def _fold_arith(op, consts):
    """The fold hook of arith/math ops: constant-operand canonical order, then constants,
    then identities."""
    if op.name in _COMMUTATIVE_SET and len(consts) >= 2 and consts[0] is not None \
            and consts[1] is None:
        a, b = op.operand(0), op.operand(1)
        op.set_operand(0, b)
        op.set_operand(1, a)
        return IN_PLACE
    if op.name == "arith.cmpi" and consts[0] is not None and consts[1] is None:
        a, b = op.operand(0), op.operand(1)
        pred = CMPI_PREDICATES[op.attr("predicate")]
        op.set_operand(0, b)
        op.set_operand(1, a)
        op.attributes["predicate"] = IntegerAttr(CMPI_PREDICATES.index(_SWAPPED_PRED[pred]),
                                                 op.attributes["predicate"].type)
        return IN_PLACE
    if op.name == "arith.select":
        return _fold_select(op, consts)
    r = fold_constants(op, consts)
    if r is not None:
        return r
    if op.name in _CAST_NAMES:
        return _cast_chain(op, consts)
    return _identity(op, consts)


_COMMUTATIVE_SET = frozenset(_COMMUTATIVE)
_CAST_NAMES = frozenset({"arith." + c for c in _CASTS} | {"tt.bitcast", "tt.fp_to_fp"})


def _fold_select(op, consts):
    c, a, b = op.operands
    if isinstance(consts[0], _SCALAR_ATTRS):
        return [a if consts[0].value else b]
    if a is b:
        return [a]
    t = op.results[0].type
    if t.element_type == IntegerType(1) and c.type == t and _is_one(consts[1]) \
            and _is_zero(consts[2]):
        return [c]
    r = fold_constants(op, consts)
    return r


for _name in _ELEMENTWISE_FOLDABLE:
    register_fold(_name)(_fold_arith)


# ---------------------------------------------------------------- tt ops
def _dense(op, consts):
    c = consts[0] if consts else None
    if isinstance(c, (IntegerAttr, FloatAttr, DenseElementsAttr)):
        return [make_const_attr(c.value, op.results[0].type)]
    return None


@register_fold("tt.splat")
def _fold_splat(op, consts):
    return _dense(op, consts)


@register_fold("tt.broadcast", "tt.reshape", "tt.expand_dims")
def _fold_shape(op, consts):
    if op.operand(0).type == op.results[0].type:
        return [op.operand(0)]
    return _dense(op, consts)


@register_fold("tt.trans")
def _fold_trans(op, consts):
    r = _dense(op, consts)
    if r is not None:
        return r
    order = list(op.attr("order"))
    if order == sorted(order):
        return [op.operand(0)]
    inner = defining(op.operand(0), "tt.trans")
    if inner is not None:
        composed = [list(inner.attr("order"))[i] for i in order]
        if composed == sorted(composed):
            return [inner.operand(0)]
        from ..ir.attrs import DenseArrayAttr
        elt = op.attributes["order"].element
        op.set_operand(0, inner.operand(0))
        op.attributes["order"] = DenseArrayAttr(elt, tuple(composed))
        return IN_PLACE
    return None


@register_fold("tt.addptr")
def _fold_addptr(op, consts):
    if _is_zero(consts[1]) and op.operand(0).type == op.results[0].type:
        return [op.operand(0)]
    return None


@register_fold("tt.make_range")
def _fold_make_range(op, consts):
    start, end = op.attr("start"), op.attr("end")
    if end - start == 1:
        return [make_const_attr(start, op.results[0].type)]
    return None


__all__ = ["eval_scalar", "round_float", "fold_constants", "sext", "zext", "float_to_bits",
           "bits_to_float", "FLOAT_FORMATS"]
