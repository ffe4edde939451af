"""What a TMA (Hopper's tensor memory accelerator) copy of a descriptor's block looks like:
the one place the compiler passes, the LLVM lowering and the host launcher agree on it.

A kernel-parameter tensor descriptor becomes a 128-byte `CUtensorMap` made on the host
(`cuTensorMapEncodeTiled`). The map fixes the box (the tile one copy moves) and the
shared-memory swizzle, so both are functions of the block type alone, chosen here:

* the shared layout of a block is the NVMMA layout wgmma reads: 16-byte chunks XOR-swizzled
  over 8-row tiles, the swizzle width the widest of 128/64/32 bytes the block's contiguous
  (last) dim covers, 0 (no swizzle) below 32 bytes;
* a box's contiguous extent may not exceed the swizzle width, so a wider block is moved as
  `copies` boxes side by side; the NVMMA layout stores such column strips one after the
  other (the whole height of strip 0, then strip 1, ...), which is exactly where box j lands
  when its shared address is advanced by j * box bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ..ir import types as T
from .layouts import NVMMASharedEncoding, nvmma_swizzle_width

__all__ = ["TmaBlock", "tma_block", "fixed_tma_descriptor"]

MAX_BOX = 256          # elements per box dimension
MAX_RANK = 5


@dataclass(frozen=True)
class TmaBlock:
    """How one block of a descriptor moves: its shared layout and the box of one copy."""
    dims: Tuple[int, ...]           # the block, outermost dim first
    elem_bits: int
    swizzle: int                    # bytes: 0, 32, 64 or 128
    box: Tuple[int, ...]            # one copy, outermost dim first
    copies: int                     # boxes side by side along the last dim

    @property
    def box_bytes(self) -> int:
        n = 1
        for d in self.box:
            n *= d
        return n * self.elem_bits // 8

    @property
    def bytes(self) -> int:
        return self.box_bytes * self.copies

    @property
    def encoding(self) -> NVMMASharedEncoding:
        return NVMMASharedEncoding(self.swizzle, False, self.elem_bits, rank=len(self.dims))

    def meta(self) -> dict:
        """What the launcher needs to encode the map (JSON-able, kept in the kernel's
        metadata as upstream keeps `tensordesc_meta`)."""
        return {"swizzle": self.swizzle, "elem_bits": self.elem_bits,
                "box": list(self.box), "block": list(self.dims)}


def tma_block(block: T.TensorType) -> Optional[TmaBlock]:
    """The TMA shape of a descriptor block, or None when TMA cannot move it (then the
    descriptor is lowered to pointer loads and stores)."""
    dims = tuple(int(d) for d in block.dims)
    elt = block.element_type
    bits = getattr(elt, "bitwidth", 0)
    if isinstance(elt, T.PointerType) or bits not in (8, 16, 32, 64):
        return None
    if not 1 <= len(dims) <= MAX_RANK or any(d & (d - 1) for d in dims):
        return None
    inner_bytes = dims[-1] * bits // 8
    if inner_bytes < 16:
        return None
    if len(dims) == 1 or dims[-2] < 8:
        # The NVMMA layout's tile is 8 rows. (The driver refuses a rank-1 map made with an
        # empty stride list: rows stay on pointer loads.)
        return None
    swizzle = nvmma_swizzle_width(inner_bytes)
    # Unswizzled NVMMA strips are 16 bytes wide, swizzled ones `swizzle` bytes.
    inner = (swizzle or 16) * 8 // bits
    box = dims[:-1] + (inner,)
    copies = dims[-1] // inner
    if any(d > MAX_BOX for d in box) or (copies > 1 and len(dims) > 2):
        return None         # strips of a 3-D block are not contiguous boxes
    return TmaBlock(dims, bits, swizzle, box, copies)


def fixed_tma_descriptor(desc, loop) -> bool:
    """`desc` is the same TMA map on every iteration of `loop`: a kernel parameter, or a
    device-made descriptor (`tt.make_tensor_descriptor` marked `tt.tma`, whose map is
    written once where it is made) made outside the loop."""
    if not isinstance(desc.type, T.TensorDescType):
        return False
    op = desc.owner_op
    if op is None:
        parent = desc.block.parent_op
        return parent is not None and parent.name == "tt.func"
    return op.name == "tt.make_tensor_descriptor" and bool(op.attr("tt.tma")) \
        and not loop.is_ancestor_of(op)
