"""Layouts that make `tt.trans` and `tt.reshape` free: given one side's layout, the other
side's layout under which every thread keeps exactly its elements (the op only relabels
coordinates). remove-layout-conversions uses these to propagate layouts through the ops
and to rematerialize them.

The answer is a linear layout (the source's, seen through the op); it is written as a
blocked layout when one describes it exactly, else as `#ttg.linear`.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import Optional, Sequence, Tuple

from ...ir import types as T
from ...ir.core import Operation
from ..layouts import BlockedEncoding, LinearEncoding
from ..linear_layout import LinearLayout

__all__ = ["infer_dst_layout", "infer_src_layout", "encoding_for"]

REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"


def _ll(enc, shape) -> Optional[LinearLayout]:
    try:
        return enc.to_linear_layout(list(shape))
    except Exception:  # shared or unknown layouts
        return None


def _trans(ll: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """`ll` seen through tt.trans: result dim i is source dim order[i]."""
    sizes = [ll.get_out_dim_size(f"dim{d}") for d in range(len(order))]
    bases = {d: [[b[o] for o in order] for b in v] for d, v in ll.bases.items()}
    return LinearLayout(bases, [(f"dim{i}", sizes[o]) for i, o in enumerate(order)])


def _reshape(ll: LinearLayout, new_shape: Sequence[int]) -> LinearLayout:
    """`ll` seen through a row-major reshape to `new_shape`."""
    n = len(ll.out_dims)
    rev = ll.transpose_outs([f"dim{d}" for d in reversed(range(n))])
    m = len(new_shape)
    out = rev.reshape_outs([(f"dim{d}", int(new_shape[d])) for d in reversed(range(m))])
    return out.transpose_outs([f"dim{d}" for d in range(m)])


def _dim_of(b) -> Optional[int]:
    nz = [i for i, x in enumerate(b) if x]
    return nz[0] if len(nz) == 1 else (None if not nz else -1)


def _counts(bases, rank: int, order: Sequence[int], zeros_to_next: bool):
    """log2 of the threads (or warps) per dim: each basis steps along one dim; a zero
    basis (broadcast) belongs to the dim of its neighbour."""
    dims = [_dim_of(b) for b in bases]
    if -1 in dims:
        return None
    counts = [0] * rank
    for i, d in enumerate(dims):
        if d is None:
            look = dims[i + 1:] if zeros_to_next else list(reversed(dims[:i]))
            d = next((x for x in look if x is not None), None)
            if d is None:
                d = next((x for x in (reversed(dims[:i]) if zeros_to_next else dims[i + 1:])
                          if x is not None), order[0])
        counts[d] += 1
    return counts


@lru_cache(maxsize=4096)
def _as_blocked(ll: LinearLayout, shape: Tuple[int, ...]) -> Optional[BlockedEncoding]:
    """A blocked layout whose linear layout is exactly `ll` on `shape`, if there is one.
    The fields are read off the bases (sizes per thread are the leading register run along
    each dim, lanes and warps enumerate dims in `order`, repetitions follow `order` too)
    and checked; the decoded order is tried first, the other orders after it."""
    rank = len(shape)
    if any(any(b) for b in ll.bases.get(BLOCK, [])):
        return None
    regs = ll.bases[REG]
    spt, cur, done, k = [1] * rank, None, set(), 0
    for k, b in enumerate(regs + [None]):
        d = None if b is None else _dim_of(b)
        if b is not None and d is None and cur is not None:
            spt[cur] *= 2  # a size per thread larger than the tensor: broadcast registers
            continue
        if d is None or d < 0 or b[d] != spt[d] or d in done:
            break
        if cur is not None and d != cur:
            done.add(cur)
        spt[d] *= 2
        cur = d
    seen: list = []
    for b in regs[:k] + ll.bases[LANE] + ll.bases[WARP] + regs[k:]:
        d = _dim_of(b)
        if d is not None and d >= 0 and d not in seen:
            seen.append(d)
    first = seen + [d for d in reversed(range(rank)) if d not in seen]
    orders = [tuple(first)] + ([o for o in permutations(range(rank)) if o != tuple(first)]
                               if rank <= 3 else [])
    for order in orders:
        for zeros_to_next in (False, True):
            tpw = _counts(ll.bases[LANE], rank, order, zeros_to_next)
            wpc = _counts(ll.bases[WARP], rank, order, zeros_to_next)
            if tpw is None or wpc is None:
                return None
            try:
                cand = BlockedEncoding(spt, [1 << t for t in tpw], [1 << w for w in wpc],
                                       list(order))
                if cand.to_linear_layout(list(shape)) == ll:
                    return cand
            except ValueError:
                return None
    return None


def encoding_for(ll: LinearLayout, shape: Sequence[int]):
    """The layout attribute for `ll`: blocked when possible, else linear."""
    shape = tuple(int(s) for s in shape)
    if ll.in_dims != [REG, LANE, WARP, BLOCK]:
        return None
    blocked = _as_blocked(ll, shape)
    if blocked is not None:
        return blocked
    try:
        return LinearEncoding(ll)
    except ValueError:
        return None


def _same_layout_for_trans(op: Operation, enc, forward: bool):
    order = [int(x) for x in op.attr("order")]
    if isinstance(enc, BlockedEncoding) and enc.cta_layout.is_default():
        # Permute the fields (upstream's inferTransOpEncoding for blocked layouts).
        if not forward:
            inv = [0] * len(order)
            for i, o in enumerate(order):
                inv[o] = i
            order = inv
        where = {o: i for i, o in enumerate(order)}
        return BlockedEncoding([enc.size_per_thread[o] for o in order],
                               [enc.threads_per_warp[o] for o in order],
                               [enc.warps_per_cta[o] for o in order],
                               [where[d] for d in enc.order])
    return None


def infer_dst_layout(op: Operation, src_enc):
    """Layout of `op`'s result that makes it free when its operand has `src_enc`."""
    src_t, dst_t = op.operand(0).type, op.results[0].type
    if not isinstance(src_t, T.TensorType) or not isinstance(dst_t, T.TensorType):
        return None
    if op.name == "tt.trans":
        enc = _same_layout_for_trans(op, src_enc, True)
        if enc is not None:
            return enc
        ll = _ll(src_enc, src_t.dims)
        return None if ll is None else encoding_for(
            _trans(ll, [int(x) for x in op.attr("order")]), dst_t.dims)
    if op.name == "tt.reshape" and not op.attr("allow_reorder", False):
        ll = _ll(src_enc, src_t.dims)
        return None if ll is None else encoding_for(_reshape(ll, dst_t.dims), dst_t.dims)
    return None


def infer_src_layout(op: Operation, dst_enc):
    """Layout of `op`'s operand that makes it free when its result has `dst_enc`."""
    src_t, dst_t = op.operand(0).type, op.results[0].type
    if not isinstance(src_t, T.TensorType) or not isinstance(dst_t, T.TensorType):
        return None
    if op.name == "tt.trans":
        enc = _same_layout_for_trans(op, dst_enc, False)
        if enc is not None:
            return enc
        order = [int(x) for x in op.attr("order")]
        inv = [0] * len(order)
        for i, o in enumerate(order):
            inv[o] = i
        ll = _ll(dst_enc, dst_t.dims)
        return None if ll is None else encoding_for(_trans(ll, inv), src_t.dims)
    if op.name == "tt.reshape" and not op.attr("allow_reorder", False):
        ll = _ll(dst_enc, dst_t.dims)
        return None if ll is None else encoding_for(_reshape(ll, src_t.dims), src_t.dims)
    return None

