"""TTGIR layout attributes and their conversion to linear layouts.

Each encoding is a frozen dataclass whose ``str()`` is upstream's TTGIR text
(``#ttg.blocked<{...}>``) and whose ``to_linear_layout(shape)`` gives the
LinearLayout over ``register/lane/warp/block`` (distributed) or
``offset/block`` (shared) -> ``dim0..``. ``parse_layout_attr`` reads the text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod
from typing import Mapping, Sequence, Union

from .linear_layout import LinearLayout, memoized_layout, XorBasis, log2

__all__ = [
    "CTALayout", "BlockedEncoding", "SliceEncoding", "SwizzledSharedEncoding",
    "NVMMASharedEncoding", "nvmma_swizzle_width", "LinearEncoding", "Layout", "parse_layout_attr",
    "default_blocked_encoding", "identity_standard_nd", "swizzled_shared_to_linear_layout",
    "total_elems_per_thread", "elems_per_thread", "get_order", "contig_per_thread",
    "threads_per_warp", "warps_per_cta", "num_warps", "dim_names", "NvidiaMmaEncoding",
    "DotOperandEncoding",
]

REG, LANE, WARP, BLOCK, OFFSET = "register", "lane", "warp", "block", "offset"


def dim_names(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def _ints(xs) -> tuple[int, ...]:
    return tuple(int(x) for x in xs)


def _fmt(xs) -> str:
    return ", ".join(map(str, xs))


def _check_pow2(name: str, xs) -> None:
    if any(x <= 0 or x & (x - 1) for x in xs):
        raise ValueError(f"{name} must be powers of two, got {list(xs)}")


def _check_order(order, rank: int) -> None:
    if sorted(order) != list(range(rank)):
        raise ValueError(f"order must be a permutation of 0..{rank - 1}, got {list(order)}")


# --------------------------------------------------------------------- CTAs
@dataclass(frozen=True)
class CTALayout:
    """How the tensor is split over the CTAs of a cluster (CGA)."""
    ctas_per_cga: tuple[int, ...]
    cta_split_num: tuple[int, ...]
    cta_order: tuple[int, ...]

    def __post_init__(self):
        for f in ("ctas_per_cga", "cta_split_num", "cta_order"):
            object.__setattr__(self, f, _ints(getattr(self, f)))
        # Upstream canonicalises the order when there is a single CTA.
        if all(c == 1 for c in self.ctas_per_cga):
            object.__setattr__(self, "cta_order", tuple(range(self.rank - 1, -1, -1)))

    @property
    def rank(self) -> int:
        return len(self.ctas_per_cga)

    @classmethod
    def default(cls, rank: int) -> "CTALayout":
        return cls((1,) * rank, (1,) * rank, tuple(range(rank - 1, -1, -1)))

    def is_default(self) -> bool:
        return self == CTALayout.default(self.rank)

    def text(self) -> str:
        if self.is_default():
            return ""
        return (f", CTAsPerCGA = [{_fmt(self.ctas_per_cga)}], CTASplitNum = "
                f"[{_fmt(self.cta_split_num)}], CTAOrder = [{_fmt(self.cta_order)}]")

    def to_linear_layout(self) -> LinearLayout:
        """block -> dim*: split pieces get distinct ids, multicast copies broadcast."""
        names = dim_names(self.rank)
        ret = LinearLayout.empty()
        for d in self.cta_order:
            split, ctas = self.cta_split_num[d], self.ctas_per_cga[d]
            ret = ret * LinearLayout.identity_1d(split, BLOCK, names[d]) \
                      * LinearLayout.zeros_1d(ctas // split, BLOCK, names[d])
        return ret.transpose_outs(names)


def _cta_or_default(cta: CTALayout | None, rank: int) -> CTALayout:
    return CTALayout.default(rank) if cta is None else cta


def _shape_per_cta(cta: CTALayout, shape: Sequence[int]) -> list[int]:
    return [max(1, s // n) for s, n in zip(shape, cta.cta_split_num)]


# ------------------------------------------------------ shape fitting helpers
def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """1-D identity of size prod(shape) reshaped onto dims taken in ``order``."""
    names = dim_names(len(shape))
    ret = LinearLayout.empty()
    for d in order:
        ret = ret * LinearLayout.identity_1d(shape[d], in_dim, names[d])
    return ret


def _ensure_not_larger(ll: LinearLayout, shape: Mapping[str, int],
                       broadcast_registers: bool = True) -> LinearLayout:
    """Wrap a layout around a smaller tensor: coordinates are taken modulo
    ``shape`` (the bits of each basis at or above the wanted size are
    cleared), so the hardware that held the cut-off part broadcasts.

    For blocked-like layouts (each basis one power of two of one dim) this
    zeroes the largest bases, as upstream does. Masking also handles mixed
    layouts: a basis that steps several dims, or a dim stepped by the same
    power of two from two bases, or by a non-power of two.

    Without ``broadcast_registers`` registers that the cut turned into copies
    of the thread's other registers (zero, or in the span of the registers
    the cut left alone and of those kept before them) are dropped instead.
    A register that still reaches new elements through another dim is kept.
    """
    masks = [min(ll.get_out_dim_size(o), shape[o]) - 1 for o in ll.out_dims]
    sizes = [(o, min(ll.get_out_dim_size(o), shape[o])) for o in ll.out_dims]
    bases = {d: [tuple(x & m for x, m in zip(b, masks)) for b in v] for d, v in ll.bases.items()}
    if not broadcast_registers and REG in bases:
        orig = ll.bases[REG]
        shifts, acc = [], 0
        for _, s in sizes:
            shifts.append(acc)
            acc += log2(s)
        flat = lambda b: sum(x << sh for x, sh in zip(b, shifts))
        span = XorBasis()
        changed = [i for i, (a, b) in enumerate(zip(orig, bases[REG])) if a != b]
        for i, b in enumerate(bases[REG]):
            if i not in changed:
                span.insert(flat(b), 0)
        keep = [i not in changed or span.insert(flat(bases[REG][i]), 0) for i in range(len(orig))]
        bases[REG] = [b for b, k in zip(bases[REG], keep) if k]
    return LinearLayout(bases, sizes, require_surjective=False)


def _ensure_not_smaller(ll: LinearLayout, shape: Mapping[str, int]) -> LinearLayout:
    # Repeat along the most minor in-dim (register/offset) until the shape is covered.
    kdim = ll.in_dims[0]
    ret = ll
    for out in ll.out_dims:
        actual, want = ll.get_out_dim_size(out), shape[out]
        if want > actual:
            ret = ret * LinearLayout.identity_1d(want // actual, kdim, out)
    return ret


def _combine_with_cga(cta_ll: LinearLayout, cta: CTALayout, shape: Sequence[int]) -> LinearLayout:
    names = dim_names(len(shape))
    labeled = dict(zip(names, (int(s) for s in shape)))
    cga = _ensure_not_larger(cta.to_linear_layout(), labeled).transpose_outs(cta_ll.out_dims)
    cta_shape = {d: max(1, labeled[d] // cga.get_out_dim_size(d)) for d in cta_ll.out_dims}
    cta_ll = _ensure_not_larger(_ensure_not_smaller(cta_ll, cta_shape), cta_shape)
    return (cta_ll * cga).transpose_outs(names)


# ---------------------------------------------------------------- encodings
@dataclass(frozen=True)
class BlockedEncoding:
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cta_layout: CTALayout | None = None

    def __post_init__(self):
        for f in ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"):
            object.__setattr__(self, f, _ints(getattr(self, f)))
        rank = len(self.order)
        if not len(self.size_per_thread) == len(self.threads_per_warp) == len(self.warps_per_cta) == rank:
            raise ValueError("sizePerThread, threadsPerWarp, warpsPerCTA and order need one rank")
        _check_order(self.order, rank)
        for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
            _check_pow2(name, getattr(self, name))
        object.__setattr__(self, "cta_layout", _cta_or_default(self.cta_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.order)

    def __str__(self) -> str:
        return (f"#ttg.blocked<{{sizePerThread = [{_fmt(self.size_per_thread)}], "
                f"threadsPerWarp = [{_fmt(self.threads_per_warp)}], "
                f"warpsPerCTA = [{_fmt(self.warps_per_cta)}], order = [{_fmt(self.order)}]"
                f"{self.cta_layout.text()}}}>")

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        if len(shape) != self.rank:
            raise ValueError(f"shape {list(shape)} does not match rank {self.rank}")
        cta = (identity_standard_nd(REG, self.size_per_thread, self.order)
               * identity_standard_nd(LANE, self.threads_per_warp, self.order)
               * identity_standard_nd(WARP, self.warps_per_cta, self.order))
        return _combine_with_cga(cta, self.cta_layout, shape)


@dataclass(frozen=True)
class SliceEncoding:
    """``parent`` with dimension ``dim`` squeezed out (result of reductions)."""
    dim: int
    parent: "Layout"

    def __str__(self) -> str:
        return self.to_text()

    def to_text(self, aliases: Mapping[object, str] | None = None) -> str:
        p = aliases.get(self.parent) if aliases else None
        if p is None:
            p = self.parent.to_text(aliases) if isinstance(self.parent, SliceEncoding) else str(self.parent)
        return f"#ttg.slice<{{dim = {self.dim}, parent = {p}}}>"

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def _parent_shape(self, shape: Sequence[int]) -> list[int]:
        s = list(shape)
        s.insert(self.dim, 1)
        return s

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        parent = self.parent.to_linear_layout(self._parent_shape(shape))
        names = dim_names(len(shape) + 1)
        transform = LinearLayout.empty()
        for idx, out in enumerate(parent.out_dims):
            size = parent.get_out_dim_size(out)
            if idx == self.dim:
                transform = transform * LinearLayout.zeros_1d(size, out, names[0])
            else:
                transform = transform * LinearLayout.identity_1d(size, out, names[idx - (idx > self.dim)])
        sliced = parent.compose(transform).remove_zero_bases_along_dim(REG)
        # Keep the register count upstream's legacy elems-per-thread expects:
        # the removed zero bases are added back when that count is larger.
        want = prod(elems_per_thread(self, shape))
        have = sliced.get_in_dim_size(REG)
        if want > have:
            sliced = sliced * LinearLayout.zeros_1d(want // have, REG, "dim0")
        return sliced


@dataclass(frozen=True)
class SwizzledSharedEncoding:
    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cta_layout: CTALayout | None = None

    def __post_init__(self):
        object.__setattr__(self, "order", _ints(self.order))
        _check_order(self.order, len(self.order))
        object.__setattr__(self, "cta_layout", _cta_or_default(self.cta_layout, len(self.order)))

    @property
    def rank(self) -> int:
        return len(self.order)

    def __str__(self) -> str:
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = [{_fmt(self.order)}]{self.cta_layout.text()}}}>")

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        return swizzled_shared_to_linear_layout(self, shape)


def nvmma_swizzle_width(contiguous_bytes: int) -> int:
    """The widest NVMMA swizzle (128, 64 or 32 bytes) a tile whose contiguous dim spans
    `contiguous_bytes` covers; 0 (unswizzled) below 32 bytes."""
    return next((w for w in (128, 64, 32) if contiguous_bytes >= w), 0)


@dataclass(frozen=True)
class NVMMASharedEncoding:
    """wgmma/TMA shared layout: 16-byte chunks XOR-swizzled within 8-row tiles."""
    swizzling_byte_width: int
    transposed: bool
    element_bit_width: int
    fp4_padded: bool = False
    rank: int = 2
    cta_layout: CTALayout | None = None

    def __post_init__(self):
        if self.swizzling_byte_width not in (0, 32, 64, 128):
            raise ValueError("swizzlingByteWidth must be 0, 32, 64 or 128")
        object.__setattr__(self, "cta_layout", _cta_or_default(self.cta_layout, self.rank))

    def __str__(self) -> str:
        extra = ", fp4Padded = true" if self.fp4_padded else ""
        cta = self.cta_layout.text() if not self.cta_layout.is_default() or self.rank == 2 \
            else f", rank = {self.rank}"
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}, "
                f"transposed = {'true' if self.transposed else 'false'}, "
                f"elementBitWidth = {self.element_bit_width}{extra}{cta}}}>")

    @property
    def order(self) -> tuple[int, ...]:
        o = list(range(self.rank - 1, -1, -1))
        if self.transposed:
            o[0], o[1] = o[1], o[0]
        return tuple(o)

    @property
    def vec(self) -> int:
        return 1 if self.swizzling_byte_width == 0 else 128 // self.element_bit_width

    @property
    def per_phase(self) -> int:
        return 1 if self.swizzling_byte_width == 0 else 128 // self.swizzling_byte_width

    @property
    def max_phase(self) -> int:
        return 1 if self.swizzling_byte_width == 0 else self.swizzling_byte_width // 16

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        return swizzled_shared_to_linear_layout(self, shape)


@dataclass(frozen=True)
class LinearEncoding:
    """A raw linear layout used as a distributed encoding."""
    ll: LinearLayout

    def __post_init__(self):
        if self.ll.in_dims != [REG, LANE, WARP, BLOCK]:
            raise ValueError(f"LinearEncoding needs in-dims register, lane, warp, block; got {self.ll.in_dims}")
        if self.ll.out_dims != dim_names(len(self.ll.out_dims)):
            raise ValueError("LinearEncoding out-dims must be dim0, dim1, ...")

    @property
    def rank(self) -> int:
        return len(self.ll.out_dims)

    def __str__(self) -> str:
        parts = [f"{d} = [" + ", ".join("[" + _fmt(b) + "]" for b in v) + "]"
                 for d, v in self.ll.bases.items()]
        return "#ttg.linear<{" + ", ".join(parts) + "}>"

    @memoized_layout
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        names = self.ll.out_dims
        order = [names[d] for d in get_order(self)]
        want = {names[d]: int(s) for d, s in enumerate(shape)}
        ll = _ensure_not_smaller(self.ll.transpose_outs(order), want)
        ll = _ensure_not_larger(ll, want, broadcast_registers=False)
        return ll.transpose_outs(names)


from .mma_layouts import DotOperandEncoding, NvidiaMmaEncoding, parse_dot_op, parse_mma  # noqa: E402

Layout = Union[BlockedEncoding, SliceEncoding, SwizzledSharedEncoding, NVMMASharedEncoding,
               LinearEncoding, NvidiaMmaEncoding, DotOperandEncoding]
_LL_DEFINED = (LinearEncoding, NvidiaMmaEncoding, DotOperandEncoding)


def swizzled_shared_to_linear_layout(enc, shape: Sequence[int]) -> LinearLayout:
    """offset/block -> dims for a swizzled or NVMMA shared encoding.

    Element (r, c) of the two fastest dims sits at column
    ``((c / vec) ^ ((r / perPhase) % maxPhase)) * vec + c % vec`` of row r.
    """
    rank = len(shape)
    names = dim_names(rank)
    cta = enc.cta_layout
    if rank == 1:
        return _combine_with_cga(LinearLayout.identity_1d(shape[0], OFFSET, "dim0"), cta, shape)
    col, row = enc.order[0], enc.order[1]
    vec, per_phase, max_phase = enc.vec, enc.per_phase, enc.max_phase
    nvmma = isinstance(enc, NVMMASharedEncoding)
    if nvmma:
        # One swizzle tile: 8 rows of swizzlingByteWidth bytes (16 bytes unswizzled).
        width = enc.swizzling_byte_width or 16
        bits = enc.element_bit_width // (2 if enc.fp4_padded else 1)
        n_cols, n_rows = 8 * width // bits, 8
        if shape[col] < n_cols or shape[row] < n_rows:
            raise ValueError(f"NVMMA shared layout needs at least [{n_rows}, {n_cols}], got {list(shape)}")
    else:
        n_cols, n_rows = shape[col], shape[row]
    bases = [(0, 1 << i) for i in range(log2(n_cols))]
    for i in range(log2(n_rows)):
        r = 1 << i
        bases.append((r, (vec * ((r // per_phase) % max_phase)) % n_cols))
    tile = LinearLayout({OFFSET: bases}, [names[row], names[col]])
    if nvmma:
        # The tile repeats down all the rows of the leading dims flattened (row-major) and
        # then across column strips: a TMA box lands in shared memory as its rows one after
        # the other, so the row dim's tiles come before the outer dims' (a 16x16x4 block's
        # element (a, b, c) is at (a * 16 + b) * 4 + c, not with b's upper half outermost).
        per_cta = _per_cta_shape(cta, shape)
        tile = tile * LinearLayout.identity_1d(max(1, per_cta[row] // n_rows), OFFSET, names[row])
        for d in enc.order[2:]:
            tile = tile * LinearLayout.identity_1d(per_cta[d], OFFSET, names[d])
        tile = tile * LinearLayout.identity_1d(max(1, per_cta[col] // n_cols), OFFSET, names[col])
        return _combine_with_cga(tile, cta, shape)
    for d in enc.order[2:]:
        tile = tile * LinearLayout.identity_1d(shape[d], OFFSET, names[d])
    return _combine_with_cga(tile, cta, shape)


def _per_cta_shape(cta: CTALayout, shape: Sequence[int]) -> list:
    """The block one CTA holds (as `_combine_with_cga` splits `shape`)."""
    names = dim_names(len(shape))
    labeled = dict(zip(names, (int(s) for s in shape)))
    cga = _ensure_not_larger(cta.to_linear_layout(), labeled)
    return [max(1, labeled[d] // cga.get_out_dim_size(d)) for d in names]


# ------------------------------------------------------------- default builder
def default_blocked_encoding(shape: Sequence[int], num_warps: int, threads_per_warp: int = 32,
                             size_per_thread: Sequence[int] | None = None,
                             order: Sequence[int] | None = None, num_ctas: int = 1) -> BlockedEncoding:
    """upstream getDefaultBlockedEncoding / BlockedEncodingAttr::get(shape, ...)."""
    rank = len(shape)
    spt = list(size_per_thread) if size_per_thread is not None else [1] * rank
    order = list(order) if order is not None else list(range(rank - 1, -1, -1))
    ctas, split, remaining = [1] * rank, [1] * rank, num_ctas
    for d in reversed(range(rank)):  # most strided dim first
        i = order[d]
        ctas[i] = max(1, min(remaining, max(1, shape[i] // spt[i])))
        split[i] = ctas[i]
        remaining //= ctas[i]
    ctas[rank - 1] *= remaining  # wrap at CTA level (upstream indexes rank-1)
    cta = CTALayout(ctas, split, order)
    shape_per_cta = _shape_per_cta(cta, shape)
    tpw, wpc = [1] * rank, [1] * rank
    lanes, threads, warps = threads_per_warp, num_warps * threads_per_warp, num_warps
    prev_lanes = prev_warps = 1
    for d in range(rank - 1):  # starting from the contiguous dim
        i = order[d]
        per_cta = max(1, min(threads, max(1, shape_per_cta[i] // spt[i])))
        tpw[i] = max(1, min(per_cta, lanes))
        wpc[i] = max(1, min(per_cta // tpw[i], warps))
        warps //= wpc[i]
        lanes //= tpw[i]
        threads //= per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    tpw[order[-1]] = threads_per_warp // prev_lanes
    wpc[order[-1]] = num_warps // prev_warps
    return BlockedEncoding(spt, tpw, wpc, order, cta)


# ------------------------------------------------------------------ queries
def _bases_per_dim(ll: LinearLayout, in_dim: str, skip_broadcast: bool = True) -> list[int]:
    ret = [1] * len(ll.out_dims)
    last = 0
    for b in ll.bases[in_dim]:
        nz = [i for i, x in enumerate(b) if x]
        if nz:
            last = nz[0]
            ret[last] *= 2
        elif not skip_broadcast:
            ret[last] *= 2
    return ret


def _order_per_dim(ll: LinearLayout, in_dim: str, default: Sequence[int]) -> list[int]:
    order: list[int] = []
    for b in ll.bases[in_dim]:
        nz = [i for i, x in enumerate(b) if x]
        if nz and nz[0] not in order:
            order.append(nz[0])
    return order + [d for d in default if d not in order]


def get_order(layout: Layout) -> list[int]:
    """Dims from fastest to slowest varying (in registers, for distributed layouts)."""
    if isinstance(layout, (BlockedEncoding, SwizzledSharedEncoding, NVMMASharedEncoding,
                           NvidiaMmaEncoding, DotOperandEncoding)):
        return list(layout.order)
    if isinstance(layout, SliceEncoding):
        return [d - (d > layout.dim) for d in get_order(layout.parent) if d != layout.dim]
    if isinstance(layout, LinearEncoding):
        return _order_per_dim(layout.ll, REG, list(range(layout.rank - 1, -1, -1)))
    raise TypeError(f"no order for {layout!r}")


def elems_per_thread(layout: Layout, shape: Sequence[int]) -> list[int]:
    """Registers per thread along each dim (upstream getElemsPerThread)."""
    if isinstance(layout, BlockedEncoding):
        per_cta = _shape_per_cta(layout.cta_layout, shape)
        return [-(-s // (spt * t * w)) * spt for s, spt, t, w in zip(
            per_cta, layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta)]
    if isinstance(layout, SliceEncoding):
        e = elems_per_thread(layout.parent, layout._parent_shape(shape))
        del e[layout.dim]
        return e
    if isinstance(layout, _LL_DEFINED):
        return _bases_per_dim(layout.to_linear_layout(shape), REG, False)
    raise TypeError(f"{layout} is not a distributed layout")


def total_elems_per_thread(layout: Layout, shape: Sequence[int]) -> int:
    return prod(elems_per_thread(layout, shape))


def contig_per_thread(layout: Layout, shape: Sequence[int]) -> list[int]:
    """Per dim, how many consecutive elements a thread holds in consecutive
    registers (contig[order[0]] bounds the vector width of loads/stores)."""
    ll = layout.to_linear_layout(shape)
    order, rank = get_order(layout), len(shape)
    contig = [1] * rank
    regs, k = ll.bases[REG], 0
    for d in order:
        while k < len(regs) and regs[k] == tuple(contig[d] if i == d else 0 for i in range(rank)):
            contig[d] *= 2
            k += 1
    return contig


def threads_per_warp(layout: Layout) -> list[int]:
    if isinstance(layout, BlockedEncoding):
        return list(layout.threads_per_warp)
    if isinstance(layout, SliceEncoding):
        t = threads_per_warp(layout.parent)
        del t[layout.dim]
        return t
    if isinstance(layout, LinearEncoding):
        return _bases_per_dim(layout.ll, LANE)
    if isinstance(layout, (NvidiaMmaEncoding, DotOperandEncoding)):
        return [1] * (layout.rank - 2) + [8, 4]
    raise TypeError(f"{layout} is not a distributed layout")


def warps_per_cta(layout: Layout) -> list[int]:
    if isinstance(layout, BlockedEncoding):
        return list(layout.warps_per_cta)
    if isinstance(layout, SliceEncoding):
        w = warps_per_cta(layout.parent)
        del w[layout.dim]
        return w
    if isinstance(layout, LinearEncoding):
        return _bases_per_dim(layout.ll, WARP)
    if isinstance(layout, NvidiaMmaEncoding):
        return list(layout.warps_per_cta)
    if isinstance(layout, DotOperandEncoding):
        w = warps_per_cta(layout.parent)
        w[-1 if layout.op_idx == 0 else -2] = 1
        return w
    raise TypeError(f"{layout} is not a distributed layout")


def num_warps(layout: Layout) -> int:
    if isinstance(layout, BlockedEncoding):
        return prod(layout.warps_per_cta)
    if isinstance(layout, SliceEncoding):
        return num_warps(layout.parent)
    if isinstance(layout, LinearEncoding):
        return layout.ll.get_in_dim_size(WARP)
    if isinstance(layout, NvidiaMmaEncoding):
        return prod(layout.warps_per_cta)
    if isinstance(layout, DotOperandEncoding):
        return num_warps(layout.parent)
    raise TypeError(f"{layout} is not a distributed layout")


# ------------------------------------------------------------------ parsing
_TOKEN = re.compile(r"\s*(#[\w.$-]+|-?\d+|[A-Za-z_]\w*|[\[\]{}<>=,])")


class _Parser:
    def __init__(self, text: str, aliases: Mapping[str, Layout] | None):
        self.toks = self._lex(text)
        self.i = 0
        self.aliases = aliases or {}

    @staticmethod
    def _lex(text: str) -> list[str]:
        toks, pos = [], 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"cannot parse layout attribute near {text[pos:pos + 20]!r}")
            toks.append(m.group(1))
            pos = m.end()
        return toks

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, expect: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expect is not None and tok != expect):
            raise ValueError(f"expected {expect!r}, got {tok!r}")
        self.i += 1
        return tok

    def value(self):
        tok = self.peek()
        if tok == "[":
            self.take("[")
            items = []
            while self.peek() != "]":
                items.append(self.value())
                if self.peek() == ",":
                    self.take(",")
            self.take("]")
            return items
        if tok in ("true", "false"):
            return self.take() == "true"
        if tok is not None and tok.startswith("#"):
            return self.attr()
        return int(self.take())

    def attr(self) -> Layout:
        name = self.take()
        if self.peek() != "<":
            if name not in self.aliases:
                raise ValueError(f"unknown layout alias {name}")
            return self.aliases[name]
        kind = name.split(".", 1)[1] if "." in name else name[1:]
        self.take("<")
        self.take("{")
        fields = {}
        while self.peek() != "}":
            key = self.take()
            self.take("=")
            fields[key] = self.value()
            if self.peek() == ",":
                self.take(",")
        self.take("}")
        self.take(">")
        return _build(kind, fields)


def _cta_from(fields: dict, rank: int) -> CTALayout:
    if "CTAsPerCGA" not in fields:
        return CTALayout.default(rank)
    return CTALayout(fields["CTAsPerCGA"], fields["CTASplitNum"], fields["CTAOrder"])


def _build(kind: str, f: dict) -> Layout:
    if kind == "blocked":
        return BlockedEncoding(f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"],
                               f["order"], _cta_from(f, len(f["order"])))
    if kind == "slice":
        return SliceEncoding(f["dim"], f["parent"])
    if kind == "swizzled_shared":
        return SwizzledSharedEncoding(f["vec"], f["perPhase"], f["maxPhase"], f["order"],
                                      _cta_from(f, len(f["order"])))
    if kind == "nvmma_shared":
        rank = f.get("rank", len(f.get("CTAOrder", [0, 1])))
        return NVMMASharedEncoding(f["swizzlingByteWidth"], bool(f["transposed"]),
                                   f["elementBitWidth"], bool(f.get("fp4Padded", False)),
                                   rank, _cta_from(f, rank))
    if kind == "nvidia_mma":
        return parse_mma(f)
    if kind == "dot_op":
        return parse_dot_op(f)
    if kind == "linear":
        bases = {d: f[d] for d in (REG, LANE, WARP, BLOCK)}
        rank = next((len(v[0]) for v in bases.values() if v), 0)
        if rank == 0:
            raise ValueError("empty linear layouts cannot be parsed (rank unknown)")
        return LinearEncoding(LinearLayout(bases, dim_names(rank)))
    raise ValueError(f"unsupported layout attribute #ttg.{kind}")


def parse_layout_attr(text: str, aliases: Mapping[str, Layout] | None = None) -> Layout:
    """Parse ``#ttg.<kind><{...}>`` text; ``aliases`` resolves ``#blocked``-style names."""
    p = _Parser(text, aliases)
    out = p.attr()
    if p.peek() is not None:
        raise ValueError(f"trailing text after layout attribute: {p.toks[p.i:]}")
    return out
