"""fp8 on the host, as the evaluator emulates it (backends/cpu/dtypes.py): a value of an fp8
type is computed as a float that the format represents exactly; in memory it is its 8-bit
pattern. Loads decode (a 256-entry table per format, exact), stores and rounding encode:

    ex = max(exponent(|x|), 1 - bias)        exponent from the float's bits
    r  = rint(|x| * 2^(mbits - ex))          exact scaling; rint ties to even (trunc: rtz)
    code = (r >= 2^mbits ? ex + bias : 0) << mbits | low bits of r   (+1 exponent on carry)

then the format's rules for overflow (inf for E5M2, the largest finite value for the formats
without inf), NaN, and no negative zero in the FNUZ formats. Doubles go to float rounding to
odd first, so the second rounding is exact (no double rounding).
"""
from __future__ import annotations

from typing import Optional

from ....ir import types as T
from ..dtypes import FORMATS, FloatFormat, _decode_table
from .context import Ctx, elem


def fp8_format(t: T.Type) -> Optional[FloatFormat]:
    t = elem(t)
    if isinstance(t, T.FloatType) and t.name.startswith("f8"):
        return FORMATS.get(t.name)
    return None


def _table(cx: Ctx, fmt: FloatFormat) -> str:
    name = f"@fp8.decode.{fmt.name}"
    if name not in cx.decls:
        vals = _decode_table(fmt.name)
        from .context import fconst
        body = ", ".join(f"float {fconst('float', float(v))}" for v in vals)
        cx.declare(name, f"{name} = private unnamed_addr constant [256 x float] [{body}], "
                         f"align 64")
    return name


def decode(cx: Ctx, fmt: FloatFormat, bits: str) -> str:
    """The float value of 8-bit pattern `bits` (i8)."""
    i = cx.emit(f"zext i8 {bits} to i32")
    p = cx.emit(f"getelementptr inbounds [256 x float], ptr {_table(cx, fmt)}, i32 0, i32 {i}")
    return cx.emit(f"load float, ptr {p}")


def encode(cx: Ctx, fmt: FloatFormat, x: str, mode: str = "rtne") -> str:
    """The 8-bit pattern (i8) of float `x` rounded to `fmt` by `mode` ('rtne' or 'rtz')."""
    from .arith import call_fintrinsic
    m, bias = fmt.mbits, fmt.bias
    bits = cx.emit(f"bitcast float {x} to i32")
    neg = cx.emit(f"icmp slt i32 {bits}, 0")
    a = call_fintrinsic(cx, "fabs", "float", x)
    abits = cx.emit(f"and i32 {bits}, 2147483647")
    e = cx.emit(f"sub i32 {cx.emit(f'lshr i32 {abits}, 23')}, 127")
    lo = cx.emit(f"icmp slt i32 {e}, {1 - bias}")
    ex = cx.emit(f"select i1 {lo}, i32 {1 - bias}, i32 {e}")
    ex = cx.emit(f"select i1 {cx.emit(f'icmp sgt i32 {ex}, 64')}, i32 64, i32 {ex}")
    sbits = cx.emit(f"shl i32 {cx.emit(f'sub i32 {m + 127}, {ex}')}, 23")
    scale = cx.emit(f"bitcast i32 {sbits} to float")
    r = call_fintrinsic(cx, "roundeven" if mode == "rtne" else "trunc", "float",
                        cx.emit(f"fmul float {a}, {scale}"))
    # |x| >= 2^65 (inf included) overflows whatever the rounding: clamp before fptoui
    clamp = cx.emit(f"fcmp ogt float {r}, 1024.0")
    r = cx.emit(f"select i1 {clamp}, float 1024.0, float {r}")
    r = cx.emit(f"fptoui float {r} to i32")
    one = 1 << m
    normal = cx.emit(f"icmp uge i32 {r}, {one}")
    carry = cx.emit(f"icmp uge i32 {r}, {2 * one}")
    biased = cx.emit(f"select i1 {normal}, i32 {cx.emit(f'add i32 {ex}, {bias}')}, i32 0")
    biased = cx.emit(f"add i32 {biased}, {cx.emit(f'zext i1 {carry} to i32')}")
    mant = cx.emit(f"select i1 {normal}, i32 {cx.emit(f'sub i32 {r}, {one}')}, i32 {r}")
    mant = cx.emit(f"select i1 {carry}, i32 0, i32 {mant}")
    code = cx.emit(f"or i32 {cx.emit(f'shl i32 {biased}, {m}')}, {mant}")
    big = cx.emit(f"icmp ugt i32 {code}, {fmt.max_code}")
    big = cx.emit(f"or i1 {big}, {cx.emit(f'icmp sgt i32 {e}, 64')}")
    inf = cx.emit(f"fcmp oeq float {a}, 0x7FF0000000000000")
    if fmt.inf_code is not None and mode == "rtne":
        code = cx.emit(f"select i1 {cx.emit(f'or i1 {big}, {inf}')}, i32 {fmt.inf_code}, "
                       f"i32 {code}")
    else:
        code = cx.emit(f"select i1 {cx.emit(f'or i1 {big}, {inf}')}, i32 {fmt.max_code}, "
                       f"i32 {code}")
    nan = cx.emit(f"fcmp uno float {x}, 0.0")
    code = cx.emit(f"select i1 {nan}, i32 {fmt.nan_code}, i32 {code}")
    sign = cx.emit(f"select i1 {neg}, i32 128, i32 0")
    if fmt.kind == "fnuz":
        drop = cx.emit(f"or i1 {cx.emit(f'icmp eq i32 {code}, 0')}, {nan}")
        sign = cx.emit(f"select i1 {drop}, i32 0, i32 {sign}")
    return cx.emit(f"trunc i32 {cx.emit(f'or i32 {code}, {sign}')} to i8")


def round_to(cx: Ctx, fmt: FloatFormat, x: str, mode: str = "rtne") -> str:
    """Float `x` rounded to `fmt`, still as a float."""
    return decode(cx, fmt, encode(cx, fmt, x, mode))
