"""Gluon's layouts: what a kernel writes in `layout=` arguments and tensor types.

Each is a frozen data class with upstream's fields and defaults, built on the host or in a
kernel. `_to_encoding()` gives the tritium TTGIR encoding it stands for (`gpu/layouts.py`,
`gpu/mma_layouts.py`), so a Gluon tensor's IR type carries exactly the user's layout;
`layout_from_encoding` goes back, for results whose layout the compiler infers (a reshape,
a permute, a join). The NVMMA shared layout's dataclass repr is part of a host TMA
descriptor's specialisation key (`tensordesc<fp16[64, 64],NVMMASharedLayout(...)>`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

__all__ = ["DistributedLayout", "AutoLayout", "BlockedLayout", "SliceLayout",
           "DistributedLinearLayout", "NVMMADistributedLayout", "DotOperandLayout",
           "SharedLayout", "NVMMASharedLayout", "SwizzledSharedLayout", "layout_from_encoding"]


def _unwrap(value):
    """A `tl.constexpr`'s value (layouts are built inside and outside kernels)."""
    return getattr(value, "value", value) if type(value).__name__ == "constexpr" else value


class SharedLayout:
    """Base of Gluon's shared-memory layouts (`allocate_shared_memory`'s `layout`)."""


@dataclass(frozen=True)
class NVMMASharedLayout(SharedLayout):
    """Shared-memory layout for NVIDIA's MMA and TMA units: rows swizzled in
    `swizzle_byte_width`-byte chunks (0, 32, 64 or 128) of `element_bitwidth`-bit elements."""
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

    def _to_encoding(self):
        _no_cga(self.cga_layout, "NVMMASharedLayout")
        from ....gpu.layouts import NVMMASharedEncoding
        return NVMMASharedEncoding(self.swizzle_byte_width, bool(self.transposed),
                                   self.element_bitwidth, bool(self.fp4_padded), self.rank)

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


def _ints(value, what: str) -> List[int]:
    value = _unwrap(value)
    if value is None:
        return None
    return [int(_unwrap(v)) for v in value]


def _no_cga(cga_layout, who: str) -> None:
    # Clusters of CTAs are not modelled by tritium's encodings yet; refusing beats silently
    # compiling a layout that means something else.
    if cga_layout:
        raise ValueError(f"{who}: cga_layout (CTA clusters) is not supported by tritium")


def _pow2(values, name: str, who: str) -> None:
    bad = [v for v in values if v <= 0 or v & (v - 1)]
    if bad:
        raise ValueError(f"{who}: {name} must be powers of two, got {list(values)}")


class DistributedLayout:
    """Base of the layouts that spread a tensor over registers, lanes and warps."""


@dataclass(frozen=True)
class AutoLayout(DistributedLayout):
    """A layout the compiler chooses: resolved after code generation from the concrete
    layouts it meets (`set_auto_layout`, or an operand with a layout)."""

    def _to_encoding(self):
        from ....gpu.passes.resolve_auto_layouts import AutoEncoding
        return AutoEncoding()

    def mangle(self) -> str:
        return "AL"

    @property
    def rank(self):
        return None


@dataclass(frozen=True)
class BlockedLayout(DistributedLayout):
    """Each thread holds `size_per_thread` contiguous elements; a warp's lanes and a CTA's
    warps tile the tensor `threads_per_warp` and `warps_per_cta` times per dimension,
    `order` listing dimensions fastest first."""
    size_per_thread: List[int]
    threads_per_warp: List[int]
    warps_per_cta: List[int]
    order: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)

    def __post_init__(self):
        who = "BlockedLayout"
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"):
            object.__setattr__(self, name, _ints(getattr(self, name), name))
        object.__setattr__(self, "cga_layout", _unwrap(self.cga_layout) or [])
        rank = len(self.size_per_thread)
        for name in ("threads_per_warp", "warps_per_cta", "order"):
            if len(getattr(self, name)) != rank:
                raise ValueError(f"{who}: {name} has {len(getattr(self, name))} entries but "
                                 f"size_per_thread has {rank}")
        if sorted(self.order) != list(range(rank)):
            raise ValueError(f"{who}: order must be a permutation of 0..{rank - 1}, got "
                             f"{self.order}")
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            _pow2(getattr(self, name), name, who)

    @property
    def rank(self) -> int:
        return len(self.order)

    def _to_encoding(self):
        _no_cga(self.cga_layout, "BlockedLayout")
        from ....gpu.layouts import BlockedEncoding
        return BlockedEncoding(self.size_per_thread, self.threads_per_warp, self.warps_per_cta,
                               self.order)

    def __hash__(self):
        return hash((tuple(self.size_per_thread), tuple(self.threads_per_warp),
                     tuple(self.warps_per_cta), tuple(self.order)))

    def mangle(self) -> str:
        parts = [self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order]
        return "B" + "B".join("_".join(map(str, p)) for p in parts) + "B"


@dataclass(frozen=True)
class SliceLayout(DistributedLayout):
    """`parent` with dimension `dim` removed: the layout of a reduction's result along
    `dim`, and what `expand_dims(x, dim)` needs of `x` to give a `parent` tensor."""
    dim: int
    parent: DistributedLayout

    def __post_init__(self):
        object.__setattr__(self, "dim", int(_unwrap(self.dim)))
        object.__setattr__(self, "parent", _unwrap(self.parent))
        if not isinstance(self.parent, DistributedLayout):
            raise ValueError(f"SliceLayout: parent must be a distributed layout, got "
                             f"{self.parent!r}")
        rank = self.parent.rank
        if rank is not None and not 0 <= self.dim < rank:
            raise ValueError(f"SliceLayout: dim {self.dim} is out of range for a rank-{rank} "
                             "parent")

    @property
    def rank(self):
        return None if self.parent.rank is None else self.parent.rank - 1

    def _to_encoding(self):
        from ....gpu.layouts import SliceEncoding
        return SliceEncoding(self.dim, self.parent._to_encoding())

    def mangle(self) -> str:
        return f"SL{self.dim}_{self.parent.mangle()}SL"


@dataclass(frozen=True)
class DistributedLinearLayout(DistributedLayout):
    """A layout given as linear maps over GF(2): each basis is the coordinate that one bit
    of the register, lane, warp or block index moves to."""
    reg_bases: List[List[int]]
    lane_bases: List[List[int]]
    warp_bases: List[List[int]]
    block_bases: List[List[int]]
    shape: List[int]

    def __post_init__(self):
        for name in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            object.__setattr__(self, name, [_ints(b, name) for b in _unwrap(getattr(self, name))])
        object.__setattr__(self, "shape", _ints(self.shape, "shape"))
        _pow2(self.shape, "shape", "DistributedLinearLayout")
        rank = len(self.shape)
        for name in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            for b in getattr(self, name):
                if len(b) != rank:
                    raise ValueError(f"DistributedLinearLayout: a basis of {name} has {len(b)} "
                                     f"coordinates but shape has rank {rank}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    def _to_encoding(self):
        from ....gpu.layouts import LinearEncoding
        from ....gpu.linear_layout import LinearLayout
        bases = {"register": self.reg_bases, "lane": self.lane_bases, "warp": self.warp_bases,
                 "block": self.block_bases}
        ll = LinearLayout(bases, [(f"dim{i}", s) for i, s in enumerate(self.shape)])
        return LinearEncoding(ll)

    def __hash__(self):
        return hash(tuple(tuple(map(tuple, getattr(self, n))) for n in
                          ("reg_bases", "lane_bases", "warp_bases", "block_bases"))
                    + (tuple(self.shape),))

    def mangle(self) -> str:
        return (f"DLL{self.reg_bases}_{self.lane_bases}_{self.warp_bases}_{self.block_bases}_"
                f"{self.shape}DLL").replace(" ", "")


@dataclass(frozen=True)
class NVMMADistributedLayout(DistributedLayout):
    """The tensor-core accumulator layout: `version` [2, 0] for mma.sync (Ampere), [3, 0]
    for wgmma (Hopper), with `instr_shape` the instruction's [M, N(, K)]."""
    version: List[int]
    warps_per_cta: List[int]
    instr_shape: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)

    def __post_init__(self):
        for name in ("version", "warps_per_cta", "instr_shape"):
            object.__setattr__(self, name, _ints(getattr(self, name), name))
        object.__setattr__(self, "cga_layout", _unwrap(self.cga_layout) or [])
        _pow2(self.warps_per_cta, "warps_per_cta", "NVMMADistributedLayout")

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _to_encoding(self):
        _no_cga(self.cga_layout, "NVMMADistributedLayout")
        from ....gpu.mma_layouts import NvidiaMmaEncoding
        return NvidiaMmaEncoding(self.version[0], self.version[1] if len(self.version) > 1
                                 else 0, self.warps_per_cta, self.instr_shape)

    def __hash__(self):
        return hash((tuple(self.version), tuple(self.warps_per_cta), tuple(self.instr_shape)))

    def mangle(self) -> str:
        return (f"MMA_{'_'.join(map(str, self.version))}_{'_'.join(map(str, self.warps_per_cta))}"
                f"_{'_'.join(map(str, self.instr_shape))}_MMA")


@dataclass(frozen=True)
class DotOperandLayout(DistributedLayout):
    """Operand `operand_index` (0 = A, 1 = B) of a dot whose result is in `parent`;
    `k_width` consecutive K elements per thread (0 for an FMA dot's blocked parent)."""
    operand_index: int
    parent: DistributedLayout
    k_width: int

    def __post_init__(self):
        object.__setattr__(self, "operand_index", int(_unwrap(self.operand_index)))
        object.__setattr__(self, "parent", _unwrap(self.parent))
        object.__setattr__(self, "k_width", int(_unwrap(self.k_width)))
        if self.operand_index not in (0, 1):
            raise ValueError(f"DotOperandLayout: operand_index must be 0 or 1, got "
                             f"{self.operand_index}")

    @property
    def rank(self):
        return self.parent.rank

    def _to_encoding(self):
        from ....gpu.mma_layouts import DotOperandEncoding
        return DotOperandEncoding(self.operand_index, self.parent._to_encoding(), self.k_width)

    def mangle(self) -> str:
        return f"DO{self.operand_index}_{self.parent.mangle()}_{self.k_width}DO"


@dataclass(frozen=True)
class SwizzledSharedLayout(SharedLayout):
    """Shared memory with `vec`-element chunks of each row XOR-swizzled by the row index
    (`per_phase` rows share a phase, `max_phase` phases); `order` fastest dim first."""
    vec: int
    per_phase: int
    max_phase: int
    order: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)

    def __post_init__(self):
        for name in ("vec", "per_phase", "max_phase"):
            object.__setattr__(self, name, int(_unwrap(getattr(self, name))))
        object.__setattr__(self, "order", _ints(self.order, "order"))
        object.__setattr__(self, "cga_layout", _unwrap(self.cga_layout) or [])
        if sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"SwizzledSharedLayout: order must be a permutation, got "
                             f"{self.order}")

    @property
    def rank(self) -> int:
        return len(self.order)

    def _to_encoding(self):
        _no_cga(self.cga_layout, "SwizzledSharedLayout")
        from ....gpu.layouts import SwizzledSharedEncoding
        return SwizzledSharedEncoding(self.vec, self.per_phase, self.max_phase, self.order)

    def __hash__(self):
        return hash((self.vec, self.per_phase, self.max_phase, tuple(self.order)))

    def mangle(self) -> str:
        return (f"SSS_{self.vec}_{self.per_phase}_{self.max_phase}_"
                f"{'_'.join(map(str, self.order))}_SSS")


def layout_from_encoding(enc, shape=None):
    """The Gluon layout standing for a TTGIR encoding (inferred result layouts)."""
    from ....gpu.layouts import (BlockedEncoding, LinearEncoding, NVMMASharedEncoding,
                                 SliceEncoding, SwizzledSharedEncoding)
    from ....gpu.mma_layouts import DotOperandEncoding, NvidiaMmaEncoding
    from ....gpu.passes.resolve_auto_layouts import AutoEncoding
    if isinstance(enc, AutoEncoding):
        return AutoLayout()
    if isinstance(enc, BlockedEncoding):
        return BlockedLayout(list(enc.size_per_thread), list(enc.threads_per_warp),
                             list(enc.warps_per_cta), list(enc.order))
    if isinstance(enc, SliceEncoding):
        return SliceLayout(enc.dim, layout_from_encoding(enc.parent))
    if isinstance(enc, LinearEncoding):
        b = enc.ll.bases
        sizes = [enc.ll.get_out_dim_size(d) for d in enc.ll.out_dims]
        return DistributedLinearLayout([list(x) for x in b["register"]],
                                       [list(x) for x in b["lane"]],
                                       [list(x) for x in b["warp"]],
                                       [list(x) for x in b["block"]], sizes)
    if isinstance(enc, NvidiaMmaEncoding):
        return NVMMADistributedLayout([enc.version_major, enc.version_minor],
                                      list(enc.warps_per_cta), list(enc.instr_shape))
    if isinstance(enc, DotOperandEncoding):
        return DotOperandLayout(enc.op_idx, layout_from_encoding(enc.parent), enc.k_width)
    if isinstance(enc, SwizzledSharedEncoding):
        return SwizzledSharedLayout(enc.vec, enc.per_phase, enc.max_phase, list(enc.order))
    if isinstance(enc, NVMMASharedEncoding):
        return NVMMASharedLayout(enc.swizzling_byte_width, enc.element_bit_width, enc.rank,
                                 enc.transposed, enc.fp4_padded)
    raise TypeError(f"no Gluon layout for the encoding {enc}")


def _compile_time_default():
    # Called in kernels too (upstream marks it a constexpr function): the JIT's dependency
    # finder accepts it and in-kernel calls get their constexpr arguments unwrapped.
    from ....language.builtins import constexpr_function
    NVMMASharedLayout.get_default_for = constexpr_function(
        NVMMASharedLayout.__dict__["get_default_for"].__func__)


_compile_time_default()
