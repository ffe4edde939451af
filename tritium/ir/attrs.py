"""IR attributes: immutable values attached to operations, printed in MLIR syntax.

Every attribute has `.value` (the Python value a pass reads) and `__str__` (the MLIR
text). Attributes compare by value so CSE can key on them.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any, Tuple

from .types import FloatType, IntegerType, Type, TensorType


class Attr:
    __slots__ = ()
    value: Any

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, repr=False)
class IntegerAttr(Attr):
    value: int
    type: Type

    def __str__(self) -> str:
        if self.type == IntegerType(1):
            return "true" if self.value else "false"
        return f"{self.value} : {self.type}"


def format_float(value: float, type_: Type) -> str:
    """MLIR's float literal spelling: `1.000000e+00`, or hex bits where decimal would lie."""
    if math.isnan(value) or math.isinf(value):
        bits = float_bits(value, type_)
        width = type_.bitwidth if isinstance(type_, FloatType) else 32
        return f"0x{bits:0{width // 4}X}"
    if _roundtrips(value, type_):
        return f"{value:.6e}"
    # More digits until the literal reads back exactly; always in MLIR's `d.ddde±xx` form.
    for digits in range(7, 18):
        text = f"{value:.{digits}e}"
        if float(text) == value:
            return text
    return f"{value:.17e}"


def _roundtrips(value: float, type_: Type) -> bool:
    try:
        return float(f"{value:.6e}") == value or (
            isinstance(type_, FloatType) and type_.bitwidth < 32
            and _round_to(float(f"{value:.6e}"), type_) == _round_to(value, type_))
    except (OverflowError, ValueError):
        return False


def _round_to(v: float, type_: Type) -> float:
    import numpy as np
    if type_.name == "f16":
        return float(np.float16(v))
    return float(np.float32(v))


def float_bits(value: float, type_: Type) -> int:
    width = type_.bitwidth if isinstance(type_, FloatType) else 32
    if width == 64:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    import numpy as np
    if width == 16 and type_.name == "f16":
        return int(np.array(value, np.float16).view(np.uint16))
    b32 = struct.unpack("<I", struct.pack("<f", value))[0]
    if width == 16:  # bf16: upper half
        return b32 >> 16
    return b32


@dataclass(frozen=True, repr=False)
class FloatAttr(Attr):
    value: float
    type: Type

    def __str__(self) -> str:
        return f"{format_float(self.value, self.type)} : {self.type}"

    def __eq__(self, other):
        # NaN constants must still CSE with each other: compare bit patterns.
        return (isinstance(other, FloatAttr) and self.type == other.type
                and float_bits(self.value, self.type) == float_bits(other.value, other.type))

    def __hash__(self):
        return hash((float_bits(self.value, self.type), self.type))


@dataclass(frozen=True, repr=False)
class BoolAttr(Attr):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True, repr=False)
class StringAttr(Attr):
    value: str

    def __str__(self) -> str:
        return '"' + escape_string(self.value) + '"'


def escape_string(s: str) -> str:
    out = []
    for ch in s:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\0A")
        elif ch == "\t":
            out.append("\\09")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True, repr=False)
class UnitAttr(Attr):
    @property
    def value(self):
        return True

    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True, repr=False)
class TypeAttr(Attr):
    value: Type

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, repr=False)
class SymbolRefAttr(Attr):
    value: str

    def __str__(self) -> str:
        return "@" + self.value


@dataclass(frozen=True, repr=False)
class ArrayAttr(Attr):
    value: Tuple[Attr, ...]

    def __str__(self) -> str:
        return "[" + ", ".join(str(a) for a in self.value) + "]"


@dataclass(frozen=True, repr=False)
class DenseArrayAttr(Attr):
    """`array<i32: 1, 0>`: a list of integers of one type (e.g. `tt.trans` order)."""

    element: Type
    value: Tuple[int, ...]

    def __str__(self) -> str:
        if not self.value:
            return f"array<{self.element}>"
        return f"array<{self.element}: " + ", ".join(str(v) for v in self.value) + ">"


@dataclass(frozen=True, repr=False)
class DenseElementsAttr(Attr):
    """A splat constant tensor, `dense<1.000000e+00> : tensor<128xf32>`."""

    value: Any  # a Python int/float/bool: only splats are needed by Triton's IR
    type: TensorType

    def __str__(self) -> str:
        elt = self.type.element_type
        if isinstance(elt, FloatType):
            text = format_float(float(self.value), elt)
        elif elt == IntegerType(1):
            text = "true" if self.value else "false"
        else:
            text = str(int(self.value))
        return f"dense<{text}> : {self.type}"

    def __eq__(self, other):
        if not isinstance(other, DenseElementsAttr) or self.type != other.type:
            return False
        elt = self.type.element_type
        if isinstance(elt, FloatType):
            return float_bits(float(self.value), elt) == float_bits(float(other.value), elt)
        return self.value == other.value

    def __hash__(self):
        return hash((str(self.value), self.type))


@dataclass(frozen=True, repr=False)
class DictAttr(Attr):
    value: Tuple[Tuple[str, Attr], ...]

    def get(self, key, default=None):
        for k, v in self.value:
            if k == key:
                return v
        return default

    def __str__(self) -> str:
        return "{" + ", ".join(format_named_attr(k, v) for k, v in self.value) + "}"


@dataclass(frozen=True, repr=False)
class OpaqueAttr(Attr):
    """Any other attribute kept as its text (e.g. a layout from a later stage)."""

    value: Any

    def __str__(self) -> str:
        return str(self.value)


def format_named_attr(name: str, attr: Attr) -> str:
    key = name if _is_bare_identifier(name) else '"' + escape_string(name) + '"'
    if isinstance(attr, UnitAttr):
        return key
    return f"{key} = {attr}"


def _is_bare_identifier(name: str) -> bool:
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return False
    # MLIR's bare-identifier grammar: ASCII letters, digits, `_`, `$`, `.` (a `-` needs quotes,
    # which is why upstream prints `"ttg.num-warps" = 4 : i32`).
    return name.isascii() and all(c.isalnum() or c in "_.$" for c in name)


def i32_attr(v: int) -> IntegerAttr:
    return IntegerAttr(int(v), IntegerType(32))


def i64_attr(v: int) -> IntegerAttr:
    return IntegerAttr(int(v), IntegerType(64))


def to_attr(v: Any) -> Attr:
    """Convenience: turn a plain Python value into the attribute a pass expects."""
    if isinstance(v, Attr):
        return v
    if isinstance(v, bool):
        return BoolAttr(v)
    if isinstance(v, int):
        return IntegerAttr(v, IntegerType(32))
    if isinstance(v, float):
        return FloatAttr(v, FloatType("f32"))
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, Type):
        return TypeAttr(v)
    if isinstance(v, (list, tuple)):
        return ArrayAttr(tuple(to_attr(x) for x in v))
    raise TypeError(f"cannot make an attribute of {v!r}")
