"""What every part of `TritonSemantic` shares: options, and the one way IR is emitted.

The semantic mixins never build `Operation`s by hand; they go through `_emit`, so the
operand/attribute contract of `tritium.ir.ops` is honoured in one place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Tuple

from ..ir.attrs import DenseArrayAttr, i64_attr  # noqa: F401  (i64_attr re-exported)
from ..ir.types import IntegerType
from . import dtypes as tl
from .core import _unwrap_if_constexpr, tensor


def _env_flag(name: str) -> bool:
    from ..runtime.knobs import _flag  # one reading of yes/no variables for the project
    return _flag(name)


def nvidia_min_dot_size(lhs_type, rhs_type) -> Tuple[int, int, int]:
    """Smallest (M, N, K) of a dot, as the NVIDIA backend reports it: tensor cores pad
    small M and N, but K must cover one MMA k-step."""
    lhs_bits = lhs_type.scalar.primitive_bitwidth
    rhs_bits = rhs_type.scalar.primitive_bitwidth
    assert lhs_bits == rhs_bits, "lhs and rhs bitwidth must be the same"
    if lhs_bits == 8:
        return (1, 1, 32)
    if lhs_bits == 64:
        return (1, 1, 4)
    return (1, 1, 16)


@dataclass
class SemanticOptions:
    """The compile options the language layer reads (upstream reads them off the builder).

    `debug` turns on `device_assert` and, with `sanitize_overflow`, the i64 re-computation
    that checks `+ - *` on narrower ints; without `debug` those checks would be dead code.
    """

    debug: bool = field(default_factory=lambda: _env_flag("TRITON_DEBUG"))
    sanitize_overflow: bool = True
    allowed_dot_input_precisions: Tuple[str, ...] = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    default_dot_input_precision: str = "tf32"
    max_num_imprecise_acc_default: int = 0
    supported_fp8_dtypes: Tuple[str, ...] = ("fp8e5", "fp8e4nv", "fp8e4b15", "fp8e4b8", "fp8e5b16")
    deprecated_fp8_dot_operand_dtypes: Tuple[str, ...] = ()
    min_dot_size: Callable = nvidia_min_dot_size

    @property
    def enable_assertions(self) -> bool:
        return self.debug


def type_repr(ty) -> str:
    """How upstream's messages spell a type: `triton.language.float32` for scalars, but
    `pointer<fp32>` and `<(4,), fp32>` for pointer and block types."""
    if ty.is_block() or ty.is_ptr():
        return str(ty)
    return repr(ty)


class IncompatibleTypeErrorImpl(Exception):
    def __init__(self, type_a, type_b):
        self.type_a = type_a
        self.type_b = type_b
        self.message = "invalid operands of type " + type_repr(type_a) + " and " + type_repr(type_b)
        super().__init__(self.message)



def i32_array(values: Sequence[int]) -> DenseArrayAttr:
    return DenseArrayAttr(IntegerType(32), tuple(int(v) for v in values))


class SemanticBase:
    tensor = tensor
    lang = tl

    def __init__(self, builder, options: Optional[SemanticOptions] = None):
        self.builder = builder
        if options is None:
            options = getattr(builder, "options", None)
        self.options = options if options is not None else SemanticOptions()

    def _opt(self, name: str):
        """An option, falling back to the default when a foreign options object lacks it
        (the frontend may hand over its own compile-options class)."""
        if hasattr(self.options, name):
            return getattr(self.options, name)
        return getattr(SemanticOptions(), name)

    # -- IR emission
    def _emit(self, name: str, operands: Sequence, ret_ty: tl.dtype, attrs=None) -> tensor:
        """One single-result op; operands may be tensors or raw IR values."""
        handles = [o.handle if isinstance(o, tensor) else o for o in operands]
        return tensor(self.builder.create1(name, handles, ret_ty.to_ir(), attrs), ret_ty)

    def _emit_void(self, name: str, operands: Sequence, attrs=None) -> tensor:
        handles = [o.handle if isinstance(o, tensor) else o for o in operands]
        op = self.builder.create(name, handles, [], attrs)
        return tensor(op, tl.void)

    def _constant(self, value, ty: tl.dtype) -> tensor:
        return tensor(self.builder.constant(value, ty.to_ir()), ty)

    @staticmethod
    def _unwrap(x):
        return _unwrap_if_constexpr(x)
