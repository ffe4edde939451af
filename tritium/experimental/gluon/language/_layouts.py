"""Gluon's `NVMMASharedLayout` as a host-side data class — Gluon itself is NOT implemented in
tritium (no kernels are written or compiled with this layout).

It carries upstream's fields with upstream's defaults, checks and equality, and its `repr`
(the dataclass one, fields in upstream's order) is what a Gluon tensor descriptor's
specialisation key embeds: `tensordesc<fp16[64, 64],NVMMASharedLayout(...)>`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

__all__ = ["SharedLayout", "NVMMASharedLayout"]


def _unwrap(value):
    """A `tl.constexpr`'s value (layouts are built inside and outside kernels)."""
    return getattr(value, "value", value) if type(value).__name__ == "constexpr" else value


class SharedLayout:
    """Base of Gluon's shared-memory layouts (only NVMMASharedLayout exists here)."""


@dataclass(frozen=True)
class NVMMASharedLayout(SharedLayout):
    """Shared-memory layout for NVIDIA's MMA and TMA units: rows swizzled in
    `swizzle_byte_width`-byte chunks (0, 32, 64 or 128) of `element_bitwidth`-bit elements.
    Host-side data only: Gluon is not implemented in tritium."""
    swizzle_byte_width: int
    element_bitwidth: int
    rank: int = 2
    transposed: bool = False
    fp4_padded: bool = False
    cga_layout: List[List[int]] = field(default_factory=list)

    def __post_init__(self):
        for name in ("swizzle_byte_width", "element_bitwidth", "rank", "transposed",
                     "fp4_padded"):
            object.__setattr__(self, name, _unwrap(getattr(self, name)))
        cga_layout = _unwrap(self.cga_layout) or []
        object.__setattr__(self, "cga_layout", cga_layout)
        if cga_layout and len(cga_layout[0]) != self.rank:
            raise ValueError(f"NVMMASharedLayout: cga_layout bases have {len(cga_layout[0])} "
                             f"dims but rank is {self.rank}")
        if self.element_bitwidth not in (8, 16, 32, 64):
            raise ValueError(f"NVMMASharedLayout: element_bitwidth must be 8, 16, 32 or 64, "
                             f"got {self.element_bitwidth}")
        if self.swizzle_byte_width not in (0, 32, 64, 128):
            raise ValueError(f"NVMMASharedLayout: swizzle_byte_width must be 0, 32, 64 or "
                             f"128, got {self.swizzle_byte_width}")
        if self.fp4_padded and (self.swizzle_byte_width != 128 or self.element_bitwidth != 8):
            raise ValueError("NVMMASharedLayout: fp4_padded needs swizzle_byte_width=128 and "
                             "element_bitwidth=8")

    @staticmethod
    def get_default_for(block_shape, dtype, transposed=False, fp4_padded=False,
                        cga_layout=None) -> "NVMMASharedLayout":
        """The widest swizzle the block's contiguous dimension allows (fewest TMA/MMA
        messages); no swizzle for 1-D blocks or fewer than 8 outer rows."""
        block_shape = [int(_unwrap(s)) for s in _unwrap(block_shape)]
        per_cta = _shape_per_cta(block_shape, cga_layout)
        if transposed:
            per_cta = per_cta[1:] + per_cta[:1]
        bits = _unwrap(dtype).primitive_bitwidth
        contig_bytes = per_cta[-1] * (2 if fp4_padded else 1) * bits // 8
        swizzle = next((w for w in (128, 64, 32) if contig_bytes % w == 0 and contig_bytes >= w),
                       0)
        outer = 1
        for size in per_cta[:-1]:
            outer *= size
        if len(block_shape) < 2 or outer < 8:
            swizzle = 0
        return NVMMASharedLayout(swizzle, bits, len(block_shape), transposed, fp4_padded,
                                 cga_layout or [])

    def mangle(self) -> str:
        cga = "_".join("~".join(map(str, v)) for v in self.cga_layout)
        return (f"NVMMA_{self.swizzle_byte_width}_{self.element_bitwidth}_{self.transposed}_"
                f"{self.fp4_padded}_{cga}_NVMMA")

    def __hash__(self):
        return hash((self.swizzle_byte_width, self.element_bitwidth, self.rank, self.transposed,
                     self.fp4_padded,
                     tuple(map(tuple, self.cga_layout)) if self.cga_layout else None))


def _shape_per_cta(shape, cga_layout):
    """The block each CTA of a cluster holds: `cga_layout`'s bases split each dimension in
    two per set bit (the largest basis component, doubled, is the split)."""
    if not cga_layout:
        return list(shape)
    split = [1] * len(cga_layout[0])
    for basis in cga_layout:
        for i, b in enumerate(basis):
            split[i] = max(split[i], 2 * b)
    for i, s in enumerate(split):
        if shape[i] % s:
            raise ValueError(f"shape {shape} is not divisible by CGA layout {cga_layout}")
    return [d // s for d, s in zip(shape, split)]
