"""AxisInfo: what is known, per dimension, about the integers and pointers of a function.

For a value V (a scalar counts as rank 1, shape [1]) and each dimension d:

* contiguity C[d]: V splits along d into aligned groups of C elements (group starts at
  indices that are multiples of C) and inside a group V steps by +1 (pointers: by one
  element);
* divisibility D[d]: the largest power of two known to divide V at every group start
  (pointers: in bytes);
* constancy K[d]: V splits along d into aligned groups of K equal elements;
* constant: the value of every element, when known.

Coalescing reads the pointer's contiguity and divisibility (how wide a vector load may be)
and the mask's constancy (whether a whole vector is in or out); the LLVM lowering asks the
same questions through `get_ptr_contiguity` / `get_mask_alignment`.

The rules follow upstream's AxisInfo.cpp, with a few made sound where upstream is not:
a divisibility is only carried to a coarser or finer grouping through `_div_at`, and
`tt.load` takes its `other` operand into account. Like upstream, the division and
remainder rules assume non-negative index arithmetic, and overflow is ignored.

    info = AxisInfoAnalysis(func_op)
    info.get(value) -> AxisInfo
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import types as T
from ..ir.attrs import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, IntegerAttr)
from ..ir.core import Operation, Value

__all__ = ["AxisInfo", "AxisInfoAnalysis", "KMAX", "highest_pow2_divisor", "module_axis_info"]

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


def _with_hints(info: AxisInfo, attrs: Dict[str, object], suffix: str = "") -> AxisInfo:
    """User promises (tl.multiple_of / max_contiguous / max_constancy) replace what the
    rules derived, as upstream does."""
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


# ---------------------------------------------------------------- the analysis
class AxisInfoAnalysis:
    """Forward dataflow over one `tt.func`: every integer/pointer value gets an AxisInfo;
    loops are iterated to a fixpoint (joins only descend, so this terminates)."""

    MAX_LOOP_ITERATIONS = 64

    def __init__(self, func_op: Operation):
        self.func = func_op
        self.info: Dict[Value, AxisInfo] = {}
        self._init_args()
        if func_op.regions and func_op.regions[0].blocks:
            self._visit_block(func_op.regions[0].entry)

    # -- queries
    def get(self, v: Value) -> AxisInfo:
        info = self.info.get(v)
        if info is None:
            info = AxisInfo.pessimistic(len(shape_of(v)))
        return info

    __getitem__ = get

    def order(self, v: Value) -> List[int]:
        """Dims fastest first: the layout's order when `v` has one, else by contiguity."""
        enc = getattr(v.type, "encoding", None)
        if enc is not None:
            try:
                from .layouts import get_order
                return list(get_order(enc))
            except (TypeError, AttributeError):
                pass
        return contiguity_order(self.get(v).contiguity)

    def get_ptr_alignment(self, ptr: Value) -> int:
        """Elements along the fastest dim that start at an address aligned to their whole
        run (upstream getAlignment): min(divisibility / element bytes, contiguity)."""
        if not isinstance(ptr.type, T.TensorType):
            return 1
        info = self.get(ptr)
        d = self.order(ptr)[0]
        multiple = info.divisibility[d]
        if T.is_ptr(ptr.type):  # pointers are measured in bytes
            multiple = max(1, multiple // elem_bytes(ptr.type))
        return max(1, min(multiple, info.contiguity[d], ptr.type.dims[d]))

    def get_ptr_contiguity(self, ptr: Value) -> int:
        """Elements one thread may access with one vector instruction: the alignment, cut
        to the run of consecutive elements the thread holds in its layout."""
        align = self.get_ptr_alignment(ptr)
        enc = getattr(ptr.type, "encoding", None)
        if enc is None:
            return align
        from .layouts import contig_per_thread
        try:
            contig = contig_per_thread(enc, ptr.type.dims)[self.order(ptr)[0]]
        except (TypeError, ValueError, AttributeError):
            return align
        return max(1, min(align, contig))

    def get_mask_alignment(self, mask: Optional[Value]) -> int:
        """Consecutive elements along the fastest dim that share their mask bit."""
        if mask is None or not isinstance(mask.type, T.TensorType):
            return KMAX if mask is None else 1
        return max(1, self.get(mask).constancy[self.order(mask)[0]])

    def get_mem_vector_width(self, op: Operation) -> int:
        """Vector width (elements) for a tt.load/tt.store/atomic: pointer contiguity,
        mask alignment and the 128-bit limit of one access."""
        ptr = op.operand(0)
        if not isinstance(ptr.type, T.TensorType):
            return 1
        vec = self.get_ptr_contiguity(ptr)
        mask_index = {"tt.load": 1, "tt.store": 2, "tt.atomic_rmw": 2}.get(op.name)
        if mask_index is not None and op.num_operands > mask_index:
            vec = min(vec, self.get_mask_alignment(op.operand(mask_index)))
        bits = elem_bytes(ptr.type) * 8
        return max(1, min(vec, 128 // bits))

    # -- propagation
    def _init_args(self) -> None:
        if not self.func.regions or not self.func.regions[0].blocks:
            return
        arg_attrs = self.func.attr("arg_attrs") or ()
        for i, a in enumerate(self.func.regions[0].entry.args):
            info = AxisInfo.pessimistic(len(shape_of(a)))
            if i < len(arg_attrs) and arg_attrs[i] is not None:
                d = arg_attrs[i]
                attrs = {k: v for k, v in (d.value if hasattr(d, "value") else ())}
                info = _with_hints(info, attrs)
            self.info[a] = info

    def _set(self, v: Value, info: AxisInfo) -> None:
        self.info[v] = info

    def _visit_block(self, block) -> None:
        for op in block:
            self._visit_op(op)

    def _visit_op(self, op: Operation) -> None:
        special = getattr(self, "_visit_" + op.name.replace(".", "_"), None)
        if special is not None:
            special(op)
            return
        for region in op.regions:  # reduce/scan combiners: scalars, nothing known
            for block in region.blocks:
                for a in block.args:
                    self._set(a, AxisInfo.pessimistic(len(shape_of(a))))
                self._visit_block(block)
        if not op.results:
            return
        fn = RULES.get(op.name)
        shape = shape_of(op.results[0])
        info = None
        if fn is not None and len(op.results) == 1:
            info = fn(op, [self.get(v) for v in op.operands], shape)
        for r in op.results:
            res = info if info is not None and info.rank == len(shape_of(r)) else \
                AxisInfo.pessimistic(len(shape_of(r)))
            self._set(r, _with_hints(res, op.attributes))

    def _join_all(self, values: Sequence[Value], infos: Sequence[AxisInfo],
                  news: Sequence[AxisInfo]) -> List[AxisInfo]:
        return [i.join(n, shape_of(v)) for v, i, n in zip(values, infos, news)]

    def _arg_hints(self, op: Operation, index: int, info: AxisInfo) -> AxisInfo:
        return _with_hints(info, op.attributes, suffix=f"_arg{index}")

    def _visit_scf_for(self, op: Operation) -> None:
        lb, _ub, step, *inits = op.operands
        body = op.regions[0].entry
        iv = body.args[0]
        iv_div = gcd(self.get(lb).div_all((1,)), self.get(step).div_all((1,)))
        self._set(iv, self._arg_hints(op, 0, AxisInfo((1,), (iv_div,), (1,))))
        state = [self.get(v) for v in inits]
        for _ in range(self.MAX_LOOP_ITERATIONS):
            for i, (a, s) in enumerate(zip(body.args[1:], state)):
                self._set(a, self._arg_hints(op, i + 1, s))
            self._visit_block(body)
            yields = [self.get(v) for v in body.terminator.operands]
            new = self._join_all(body.args[1:], state, yields)
            if new == state:
                break
            state = new
        else:
            state = [AxisInfo.pessimistic(s.rank) for s in state]
            for i, (a, s) in enumerate(zip(body.args[1:], state)):
                self._set(a, self._arg_hints(op, i + 1, s))
            self._visit_block(body)
        for r, s in zip(op.results, state):
            self._set(r, s)

    def _visit_scf_if(self, op: Operation) -> None:
        yields = []
        for region in op.regions:
            if region.blocks:
                self._visit_block(region.entry)
                term = region.entry.terminator
                if term is not None and term.name == "scf.yield":
                    yields.append([self.get(v) for v in term.operands])
        for i, r in enumerate(op.results):
            infos = [y[i] for y in yields if i < len(y)]
            info = infos[0] if infos else AxisInfo.pessimistic(len(shape_of(r)))
            for other in infos[1:]:
                info = info.join(other, shape_of(r))
            self._set(r, _with_hints(info, op.attributes))

    def _visit_scf_while(self, op: Operation) -> None:
        before, after = op.regions[0].entry, op.regions[1].entry
        state = [self.get(v) for v in op.operands]
        forwarded: List[AxisInfo] = []
        for it in range(self.MAX_LOOP_ITERATIONS + 1):
            if it == self.MAX_LOOP_ITERATIONS:
                state = [AxisInfo.pessimistic(s.rank) for s in state]
            for i, (a, s) in enumerate(zip(before.args, state)):
                self._set(a, self._arg_hints(op, i, s))
            self._visit_block(before)
            forwarded = [self.get(v) for v in before.terminator.operands[1:]]
            for a, f in zip(after.args, forwarded):
                self._set(a, f)
            self._visit_block(after)
            yields = [self.get(v) for v in after.terminator.operands]
            new = self._join_all(before.args, state, yields)
            if new == state or it == self.MAX_LOOP_ITERATIONS:
                break
            state = new
        for r, f in zip(op.results, forwarded):
            self._set(r, f)


def contiguity_order(contiguity: Sequence[int]) -> List[int]:
    """Dims by decreasing contiguity; ties keep the row-major default (last dim fastest)."""
    return sorted(reversed(range(len(contiguity))), key=lambda d: -contiguity[d])


def module_axis_info(module: Operation) -> Dict[str, AxisInfoAnalysis]:
    """One analysis per function of a module, keyed by function name."""
    out = {}
    for op in module.regions[0].entry:
        if op.name == "tt.func":
            out[op.attr("sym_name")] = AxisInfoAnalysis(op)
    return out
