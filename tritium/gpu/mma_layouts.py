"""Tensor-core layouts: the NVMMA accumulator (`#ttg.nvidia_mma`) and dot operands
(`#ttg.dot_op`), as linear layouts.

mma v2 (`mma.sync.m16n8kK`, any sm_80+) and v3 (`wgmma.m64nNkK`, sm_90a) share one fragment
shape per warp: a 16x8 accumulator tile where lane l holds rows l/4 and l/4+8, columns
2*(l%4) and +1. v3 stacks the four warps of a warpgroup along M (64 rows) and runs N/8 such
tiles side by side in one instruction. Operand A (opIdx 0) of both is the 16xK tile of
`ldmatrix`-shaped registers; B (opIdx 1) is its Kx8 transpose. For an FMA dot the operand
layouts come from a blocked parent: a thread holds, for each accumulator row (column) it
owns, the whole K extent of A (B), so the FMA loop needs no data from other threads.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .linear_layout import LinearLayout, memoized_layout, log2

REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"


def _names(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def _fmt(xs) -> str:
    return ", ".join(map(str, xs))


def _vec(rank: int, **coords: int) -> tuple[int, ...]:
    """A basis vector from named trailing coordinates: m (rank-2) and n (rank-1)."""
    v = [0] * rank
    if "m" in coords:
        v[rank - 2] = coords["m"]
    if "n" in coords:
        v[rank - 1] = coords["n"]
    if "b" in coords:
        v[0] = coords["b"]
    return tuple(v)


def _tile_to_shape(bases: dict, tile: Sequence[int], shape: Sequence[int],
                   repeat_order: Sequence[int]) -> LinearLayout:
    """Finish a layout given as bases covering `tile`: repeat it in registers along
    `repeat_order` (fastest first) until it covers `shape`, and wrap (broadcast) where the
    tile is larger than the shape."""
    from .layouts import _ensure_not_larger
    rank = len(shape)
    names = _names(rank)
    bases = {d: list(bases.get(d, [])) for d in (REG, LANE, WARP, BLOCK)}
    for d in repeat_order:
        size = tile[d]
        while size < shape[d]:
            bases[REG].append(tuple(size if i == d else 0 for i in range(rank)))
            size *= 2
    sizes = [max(t, s) for t, s in zip(tile, shape)]
    ll = LinearLayout(bases, list(zip(names, sizes)), require_surjective=False)
    return _ensure_not_larger(ll, dict(zip(names, map(int, shape))))


@dataclass(frozen=True)
class NvidiaMmaEncoding:
    version_major: int
    version_minor: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "warps_per_cta", tuple(int(x) for x in self.warps_per_cta))
        object.__setattr__(self, "instr_shape", tuple(int(x) for x in self.instr_shape))
        if self.version_major not in (2, 3):
            raise ValueError(f"nvidia_mma versionMajor must be 2 or 3, got {self.version_major}")
        if self.version_major == 3 and (len(self.warps_per_cta) != 2 or self.warps_per_cta[0] % 4):
            raise ValueError("wgmma layouts need rank 2 and warpsPerCTA[0] a multiple of 4")

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(range(self.rank - 1, -1, -1))

    def __str__(self) -> str:
        return (f"#ttg.nvidia_mma<{{versionMajor = {self.version_major}, versionMinor = "
                f"{self.version_minor}, warpsPerCTA = [{_fmt(self.warps_per_cta)}], "
                f"instrShape = [{_fmt(self.instr_shape)}]}}>")

    def is_hopper(self) -> bool:
        return self.version_major == 3

    def warp_tile(self) -> tuple[int, int]:
        """(rows, cols) of the accumulator one warp computes per instruction."""
        if self.is_hopper():
            return 16, self.instr_shape[1]
        return 16, 8

    def _warp_bases(self) -> list[tuple[int, ...]]:
        """Warps along M first (a warpgroup's four warps must stack along M for wgmma),
        then N, then the batch dim."""
        rank = self.rank
        rows, cols = self.warp_tile()
        wm, wn = self.warps_per_cta[-2], self.warps_per_cta[-1]
        out = [_vec(rank, m=rows << i) for i in range(log2(wm))]
        out += [_vec(rank, n=cols << i) for i in range(log2(wn))]
        if rank == 3:
            out += [_vec(rank, b=1 << i) for i in range(log2(self.warps_per_cta[0]))]
        return out

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        rank = self.rank
        if len(shape) != rank:
            raise ValueError(f"shape {list(shape)} does not match rank {rank}")
        rows, cols = self.warp_tile()
        regs = [_vec(rank, n=1), _vec(rank, m=8)]
        regs += [_vec(rank, n=8 << i) for i in range(log2(cols // 8))]
        lanes = [_vec(rank, n=2), _vec(rank, n=4), _vec(rank, m=1), _vec(rank, m=2), _vec(rank, m=4)]
        tile = [1] * rank
        tile[-2] = rows * self.warps_per_cta[-2]
        tile[-1] = cols * self.warps_per_cta[-1]
        if rank == 3:
            tile[0] = self.warps_per_cta[0]
        return _tile_to_shape({REG: regs, LANE: lanes, WARP: self._warp_bases()}, tile, shape,
                              list(range(rank - 1, -1, -1)))


@dataclass(frozen=True)
class DotOperandEncoding:
    """Register layout of operand `op_idx` (0 = A, 1 = B) of a dot whose result has layout
    `parent`; `k_width` consecutive K elements sit in one thread's consecutive registers
    (32 bits' worth for tensor cores; 0 for an FMA parent)."""
    op_idx: int
    parent: object
    k_width: int = 0

    def __post_init__(self):
        if self.op_idx not in (0, 1):
            raise ValueError(f"dot_op opIdx must be 0 or 1, got {self.op_idx}")
        if isinstance(self.parent, NvidiaMmaEncoding) and self.k_width <= 0:
            raise ValueError("a dot operand of an nvidia_mma parent needs kWidth > 0")

    @property
    def rank(self) -> int:
        return self.parent.rank

    def __str__(self) -> str:
        return self.to_text()

    def to_text(self, aliases: Mapping[object, str] | None = None) -> str:
        p = aliases.get(self.parent) if aliases else None
        if p is None:
            p = str(self.parent)
        kw = f", kWidth = {self.k_width}" if self.k_width else ""
        return f"#ttg.dot_op<{{opIdx = {self.op_idx}, parent = {p}{kw}}}>"

    @property
    def order(self) -> tuple[int, ...]:
        rank = self.rank
        k = rank - 1 if self.op_idx == 0 else rank - 2
        return (k,) + tuple(d for d in range(rank - 1, -1, -1) if d != k)

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        if isinstance(self.parent, NvidiaMmaEncoding):
            return self._mma_operand(shape)
        return self._fma_operand(shape)

    def _mma_operand(self, shape: Sequence[int]) -> LinearLayout:
        p: NvidiaMmaEncoding = self.parent
        rank = p.rank
        kw = self.k_width
        rows, cols = p.warp_tile()
        # A: [16, 8*kWidth] per warp; B: [8*kWidth, 8] (the instruction's K is 8*kWidth
        # bytes-per-register-agnostic: 16 for 16-bit types, 32 for 8-bit, 8 for tf32).
        if self.op_idx == 0:
            regs = [_vec(rank, n=1 << i) for i in range(log2(kw))] + [_vec(rank, m=8), _vec(rank, n=4 * kw)]
            lanes = [_vec(rank, n=kw), _vec(rank, n=2 * kw), _vec(rank, m=1), _vec(rank, m=2),
                     _vec(rank, m=4)]
            warps = [_vec(rank, m=rows << i) for i in range(log2(p.warps_per_cta[-2]))]
            warps += [_vec(rank) for _ in range(log2(p.warps_per_cta[-1]))]
            tile_mn = (rows * p.warps_per_cta[-2], 8 * kw)
        else:
            if p.is_hopper():
                raise ValueError("wgmma takes operand B from shared memory only")
            regs = [_vec(rank, m=1 << i) for i in range(log2(kw))] + [_vec(rank, m=4 * kw)]
            lanes = [_vec(rank, m=kw), _vec(rank, m=2 * kw), _vec(rank, n=1), _vec(rank, n=2),
                     _vec(rank, n=4)]
            warps = [_vec(rank) for _ in range(log2(p.warps_per_cta[-2]))]
            warps += [_vec(rank, n=cols << i) for i in range(log2(p.warps_per_cta[-1]))]
            tile_mn = (8 * kw, cols * p.warps_per_cta[-1])
        tile = [1] * rank
        tile[-2], tile[-1] = tile_mn
        if rank == 3:
            warps += [_vec(rank, b=1 << i) for i in range(log2(p.warps_per_cta[0]))]
            tile[0] = p.warps_per_cta[0]
        return _tile_to_shape({REG: regs, LANE: lanes, WARP: warps}, tile, shape, self.order)

    def _fma_operand(self, shape: Sequence[int]) -> LinearLayout:
        rank = len(shape)
        kdim = rank - 1 if self.op_idx == 0 else rank - 2
        gone = rank - 1 if self.op_idx == 0 else rank - 2  # the parent dim the operand lacks
        pshape = list(shape)
        pshape[gone] = 1
        parent = self.parent.to_linear_layout(pshape)
        names = _names(rank)
        cut = lambda b: tuple(0 if i == gone else x for i, x in enumerate(b))  # noqa: E731
        regs = [tuple((1 << i) if d == kdim else 0 for d in range(rank))
                for i in range(log2(shape[kdim]))]
        regs += [cut(b) for b in parent.bases.get(REG, []) if any(cut(b))]
        bases = {REG: regs}
        for d in (LANE, WARP, BLOCK):
            bases[d] = [cut(b) for b in parent.bases.get(d, [])]
        sizes = [parent.get_out_dim_size(n) for n in names]
        sizes[kdim] = shape[kdim]
        return LinearLayout(bases, list(zip(names, sizes)), require_surjective=False)


def parse_mma(fields: dict) -> NvidiaMmaEncoding:
    return NvidiaMmaEncoding(fields["versionMajor"], fields.get("versionMinor", 0),
                             fields["warpsPerCTA"], fields.get("instrShape", [16, 8]))


def parse_dot_op(fields: dict) -> DotOperandEncoding:
    return DotOperandEncoding(fields["opIdx"], fields["parent"], fields.get("kWidth", 0))
