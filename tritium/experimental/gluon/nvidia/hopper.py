"""Gluon's host-side TMA descriptor (`triton.experimental.gluon.nvidia.hopper.TensorDescriptor`)
as a data class.

It differs from `triton.tools.tensor_descriptor.TensorDescriptor` (not a subclass, as
upstream) by naming the shared-memory `layout` the block lands in; the argument
specialisation key therefore carries the layout's repr as well,
`tensordesc<fp16[64, 64],NVMMASharedLayout(...)>`. The im2col variant is not provided.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

from ..language._layouts import NVMMASharedLayout
from ....tools.tensor_descriptor import (_element_strides, _itemsize, _require,
                                         check_descriptor)

__all__ = ["TensorDescriptor"]


@dataclass
class TensorDescriptor:
    """A TMA descriptor over `base` with the block landing in shared memory as `layout`."""
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    layout: NVMMASharedLayout
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self):
        self.shape = [int(s) for s in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = [int(b) for b in self.block_shape]
        check_descriptor(self.base, self.shape, self.strides, self.block_shape, self.padding)
        layout = self.layout
        _require(isinstance(layout, NVMMASharedLayout),
                 f"layout must be an NVMMASharedLayout, got {type(layout).__name__}")
        bits = _itemsize(self.base) * 8
        _require(bits == layout.element_bitwidth,
                 f"layout.element_bitwidth is {layout.element_bitwidth} but the tensor's "
                 f"elements are {bits}-bit")
        _require(bits in (8, 16, 32), f"a descriptor's elements must be 8, 16 or 32-bit, "
                                      f"got {bits}")
        min_block = layout.swizzle_byte_width // (bits // 8 * (2 if layout.fp4_padded else 1))
        _require(self.block_shape[-1] >= min_block,
                 f"block_shape[-1] = {self.block_shape[-1]} is narrower than the layout's "
                 f"{layout.swizzle_byte_width}-byte swizzle ({min_block} elements)")
        if self.round_f32_to_tf32:
            from ....frontend.specialize import _tensor_dtype, dtype_string
            _require(dtype_string(_tensor_dtype(self.base)) == "fp32",
                     "round_f32_to_tf32 needs a float32 tensor")

    @property
    def mode(self) -> str:
        return "tiled"

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], layout: NVMMASharedLayout,
                    padding="zero", round_f32_to_tf32=False) -> "TensorDescriptor":
        """A descriptor over the whole of `tensor`."""
        return TensorDescriptor(tensor, list(tensor.shape), _element_strides(tensor),
                                block_shape, layout, padding, round_f32_to_tf32)
