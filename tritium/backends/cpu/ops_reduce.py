"""`tt.reduce` and `tt.scan`.

Combine regions that are one known op on the two block arguments map to numpy reductions and
accumulations; two-operand regions that behave like argmax/argmin with ties going to the
smaller index (detected by probing the region on a table of value/index pairs) map to
max + min-of-indices. Every other region is evaluated generically but still vectorized: a
tree reduction pairs neighbours along the axis (log2 n steps, each one evaluation of the
region over everything else at once); scans are Hillis-Steele (log2 n steps). Neighbour
pairing keeps left-to-right order, so associative but non-commutative regions work.
"""
from __future__ import annotations

import numpy as np

from tritium.ir import types as T

from .dtypes import compute_dtype, rounder, unsigned
from .evaluator import Env, lead, register, run_block


# ------------------------------------------------------------------ region analysis
_SIMPLE = {"arith.addf", "arith.addi", "arith.mulf", "arith.muli", "arith.maxnumf",
           "arith.maximumf", "arith.minnumf", "arith.minimumf", "arith.maxsi", "arith.minsi",
           "arith.maxui", "arith.minui", "arith.andi", "arith.ori", "arith.xori"}


def simple_combine(block, n_operands: int):
    """The op name when the region is `ret(op(arg0, arg1))` (either operand order)."""
    if n_operands != 1:
        return None
    ops = [o for o in block]
    if len(ops) != 2:
        return None
    op, ret = ops
    if op.name not in _SIMPLE or ret.operands != [op.results[0]]:
        return None
    if set(op.operands) != set(block.args) or len(op.operands) != 2:
        return None
    return op.name


class _RegionEnv(Env):
    """Env for combine regions: values captured from outside are per-program scalars and are
    reshaped to broadcast against the (P, ..., n, ...) working arrays."""

    __slots__ = ("ndim",)

    def fetch(self, slot):
        v = super().fetch(slot)
        v = lead(v, self.ndim)
        self.vals[slot] = v
        return v


def _combiner(bp, nslots, env, ndim):
    renv = _RegionEnv(nslots, env.prog if env is not None else np.zeros(1, np.int64),
                      env.ctx if env is not None else None, env)
    renv.ndim = ndim

    def combine(a, b):
        out = run_block(bp, renv, list(a) + list(b))
        return [np.broadcast_to(o, x.shape) if o.shape != x.shape else o
                for o, x in zip(out, a)]
    return combine


def _probe_arg(bp, nslots, value_type, index_type):
    """'argmax' / 'argmin' if the region picks the larger / smaller value with ties to the
    smaller index on every probe pair; else None."""
    vals = np.array([-2, -1, 0, 1, 2])
    idxs = np.array([0, 1, 2, 3])
    v1, v2, i1, i2 = [g.reshape(1, -1) for g in np.meshgrid(vals, vals, idxs, idxs,
                                                            indexing="ij")]
    vd, id_ = compute_dtype(value_type), compute_dtype(index_type)
    if vd == np.bool_ or id_ == np.bool_:
        return None
    args = [v1.astype(vd), i1.astype(id_), v2.astype(vd), i2.astype(id_)]
    try:
        rv, ri = _combiner(bp, nslots, None, 2)(args[:2], args[2:])
    except Exception:
        return None
    for kind, better in (("argmax", v1 > v2), ("argmin", v1 < v2)):
        take1 = better | ((v1 == v2) & (i1 < i2))
        if (np.array_equal(rv, np.where(take1, v1, v2).astype(vd))
                and np.array_equal(ri, np.where(take1, i1, i2).astype(id_))):
            return kind
    return None


# ------------------------------------------------------------------ fast kernels
def _uns_reduce(f):
    def run(x, axis):
        return f(x.view(unsigned(x.dtype)), axis=axis).view(x.dtype)
    return run


def _float_sum(x, axis):
    # Accumulate in float64 and round once: at least as accurate as the GPU's tree.
    return np.sum(x, axis=axis, dtype=np.float64 if x.dtype != np.float64 else None)


def _reduce_fn(name, dt):
    is_bool = dt == np.bool_
    table = {
        "arith.addf": _float_sum,
        "arith.mulf": lambda x, axis: np.prod(x, axis=axis, dtype=np.float64),
        "arith.addi": (lambda x, axis: np.bitwise_xor.reduce(x, axis=axis)) if is_bool
        else (lambda x, axis: np.sum(x, axis=axis, dtype=x.dtype)),
        "arith.muli": (lambda x, axis: np.all(x, axis=axis)) if is_bool
        else (lambda x, axis: np.prod(x, axis=axis, dtype=x.dtype)),
        "arith.maxnumf": lambda x, axis: np.fmax.reduce(x, axis=axis),
        "arith.minnumf": lambda x, axis: np.fmin.reduce(x, axis=axis),
        "arith.maximumf": lambda x, axis: np.max(x, axis=axis),
        "arith.minimumf": lambda x, axis: np.min(x, axis=axis),
        "arith.maxsi": (lambda x, axis: np.all(x, axis=axis)) if is_bool
        else (lambda x, axis: np.max(x, axis=axis)),
        "arith.minsi": (lambda x, axis: np.any(x, axis=axis)) if is_bool
        else (lambda x, axis: np.min(x, axis=axis)),
        "arith.maxui": (lambda x, axis: np.any(x, axis=axis)) if is_bool
        else _uns_reduce(np.max),
        "arith.minui": (lambda x, axis: np.all(x, axis=axis)) if is_bool
        else _uns_reduce(np.min),
        "arith.andi": lambda x, axis: np.bitwise_and.reduce(x, axis=axis),
        "arith.ori": lambda x, axis: np.bitwise_or.reduce(x, axis=axis),
        "arith.xori": lambda x, axis: np.bitwise_xor.reduce(x, axis=axis),
    }
    return table[name]


def _scan_fn(name, dt):
    if dt == np.bool_ and name not in ("arith.andi", "arith.ori", "arith.xori"):
        return None
    table = {
        "arith.addf": lambda x, axis: np.cumsum(
            x, axis=axis, dtype=np.float64 if x.dtype != np.float64 else None),
        "arith.mulf": lambda x, axis: np.cumprod(x, axis=axis, dtype=np.float64),
        "arith.addi": lambda x, axis: np.cumsum(x, axis=axis, dtype=x.dtype),
        "arith.muli": lambda x, axis: np.cumprod(x, axis=axis, dtype=x.dtype),
        "arith.maxnumf": lambda x, axis: np.fmax.accumulate(x, axis=axis),
        "arith.minnumf": lambda x, axis: np.fmin.accumulate(x, axis=axis),
        "arith.maximumf": lambda x, axis: np.maximum.accumulate(x, axis=axis),
        "arith.minimumf": lambda x, axis: np.minimum.accumulate(x, axis=axis),
        "arith.maxsi": lambda x, axis: np.maximum.accumulate(x, axis=axis),
        "arith.minsi": lambda x, axis: np.minimum.accumulate(x, axis=axis),
        "arith.maxui": lambda x, axis: np.maximum.accumulate(
            x.view(unsigned(x.dtype)), axis=axis).view(x.dtype),
        "arith.minui": lambda x, axis: np.minimum.accumulate(
            x.view(unsigned(x.dtype)), axis=axis).view(x.dtype),
        "arith.andi": lambda x, axis: np.bitwise_and.accumulate(x, axis=axis),
        "arith.ori": lambda x, axis: np.bitwise_or.accumulate(x, axis=axis),
        "arith.xori": lambda x, axis: np.bitwise_xor.accumulate(x, axis=axis),
    }
    return table[name]


def _finish(fn, elt):
    """Cast a float64 accumulation back to the element type (rounding emulated floats)."""
    dt = compute_dtype(elt)
    rnd = rounder(elt)

    def run(x, axis):
        r = fn(x, axis)
        if r.dtype != dt:
            r = r.astype(dt)
        return rnd(r) if rnd is not None else r
    return run


def _sl(ndim, axis, s):
    idx = [slice(None)] * ndim
    idx[axis] = s
    return tuple(idx)


def tree_reduce(xs, axis, combine):
    n = xs[0].shape[axis]
    nd = xs[0].ndim
    while n > 1:
        h = n // 2
        a = [x[_sl(nd, axis, slice(0, 2 * h, 2))] for x in xs]
        b = [x[_sl(nd, axis, slice(1, 2 * h, 2))] for x in xs]
        r = combine(a, b)
        if n % 2:
            r = [np.concatenate([ri, x[_sl(nd, axis, slice(2 * h, n))]], axis=axis)
                 for ri, x in zip(r, xs)]
        xs, n = r, h + n % 2
    return [np.take(x, 0, axis=axis) for x in xs]


def hillis_steele(xs, axis, combine):
    n = xs[0].shape[axis]
    nd = xs[0].ndim
    d = 1
    while d < n:
        a = [x[_sl(nd, axis, slice(0, n - d))] for x in xs]
        b = [x[_sl(nd, axis, slice(d, n))] for x in xs]
        r = combine(a, b)
        xs = [np.concatenate([x[_sl(nd, axis, slice(0, d))], ri], axis=axis)
              for x, ri in zip(xs, r)]
        d *= 2
    return xs


# ------------------------------------------------------------------ ops
def _region(pc, op):
    block = op.regions[0].entry
    bp = pc.block_plan(block)
    return block, bp


@register("tt.reduce")
def _reduce(pc, op):
    axis = int(op.attr("axis")) + 1
    n = op.num_operands
    block, bp = _region(pc, op)
    elts = [v.type.element_type for v in op.operands]
    simple = simple_combine(block, n)
    fast = None
    if simple is not None:
        fast = _finish(_reduce_fn(simple, compute_dtype(elts[0])), elts[0])
    arg = None
    if n == 2 and isinstance(elts[1], T.IntegerType) and not _captures(block):
        arg = _probe_arg(bp, len(pc.slots), elts[0], elts[1])

    def run(env, *xs):
        if xs[0].shape[axis] == 1:
            out = [np.take(x, 0, axis=axis) for x in xs]
        elif fast is not None:
            out = [fast(xs[0], axis)]
        elif arg is not None and not (xs[0].dtype.kind == "f" and np.isnan(xs[0]).any()):
            v, i = _same_programs(xs[0], xs[1])
            best = (np.max if arg == "argmax" else np.min)(v, axis=axis)
            hit = v == np.expand_dims(best, axis)
            big = np.iinfo(i.dtype).max
            out = [best, np.min(np.where(hit, i, big), axis=axis)]
        else:
            xs = _same_programs(*xs)
            out = tree_reduce(list(xs), axis, _combiner(bp, len(env.vals), env, xs[0].ndim))
        return out[0] if n == 1 else out
    run.strategy = simple or arg or "generic"      # for tests and debugging
    return run


@register("tt.scan")
def _scan(pc, op):
    axis = int(op.attr("axis")) + 1
    reverse = bool(op.attr("reverse", False))
    n = op.num_operands
    block, bp = _region(pc, op)
    elts = [v.type.element_type for v in op.operands]
    simple = simple_combine(block, n)
    fast = None
    if simple is not None:
        f = _scan_fn(simple, compute_dtype(elts[0]))
        fast = _finish(f, elts[0]) if f is not None else None

    def run(env, *xs):
        xs = _same_programs(*xs)
        if reverse:
            xs = [np.flip(x, axis) for x in xs]
        if fast is not None:
            out = [fast(xs[0], axis)]
        else:
            out = hillis_steele(list(xs), axis, _combiner(bp, len(env.vals), env, xs[0].ndim))
        if reverse:
            out = [np.flip(o, axis) for o in out]
        return out[0] if n == 1 else out
    run.strategy = simple if fast is not None else "generic"
    return run


def _same_programs(*xs):
    m = max(x.shape[0] for x in xs)
    return [x if x.shape[0] == m else np.broadcast_to(x, (m,) + x.shape[1:]) for x in xs]


def _captures(block) -> bool:
    """Does the region use values defined outside it?"""
    inside = set(block.args)
    for op in block:
        for r in op.walk():
            inside.update(r.results)
            for reg in r.regions:
                for b in reg.blocks:
                    inside.update(b.args)
    for op in block:
        for r in op.walk():
            if any(v not in inside for v in r.operands):
                return True
    return False
