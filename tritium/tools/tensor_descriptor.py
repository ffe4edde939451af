"""`triton.tools.tensor_descriptor.TensorDescriptor`: a host-side tensor descriptor, passed
to kernels as an argument (`desc.load`, `desc.store`, ... inside the kernel).

    desc = TensorDescriptor.from_tensor(x, block_shape=[64, 32])
    kernel[grid](desc, ...)

The checks are upstream's (the TMA hardware's rules): rank 1 to 5, the last dimension
contiguous, the base address and every other stride a multiple of 16 bytes, block dims
powers of two. Failing ones raise `TensorDescriptorError`, which is both a `ValueError` and
the `AssertionError` upstream raises, with a message naming the offending value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List


class TensorDescriptorError(ValueError, AssertionError):
    """An invalid `TensorDescriptor` (what is wrong is in the message)."""


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise TensorDescriptorError(message)


def _address(base) -> int:
    from ..frontend.specialize import data_ptr_of
    return data_ptr_of(base)


def _itemsize(base) -> int:
    dt = base.dtype
    size = getattr(dt, "itemsize", None)
    bits = getattr(dt, "primitive_bitwidth", None)  # a tl dtype (a torch-free base's)
    if size is None and bits is not None:
        size = max(1, bits // 8)
    if size is None:
        import numpy as np
        size = np.dtype(dt).itemsize
    return int(size)


def _element_strides(tensor) -> List[int]:
    stride = getattr(tensor, "stride", None)
    if callable(stride):                      # torch: strides in elements
        return list(stride())
    size = _itemsize(tensor)                  # numpy: strides in bytes
    for s in tensor.strides:
        _require(s % size == 0, f"stride of {s} bytes is not a whole number of {size}-byte "
                                f"elements")
    return [s // size for s in tensor.strides]


def check_descriptor(base, shape: List[int], strides: List[int], block_shape: List[int],
                     padding: str) -> None:
    """The checks every TMA descriptor passes (this one and Gluon's host descriptor)."""
    rank = len(shape)
    _require(len(strides) == rank, f"rank mismatch: shape {shape} has {rank} dims but "
                                   f"strides {strides} has {len(strides)}")
    _require(len(block_shape) == rank, f"rank mismatch: shape {shape} has {rank} dims but "
                                       f"block_shape {block_shape} has {len(block_shape)}")
    _require(rank > 0, "rank must not be zero")
    _require(rank <= 5, f"rank cannot be more than 5 (shape {shape} has {rank} dims)")
    ty = type(base)
    if f"{ty.__module__}.{ty.__name__}" not in ("torch.FakeTensor", "torch.FunctionalTensor"):
        addr = _address(base)
        _require(addr % 16 == 0, f"base must be 16-byte aligned, but its address {addr:#x} "
                                 f"is {addr % 16} bytes past a multiple of 16")
    for i, b in enumerate(block_shape):
        _require(b > 0 and b & (b - 1) == 0,
                 f"block_shape[{i}] = {b} must be a power of 2")
    _require(strides[-1] == 1, f"Last dimension must be contiguous, but strides[-1] "
                               f"is {strides[-1]} (must be 1)")
    elem_bytes = _itemsize(base)
    for i, stride in enumerate(strides[:-1]):
        _require(stride * elem_bytes % 16 == 0,
                 f"strides must be 16-byte aligned, but strides[{i}] = {stride} elements "
                 f"of {elem_bytes} bytes is {stride * elem_bytes} bytes")
    _require(padding in ("zero", "nan"),
             f"Illegal value for padding: {padding!r} (expected 'zero' or 'nan')")
    if padding == "nan":
        from ..frontend.specialize import _tensor_dtype, dtype_string
        _require(dtype_string(_tensor_dtype(base)).startswith(("fp", "bf")),
                 "padding 'nan' needs a floating-point tensor")


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape = [int(s) for s in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = [int(b) for b in self.block_shape]
        check_descriptor(self.base, self.shape, self.strides, self.block_shape, self.padding)

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero") -> "TensorDescriptor":
        """A descriptor over the whole of `tensor` (torch tensor or numpy array)."""
        return TensorDescriptor(tensor, list(tensor.shape), _element_strides(tensor),
                                block_shape, padding)


__all__ = ["TensorDescriptor", "TensorDescriptorError", "check_descriptor"]
