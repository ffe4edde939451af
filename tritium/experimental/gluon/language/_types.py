"""Gluon's types: `distributed_type` (a block whose type names its layout) and the shared
memory descriptor (`shared_memory_descriptor`, a view of a buffer in shared memory).

A Gluon tensor is an ordinary `tl.tensor` whose `.type` is a `distributed_type`; every
typing rule of `tl` that derives a type from an operand's (`with_element_ty`: casts,
loads, comparisons) therefore keeps the layout, and two types are equal only with equal
layouts, so loops, branches and callees see layouts as part of the type.
"""
from __future__ import annotations

from typing import List

from ....ir import types as T
from ....language import dtypes as tl
from ....language.core import _unwrap_if_constexpr, aggregate_value
from ._layouts import DistributedLayout, SharedLayout

__all__ = ["distributed_type", "shared_memory_descriptor_type", "shared_memory_descriptor"]


class distributed_type(tl.block_type):
    """A block of `element_ty` of `shape`, spread over threads as `layout`."""

    def __init__(self, element_ty: tl.dtype, shape, layout):
        super().__init__(element_ty, shape)
        layout = _unwrap_if_constexpr(layout)
        if not isinstance(layout, DistributedLayout):
            raise TypeError(f"a tensor's layout must be a distributed layout, got {layout!r}")
        rank = getattr(layout, "rank", None)
        if rank is not None and rank != len(self.shape):
            raise ValueError(f"layout {layout} has rank {rank} but the tensor's shape "
                             f"{list(self.shape)} has rank {len(self.shape)}")
        self.layout = layout
        self.name = f"<{list(self.shape)}, {element_ty}, {layout}>"

    def to_ir(self) -> T.Type:
        return T.TensorType(self.shape, self.element_ty.to_ir(), self.layout._to_encoding())

    def with_element_ty(self, element_ty: tl.dtype) -> "distributed_type":
        return distributed_type(element_ty, self.shape, self.layout)

    def __eq__(self, other) -> bool:
        return isinstance(other, distributed_type) and self.element_ty == other.element_ty \
            and self.shape == other.shape and self.layout == other.layout

    def __hash__(self):
        return hash(("distributed", self.element_ty, self.shape, self.layout))

    def __repr__(self):
        return f"distributed_type({self.element_ty!r}, {list(self.shape)}, {self.layout!r})"

    def mangle(self) -> str:
        return super().mangle() + "L" + self.layout.mangle() + "L"


class shared_memory_descriptor_type(tl.dtype):
    """The type of a view of shared memory: `shape` of `element_ty` laid out as `layout`,
    inside an allocation of `alloc_shape`."""

    def __init__(self, element_ty: tl.dtype, shape, layout, alloc_shape=None):
        self.element_ty = element_ty
        self.shape = tuple(int(_unwrap_if_constexpr(s)) for s in _unwrap_if_constexpr(shape))
        self.layout = _unwrap_if_constexpr(layout)
        if not isinstance(self.layout, SharedLayout):
            raise TypeError(f"a shared memory layout is needed, got {self.layout!r}")
        alloc = self.shape if alloc_shape is None else alloc_shape
        self.alloc_shape = tuple(int(_unwrap_if_constexpr(s)) for s in alloc)
        self.name = f"shared_memory_descriptor<{element_ty}, {list(self.shape)}, {self.layout}>"
        self.primitive_bitwidth = element_ty.primitive_bitwidth

    def to_ir(self) -> T.Type:
        return T.MemDescType(self.shape, self.element_ty.to_ir(), self.layout._to_encoding(),
                             True, self.alloc_shape)

    def is_block(self):
        return False

    @property
    def scalar(self):
        return self.element_ty

    def __eq__(self, other) -> bool:
        return isinstance(other, shared_memory_descriptor_type) and \
            (self.element_ty, self.shape, self.layout, self.alloc_shape) == \
            (other.element_ty, other.shape, other.layout, other.alloc_shape)

    def __hash__(self):
        return hash(("smem", self.element_ty, self.shape, self.layout, self.alloc_shape))

    def __str__(self):
        return self.name

    __repr__ = __str__

    def ir_types(self):
        return [self.to_ir()]

    def from_handles(self, handles) -> "shared_memory_descriptor":
        return shared_memory_descriptor(handles[0], self.element_ty, self.shape, self.layout,
                                        self.alloc_shape)

    def mangle(self) -> str:
        return (f"MD{self.element_ty.mangle()}S{'_'.join(map(str, self.shape))}S"
                f"{self.layout.mangle()}MD")


class shared_memory_descriptor(aggregate_value):
    """A view of a buffer in shared memory (`gl.allocate_shared_memory`): loaded into
    registers in a layout of the caller's choosing, stored to, indexed and sliced."""

    def __init__(self, handle, element_ty, shape, layout, alloc_shape=None):
        self.handle = handle
        self.type = shared_memory_descriptor_type(element_ty, shape, layout, alloc_shape)

    @property
    def dtype(self):
        return self.type.element_ty

    @property
    def shape(self) -> List:
        from ....language.core import constexpr
        return [constexpr(s) for s in self.type.shape]

    @property
    def rank(self) -> int:
        return len(self.type.shape)

    @property
    def layout(self):
        return self.type.layout

    def __str__(self) -> str:
        return str(self.type)

    __repr__ = __str__
