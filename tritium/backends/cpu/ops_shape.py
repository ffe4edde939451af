"""Shape ops: make_range, splat, broadcast, expand_dims, reshape, trans, join, split, cat,
histogram, gather. Tensor axis i is numpy axis i+1 (axis 0 indexes programs); splat and
broadcast return stride-0 views, so they cost nothing until something reads them.
"""
from __future__ import annotations

import numpy as np

from .evaluator import register


def _shape(op):
    return tuple(op.results[0].type.shape)


@register("tt.make_range")
def _make_range(pc, op):
    arr = np.arange(int(op.attr("start")), int(op.attr("end")), dtype=np.int32)[None]
    arr.setflags(write=False)
    return lambda env: arr


@register("tt.splat")
def _splat(pc, op):
    shape = _shape(op)
    ones = (1,) * len(shape)

    def run(env, x):
        n = x.shape[0]
        return np.broadcast_to(x.reshape((n,) + ones), (n,) + shape)
    return run


@register("tt.broadcast")
def _broadcast(pc, op):
    shape = _shape(op)
    return lambda env, x: np.broadcast_to(x, (x.shape[0],) + shape)


@register("tt.expand_dims")
def _expand_dims(pc, op):
    axis = int(op.attr("axis")) + 1
    return lambda env, x: np.expand_dims(x, axis)


@register("tt.reshape")
def _reshape(pc, op):
    shape = _shape(op)
    return lambda env, x: x.reshape((x.shape[0],) + shape)


@register("tt.trans")
def _trans(pc, op):
    order = (0,) + tuple(int(o) + 1 for o in op.attr("order"))
    return lambda env, x: np.transpose(x, order)


def _same_programs(*xs):
    n = max(x.shape[0] for x in xs)
    return [x if x.shape[0] == n else np.broadcast_to(x, (n,) + x.shape[1:]) for x in xs]


@register("tt.join")
def _join(pc, op):
    return lambda env, a, b: np.stack(_same_programs(a, b), axis=-1)


@register("tt.split")
def _split(pc, op):
    return lambda env, x: (x[..., 0], x[..., 1])


@register("tt.cat")
def _cat(pc, op):
    return lambda env, a, b: np.concatenate(_same_programs(a, b), axis=1)


@register("tt.histogram")
def _histogram(pc, op):
    bins = _shape(op)[0]

    def run(env, x, mask=None):
        if mask is not None:
            x, mask = _same_programs(x, mask)
        n = x.shape[0]
        v = x.reshape(n, -1).astype(np.int64)
        ok = (v >= 0) & (v < bins)          # values outside [0, bins) are not counted
        if mask is not None:
            ok &= mask.reshape(n, -1)
        flat = (v + (np.arange(n, dtype=np.int64) * bins)[:, None])[ok]
        return np.bincount(flat, minlength=n * bins).reshape(n, bins).astype(np.int32)
    return run


@register("tt.gather")
def _gather(pc, op):
    axis = int(op.attr("axis")) + 1
    loc = op.loc

    def run(env, src, idx):
        src, idx = _same_programs(src, idx)
        n = src.shape[axis]
        i = idx.astype(np.int64)
        if i.size and (i.min() < 0 or i.max() >= n):
            bad = int(i[(i < 0) | (i >= n)].flat[0])
            raise IndexError(f"tt.gather index {bad} out of range [0, {n}) at "
                             f"{loc.file}:{loc.line} in kernel '{env.ctx.kernel}'")
        return np.take_along_axis(src, i, axis=axis)
    return run
