"""`arith.*`: constants, integer and float arithmetic, comparisons, select, casts.

Integers are signless in the IR and stored as signed numpy ints: unsigned ops reinterpret
through `.view(uintN)` (free). numpy already wraps on overflow. i1 is numpy bool, whose own
arithmetic is logical, so the ops that differ for a 1-bit two's-complement integer
(add/sub/mul, signed min/max and compares where true == -1) have explicit i1 cases.
Results of ops on emulated floats (bf16, fp8) are rounded back to the type by `rounder`.
"""
from __future__ import annotations

import numpy as np

from tritium.ir import types as T
from tritium.ir.attrs import DenseElementsAttr
from tritium.ir.ops import CMPF_PREDICATES, CMPI_PREDICATES

from .dtypes import (compute_dtype, convert_float, from_bits, bits_of, is_emulated, rounder,
                     scalar_array, unsigned)
from .evaluator import lead, register


def _rtype(op):
    return op.results[0].type


# ------------------------------------------------------------------ constants
@register("ub.poison")
def _poison(pc, op):
    t = _rtype(op)   # never read before it is overwritten: zeros
    one = scalar_array(0, t)
    arr = np.broadcast_to(one.reshape((1,) * (t.rank + 1)), (1,) + t.shape) \
        if isinstance(t, T.TensorType) else one
    return lambda env: arr


@register("arith.constant")
def _constant(pc, op):
    attr = op.attributes["value"]
    t = _rtype(op)
    if isinstance(t, T.TensorType):
        raw = attr.value if isinstance(attr, DenseElementsAttr) else attr.value
        if np.ndim(raw) == 0:
            one = scalar_array(raw, t.element_type)
            arr = np.broadcast_to(one.reshape((1,) * (t.rank + 1)), (1,) + t.shape)
        else:  # a non-splat dense constant
            flat = np.asarray(raw, dtype=np.float64 if T.is_float(t) else None).reshape(-1)
            vals = np.concatenate([scalar_array(v, t.element_type) for v in flat])
            arr = vals.reshape((1,) + t.shape)
    else:
        arr = scalar_array(attr.value, t)
    if arr.flags.owndata:
        arr.setflags(write=False)   # shared by every launch: handlers must never write inputs
    return lambda env: arr


# ------------------------------------------------------------------ integer arithmetic
def _signed(a):
    return -a.astype(np.int8) if a.dtype == np.bool_ else a


def _uns(a):
    return a.astype(np.uint8) if a.dtype == np.bool_ else a.view(unsigned(a.dtype))


def _int_binary(name, fn, bool_fn=None):
    def factory(pc, op):
        is_bool = compute_dtype(_rtype(op)) == np.bool_
        if is_bool and bool_fn is not None:
            return lambda env, a, b: bool_fn(a, b)
        return lambda env, a, b: fn(a, b)
    register(name)(factory)


_int_binary("arith.addi", np.add, np.not_equal)
_int_binary("arith.subi", np.subtract, np.not_equal)
_int_binary("arith.muli", np.multiply, np.logical_and)
_int_binary("arith.andi", np.bitwise_and)
_int_binary("arith.ori", np.bitwise_or)
_int_binary("arith.xori", np.bitwise_xor)
_int_binary("arith.maxsi", np.maximum, np.logical_and)   # as i1, true is -1
_int_binary("arith.minsi", np.minimum, np.logical_or)
_int_binary("arith.maxui", lambda a, b: np.maximum(_uns(a), _uns(b)).view(a.dtype),
            np.logical_or)
_int_binary("arith.minui", lambda a, b: np.minimum(_uns(a), _uns(b)).view(a.dtype),
            np.logical_and)


def _nonzero_divisor(b):
    zero = b == 0
    if zero.any():
        return np.where(zero, np.ones((), b.dtype), b), zero
    return b, None


def _divsi(a, b):
    # C semantics: truncate toward zero; the remainder takes the dividend's sign. A zero
    # divisor gives -1 (as PTX `div.u32` does) instead of trapping.
    if a.dtype == np.bool_:       # i1: -1 / -1 == 1 == -1; a zero divisor gives -1
        return a | ~b
    bs, zero = _nonzero_divisor(b)
    r = np.fmod(a, bs)
    q = (a - r) // bs
    return q if zero is None else np.where(zero, np.array(-1, q.dtype), q)


def _remsi(a, b):
    if a.dtype == np.bool_:
        return a & ~b
    bs, zero = _nonzero_divisor(b)
    r = np.fmod(a, bs)
    return r if zero is None else np.where(zero, a, r)


def _divui(a, b):
    if a.dtype == np.bool_:
        return a | ~b
    ua, ub = _uns(a), _uns(b)
    bs, zero = _nonzero_divisor(ub)
    q = ua // bs
    if zero is not None:
        q = np.where(zero, np.array(-1).astype(q.dtype), q)
    return q.view(a.dtype)


def _remui(a, b):
    if a.dtype == np.bool_:
        return a & ~b
    ua, ub = _uns(a), _uns(b)
    bs, zero = _nonzero_divisor(ub)
    r = ua % bs
    if zero is not None:
        r = np.where(zero, ua, r)
    return r.view(a.dtype)


def _ceildivsi(a, b):
    q = _divsi(a, b)
    r = _remsi(a, b)
    return q + ((r != 0) & ((a < 0) == (b < 0))).astype(q.dtype)


def _floordivsi(a, b):
    q = _divsi(a, b)
    r = _remsi(a, b)
    return q - ((r != 0) & ((a < 0) != (b < 0))).astype(q.dtype)


def _ceildivui(a, b):
    q = _divui(a, b)
    r = _remui(a, b)
    return (_uns(q) + (r != 0).astype(_uns(q).dtype)).view(a.dtype)


for _n, _f in [("divsi", _divsi), ("remsi", _remsi), ("divui", _divui), ("remui", _remui),
               ("ceildivsi", _ceildivsi), ("floordivsi", _floordivsi),
               ("ceildivui", _ceildivui)]:
    _int_binary(f"arith.{_n}", _f)


def _shift_amount(b, w):
    """Shift amounts as unsigned, clamped to w-1 (PTX clamps to the width); and the mask of
    lanes that shifted by the full width or more."""
    ub = _uns(b)
    big = ub >= w
    return np.minimum(ub, w - 1), big


def _shli(a, b):
    if a.dtype == np.bool_:
        return a & (b == 0)
    w = a.dtype.itemsize * 8
    sh, big = _shift_amount(b, w)
    r = np.left_shift(a, sh.astype(a.dtype))
    return np.where(big, np.zeros((), a.dtype), r) if big.any() else r


def _shrsi(a, b):
    if a.dtype == np.bool_:
        return a.copy()
    w = a.dtype.itemsize * 8
    sh, _ = _shift_amount(b, w)
    return np.right_shift(a, sh.astype(a.dtype))   # >= w clamps to w-1: a sign fill


def _shrui(a, b):
    if a.dtype == np.bool_:
        return a & (b == 0)
    w = a.dtype.itemsize * 8
    sh, big = _shift_amount(b, w)
    ua = _uns(a)
    r = np.right_shift(ua, sh.astype(ua.dtype))
    if big.any():
        r = np.where(big, np.zeros((), ua.dtype), r)
    return r.view(a.dtype)


_int_binary("arith.shli", _shli)
_int_binary("arith.shrsi", _shrsi)
_int_binary("arith.shrui", _shrui)


# ------------------------------------------------------------------ float arithmetic
def _float_op(name, fn, arity=2):
    def factory(pc, op):
        rnd = rounder(_rtype(op))
        if rnd is None:
            return lambda env, *a: fn(*a)
        return lambda env, *a: rnd(fn(*a))
    register(name)(factory)


_float_op("arith.addf", np.add)
_float_op("arith.subf", np.subtract)
_float_op("arith.mulf", np.multiply)
_float_op("arith.divf", np.divide)
_float_op("arith.remf", np.fmod)
_float_op("arith.negf", np.negative, 1)
_float_op("arith.maximumf", np.maximum)     # NaN-propagating
_float_op("arith.minimumf", np.minimum)
_float_op("arith.maxnumf", np.fmax)         # NaN-ignoring
_float_op("arith.minnumf", np.fmin)


# ------------------------------------------------------------------ comparisons and select
_ICMP = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: _signed(a) < _signed(b),
    "sle": lambda a, b: _signed(a) <= _signed(b),
    "sgt": lambda a, b: _signed(a) > _signed(b),
    "sge": lambda a, b: _signed(a) >= _signed(b),
    "ult": lambda a, b: _uns(a) < _uns(b),
    "ule": lambda a, b: _uns(a) <= _uns(b),
    "ugt": lambda a, b: _uns(a) > _uns(b),
    "uge": lambda a, b: _uns(a) >= _uns(b),
}


def _ordered(a, b):
    return ~(np.isnan(a) | np.isnan(b))


def _shape_of(a, b):
    return np.broadcast_shapes(a.shape, b.shape)


_FCMP = {
    "false": lambda a, b: np.zeros(_shape_of(a, b), np.bool_),
    "oeq": lambda a, b: a == b,
    "ogt": lambda a, b: a > b,
    "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b,
    "one": lambda a, b: (a != b) & _ordered(a, b),
    "ord": _ordered,
    "ueq": lambda a, b: (a == b) | ~_ordered(a, b),
    "ugt": lambda a, b: ~(a <= b),
    "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b),
    "une": lambda a, b: a != b,
    "uno": lambda a, b: ~_ordered(a, b),
    "true": lambda a, b: np.ones(_shape_of(a, b), np.bool_),
}


def _predicate(op, names):
    p = op.attr("predicate")
    if isinstance(p, str):
        return p
    return names[int(p)]


@register("arith.cmpi")
def _cmpi(pc, op):
    fn = _ICMP[_predicate(op, CMPI_PREDICATES)]
    return lambda env, a, b: fn(a, b)


@register("arith.cmpf")
def _cmpf(pc, op):
    fn = _FCMP[_predicate(op, CMPF_PREDICATES)]
    return lambda env, a, b: fn(a, b)


@register("arith.select")
def _select(pc, op):
    def run(env, c, a, b):
        return np.where(lead(c, max(a.ndim, b.ndim)), a, b)
    return run


# ------------------------------------------------------------------ casts
def _int_cast(src_t, dst_t, signed):
    sd, dd = compute_dtype(src_t), compute_dtype(dst_t)
    if dd == np.bool_:
        return lambda env, a: (a & 1).astype(np.bool_) if a.dtype != np.bool_ else a
    if sd == np.bool_:
        if signed:
            return lambda env, a: -(a.astype(dd))
        return lambda env, a: a.astype(dd)
    if dd.itemsize > sd.itemsize and not signed:
        return lambda env, a: a.view(unsigned(sd)).astype(dd)
    return lambda env, a: a.astype(dd)


@register("arith.extsi", "arith.index_cast")
def _extsi(pc, op):
    return _int_cast(op.operand(0).type, _rtype(op), True)


@register("arith.trunci")
def _trunci(pc, op):
    return _int_cast(op.operand(0).type, _rtype(op), True)


@register("arith.extui")
def _extui(pc, op):
    return _int_cast(op.operand(0).type, _rtype(op), False)


def _int_to_float(signed):
    def factory(pc, op):
        dst = _rtype(op).element_type
        dd = compute_dtype(dst)
        emulated = is_emulated(dst)

        def run(env, a):
            if a.dtype == np.bool_:
                a = -a.astype(np.int8) if signed else a.astype(np.int8)
            elif not signed:
                a = a.view(unsigned(a.dtype))
            if emulated:
                return convert_float(a.astype(np.float64), dst)
            return a.astype(dd)
        return run
    return factory


register("arith.sitofp")(_int_to_float(True))
register("arith.uitofp")(_int_to_float(False))


def _float_to_int(signed):
    def factory(pc, op):
        dd = compute_dtype(_rtype(op))
        if dd == np.bool_:
            return lambda env, x: np.trunc(x) != 0
        target = dd if signed else unsigned(dd)
        info = np.iinfo(target)
        lo, hi = float(info.min), float(info.max)

        def run(env, x):
            # Saturating, NaN -> 0, like the GPU's cvt.rzi.
            t = np.trunc(x.astype(np.float64))
            over = t >= hi
            under = t <= lo
            nan = np.isnan(t)
            r = np.where(over | under | nan, 0.0, t).astype(target)
            if over.any():
                r[over] = info.max
            if under.any():
                r[under] = info.min
            return r if signed else r.view(dd)
        return run
    return factory


register("arith.fptosi")(_float_to_int(True))
register("arith.fptoui")(_float_to_int(False))


@register("arith.extf", "arith.truncf")
def _fcast(pc, op):
    dst = _rtype(op).element_type
    return lambda env, x: convert_float(x, dst)


@register("arith.bitcast", "tt.bitcast")
def _bitcast(pc, op):
    src, dst = op.operand(0).type.element_type, _rtype(op).element_type
    if src == dst or (isinstance(src, T.PointerType) and isinstance(dst, T.PointerType)):
        return lambda env, x: x
    if isinstance(src, T.PointerType) or isinstance(dst, T.PointerType):
        dd = compute_dtype(dst)
        return lambda env, x: x.view(dd) if x.dtype.itemsize == dd.itemsize else x.astype(dd)

    def run(env, x):
        return from_bits(np.ascontiguousarray(bits_of(x, src)), dst)
    return run


# ------------------------------------------------------------------ layout glue
@register("ttg.convert_layout", "builtin.unrealized_conversion_cast")
def _identity(pc, op):
    return lambda env, x: x


@register("llvm.intr.assume", "ttg.barrier")
def _no_effect(pc, op):
    # Programs run in lock step op by op, so a barrier is already implied.
    return lambda env, *a: None
