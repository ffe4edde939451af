"""IR types <-> numpy dtypes, and exact emulation of the float formats numpy lacks.

Every SSA value lives in a *compute* dtype: i1 -> bool, iN -> signed intN (the IR is signless;
ops that care reinterpret through `.view(uintN)`), f16/f32/f64 natively, pointers as int64 byte
addresses. bf16 and the fp8 formats are computed as float32 arrays whose values are always
exactly representable in the format (every op rounds its result); in memory they are their bit
patterns (uint16 / uint8), so loads decode and stores encode.

The encoder below is exact for any binary float format of at most 32 bits: it rounds in float64
(which holds every input exactly) by scaling with powers of two, so there is no double rounding.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from tritium.ir import types as T

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
               32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                64: np.dtype(np.uint64)}
_NATIVE_FLOATS = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32),
                  "f64": np.dtype(np.float64)}
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)


@dataclass(frozen=True)
class FloatFormat:
    """A binary float format. `kind`: 'ieee' (inf and NaNs at the top exponent), 'fn' (no inf;
    only all-ones exponent+mantissa is NaN: E4M3FN), 'fnuz' (no inf, no -0; 0x80 is NaN)."""

    name: str
    ebits: int
    mbits: int
    bias: int
    kind: str
    # What an overflowing round-to-nearest gives: inf for IEEE formats (as a plain `cvt.rn`),
    # the largest finite value for formats without inf (`cvt.rn.satfinite`, which the GPU
    # uses for E4M3FN; the FNUZ formats follow the same rule here).
    bits: int = 8

    @property
    def nan_code(self) -> int:
        if self.kind == "fnuz":
            return 1 << (self.bits - 1)
        if self.kind == "fn":
            return (1 << (self.bits - 1)) - 1
        return (((1 << self.ebits) - 1) << self.mbits) | (1 << (self.mbits - 1))  # quiet NaN

    @property
    def inf_code(self) -> Optional[int]:
        return ((1 << self.ebits) - 1) << self.mbits if self.kind == "ieee" else None

    @property
    def max_code(self) -> int:
        """Bits (without sign) of the largest finite value."""
        top = (1 << self.ebits) - 1
        if self.kind == "ieee":
            return ((top - 1) << self.mbits) | ((1 << self.mbits) - 1)
        if self.kind == "fn":
            return (top << self.mbits) | ((1 << self.mbits) - 2)
        return (top << self.mbits) | ((1 << self.mbits) - 1)

    @property
    def max_value(self) -> float:
        c = self.max_code
        e, m = c >> self.mbits, c & ((1 << self.mbits) - 1)
        return float(np.ldexp(1.0 + m / (1 << self.mbits), e - self.bias))


FORMATS = {
    "f16": FloatFormat("f16", 5, 10, 15, "ieee", 16),
    "bf16": FloatFormat("bf16", 8, 7, 127, "ieee", 16),
    "f32": FloatFormat("f32", 8, 23, 127, "ieee", 32),
    "f8E4M3FN": FloatFormat("f8E4M3FN", 4, 3, 7, "fn"),
    "f8E5M2": FloatFormat("f8E5M2", 5, 2, 15, "ieee"),
    "f8E4M3FNUZ": FloatFormat("f8E4M3FNUZ", 4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": FloatFormat("f8E5M2FNUZ", 5, 2, 16, "fnuz"),
    "f8E4M3B11FNUZ": FloatFormat("f8E4M3B11FNUZ", 4, 3, 11, "fnuz"),
}
EMULATED = {"bf16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"}


# ------------------------------------------------------------------ type mapping
def compute_dtype(t: T.Type) -> np.dtype:
    t = t.element_type
    if isinstance(t, T.IntegerType):
        try:
            return _INT_DTYPES[t.width]
        except KeyError:
            raise NotImplementedError(f"CPU backend: integer width {t.width}") from None
    if isinstance(t, T.FloatType):
        return _NATIVE_FLOATS.get(t.name, F32)
    if isinstance(t, T.PointerType):
        return I64
    raise NotImplementedError(f"CPU backend: no numpy type for {t}")


def storage_dtype(t: T.Type) -> np.dtype:
    """How a scalar of type `t` is laid out in memory."""
    t = t.element_type
    if isinstance(t, T.IntegerType):
        return np.dtype(np.uint8) if t.width == 1 else compute_dtype(t)
    if isinstance(t, T.FloatType) and t.name in EMULATED:
        return _UINT_DTYPES[t.bitwidth]
    return compute_dtype(t)


def is_emulated(t: T.Type) -> bool:
    t = t.element_type
    return isinstance(t, T.FloatType) and t.name in EMULATED


def unsigned(dt: np.dtype) -> np.dtype:
    return _UINT_DTYPES[dt.itemsize * 8]


def bit_width(t: T.Type) -> int:
    t = t.element_type
    return t.bitwidth


# ------------------------------------------------------------------ bf16 fast paths
def f32_to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float32 -> bf16 bit patterns (uint16)."""
    b = np.ascontiguousarray(x, dtype=F32).view(np.uint32)
    rounded = (b + (np.uint32(0x7FFF) + ((b >> 16) & np.uint32(1)))) >> 16
    # Adding the rounding bias to a NaN could carry into the sign bit: give NaNs explicitly.
    nan = (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    if nan.any():
        rounded = np.where(nan, (b >> 16) | np.uint32(0x40), rounded)
    return rounded.astype(np.uint16)


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(F32)


def round_bf16(x: np.ndarray) -> np.ndarray:
    return bf16_bits_to_f32(f32_to_bf16_bits(x))


# ------------------------------------------------------------------ generic encoder / decoder
def encode(x: np.ndarray, fmt: FloatFormat, mode: str = "rtne") -> np.ndarray:
    """Bit patterns (uint) of `x` rounded to `fmt`; mode 'rtne' or 'rtz'. Overflow: see
    FloatFormat; NaN -> the format's NaN; inf -> inf, or the largest finite value."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    neg = np.signbit(x)
    nan = np.isnan(x)
    inf = np.isinf(x)
    finite = ~(nan | inf)
    a = np.where(finite, a, 0.0)
    _, e = np.frexp(a)
    emin = 1 - fmt.bias
    ex = np.maximum(e.astype(np.int64) - 1, emin)          # unbiased exponent (>= emin)
    r = np.ldexp(a, (fmt.mbits - ex).astype(np.int32))     # exact: scaling by a power of two
    r = np.rint(r) if mode == "rtne" else np.trunc(r)
    r = r.astype(np.int64)
    one = 1 << fmt.mbits
    normal = r >= one
    carry = r >= 2 * one                                   # rounded up to the next binade
    biased = np.where(normal, ex + fmt.bias, 0) + carry
    mant = np.where(carry, 0, np.where(normal, r - one, r))
    code = (biased << fmt.mbits) | mant
    maxc = fmt.max_code
    over = code > maxc
    if fmt.inf_code is not None and mode == "rtne":
        code = np.where(over, fmt.inf_code, code)
        code = np.where(inf, fmt.inf_code, code)
    else:
        code = np.where(over | inf, maxc, code)
    code = np.where(nan, fmt.nan_code, code)
    sign = neg.astype(np.int64) << (fmt.bits - 1)
    if fmt.kind == "fnuz":
        sign = np.where((code == 0) | nan, 0, sign)       # no negative zero; one NaN
    out = code | sign
    return out.astype(_UINT_DTYPES[max(8, fmt.bits)])


def decode(bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """float32 values of bit patterns in `fmt` (exact)."""
    if fmt.bits == 8:
        return _decode_table(fmt.name)[np.asarray(bits, dtype=np.uint8)]
    if fmt.name == "bf16":
        return bf16_bits_to_f32(bits)
    if fmt.name == "f16":
        return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(F32)
    return np.asarray(bits, dtype=np.uint32).view(F32)


@lru_cache(maxsize=None)
def _decode_table(name: str) -> np.ndarray:
    fmt = FORMATS[name]
    codes = np.arange(256, dtype=np.int64)
    sign = np.where(codes >> 7, -1.0, 1.0)
    body = codes & 0x7F
    e = body >> fmt.mbits
    m = body & ((1 << fmt.mbits) - 1)
    val = np.where(e == 0, np.ldexp(m.astype(np.float64), 1 - fmt.bias - fmt.mbits),
                   np.ldexp((m + (1 << fmt.mbits)).astype(np.float64), e - fmt.bias - fmt.mbits))
    val = sign * val
    if fmt.kind == "ieee":
        top = e == (1 << fmt.ebits) - 1
        val = np.where(top & (m == 0), sign * np.inf, val)
        val = np.where(top & (m != 0), np.nan, val)
    elif fmt.kind == "fn":
        val = np.where(body == 0x7F, np.nan, val)
    else:
        val = np.where(codes == 0x80, np.nan, val)
    out = val.astype(F32)
    out.setflags(write=False)
    return out


# ------------------------------------------------------------------ rounding and conversion
def rounder(t: T.Type) -> Optional[Callable[[np.ndarray], np.ndarray]]:
    """The function that rounds a float32 compute array to an emulated type, or None."""
    t = t.element_type
    if not (isinstance(t, T.FloatType) and t.name in EMULATED):
        return None
    if t.name == "bf16":
        return round_bf16
    fmt = FORMATS[t.name]
    table = _decode_table(t.name)
    return lambda x: table[encode(x, fmt)]


def convert_float(x: np.ndarray, dst: T.Type, mode: str = "rtne") -> np.ndarray:
    """Float compute array -> compute array of float type `dst`, rounding by `mode`."""
    name = dst.element_type.name
    if mode == "rtne":
        if name in _NATIVE_FLOATS:
            return x.astype(_NATIVE_FLOATS[name])      # numpy's casts round to nearest even
        if name == "bf16" and x.dtype != np.float64:
            return round_bf16(x.astype(F32, copy=False))
    fmt = FORMATS.get(name)
    if fmt is None:                                     # f64 target: exact from anything
        return x.astype(np.float64)
    if mode == "rtz" and x.dtype.itemsize * 8 <= fmt.bits and name in _NATIVE_FLOATS:
        return x.astype(_NATIVE_FLOATS[name])          # widening: exact
    bits = encode(x, fmt, mode)
    if name in _NATIVE_FLOATS:
        return bits.view(_NATIVE_FLOATS[name])
    return decode(bits, fmt)


def to_memory(x: np.ndarray, t: T.Type) -> np.ndarray:
    """Compute array -> array of the storage dtype (bit patterns for emulated floats)."""
    t = t.element_type
    if isinstance(t, T.FloatType) and t.name in EMULATED:
        if t.name == "bf16":
            return f32_to_bf16_bits(x)
        return encode(x, FORMATS[t.name])
    sd = storage_dtype(t)
    return x if x.dtype == sd else x.astype(sd)


def from_memory(raw: np.ndarray, t: T.Type) -> np.ndarray:
    t = t.element_type
    if isinstance(t, T.FloatType) and t.name in EMULATED:
        return decode(raw, FORMATS[t.name])
    if isinstance(t, T.IntegerType) and t.width == 1:
        return raw != 0
    return raw


def bits_of(x: np.ndarray, t: T.Type) -> np.ndarray:
    """The raw bit patterns of a compute array as an unsigned integer array."""
    t = t.element_type
    if isinstance(t, T.FloatType) and t.name in EMULATED:
        return to_memory(x, t)
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    return x.view(unsigned(x.dtype))


def from_bits(bits: np.ndarray, t: T.Type) -> np.ndarray:
    """Inverse of bits_of: unsigned (or signed) bit patterns -> compute array of type t."""
    t = t.element_type
    if isinstance(t, T.FloatType) and t.name in EMULATED:
        return decode(bits.view(_UINT_DTYPES[t.bitwidth]), FORMATS[t.name])
    if isinstance(t, T.IntegerType) and t.width == 1:
        return (bits & 1).astype(np.bool_)
    return bits.view(compute_dtype(t))


def scalar_array(value, t: T.Type) -> np.ndarray:
    """A uniform (leading size 1) compute array holding one scalar of type t."""
    dt = compute_dtype(t)
    elt = t.element_type
    if isinstance(elt, T.FloatType):
        arr = np.array([float(value)], dtype=np.float64)
        return convert_float(arr, elt) if elt.name != "f64" else arr
    if isinstance(elt, T.IntegerType) and elt.width == 1:
        return np.array([bool(value)], dtype=np.bool_)
    v = int(value)
    width = dt.itemsize * 8
    v &= (1 << width) - 1
    if v >= 1 << (width - 1):
        v -= 1 << width
    return np.array([v], dtype=dt)


def format_scalar(v, hexa: bool, signed: bool) -> str:
    """One value as tl.device_print shows it (both CPU paths print through this)."""
    if hexa:
        if v.dtype.kind in "iub":
            bits = int(np.asarray(v).astype(np.int64)) & ((1 << (8 * v.dtype.itemsize)) - 1)
        else:
            bits = int(np.asarray(v).view(f"u{v.dtype.itemsize}"))
        return f"0x{bits:0{2 * v.dtype.itemsize}x}"
    if v.dtype.kind == "i" and not signed:
        return str(int(np.asarray(v).view(f"u{v.dtype.itemsize}")))
    if v.dtype.kind == "b":
        return str(int(v))
    return str(v.item() if v.dtype.kind != "f" else float(v))
