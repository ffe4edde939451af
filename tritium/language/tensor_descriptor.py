"""Tensor descriptors inside kernels: `tl.make_tensor_descriptor(...)` values and
`TensorDescriptor` kernel arguments, with `desc.load/store/atomic_*/gather/scatter`.

A descriptor value is one IR value of type `!tt.tensordesc<tensor<block>>` plus its global
shape (i32 each) and strides (i64 each) as ordinary scalars, which kernels read as
`desc.shape` / `desc.strides`. Through control flow and calls it travels as those
1 + 2 * rank IR values (`_flatten_ir` / `_unflatten_ir`), as upstream's does; a kernel
parameter of signature type `tensordesc<fp16[64, 64]>` is the same 1 + 2 * rank parameters.
"""
from __future__ import annotations

import re
from typing import List

from ..ir import types as T
from .core import aggregate_value, builtin, tensor
from .dtypes import block_type, dtype, int32, int64, str_to_ty, tuple_type


class tensor_descriptor_base_type(dtype):
    def __init__(self, block_type: block_type):
        self.block_type = block_type
        self.name = f"tensor_descriptor<{block_type}>"
        self.primitive_bitwidth = 64

    def to_ir(self) -> T.Type:
        return T.TensorDescType(self.block_type.to_ir())

    def ir_types(self) -> List[T.Type]:
        return [self.to_ir()]

    def __eq__(self, other):
        return type(other) is type(self) and self.block_type == other.block_type

    def __hash__(self):
        return hash((type(self).__name__, self.block_type))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"{type(self).__name__}({self.block_type!r})"

    def mangle(self) -> str:
        return f"TD{self.block_type.mangle()}"

    def is_int(self): return False
    def is_floating(self): return False
    def is_ptr(self): return False
    def is_block(self): return False

    def from_handles(self, handles) -> "tensor_descriptor_base":
        return tensor_descriptor_base(handles[0], self.block_type)


class tensor_descriptor_type(tensor_descriptor_base_type):
    """A descriptor whose shape and strides the kernel can read."""

    def __init__(self, block_type: block_type, shape_type: tuple_type = None,
                 strides_type: tuple_type = None):
        super().__init__(block_type)
        rank = len(block_type.shape)
        self.shape_type = shape_type or tuple_type([int32] * rank)
        self.strides_type = strides_type or tuple_type([int64] * rank)

    def ir_types(self) -> List[T.Type]:
        return [self.to_ir()] + [t.to_ir() for t in self.shape_type.types + self.strides_type.types]

    def from_handles(self, handles) -> "tensor_descriptor":
        r = len(self.shape_type.types)
        shape = [tensor(h, t) for h, t in zip(handles[1:1 + r], self.shape_type.types)]
        strides = [tensor(h, t) for h, t in zip(handles[1 + r:], self.strides_type.types)]
        return tensor_descriptor(handles[0], shape, strides, self.block_type)


# (a Gluon host descriptor's type adds its shared layout: `tensordesc<fp16[64, 64],NVMMA...>`)
_SIGNATURE = re.compile(r"tensordesc<([^\[>]+)\[([0-9, ]*)\](?:,[^>]*)?>")


def tensordesc_from_signature(sig: str) -> tensor_descriptor_type:
    """`tensordesc<fp16[64, 64]>` (the JIT's signature string) → its type."""
    m = _SIGNATURE.fullmatch(sig)
    if m is None:
        raise TypeError(f"malformed tensor descriptor signature {sig!r}")
    shape = [int(s) for s in m.group(2).split(",") if s.strip()]
    return tensor_descriptor_type(block_type(str_to_ty(m.group(1)), shape))


class tensor_descriptor_base(aggregate_value):
    """A descriptor value: `load`/`store` blocks of `block_type` at element offsets."""

    def __init__(self, handle, block_type: block_type):
        self.handle = handle
        self.type = tensor_descriptor_base_type(block_type)

    @property
    def block_type(self) -> block_type:
        return self.type.block_type

    @property
    def block_shape(self) -> list:
        return list(self.type.block_type.shape)

    @property
    def dtype(self) -> dtype:
        return self.type.block_type.element_ty

    def __str__(self):
        return str(self.type)

    def _flatten_ir(self) -> list:
        return [self.handle]

    @builtin
    def load(self, offsets, _semantic=None) -> tensor:
        """The block at `offsets` (element coordinates, one per dim); elements outside the
        global shape read as the descriptor's padding (zero, or NaN)."""
        return _semantic.descriptor_load(self, offsets, "", "")

    @builtin
    def store(self, offsets, value, _semantic=None):
        """Write `value` (the block's shape) at `offsets`; elements outside are dropped."""
        return _semantic.descriptor_store(self, value, offsets)

    @builtin
    def atomic_add(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_add(self, value, offsets)

    @builtin
    def atomic_min(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_min(self, value, offsets)

    @builtin
    def atomic_max(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_max(self, value, offsets)

    @builtin
    def atomic_and(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_and(self, value, offsets)

    @builtin
    def atomic_or(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_or(self, value, offsets)

    @builtin
    def atomic_xor(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic_xor(self, value, offsets)

    @builtin
    def gather(self, *args, _semantic=None) -> tensor:
        """Rows `x_offsets` (a 1-D int32 tensor), columns `y_offset..` of a 2-D descriptor
        whose block is one row: `desc.gather(x_offsets, y_offset)`."""
        if len(args) != 2:
            raise ValueError(f"descriptor gather only supports 2D indexing, but got {len(args)}")
        return _semantic.descriptor_gather(self, args[0], args[1], "", "")

    @builtin
    def scatter(self, value, *args, _semantic=None):
        """The inverse of `gather`: `desc.scatter(value, x_offsets, y_offset)`."""
        if len(args) != 2:
            raise ValueError(f"descriptor scatter only supports 2D indexing, but got {len(args)}")
        return _semantic.descriptor_scatter(self, value, args[0], args[1])


class tensor_descriptor(tensor_descriptor_base):
    """A descriptor that also carries its global `shape` and `strides` (tuples of scalars)."""

    def __init__(self, handle, shape, strides, block_type: block_type):
        from .core import tuple as tl_tuple
        super().__init__(handle, block_type)
        self.shape = tl_tuple(list(shape))
        self.strides = tl_tuple(list(strides))
        self.type = tensor_descriptor_type(block_type, tuple_type([s.type for s in shape]),
                                           tuple_type([s.type for s in strides]))

    def _flatten_ir(self) -> list:
        return [self.handle] + [s.handle for s in self.shape] + [s.handle for s in self.strides]


def is_descriptor(v) -> bool:
    return isinstance(v, tensor_descriptor_base)


__all__ = ["tensor_descriptor_base_type", "tensor_descriptor_type", "tensor_descriptor_base",
           "tensor_descriptor", "tensordesc_from_signature", "is_descriptor"]
