"""Dead lanes: a block dimension shrunk to the lanes a kernel can observe.

Inductor's persistent reductions pad a row to a power-of-two block (257 columns run as a
512-lane block, `r0_mask = r0_index < 257` on every load and store): half of every loop
of the host code would compute lanes nobody sees. This pass (on the host lowering's copy
of the TTIR, never the evaluator's) finds such a dimension and shrinks it, in every value
that has it, to the highest lane some effect can observe, exactly: LLVM then folds the
mask compares away (`i < 257` in a loop over 257 lanes), where a size rounded up to the
SIMD width kept them, as 64-bit vector compares, in every loop (softmax 78 -> 63 us).

A lane is observable only through
* a store (its mask must prove `index < N` along the dimension),
* a reduction along the dimension (its operand must be `select(mask, x, neutral)` with such
  a mask and the combine's two-sided identity, so dropping those lanes drops only identity
  combines: the result is unchanged, except that a float sum of only -0.0 stays -0.0
  instead of becoming +0.0 from the padding),
* a forward scan along it (lane i sees lanes <= i only: no condition).
Loads have no effect, and elementwise ops, splats, broadcasts and expand_dims keep lanes
apart. Any other op touching the dimension (reshapes, dots, gathers, atomics, control flow,
prints, asserts, ...) leaves it as it is. Dimensions are matched across values by
union-find: operands and results of an elementwise op share each dimension, etc.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

from ....ir import types as T
from ....ir.attrs import DenseElementsAttr, IntegerAttr
from ....ir.ops import CMPI_PREDICATES, lookup
from .arith import _pred


_SHAPE_FREE = {"tt.splat", "arith.constant", "tt.return"}
_NOT_LANEWISE = {"tt.elementwise_inline_asm", "tt.map_elementwise"}


def _rank(v) -> int:
    return len(v.type.shape) if isinstance(v.type, T.TensorType) else 0


class _Dims:
    """Union-find over (value, dimension) nodes."""

    def __init__(self):
        self.parent: Dict[Tuple[object, int], Tuple[object, int]] = {}

    def find(self, n):
        self.parent.setdefault(n, n)
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _is_elementwise(op) -> bool:
    if op.regions or op.name in _NOT_LANEWISE:
        return False
    if op.name == "tt.extern_elementwise" and not op.attr("pure", False):
        return False
    return "Elementwise" in lookup(op.name).traits


def _splat_const(v):
    """The scalar a splat constant tensor (or splat of a scalar constant) holds, else None."""
    op = getattr(v, "op", None)
    if op is None:
        return None
    if op.name == "tt.splat":
        op = getattr(op.operand(0), "op", None)
        if op is None:
            return None
    if op.name != "arith.constant":
        return None
    a = op.attributes.get("value")
    val = a.value if a is not None else None
    return val if isinstance(val, (bool, int, float)) else None


def _is_index(v, d: int) -> bool:
    """Whether element i of `v` is i's index along dimension d (a 0-based make_range moved
    by expand_dims and broadcasts)."""
    op = getattr(v, "op", None)
    if op is None:
        return False
    if op.name == "tt.make_range":
        return d == 0 and int(op.attr("start")) == 0
    if op.name == "tt.expand_dims":
        a = int(op.attr("axis"))
        return d != a and _is_index(op.operand(0), d - (d > a))
    if op.name == "tt.broadcast":
        src = op.operand(0)
        return src.type.shape[d] == v.type.shape[d] and _is_index(src, d)
    return False


def _bound(m, d: int) -> Optional[int]:
    """N such that mask `m` true at an element implies its index along d is below N."""
    op = getattr(m, "op", None)
    if op is None or _rank(m) <= d:
        return None
    if op.name == "arith.andi":
        got = [b for b in (_bound(x, d) for x in op.operands) if b is not None]
        return min(got) if got else None
    if op.name == "tt.broadcast":
        src = op.operand(0)
        return _bound(src, d) if src.type.shape[d] == m.type.shape[d] else None
    if op.name == "tt.expand_dims":
        a = int(op.attr("axis"))
        return None if d == a else _bound(op.operand(0), d - (d > a))
    if op.name == "arith.cmpi":
        p = _pred(op, CMPI_PREDICATES)
        a, b = op.operands
        if p in ("sgt", "sge", "ugt", "uge"):
            a, b = b, a
            p = {"sgt": "slt", "sge": "sle", "ugt": "ult", "uge": "ule"}[p]
        n = _splat_const(b)
        if p in ("slt", "sle", "ult", "ule") and isinstance(n, int) and not isinstance(n, bool) \
                and _is_index(a, d):
            return n + (p in ("sle", "ule"))
    return None


def _neutral(op) -> Optional[object]:
    """The two-sided identity of a single-operand reduction's combine, as a checker, or
    None when there is none this pass knows."""
    from .reduce import _select_extremum, _single_op
    t = op.operand(0).type.element_type
    w = t.width if isinstance(t, T.IntegerType) else None
    kind = _single_op(op)
    p = _select_extremum(op) if kind is None else None
    if p is not None:
        bigger = p[1:] in ("gt", "ge")
        if w is None:
            return -math.inf if bigger else math.inf
        if p[0] == "u":
            return 0 if bigger else (1 << w) - 1
        return -(1 << (w - 1)) if bigger else (1 << (w - 1)) - 1
    if w is None:
        return {"arith.addf": 0.0, "arith.mulf": 1.0, "arith.maximumf": -math.inf,
                "arith.minimumf": math.inf}.get(kind)
    table = {"arith.addi": 0, "arith.ori": 0, "arith.xori": 0, "arith.muli": 1,
             "arith.andi": (1 << w) - 1, "arith.maxui": 0, "arith.minui": (1 << w) - 1,
             "arith.maxsi": -(1 << (w - 1)), "arith.minsi": (1 << (w - 1)) - 1}
    return table.get(kind)


def _same(value, want, t) -> bool:
    if isinstance(t, T.IntegerType):
        if isinstance(value, float):
            return False
        return (int(value) - int(want)) % (1 << t.width) == 0
    return float(value) == float(want)  # (0.0 == -0.0: see the module doc)


def _reduced_bound(op) -> Optional[int]:
    """The bound of a reduction's operand: `select(m, x, identity)` along the axis."""
    if len(op.operands) != 1:
        return None
    x = op.operand(0)
    sel = getattr(x, "op", None)
    want = _neutral(op)
    if sel is None or sel.name != "arith.select" or want is None or _rank(sel.operand(0)) == 0:
        return None
    c = _splat_const(sel.operand(2))
    if c is None or not _same(c, want, x.type.element_type):
        return None
    return _bound(sel.operand(0), int(op.attr("axis")))


def _analyse(func):
    """(union-find, pinned roots, {root: [bounds]}, {root: False when unobservable-safe})."""
    dims = _Dims()
    entry = func.regions[0].entry
    pinned: List[tuple] = []
    observers: List[Tuple[tuple, Optional[int]]] = []  # (node, bound or None = no shrink)

    def pin(op):
        for v in list(op.operands) + list(op.results):
            pinned.extend((v, d) for d in range(_rank(v)))

    def tie(vs):
        vs = [v for v in vs if _rank(v)]
        for v in vs[1:]:
            if v.type.shape != vs[0].type.shape:
                for u in vs:
                    pinned.extend((u, d) for d in range(_rank(u)))
                return
            for d in range(_rank(v)):
                dims.union((v, d), (vs[0], d))

    for op in func.walk():
        if op is func:
            continue
        if op.parent is not entry:
            pin(op)   # inside control flow (combiner regions hold scalars only)
            continue
        n = op.name
        if not any(_rank(v) for v in list(op.operands) + list(op.results)) \
                or n in _SHAPE_FREE:
            if n == "arith.constant" and _rank(op.results[0]) \
                    and not isinstance(op.attr("value"), (bool, int, float)):
                pin(op)
            continue
        if n == "tt.make_range":
            if int(op.attr("start")) != 0:
                pin(op)
        elif n == "tt.expand_dims":
            a = int(op.attr("axis"))
            src, r = op.operand(0), op.results[0]
            for d in range(_rank(src)):
                dims.union((src, d), (r, d + (d >= a)))
        elif n == "tt.broadcast":
            src, r = op.operand(0), op.results[0]
            for d in range(_rank(src)):
                if src.type.shape[d] == r.type.shape[d]:
                    dims.union((src, d), (r, d))
        elif n in ("tt.load", "tt.store") or _is_elementwise(op):
            tie(list(op.operands) + list(op.results))
            if n == "tt.store":
                v = op.operand(1)
                mask = op.operand(2) if len(op.operands) > 2 else None
                for d in range(_rank(v)):
                    observers.append(((v, d), _bound(mask, d) if mask is not None else None))
        elif n in ("tt.reduce", "tt.scan"):
            a = int(op.attr("axis"))
            ins, outs = list(op.operands), list(op.results)
            tie(ins)
            if n == "tt.scan":
                tie(ins + outs)
                if op.attr("reverse", False):
                    observers.append(((ins[0], a), None))
            else:
                for x in ins:
                    for r in outs:
                        for d in range(_rank(x)):
                            if d != a and _rank(r):
                                dims.union((x, d), (r, d - (d > a)))
                observers.append(((ins[0], a), _reduced_bound(op)))
        else:
            pin(op)
    return dims, pinned, observers


def shrink(func) -> int:
    """Shrink every dead-lane dimension of `func`'s values in place; how many classes of
    dimensions were shrunk."""
    todo = plan(func)
    for nodes, n in todo:
        _apply(nodes, n)
    return len(todo)


def plan(func) -> List[Tuple[List[tuple], int]]:
    """[(the (value, dim) nodes of one class, its new size)] of every shrinkable class."""
    dims, pinned, observers = _analyse(func)
    bad = {dims.find(n) for n in pinned}
    bounds: Dict[tuple, List[int]] = {}
    for node, b in observers:
        r = dims.find(node)
        if b is None:
            bad.add(r)
        else:
            bounds.setdefault(r, []).append(b)
    members: Dict[tuple, List[tuple]] = {}
    for node in list(dims.parent):
        members.setdefault(dims.find(node), []).append(node)
    out = []
    for root, bs in bounds.items():
        if root in bad:
            continue
        nodes = members[root]
        sizes = {v.type.shape[d] for v, d in nodes}
        if len(sizes) != 1:
            continue
        size = sizes.pop()
        n = min(size, max(max(bs), 1))
        if n >= size:
            continue
        out.append((nodes, n))
    return out


def _apply(nodes, n: int) -> None:
    by_value: Dict[object, List[int]] = {}
    for v, d in nodes:
        by_value.setdefault(v, []).append(d)
    for v, ds in by_value.items():
        t = v.type
        shape = list(t.shape)
        for d in ds:
            shape[d] = n
        v.type = T.TensorType(tuple(shape), t.element_type, t.encoding)
        op = getattr(v, "op", None)
        if op is None:
            continue
        if op.name == "tt.make_range":
            op.attributes["end"] = IntegerAttr(n, op.attributes["end"].type)
        elif op.name == "arith.constant":
            op.attributes["value"] = DenseElementsAttr(op.attr("value"), v.type)
