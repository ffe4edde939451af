"""IR types, printed in MLIR syntax.

Types are immutable and compared by value, so passes can test `a.type == b.type` and use
types as dict keys. Integers are signless as in MLIR: signedness lives in the operation
(`arith.divsi` vs `arith.divui`), and in the frontend's `tl.dtype`, not here.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Optional, Tuple


class Type:
    """Base of every IR type."""

    __slots__ = ()

    @property
    def is_tensor(self) -> bool:
        return False

    @property
    def element_type(self) -> "Type":
        """The scalar type of a tensor, or the type itself for a scalar."""
        return self

    @property
    def shape(self) -> Tuple[int, ...]:
        return ()

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, repr=False)
class IntegerType(Type):
    width: int

    def __str__(self) -> str:
        return f"i{self.width}"

    @property
    def bitwidth(self) -> int:
        return self.width


# MLIR spellings of the float types Triton uses; the fp8 names follow MLIR's builtin types.
FLOAT_WIDTHS = {
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8, "f8E4M3B11FNUZ": 8,
}


@dataclass(frozen=True, repr=False)
class FloatType(Type):
    name: str

    def __post_init__(self):
        if self.name not in FLOAT_WIDTHS:
            raise ValueError(f"unknown float type {self.name!r}")

    def __str__(self) -> str:
        return self.name

    @property
    def bitwidth(self) -> int:
        return FLOAT_WIDTHS[self.name]


@dataclass(frozen=True, repr=False)
class PointerType(Type):
    pointee: Type
    address_space: int = 1

    def __str__(self) -> str:
        if self.address_space == 1:
            return f"!tt.ptr<{self.pointee}>"
        return f"!tt.ptr<{self.pointee}, {self.address_space}>"

    @property
    def bitwidth(self) -> int:
        return 64


@dataclass(frozen=True, repr=False)
class TensorDescType(Type):
    """`!tt.tensordesc<tensor<64x64xf16>>`: a tensor descriptor (TMA-style) whose loads and
    stores move blocks of type `block`; the global shape and strides are runtime values."""

    block: "TensorType"

    def __str__(self) -> str:
        return f"!tt.tensordesc<{self.block}>"

    @property
    def bitwidth(self) -> int:
        return 64


class _Shaped:
    """Shape queries shared by tensor and shared-memory descriptor types (`dims`, `element`)."""

    __slots__ = ()

    @property
    def element_type(self) -> Type:
        return self.element

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.dims

    @property
    def numel(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def rank(self) -> int:
        return len(self.dims)


@dataclass(frozen=True, repr=False)
class TensorType(_Shaped, Type):
    """`tensor<4x8xf32>`; `encoding` is an optional layout attribute (TTGIR)."""

    dims: Tuple[int, ...]
    element: Type
    encoding: Optional[Any] = None

    def __post_init__(self):
        object.__setattr__(self, "dims", tuple(int(d) for d in self.dims))

    @property
    def is_tensor(self) -> bool:
        return True

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.dims)
        enc = ""
        if self.encoding is not None:
            enc = f", {encoding_ref(self.encoding)}"
        return f"tensor<{dims}{self.element}{enc}>"


@dataclass(frozen=True, repr=False)
class MemDescType(_Shaped, Type):
    """`!ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>`: a view of a buffer in shared
    memory. `alloc_dims` is the shape of the whole allocation when the view is one slot of
    a multi-buffered ring (upstream prints it last, e.g. `..., mutable, 3x128x64`)."""

    dims: Tuple[int, ...]
    element: Type
    encoding: Optional[Any] = None
    mutable: bool = False
    alloc_dims: Optional[Tuple[int, ...]] = None

    def __post_init__(self):
        object.__setattr__(self, "dims", tuple(int(d) for d in self.dims))
        if self.alloc_dims is not None:
            alloc = tuple(int(d) for d in self.alloc_dims)
            object.__setattr__(self, "alloc_dims", None if alloc == self.dims else alloc)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.dims)
        enc = f", {encoding_ref(self.encoding)}" if self.encoding is not None else ""
        smem = ", " + (printing.smem_alias or "#ttg.shared_memory")
        mut = ", mutable" if self.mutable else ""
        alloc = ", " + "x".join(map(str, self.alloc_dims)) if self.alloc_dims else ""
        return f"!ttg.memdesc<{dims}{self.element}{enc}{smem}{mut}{alloc}>"


def encoding_ref(enc: Any) -> str:
    """How a tensor type refers to its layout: an alias (`#blocked`) when the printer made
    one; a slice prints inline around its parent's alias, as upstream's TTGIR does
    (`#ttg.slice<{dim = 1, parent = #blocked}>`)."""
    aliases = printing.encoding_aliases
    alias = aliases.get(enc) if aliases is not None else None
    if alias is not None:
        return alias
    to_text = getattr(enc, "to_text", None)
    if to_text is not None and aliases is not None:
        return to_text(aliases)
    return str(enc)


class _Printing(threading.local):
    """Set by the printer while it prints a module, per thread (threads compiling at once
    print at once): `encoding_aliases` so layouts print as `#blocked` aliases, `smem_alias`
    when the module declares `#smem = #ttg.shared_memory`."""
    encoding_aliases: Optional[dict] = None
    smem_alias: Optional[str] = None


printing = _Printing()


@dataclass(frozen=True, repr=False)
class FunctionType(Type):
    inputs: Tuple[Type, ...]
    results: Tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(str(t) for t in self.inputs)
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            return f"({ins}) -> {self.results[0]}"
        outs = ", ".join(str(t) for t in self.results)
        return f"({ins}) -> ({outs})"


@dataclass(frozen=True, repr=False)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


# Singletons for the common scalars.
i1 = IntegerType(1)
i8 = IntegerType(8)
i16 = IntegerType(16)
i32 = IntegerType(32)
i64 = IntegerType(64)
f16 = FloatType("f16")
bf16 = FloatType("bf16")
f32 = FloatType("f32")
f64 = FloatType("f64")


def tensor_of(shape, element: Type, encoding=None) -> Type:
    """A tensor type, or the scalar itself when `shape` is empty."""
    shape = tuple(shape)
    if not shape:
        return element
    return TensorType(shape, element, encoding)


def with_element(t: Type, element: Type) -> Type:
    """`t` with its scalar type replaced (keeps shape and encoding)."""
    if isinstance(t, TensorType):
        return TensorType(t.dims, element, t.encoding)
    return element


def is_int(t: Type) -> bool:
    return isinstance(t.element_type, IntegerType)


def is_float(t: Type) -> bool:
    return isinstance(t.element_type, FloatType)


def is_ptr(t: Type) -> bool:
    return isinstance(t.element_type, PointerType)


def is_block_ptr(t: Type) -> bool:
    """`!tt.ptr<tensor<...>>`: a block pointer (`tl.make_block_ptr`)."""
    return isinstance(t, PointerType) and isinstance(t.pointee, TensorType)


def elide_dialect(t: Type) -> str:
    """How upstream's assembly formats print a type whose dialect the op already implies:
    `<tensor<64xf16>>` for `!tt.ptr<tensor<64xf16>>`, `<f16>` for `!tt.ptr<f16>`."""
    text = str(t)
    for prefix in ("!tt.ptr", "!tt.tensordesc"):
        if text.startswith(prefix + "<"):
            return text[len(prefix):]
    return text
