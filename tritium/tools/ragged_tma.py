"""`triton.tools.ragged_tma`: TMA descriptors over a batch of unequal-length subarrays.

    desc = create_ragged_descriptor(T, [BLOCK_M, BLOCK_K])            # on the host
    tile = load_ragged(desc, batch_offset, batch_size, [row, col])     # in a kernel
    store_ragged(desc, batch_offset, batch_size, [row, col], tile)

A ragged descriptor reads and writes `T[batch_offset : batch_offset + batch_size]` along
`ragged_dim` with the hardware's bounds check doing the masking: rows outside the subarray
read as zero and are not written. The trick: two extra leading dimensions are prepended
whose strides, added with 64-bit wraparound, move the base to the subarray's end, and the
ragged dimension's extent is set to 2**30, so the descriptor's upper bound falls exactly at
`batch_offset + batch_size`. Write-only descriptors need one extra dimension only, and may
therefore wrap 4-d tensors (TMA allows 5 dimensions).
"""
from __future__ import annotations

from .. import language as tl
from ..frontend.jit import jit
from .tensor_descriptor import TensorDescriptor

_BILLION = 1 << 30          # the ragged dimension's extent; batch sizes stay below it
_MAX_EXTENT = 0x7FFF0000    # the largest extent TMA accepts, for the two extra dimensions


class TensorDescriptorPtr:
    """A base 'tensor' that is only an address and a dtype: what a descriptor needs of its
    base, for an address the ragged descriptor moved (it need not be inside T). `tensor`,
    when given, is the tensor the address was derived from: the CPU backend's evaluator reads
    the extent of the memory a kernel may touch from its storage."""

    def __init__(self, data_ptr: int, dtype, tensor=None) -> None:
        self._data_ptr = data_ptr
        self.dtype = dtype
        self._tensor = tensor

    def data_ptr(self) -> int:
        return self._data_ptr

    @property
    def device(self):
        return getattr(self._tensor, "device", None)

    @property
    def untyped_storage(self):
        # A property, so that without a tensor `hasattr(ptr, "untyped_storage")` is False.
        if self._tensor is None:
            raise AttributeError("untyped_storage")
        return self._tensor.untyped_storage


def create_ragged_descriptor(T, block_shape, ragged_dim: int = 0, write_only: bool = False) -> TensorDescriptor:
    """A descriptor over the 2-d or 3-d (write-only: up to 4-d) tensor `T` that `load_ragged`
    / `store_ragged` use to reach one subarray along `ragged_dim` with bounds checks."""
    block_shape = list(block_shape)
    shape = list(T.shape)
    rank = len(shape)
    if ragged_dim < 0:
        ragged_dim += rank
    if not 0 <= ragged_dim < rank - 1:
        raise ValueError(f"create_ragged_descriptor: ragged_dim {ragged_dim} must name one of the "
                         f"first {rank - 1} dimensions (the last cannot be ragged)")
    limit = 4 if write_only else 3
    if rank > limit:
        raise ValueError(f"create_ragged_descriptor: a {'write-only' if write_only else 'read-write'} "
                         f"ragged descriptor takes at most {limit} dimensions, T has {rank}")
    if len(block_shape) != rank:
        raise ValueError(f"create_ragged_descriptor: block_shape {block_shape} must have T's rank {rank}")
    if shape[ragged_dim] > _BILLION:
        raise ValueError(f"create_ragged_descriptor: {shape[ragged_dim]} rows exceed 2**30")
    stride = T.stride(ragged_dim)
    shape[ragged_dim] = _BILLION
    # Coordinates (c0, c1, ...) address base + c0 * (2**34 - stride) + c1 * stride: with
    # c0 = 2**30 the first term is -2**30 * stride modulo 2**64, undoing the 2**30 rows the
    # ragged dimension's coordinate is shifted by (see `to_ragged_indices`).
    strides = [2**34 - stride, stride] + [T.stride(i) for i in range(rank)]
    full_shape = [_MAX_EXTENT, _MAX_EXTENT] + shape
    box = [1, 1] + block_shape
    ptr = T.data_ptr()
    if write_only:
        # Without the first extra dimension, its shift is folded into the base address.
        strides, full_shape, box = strides[1:], full_shape[1:], box[1:]
        ptr = (ptr - _BILLION * stride * T.element_size()) % 2**64
    return TensorDescriptor(TensorDescriptorPtr(ptr, T.dtype, T), full_shape, strides, box)


@jit
def to_ragged_indices(batch_offset, batch_size, row):
    """The coordinates (c0, c1, ragged) of `row` of the subarray at `batch_offset` of
    `batch_size` rows: its end lands on the descriptor's 2**30 bound."""
    billion = 0x40000000
    x = billion - batch_size + row
    y = batch_offset + batch_size
    return billion, y, x


@jit
def load_ragged(TMA, batch_offset, batch_size, coords, ragged_dim: tl.constexpr = 0):
    """The block at `coords` of `T[batch_offset : batch_offset + batch_size]`; rows outside
    the subarray read as zero."""
    tl.static_assert(len(TMA.shape) == len(coords) + 2, "load_ragged needs a read-write ragged descriptor")
    c0, c1, c2 = to_ragged_indices(batch_offset, batch_size, coords[ragged_dim])
    data = TMA.load([c0, c1] + coords[:ragged_dim] + [c2] + coords[ragged_dim + 1:])
    return tl.reshape(data, data.shape[2:])


@jit
def store_ragged(TMA, batch_offset, batch_size, coords, data, ragged_dim: tl.constexpr = 0):
    """Store `data` at `coords` of `T[batch_offset : batch_offset + batch_size]`; rows outside
    the subarray are not written."""
    if len(TMA.shape) == len(coords) + 1:
        write_only: tl.constexpr = True
    elif len(TMA.shape) == len(coords) + 2:
        write_only: tl.constexpr = False
    else:
        tl.static_assert(False, "store_ragged needs a ragged descriptor")
    c0, c1, c2 = to_ragged_indices(batch_offset, batch_size, coords[ragged_dim])
    if write_only:
        data = tl.reshape(data, [1] + data.shape)
        TMA.store([c1] + coords[:ragged_dim] + [c2] + coords[ragged_dim + 1:], data)
    else:
        data = tl.reshape(data, [1, 1] + data.shape)
        TMA.store([c0, c1] + coords[:ragged_dim] + [c2] + coords[ragged_dim + 1:], data)


__all__ = ["TensorDescriptorPtr", "create_ragged_descriptor", "to_ragged_indices", "load_ragged", "store_ragged"]
