"""Pointer arithmetic, loads, stores and atomics over the launch's `Memory`.

Masked-off lanes are dropped before address translation, so they never touch memory and
need no bounds check. Atomics are applied for every program of the env (a uniform pointer
still means one atomic per program) in program-id order, then lane order, which gives the
returned old values a sequential interpretation even with duplicate addresses.
"""
from __future__ import annotations

import numpy as np

from tritium.ir import types as T
from tritium.ir.ops import ATOMIC_RMW_OPS

from .dtypes import compute_dtype, from_memory, is_emulated, rounder, storage_dtype, to_memory
from .dtypes import unsigned
from .evaluator import register

_RMW_NAMES = {v: k for k, v in ATOMIC_RMW_OPS.items()}


def _pointee(t: T.Type) -> T.Type:
    return t.element_type.pointee


@register("tt.addptr")
def _addptr(pc, op):
    size = storage_dtype(_pointee(op.operand(0).type)).itemsize

    def run(env, ptr, off):
        r = off.astype(np.int64) if size == 1 else np.multiply(off, size, dtype=np.int64)
        if r.shape == ptr.shape or r.shape == np.broadcast_shapes(r.shape, ptr.shape):
            r += ptr                      # in place: one temporary instead of two
            return r
        return ptr + r
    return run


@register("tt.int_to_ptr", "tt.ptr_to_int")
def _ptr_int(pc, op):
    return lambda env, x: x.astype(np.int64, copy=False)


def _bshape(*arrays):
    return np.broadcast_shapes(*[a.shape for a in arrays if a is not None])


@register("tt.load")
def _load(pc, op):
    if T.is_block_ptr(op.operand(0).type):
        from .ops_tensor_ptr import block_pointer_load
        return block_pointer_load(pc, op)
    elt = op.results[0].type.element_type
    sd = storage_dtype(elt)
    cd = compute_dtype(elt)
    loc = op.loc

    def run(env, ptr, mask=None, other=None):
        mem = env.ctx.memory
        if mask is None or mask.all():
            shape = _bshape(ptr, mask)
            p = ptr if ptr.shape == shape else np.broadcast_to(ptr, shape)
            raw = mem.gather(p.reshape(-1), sd, loc)
            return from_memory(raw, elt).reshape(shape)
        shape = _bshape(ptr, mask, other)
        m = np.broadcast_to(mask, shape)
        addrs = np.broadcast_to(ptr, shape)[m]
        vals = from_memory(mem.gather(addrs, sd, loc), elt)
        if other is None:
            out = np.zeros(shape, cd)
        else:
            out = np.array(np.broadcast_to(other, shape), dtype=cd)
        out[m] = vals
        return out
    return run


@register("tt.store")
def _store(pc, op):
    if T.is_block_ptr(op.operand(0).type):
        from .ops_tensor_ptr import block_pointer_store
        return block_pointer_store(pc, op)
    elt = op.operand(1).type.element_type
    sd = storage_dtype(elt)
    loc = op.loc

    def run(env, ptr, val, mask=None):
        mem = env.ctx.memory
        shape = _bshape(ptr, val, mask)
        p = np.broadcast_to(ptr, shape)
        v = np.broadcast_to(val, shape)
        if mask is None or mask.all():
            mem.scatter(p.reshape(-1), to_memory(v.reshape(-1), elt), sd, loc)
        else:
            m = np.broadcast_to(mask, shape)
            mem.scatter(p[m], to_memory(v[m], elt), sd, loc)
    return run


# ------------------------------------------------------------------ atomics
def _combine(kind: str, elt: T.Type):
    """(old, val) -> new, in compute dtypes."""
    rnd = rounder(elt)
    is_bool = compute_dtype(elt) == np.bool_

    def uns(f):
        return lambda a, b: f(a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))).view(a.dtype)
    table = {
        "add": np.not_equal if is_bool else np.add,
        "fadd": (lambda a, b: rnd(a + b)) if rnd else np.add,
        "max": np.maximum, "min": np.minimum,
        "umax": np.logical_or if is_bool else uns(np.maximum),
        "umin": np.logical_and if is_bool else uns(np.minimum),
        "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
        "exch": lambda a, b: b,
    }
    return table[kind]


def _ufunc_at(kind: str, elt: T.Type):
    """An in-place `ufunc.at` on the storage view that equals applying the lanes one by one,
    or None when the storage is not the compute type (bf16/fp8/i1)."""
    if is_emulated(elt) or compute_dtype(elt) == np.bool_:
        return None
    table = {"add": np.add.at, "fadd": np.add.at, "max": np.maximum.at, "min": np.minimum.at,
             "and": np.bitwise_and.at, "or": np.bitwise_or.at, "xor": np.bitwise_xor.at}
    if kind in table:
        return table[kind]
    if kind in ("umax", "umin"):
        f = np.maximum.at if kind == "umax" else np.minimum.at
        return lambda view, idx, vals: f(view.view(unsigned(view.dtype)), idx,
                                         vals.view(unsigned(vals.dtype)))
    return None


def _groups(idx: np.ndarray):
    """Lanes sorted stably by address: (order, sorted idx, first-of-group flags)."""
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    start = np.empty(len(sidx), np.bool_)
    start[0] = True
    np.not_equal(sidx[1:], sidx[:-1], out=start[1:])
    return order, sidx, start


def _rounds(order, start):
    """Lane groups such that each group touches distinct addresses, in sequential order:
    round r holds the r-th lane (in lane order) of every address."""
    n = len(order)
    ar = np.arange(n)
    rank = ar - np.maximum.accumulate(np.where(start, ar, 0))
    by_rank = np.argsort(rank, kind="stable")
    counts = np.bincount(rank)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return [order[by_rank[bounds[r]:bounds[r + 1]]] for r in range(len(counts))]


def apply_rmw(kind, view, idx, vals, elt, need_old):
    """Apply lanes (`idx` into the storage `view`, compute-typed `vals`) one after another
    in lane order; return the old values (compute dtype) or None."""
    combine = _combine(kind, elt)
    n = len(idx)
    order, sidx, start = _groups(idx)
    if start.all():                                   # no duplicate addresses
        old = from_memory(view[idx], elt)
        view[idx] = to_memory(combine(old, vals), elt)
        return old
    if not need_old:
        at = _ufunc_at(kind, elt)
        if at is not None:
            at(view, idx, vals)
            return None
        if kind == "exch":
            view[idx] = to_memory(vals, elt)           # last lane wins
            return None
    sv = vals[order]
    if kind == "exch":
        init = from_memory(view[sidx], elt)
        prev = np.empty_like(sv)
        prev[1:] = sv[:-1]
        old_sorted = np.where(start, init, prev)
        view[sidx] = to_memory(sv, elt)
    elif kind == "add" and compute_dtype(elt).kind in "iu":
        # Integer addition is a group: old = initial + exclusive prefix sum within the group.
        cs = np.cumsum(sv, dtype=sv.dtype) - sv
        gs = np.maximum.accumulate(np.where(start, np.arange(n), 0))
        old_sorted = view[sidx] + (cs - cs[gs])
        view[sidx] = old_sorted + sv                   # the group's last lane holds the total
    else:
        old = np.empty(n, vals.dtype)
        for lanes in _rounds(order, start):
            o = from_memory(view[idx[lanes]], elt)
            view[idx[lanes]] = to_memory(combine(o, vals[lanes]), elt)
            old[lanes] = o
        return old
    old = np.empty(n, vals.dtype)
    old[order] = old_sorted
    return old


def _atomic_lanes(env, shape_tail, arrays):
    shape = (env.P,) + tuple(shape_tail)
    return shape, [None if a is None else np.broadcast_to(a, shape).reshape(-1) for a in arrays]


@register("tt.atomic_rmw")
def _atomic_rmw(pc, op):
    code = op.attr("atomic_rmw_op")
    kind = code if isinstance(code, str) else _RMW_NAMES[int(code)]
    elt = op.operand(1).type.element_type
    sd, cd = storage_dtype(elt), compute_dtype(elt)
    tail = op.results[0].type.shape if op.results else op.operand(1).type.shape
    need_old = bool(op.results) and op.results[0].has_uses()
    loc = op.loc

    def run(env, ptr, val, mask=None):
        shape, (p, v, m) = _atomic_lanes(env, tail, (ptr, val, mask))
        old = np.zeros(p.size, cd)
        sel = None if m is None or m.all() else np.flatnonzero(m)
        if sel is not None:
            p, v = p[sel], v[sel]
        for view, idx, lanes in env.ctx.memory.locate(p, sd, "atomic", loc):
            o = apply_rmw(kind, view, idx, v if lanes is None else v[lanes], elt, need_old)
            if o is not None:
                dest = sel if lanes is None else (lanes if sel is None else sel[lanes])
                if dest is None:
                    old = o
                else:
                    old[dest] = o
        return old.reshape(shape)
    return run


@register("tt.atomic_cas")
def _atomic_cas(pc, op):
    elt = op.operand(2).type.element_type
    sd = storage_dtype(elt)
    tail = op.results[0].type.shape
    loc = op.loc

    def run(env, ptr, cmp, val):
        shape, (p, c, v) = _atomic_lanes(env, tail, (ptr, cmp, val))
        craw, vraw = to_memory(c, elt), to_memory(v, elt)   # compare bit patterns
        old = np.empty(p.size, sd)
        for view, idx, lanes in env.ctx.memory.locate(p, sd, "atomic_cas", loc):
            ln = np.arange(len(idx)) if lanes is None else lanes   # local index -> lane
            order, _, start = _groups(idx)
            rounds = [np.arange(len(idx))] if start.all() else _rounds(order, start)
            for local in rounds:
                lane_ids = ln[local]
                cur = view[idx[local]]
                hit = cur == craw[lane_ids]
                view[idx[local][hit]] = vraw[lane_ids][hit]
                old[lane_ids] = cur
        return from_memory(old, elt).reshape(shape)
    return run
