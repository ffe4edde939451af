"""The lattice value of AxisInfo (what is known of a value per dimension) and the transfer
rule of every op it understands; `axis_info.AxisInfoAnalysis` drives them over a function.

Semantics, for a value V (a scalar counts as rank 1, shape [1]) and each dimension d:
contiguity C[d] — V splits along d into aligned groups of C elements stepping by +1 (one
element, for pointers); divisibility D[d] — a power of two dividing V at every group
start (bytes, for pointers); constancy K[d] — aligned groups of K equal elements;
constant — the value of every element, when known.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import types as T
from ..ir.attrs import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, IntegerAttr)
from ..ir.core import Operation, Value

__all__ = ["AxisInfo", "KMAX", "RULES", "highest_pow2_divisor", "shape_of", "elem_bytes",
           "with_hints"]

# Divisibility of 0; also the cap of every divisibility (upstream: highest divisor of 0).
KMAX = 1 << 62


def highest_pow2_divisor(v: int) -> int:
    if v == 0:
        return KMAX
    return min(v & -v, KMAX)


def _gcd(*xs: int) -> int:
    out = 0
    for x in xs:
        out = gcd(out, x)
    return out


@dataclass(frozen=True)
class AxisInfo:
    contiguity: Tuple[int, ...]
    divisibility: Tuple[int, ...]
    constancy: Tuple[int, ...]
    constant: Optional[int] = None
    # `ub.poison`: a value never read, so any join with it is the other side. Its fields are
    # pessimistic, for the rules of ops that would read it.
    top: bool = False

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @classmethod
    def pessimistic(cls, rank: int) -> "AxisInfo":
        return cls((1,) * rank, (1,) * rank, (1,) * rank)

    @classmethod
    def of_constant(cls, value: int, shape: Sequence[int]) -> "AxisInfo":
        return cls((1,) * len(shape), (highest_pow2_divisor(value),) * len(shape),
                   tuple(shape), value)

    def div_at(self, d: int, g: int, size: int) -> int:
        """Divisibility of V at every index along d that is a multiple of g (the grouping
        of some other value); `size` is the extent of dim d."""
        c, dv = self.contiguity[d], self.divisibility[d]
        if c == 1 or size == 1 or g % c == 0:
            return dv
        return min(dv, g)

    def div_all(self, shape: Sequence[int]) -> int:
        """A power of two dividing every element."""
        if self.constant is not None:
            return highest_pow2_divisor(self.constant)
        best = 1
        for d in range(self.rank):
            if self.contiguity[d] == 1 or shape[d] == 1:
                best = max(best, self.divisibility[d])
        return best

    def join(self, other: "AxisInfo", shape: Sequence[int]) -> "AxisInfo":
        """What holds of a value that is either `self` or `other` (gcd per dim)."""
        if self.top or other.top:
            return other if self.top else self
        cont, div, kon = [], [], []
        for d in range(self.rank):
            c = gcd(self.contiguity[d], other.contiguity[d])
            cont.append(c)
            div.append(gcd(self.div_at(d, c, shape[d]), other.div_at(d, c, shape[d])))
            kon.append(gcd(self.constancy[d], other.constancy[d]))
        const = self.constant if self.constant == other.constant else None
        return AxisInfo(tuple(cont), tuple(div), tuple(kon), const)

    def __str__(self) -> str:
        c = "" if self.constant is None else f", constant = {self.constant}"
        return (f"{{contiguity = {list(self.contiguity)}, divisibility = "
                f"{list(self.divisibility)}, constancy = {list(self.constancy)}{c}}}")


# ---------------------------------------------------------------- value helpers
def shape_of(v: Value) -> Tuple[int, ...]:
    t = v.type
    return tuple(t.dims) if isinstance(t, T.TensorType) else (1,)


def elem_bytes(t: T.Type) -> int:
    """Bytes of the pointee of a pointer (tensor) type; 1 when unknown."""
    elt = t.element_type
    if isinstance(elt, T.PointerType):
        bits = getattr(elt.pointee, "bitwidth", None)
        if isinstance(bits, int) and not isinstance(elt.pointee, T.TensorType):
            return max(1, bits // 8)
    return 1


def _int_width(t: T.Type) -> int:
    elt = t.element_type
    return elt.width if isinstance(elt, T.IntegerType) else 64


def _wrap(v: int, width: int) -> int:
    if width == 1:
        return v & 1
    v &= (1 << width) - 1
    return v - (1 << width) if v >= 1 << (width - 1) else v


def _unsigned(v: int, width: int) -> int:
    return v & ((1 << width) - 1)


def _hint(attr) -> Optional[List[int]]:
    if isinstance(attr, DenseArrayAttr):
        return [int(x) for x in attr.value]
    if isinstance(attr, IntegerAttr):
        return [int(attr.value)]
    if isinstance(attr, DenseElementsAttr):
        return None if isinstance(attr.value, (list, tuple)) else [int(attr.value)]
    if isinstance(attr, ArrayAttr):
        return [int(a.value) for a in attr.value]
    return None


HINTS = (("tt.contiguity", "contiguity"), ("tt.divisibility", "divisibility"),
         ("tt.constancy", "constancy"))


def with_hints(info: AxisInfo, attrs: Dict[str, object], suffix: str = "") -> AxisInfo:
    """User promises (tl.multiple_of / max_contiguous / max_constancy) replace what the
    rules derived, as upstream does. `suffix` selects the per-argument hints a loop op
    carries for its region arguments (`tt.divisibility_arg1`)."""
    fields = {}
    for key, field in HINTS:
        vals = _hint(attrs.get(key + suffix))
        if vals is not None:
            if len(vals) == 1 and info.rank > 1:
                vals = vals * info.rank
            if len(vals) == info.rank:
                fields[field] = tuple(max(1, v) for v in vals)
    if not fields:
        return info
    return AxisInfo(fields.get("contiguity", info.contiguity),
                    fields.get("divisibility", info.divisibility),
                    fields.get("constancy", info.constancy), info.constant)


# ---------------------------------------------------------------- rules
Rule = Callable[[Operation, List[AxisInfo], Tuple[int, ...]], Optional[AxisInfo]]
RULES: Dict[str, Rule] = {}


def rule(*names: str):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def _binary(op: Operation, a: AxisInfo, b: AxisInfo, shape, const, contiguity, divisibility,
            constancy) -> AxisInfo:
    """Upstream's BinaryOpVisitorImpl: a known constant result wins, else per-dim rules
    (`divisibility(d, c)` gets the result contiguity c)."""
    if const is not None:
        return AxisInfo.of_constant(_wrap(const, _int_width(op.results[0].type)), shape)
    cont, div, kon = [], [], []
    for d in range(len(shape)):
        c = contiguity(d)
        cont.append(c)
        div.append(max(1, min(KMAX, divisibility(d, c))))
        kon.append(constancy(d))
    return AxisInfo(tuple(cont), tuple(div), tuple(kon))


def _both_const(a: AxisInfo, b: AxisInfo) -> bool:
    return a.constant is not None and b.constant is not None


@rule("arith.addi", "arith.subi", "tt.addptr")
def _add_sub(op, ins, shape):
    a, b = ins
    sub = op.name == "arith.subi"
    scale = elem_bytes(op.results[0].type) if op.name == "tt.addptr" else 1
    const = None
    if _both_const(a, b):
        const = a.constant - b.constant if sub else a.constant + b.constant * scale

    def contiguity(d):
        if sub:  # a decreasing rhs never makes an increasing result
            return gcd(a.contiguity[d], b.constancy[d])
        return max(gcd(a.constancy[d], b.contiguity[d]), gcd(a.contiguity[d], b.constancy[d]))

    def divisibility(d, c):
        return gcd(a.div_at(d, c, shape[d]), min(KMAX, b.div_at(d, c, shape[d]) * scale))

    return _binary(op, a, b, shape, const, contiguity, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


@rule("arith.muli")
def _mul(op, ins, shape):
    a, b = ins
    const = a.constant * b.constant if _both_const(a, b) else None

    def contiguity(d):  # x * 1 = x
        return max(a.contiguity[d] if b.constant == 1 else 1,
                   b.contiguity[d] if a.constant == 1 else 1)

    def divisibility(d, c):
        if b.constant == 1:
            return a.div_at(d, c, shape[d])
        if a.constant == 1:
            return b.div_at(d, c, shape[d])
        return a.div_at(d, 1, shape[d]) * b.div_at(d, 1, shape[d])

    return _binary(op, a, b, shape, const, contiguity, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


def _run_block(run: AxisInfo, bound: AxisInfo, d: int, shape) -> int:
    """Aligned blocks of `run` that are g consecutive integers starting at a multiple of g,
    over which `bound` is one constant that g divides (upstream asks for a fully
    contiguous run and a fully constant bound; this is the same argument per block)."""
    return _gcd(run.contiguity[d], run.divisibility[d], bound.constancy[d],
                bound.div_at(d, 1, shape[d]))


@rule("arith.divsi", "arith.divui")
def _div(op, ins, shape):
    a, b = ins
    width = _int_width(op.results[0].type)
    const = None
    if _both_const(a, b) and b.constant != 0:
        x, y = a.constant, b.constant
        if op.name == "arith.divui":
            x, y = _unsigned(x, width), _unsigned(y, width)
        q = abs(x) // abs(y)
        const = q if (x >= 0) == (y >= 0) else -q

    def contiguity(d):
        return a.contiguity[d] if b.constant == 1 else 1

    def constancy(d):
        # [g*m, g*m+1, ..., g*m+g-1] / q is constant when g divides q.
        return max(gcd(a.constancy[d], b.constancy[d]), _run_block(a, b, d, shape))

    def divisibility(d, c):
        if a.constant == 0 or b.constant == 1:
            return a.divisibility[d]
        if b.constant is not None and b.constant != 0 and \
                abs(b.constant) & (abs(b.constant) - 1) == 0 and a.contiguity[d] == 1:
            return max(1, a.divisibility[d] // abs(b.constant))
        return 1

    return _binary(op, a, b, shape, const, contiguity, divisibility, constancy)


@rule("arith.remsi", "arith.remui")
def _rem(op, ins, shape):
    a, b = ins
    width = _int_width(op.results[0].type)
    const = None
    if _both_const(a, b) and b.constant != 0:
        x, y = a.constant, b.constant
        if op.name == "arith.remui":
            x, y = _unsigned(x, width), _unsigned(y, width)
        r = abs(x) % abs(y)
        const = r if x >= 0 else -r
    elif b.constant == 1:
        const = 0

    def contiguity(d):
        # [g*m, ..., g*m+g-1] % q does not wrap when g divides q.
        return _run_block(a, b, d, shape)

    def divisibility(d, c):
        # a - k*b: whatever divides both at the result's group starts
        return gcd(a.div_at(d, c, shape[d]), b.div_at(d, c, shape[d]))

    return _binary(op, a, b, shape, const, contiguity, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


@rule("arith.andi", "arith.ori", "arith.xori")
def _logical(op, ins, shape):
    a, b = ins
    const = None
    if _both_const(a, b):
        const = {"arith.andi": a.constant & b.constant, "arith.ori": a.constant | b.constant,
                 "arith.xori": a.constant ^ b.constant}[op.name]

    def divisibility(d, c):
        da, db = a.div_at(d, 1, shape[d]), b.div_at(d, 1, shape[d])
        # low zero bits: `and` keeps either side's, `or`/`xor` only the common ones
        return max(da, db) if op.name == "arith.andi" else min(da, db)

    return _binary(op, a, b, shape, const, lambda d: 1, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


@rule("arith.shli")
def _shl(op, ins, shape):
    a, b = ins
    const = None
    if _both_const(a, b) and 0 <= b.constant < 64:
        const = a.constant << b.constant
    shift = b.constant if b.constant is not None and 0 <= b.constant < 64 else None

    def contiguity(d):
        return a.contiguity[d] if shift == 0 else 1

    def divisibility(d, c):
        return a.div_at(d, c, shape[d]) << (shift or 0)

    return _binary(op, a, b, shape, const, contiguity, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


@rule("arith.shrsi", "arith.shrui")
def _shr(op, ins, shape):
    a, b = ins
    width = _int_width(op.results[0].type)
    shift = b.constant if b.constant is not None and 0 <= b.constant < 64 else None
    const = None
    if a.constant is not None and shift is not None:
        x = _unsigned(a.constant, width) if op.name == "arith.shrui" else a.constant
        const = x >> shift

    def contiguity(d):
        return a.contiguity[d] if shift == 0 else 1

    def divisibility(d, c):
        if shift is None:
            return 1
        return max(1, a.div_at(d, c, shape[d]) >> shift)

    return _binary(op, a, b, shape, const, contiguity, divisibility,
                   lambda d: gcd(a.constancy[d], b.constancy[d]))


@rule("arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui")
def _max_min(op, ins, shape):
    a, b = ins
    if _both_const(a, b):
        width = _int_width(op.results[0].type)
        x, y = a.constant, b.constant
        if op.name.endswith("ui"):
            x, y = _unsigned(x, width), _unsigned(y, width)
        pick = max if "max" in op.name else min
        return AxisInfo.of_constant(_wrap(pick(x, y), width), shape)
    # Two runs that both step by +1 differ by a constant: max/min picks one run whole.
    return replace(a.join(b, shape), constant=None)


_LT = {2, 6}   # slt, ult  (indices into CMPI_PREDICATES)
_GE = {5, 9}   # sge, uge
_GT = {4, 8}   # sgt, ugt
_LE = {3, 7}   # sle, ule


def _compare(pred: int, x: int, y: int, width: int) -> bool:
    if pred >= 6:
        x, y = _unsigned(x, width), _unsigned(y, width)
    return [x == y, x != y, x < y, x <= y, x > y, x >= y][pred if pred < 6 else pred - 4]


@rule("arith.cmpi")
def _cmpi(op, ins, shape):
    a, b = ins
    pred = op.attr("predicate")
    if _both_const(a, b):
        width = _int_width(op.operand(0).type)
        return AxisInfo.of_constant(int(_compare(pred, a.constant, b.constant, width)), shape)
    kon = []
    for d in range(len(shape)):
        k = gcd(a.constancy[d], b.constancy[d])
        # A run of +1s compared with a constant flips at most at the constant itself, so
        # `x < c` / `x >= c` (and mirrored) are constant over aligned blocks dividing both.
        if pred in _LT | _GE:
            run, bound = a, b
        elif pred in _GT | _LE:
            run, bound = b, a
        else:
            run = None
        if run is not None:
            k = max(k, _run_block(run, bound, d, shape))
        kon.append(k)
    return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(kon))


@rule("arith.select")
def _select(op, ins, shape):
    cond, a, b = ins
    if cond.constant is not None:
        return b if cond.constant == 0 else a
    tensor_cond = isinstance(op.operand(0).type, T.TensorType)
    cont, div, kon = [], [], []
    for d in range(len(shape)):
        ck = cond.constancy[d] if tensor_cond else 0
        c = _gcd(a.contiguity[d], b.contiguity[d], ck)
        cont.append(c)
        kon.append(_gcd(a.constancy[d], b.constancy[d], ck))
        div.append(gcd(a.div_at(d, c, shape[d]), b.div_at(d, c, shape[d])))
    const = a.constant if a.constant is not None and a.constant == b.constant else None
    return AxisInfo(tuple(cont), tuple(div), tuple(kon), const)


@rule("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "tt.bitcast",
      "ttg.convert_layout", "tt.int_to_ptr", "tt.ptr_to_int",
      "builtin.unrealized_conversion_cast")
def _cast(op, ins, shape):
    if not ins:
        return None
    x = ins[0]
    if op.name == "arith.extui" and x.constant is not None and x.constant < 0:
        width = _int_width(op.operand(0).type)
        return AxisInfo(x.contiguity, x.divisibility, x.constancy, _unsigned(x.constant, width))
    if op.name == "arith.trunci" and x.constant is not None:
        return AxisInfo(x.contiguity, x.divisibility, x.constancy,
                        _wrap(x.constant, _int_width(op.results[0].type)))
    return x


@rule("tt.make_range")
def _make_range(op, ins, shape):
    start, end = op.attr("start"), op.attr("end")
    return AxisInfo((end - start,), (highest_pow2_divisor(start),), (1,))


@rule("arith.constant")
def _constant(op, ins, shape):
    attr = op.attributes.get("value")
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, T.IntegerType):
        return AxisInfo.of_constant(int(attr.value), shape)
    if isinstance(attr, BoolAttr):
        return AxisInfo.of_constant(int(attr.value), shape)
    if isinstance(attr, DenseElementsAttr) and isinstance(attr.type.element_type, T.IntegerType) \
            and not isinstance(attr.value, (list, tuple)):
        return AxisInfo.of_constant(int(attr.value), shape)
    return None


@rule("ub.poison")
def _poison(op, ins, shape):
    return AxisInfo((1,) * len(shape), (1,) * len(shape), (1,) * len(shape), top=True)


@rule("tt.splat")
def _splat(op, ins, shape):
    x = ins[0]
    return AxisInfo((1,) * len(shape), (x.div_all((1,)),) * len(shape), tuple(shape),
                    x.constant)


@rule("tt.broadcast")
def _broadcast(op, ins, shape):
    x = ins[0]
    src = shape_of(op.operand(0))
    cont = tuple(1 if s == 1 else x.contiguity[d] for d, s in enumerate(src))
    kon = tuple(shape[d] if s == 1 else x.constancy[d] for d, s in enumerate(src))
    return AxisInfo(cont, x.divisibility, kon, x.constant)


@rule("tt.expand_dims")
def _expand_dims(op, ins, shape):
    x = ins[0]
    axis = op.attr("axis")
    new_div = x.div_all(shape_of(op.operand(0)))
    cont, div, kon = list(x.contiguity), list(x.divisibility), list(x.constancy)
    cont.insert(axis, 1)
    div.insert(axis, new_div)
    kon.insert(axis, 1)
    return AxisInfo(tuple(cont), tuple(div), tuple(kon), x.constant)


@rule("tt.load")
def _load(op, ins, shape):
    # Equal addresses (and equal mask and `other`) load equal values.
    k = list(ins[0].constancy)
    for extra in ins[1:]:
        k = [gcd(p, q) for p, q in zip(k, extra.constancy)]
    return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(k))
