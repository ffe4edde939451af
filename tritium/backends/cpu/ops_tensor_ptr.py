"""Block pointers and tensor descriptors on the CPU backend.

A block pointer is, per program, one int64 row `[base, shape.., strides.., offsets..]`
(an array `(P or 1, 1 + 3r)`); a tensor descriptor is `[base, shape.., strides.., padding]`
(`(P or 1, 2 + 2r)`). Both flow through `scf` ops like any other value. An access turns the
row into the element addresses of the block plus the in-bounds mask of the checked dims;
masked-off elements are never touched: loads fill them with the padding (0 or NaN), stores
and reductions drop them. That is upstream's semantics (boundary checks for block
pointers; every dim checked for descriptors, as TMA does).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from tritium.ir import types as T
from tritium.ir.ops import DESCRIPTOR_REDUCE_KINDS, PADDING_OPTIONS

from .dtypes import compute_dtype, from_memory, storage_dtype, to_memory
from .evaluator import register
from .ops_memory import apply_rmw

_NAN = PADDING_OPTIONS["nan"]
_REDUCE = {v: k for k, v in DESCRIPTOR_REDUCE_KINDS.items()}


def _row(*scalars) -> np.ndarray:
    cols = np.broadcast_arrays(*[np.asarray(s, np.int64).reshape(-1) for s in scalars])
    return np.stack(cols, axis=-1)


@register("tt.make_tensor_ptr")
def _make_tensor_ptr(pc, op):
    return lambda env, *xs: _row(*xs)


@register("tt.advance")
def _advance(pc, op):
    r = op.results[0].type.pointee.rank

    def run(env, ptr, *offs):
        out = np.array(np.broadcast_to(ptr, np.broadcast_shapes(ptr.shape, (len(offs[0]), 1))))
        out[:, 1 + 2 * r:] += _row(*offs)
        return out
    return run


def block_addresses(base, shape, strides, starts, block: Sequence[int], itemsize: int,
                    check: Sequence[int]) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """Byte addresses `(P, *block)` of the block at `starts` (element coordinates, each
    `(P,)`) and the mask of elements inside `shape` along the dims in `check` (None: all
    in). Every argument but `block` is per program: `(P,)` arrays (P may be 1)."""
    rank = len(block)
    addr = base.reshape((-1,) + (1,) * rank).astype(np.int64)
    mask = None
    for d in range(rank):
        view = [1] * (rank + 1)
        view[0], view[d + 1] = -1, block[d]
        idx = starts[d].reshape(-1, 1) + np.arange(block[d], dtype=np.int64)
        addr = addr + (idx * (strides[d].reshape(-1, 1) * itemsize)).reshape(view)
        if d in check:
            inside = ((idx >= 0) & (idx < shape[d].reshape(-1, 1))).reshape(view)
            mask = inside if mask is None else mask & inside
    return addr, mask


def _load_block(env, elt, addr, mask, fill, loc):
    """Read `addr` where `mask`, `fill` elsewhere, as a `(P, *block)` compute array."""
    sd = storage_dtype(elt)
    shape = addr.shape if mask is None else np.broadcast_shapes(addr.shape, mask.shape)
    addr = np.broadcast_to(addr, shape)
    mem = env.ctx.memory
    if mask is None or mask.all():
        return from_memory(mem.gather(addr.reshape(-1), sd, loc), elt).reshape(shape)
    m = np.broadcast_to(mask, shape)
    out = np.full(shape, fill, compute_dtype(elt))
    out[m] = from_memory(mem.gather(addr[m], sd, loc), elt)
    return out


def _store_block(env, elt, addr, mask, val, loc):
    sd = storage_dtype(elt)
    shape = np.broadcast_shapes(addr.shape, val.shape, *(() if mask is None else (mask.shape,)))
    addr, val = np.broadcast_to(addr, shape), np.broadcast_to(val, shape)
    if mask is not None and not mask.all():
        m = np.broadcast_to(mask, shape)
        addr, val = addr[m], val[m]
    env.ctx.memory.scatter(addr.reshape(-1), to_memory(val.reshape(-1), elt), sd, loc)


def _fill(elt, padding) -> float:
    return np.nan if padding == _NAN and isinstance(elt, T.FloatType) else 0


def _split_ptr(ptr, r):
    cols = [ptr[:, i] for i in range(1 + 3 * r)]
    return cols[0], cols[1:1 + r], cols[1 + r:1 + 2 * r], cols[1 + 2 * r:]


def block_pointer_load(pc, op):
    ty = op.operand(0).type.pointee
    elt, block, r = ty.element, ty.shape, ty.rank
    check = tuple(op.attr("boundaryCheck", ()))
    fill = _fill(elt, op.attr("padding", 1))
    size = storage_dtype(elt).itemsize

    def run(env, ptr):
        base, shape, strides, offs = _split_ptr(ptr, r)
        addr, mask = block_addresses(base, shape, strides, offs, block, size, check)
        return _load_block(env, elt, addr, mask, fill, op.loc)
    return run


def block_pointer_store(pc, op):
    ty = op.operand(0).type.pointee
    elt, block, r = ty.element, ty.shape, ty.rank
    check = tuple(op.attr("boundaryCheck", ()))
    size = storage_dtype(elt).itemsize

    def run(env, ptr, val):
        base, shape, strides, offs = _split_ptr(ptr, r)
        addr, mask = block_addresses(base, shape, strides, offs, block, size, check)
        _store_block(env, elt, addr, mask, val, op.loc)
    return run


# ------------------------------------------------------------------ tensor descriptors
@register("tt.make_tensor_descriptor")
def _make_desc(pc, op):
    padding = op.attr("padding", 1)
    return lambda env, *xs: _row(*xs, padding)


def descriptor_row(base_addr: int, shape, strides, padding: str) -> np.ndarray:
    """The runtime value of a host `TensorDescriptor` kernel argument."""
    return _row(base_addr, *shape, *strides, PADDING_OPTIONS[padding])


def _split_desc(desc, r):
    cols = [desc[:, i] for i in range(2 + 2 * r)]
    return cols[0], cols[1:1 + r], cols[1 + r:1 + 2 * r], cols[1 + 2 * r]


def _desc_block(op, desc_index=0):
    ty = op.operand(desc_index).type.block
    return ty.element, ty.shape, ty.rank, storage_dtype(ty.element).itemsize


def _desc_addresses(desc, idx, block, size):
    r = len(block)
    base, shape, strides, padding = _split_desc(desc, r)
    starts = [np.asarray(i, np.int64).reshape(-1) for i in idx]
    addr, mask = block_addresses(base, shape, strides, starts, block, size, range(r))
    return addr, mask, padding


def _padding_fill(elt, padding):
    """Per-program fill values `(P, 1, ..)` for a load from descriptors `padding`."""
    if not isinstance(elt, T.FloatType):
        return 0
    return np.where(padding == _NAN, np.nan, 0.0)


def _masked_fill(out, mask, fill):
    if isinstance(fill, np.ndarray):
        fill = fill.reshape((-1,) + (1,) * (out.ndim - 1))
        if np.isnan(fill).any():
            out[...] = np.where(np.broadcast_to(mask, out.shape), out, fill)
    return out


@register("tt.descriptor_load")
def _desc_load(pc, op):
    elt, block, r, size = _desc_block(op)

    def run(env, desc, *idx):
        addr, mask, padding = _desc_addresses(desc, idx, block, size)
        out = _load_block(env, elt, addr, mask, 0, op.loc)
        return out if mask is None else _masked_fill(out, mask, _padding_fill(elt, padding))
    return run


@register("tt.descriptor_store")
def _desc_store(pc, op):
    elt, block, r, size = _desc_block(op)

    def run(env, desc, src, *idx):
        addr, mask, _ = _desc_addresses(desc, idx, block, size)
        _store_block(env, elt, addr, mask, src, op.loc)
    return run


@register("tt.descriptor_reduce")
def _desc_reduce(pc, op):
    elt, block, r, size = _desc_block(op)
    kind = _REDUCE[op.attr("kind")]
    if kind == "add" and isinstance(elt, T.FloatType):
        kind = "fadd"
    sd = storage_dtype(elt)

    def run(env, desc, src, *idx):
        addr, mask, _ = _desc_addresses(desc, idx, block, size)
        shape = np.broadcast_shapes(addr.shape, src.shape)
        a = np.broadcast_to(addr, shape)
        v = np.asarray(np.broadcast_to(src, shape), compute_dtype(elt))
        if mask is not None:
            m = np.broadcast_to(mask, shape)
            a, v = a[m], v[m]
        a, v = a.reshape(-1), v.reshape(-1)
        for view, ix, lanes in env.ctx.memory.locate(a, sd, "descriptor_reduce", op.loc):
            apply_rmw(kind, view, ix, v if lanes is None else v[lanes], elt, False)
    return run


def _gather_addresses(desc, x, y, block, size):
    base, shape, strides, padding = _split_desc(desc, 2)
    rows = np.asarray(x, np.int64)                                    # (P|1, N)
    cols = np.asarray(y, np.int64).reshape(-1, 1) + np.arange(block[1], dtype=np.int64)
    addr = (base.reshape(-1, 1, 1) + rows[:, :, None] * (strides[0].reshape(-1, 1, 1) * size)
            + cols[:, None, :] * (strides[1].reshape(-1, 1, 1) * size))
    mask = (((rows >= 0) & (rows < shape[0].reshape(-1, 1)))[:, :, None]
            & ((cols >= 0) & (cols < shape[1].reshape(-1, 1)))[:, None, :])
    return addr, mask, padding


@register("tt.descriptor_gather")
def _desc_gather(pc, op):
    elt, block, r, size = _desc_block(op)

    def run(env, desc, x, y):
        addr, mask, padding = _gather_addresses(desc, x, y, block, size)
        out = _load_block(env, elt, addr, mask, 0, op.loc)
        return _masked_fill(out, mask, _padding_fill(elt, padding))
    return run


@register("tt.descriptor_scatter")
def _desc_scatter(pc, op):
    elt, block, r, size = _desc_block(op)

    def run(env, desc, x, y, src):
        addr, mask, _ = _gather_addresses(desc, x, y, block, size)
        _store_block(env, elt, addr, mask, src, op.loc)
    return run
