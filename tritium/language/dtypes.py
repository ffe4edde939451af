"""Triton's dtypes (`tl.float32`, `tl.pointer_type`, block types), mapped to IR types.

Names, string forms and predicates follow upstream so user code that inspects
`x.dtype` (e.g. `x.dtype.is_fp16()`, `str(x.dtype) == "fp32"`) keeps working.
"""
from __future__ import annotations

from typing import List, Sequence

from ..ir import types as T

TRITON_MAX_TENSOR_NUMEL = 1048576


class dtype:
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    class SIGNEDNESS:
        SIGNED = 0
        UNSIGNED = 1

    class KIND:
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    _FP_INFO = {  # name: (exponent bits, mantissa bits, exponent bias, IR spelling)
        "fp8e4b15": (4, 3, 15, "f8E4M3B11FNUZ"),
        "fp8e4nv": (4, 3, 7, "f8E4M3FN"),
        "fp8e4b8": (4, 3, 8, "f8E4M3FNUZ"),
        "fp8e5": (5, 2, 15, "f8E5M2"),
        "fp8e5b16": (5, 2, 16, "f8E5M2FNUZ"),
        "fp16": (5, 10, 15, "f16"),
        "bf16": (8, 7, 127, "bf16"),
        "fp32": (8, 23, 127, "f32"),
        "fp64": (11, 52, 1023, "f64"),
    }

    def __init__(self, name: str):
        name = getattr(name, "value", name)
        self.name = name
        if name in dtype.SINT_TYPES:
            self.int_signedness = dtype.SIGNEDNESS.SIGNED
            self.int_bitwidth = int(name.split("int")[-1])
            self.primitive_bitwidth = self.int_bitwidth
        elif name in dtype.UINT_TYPES:
            self.int_signedness = dtype.SIGNEDNESS.UNSIGNED
            self.int_bitwidth = int(name.split("int")[-1])
            self.primitive_bitwidth = self.int_bitwidth
        elif name in dtype.FP_TYPES:
            e, m, bias, _ = dtype._FP_INFO[name]
            self.exponent_bias = bias
            self.fp_mantissa_width = m
            self.primitive_bitwidth = 1 + e + m
        elif name == "void":
            self.primitive_bitwidth = 0
        else:
            raise ValueError(f"unknown dtype {name!r}")

    # predicates (upstream spells each one out; user code calls them)
    def is_fp8(self): return self.name in dtype.FP_TYPES and self.primitive_bitwidth == 8
    def is_fp8e4nv(self): return self.name == "fp8e4nv"
    def is_fp8e4b8(self): return self.name == "fp8e4b8"
    def is_fp8e4b15(self): return self.name == "fp8e4b15"
    def is_fp8e5(self): return self.name == "fp8e5"
    def is_fp8e5b16(self): return self.name == "fp8e5b16"
    def is_fp16(self): return self.name == "fp16"
    def is_bf16(self): return self.name == "bf16"
    def is_fp32(self): return self.name == "fp32"
    def is_fp64(self): return self.name == "fp64"
    def is_int1(self): return self.name == "int1"
    def is_int8(self): return self.name == "int8"
    def is_int16(self): return self.name == "int16"
    def is_int32(self): return self.name == "int32"
    def is_int64(self): return self.name == "int64"
    def is_uint8(self): return self.name == "uint8"
    def is_uint16(self): return self.name == "uint16"
    def is_uint32(self): return self.name == "uint32"
    def is_uint64(self): return self.name == "uint64"
    def is_floating(self): return self.name in dtype.FP_TYPES
    def is_standard_floating(self): return self.name in dtype.STANDARD_FP_TYPES
    def is_int_signed(self): return self.name in dtype.SINT_TYPES
    def is_int_unsigned(self): return self.name in dtype.UINT_TYPES
    def is_int(self): return self.name in dtype.SINT_TYPES + dtype.UINT_TYPES
    def is_bool(self): return self.is_int1()
    def is_void(self): return self.name == "void"
    def is_block(self): return False
    def is_ptr(self): return False
    def is_const(self): return False
    def is_tuple(self): return False

    def kind(self):
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        if self.is_int():
            return dtype.KIND.INTEGRAL
        return dtype.KIND.FLOATING

    def get_int_max_value(self):
        if self.is_int_signed():
            return 2 ** (self.int_bitwidth - 1) - 1
        return 2 ** self.int_bitwidth - 1

    def get_int_min_value(self):
        if self.is_int_signed():
            return -2 ** (self.int_bitwidth - 1)
        return 0

    @staticmethod
    def is_dtype(type_str: str) -> bool:
        return type_str in dtype.SINT_TYPES + dtype.UINT_TYPES + dtype.FP_TYPES + dtype.OTHER_TYPES

    @property
    def scalar(self) -> "dtype":
        return self

    def __eq__(self, other) -> bool:
        return isinstance(other, dtype) and type(other) is type(self) and self.name == other.name

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name))

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"triton.language.{_canonical_name(self.name)}"

    @property
    def cache_key_part(self) -> str:
        return self.name

    def to_ir(self) -> T.Type:
        if self.is_int():
            return T.IntegerType(self.int_bitwidth)
        if self.is_floating():
            return T.FloatType(dtype._FP_INFO[self.name][3])
        if self.is_void():
            return T.NoneType()
        raise TypeError(f"no IR type for {self}")

    def mangle(self) -> str:
        if self.is_int():
            return ("i" if self.is_int_signed() else "u") + str(self.int_bitwidth)
        if self.is_floating():
            return self.name
        return self.name

    def with_element_ty(self, element_ty: "dtype") -> "dtype":
        return element_ty


_CANONICAL = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
              "fp8e5": "float8e5", "fp8e4nv": "float8e4nv", "fp8e4b8": "float8e4b8",
              "fp8e4b15": "float8e4b15", "fp8e5b16": "float8e5b16"}


def _canonical_name(name: str) -> str:
    return _CANONICAL.get(name, name)


class pointer_type(dtype):
    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"element_ty has type `{type(element_ty).__name__}`; expected `dtype`.")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty}>" if not const else f"const_pointer<{element_ty}>"
        self.primitive_bitwidth = 64

    def to_ir(self) -> T.Type:
        return T.PointerType(self.element_ty.to_ir(), self.address_space)

    def is_ptr(self): return True
    def is_const(self): return self.const
    def is_int(self): return False
    def is_floating(self): return False
    def is_int_signed(self): return False
    def is_int_unsigned(self): return False
    def is_bool(self): return False

    def __eq__(self, other) -> bool:
        return (isinstance(other, pointer_type) and self.element_ty == other.element_ty
                and self.address_space == other.address_space and self.const == other.const)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space, self.const))

    def __repr__(self):
        return f"pointer_type({self.element_ty!r})"

    def mangle(self) -> str:
        return ("Pk" if self.const else "P") + self.element_ty.mangle()

    @property
    def scalar(self):
        return self


class block_type(dtype):
    def __init__(self, element_ty: dtype, shape: Sequence[int]):
        self.element_ty = element_ty
        shape = [getattr(s, "value", s) for s in shape]
        if not shape:
            raise TypeError("0d block_type is forbidden")
        self.shape = tuple(int(s) for s in shape)
        self.numel = 1
        for s in self.shape:
            self.numel *= s
        if self.numel > TRITON_MAX_TENSOR_NUMEL:
            raise ValueError(f"numel ({self.numel}) exceeds triton maximum tensor numel "
                             f"({TRITON_MAX_TENSOR_NUMEL})")
        self.name = f"<{self.shape}, {self.element_ty}>"
        self.primitive_bitwidth = element_ty.primitive_bitwidth

    def to_ir(self) -> T.Type:
        return T.TensorType(self.shape, self.element_ty.to_ir())

    def is_block(self): return True
    def is_ptr(self): return self.element_ty.is_ptr()

    def get_block_shapes(self) -> List[int]:
        return list(self.shape)

    @property
    def scalar(self):
        return self.element_ty

    def with_element_ty(self, element_ty: dtype) -> "block_type":
        return block_type(element_ty, self.shape)

    def __eq__(self, other) -> bool:
        return isinstance(other, block_type) and self.element_ty == other.element_ty \
            and self.shape == other.shape

    def __hash__(self):
        return hash(("block", self.element_ty, self.shape))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"block_type({self.element_ty!r}, {list(self.shape)})"

    def mangle(self) -> str:
        return self.element_ty.mangle() + "S" + "_".join(map(str, self.shape)) + "S"

    def __getattr__(self, name):
        # Predicates like is_fp32() on a block type answer for the element type, as upstream.
        if name.startswith("is_") and name not in ("is_block", "is_ptr"):
            return getattr(self.element_ty, name)
        raise AttributeError(name)


class tuple_type(dtype):
    def __init__(self, types, fields=None):
        self.types = list(types)
        self.fields = fields or [""] * len(self.types)
        self.name = "[" + ",".join(str(t) for t in self.types) + "]"
        self.primitive_bitwidth = 0

    def is_tuple(self): return True

    def __eq__(self, other):
        return isinstance(other, tuple_type) and self.types == other.types

    def __hash__(self):
        return hash(("tuple", tuple(self.types)))

    def mangle(self):
        # None: an element that is a compile-time value (its value is mangled separately).
        return "T" + "_".join(t.mangle() if t is not None else "C" for t in self.types) + "T"


void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e5 = dtype("fp8e5")
float8e5b16 = dtype("fp8e5b16")
float8e4nv = dtype("fp8e4nv")
float8e4b8 = dtype("fp8e4b8")
float8e4b15 = dtype("fp8e4b15")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
pi32_t = pointer_type(int32)

# Signature type strings ("*fp32", "i32", ...) as the JIT writes them.
_SIG_SCALARS = {
    "i1": int1, "u1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64,
    "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64,
    "fp8e5": float8e5, "fp8e5b16": float8e5b16, "fp8e4nv": float8e4nv, "fp8e4b8": float8e4b8,
    "fp8e4b15": float8e4b15, "fp16": float16, "bf16": bfloat16, "fp32": float32,
    "fp64": float64, "f16": float16, "f32": float32, "f64": float64,
}


def str_to_ty(name: str, c=None) -> dtype:
    """`"*fp32"` → pointer_type(float32); `"*kfp16"` → const pointer; `"i32"` → int32.
    (`c` is upstream's second parameter, for tensor descriptors; unused here.)"""
    if name.startswith("*"):
        rest = name[1:]
        const = rest.startswith("k")
        if const:
            rest = rest[1:]
        return pointer_type(str_to_ty(rest), const=const)
    try:
        return _SIG_SCALARS[name]
    except KeyError:
        raise TypeError(f"unknown type string {name!r}") from None


_IR_TO_DTYPE = {dtype._FP_INFO[n][3]: dtype(n) for n in dtype.FP_TYPES}


def from_ir(t: T.Type, signed: bool = True) -> dtype:
    """Best-effort inverse of `to_ir` (IR ints are signless: pass `signed`)."""
    if isinstance(t, T.TensorType):
        return block_type(from_ir(t.element, signed), t.dims)
    if isinstance(t, T.PointerType):
        return pointer_type(from_ir(t.pointee, signed), t.address_space)
    if isinstance(t, T.IntegerType):
        if t.width == 1:
            return int1
        return dtype(("int" if signed else "uint") + str(t.width))
    if isinstance(t, T.FloatType):
        return _IR_TO_DTYPE[t.name]
    raise TypeError(f"no dtype for IR type {t}")
