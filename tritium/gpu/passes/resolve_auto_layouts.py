"""gluon-resolve-auto-encodings: Gluon's `AutoLayout` replaced by concrete layouts.

A Gluon kernel may leave a tensor's layout to the compiler (`gl.arange(0, n)` without
`layout=`, `gl.full(..., layout=None)`); such values carry `AutoEncoding` out of code
generation. Values that the TTGIR contract forces to share an encoding (operands and
results of elementwise and memory ops, a loop's carried values, a branch's results) form
groups; a group takes the layout of any concrete member, of a `ttg.convert_layout` that
turns it into a concrete layout (`gl.set_auto_layout`), or what `tt.expand_dims` and
`tt.reduce` imply across their slice. A group left with no layout, or with two, is an
error at the op that made it, since guessing would silently pick a layout the user's
other code then has to convert from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.core import Operation
from ...passes.manager import Pass, register_pass
from ..layouts import SliceEncoding
from .legality import retype

__all__ = ["AutoEncoding", "ResolveAutoLayouts", "resolve_auto_layouts", "AutoLayoutError"]


@dataclass(frozen=True)
class AutoEncoding:
    """The layout of a Gluon tensor whose layout the compiler picks (`gl.AutoLayout`)."""

    rank = None

    def __str__(self) -> str:
        return "#gluon.auto_encoding"

    def to_linear_layout(self, shape):
        raise ValueError("an AutoLayout tensor has no layout before "
                         "gluon-resolve-auto-encodings runs")


class AutoLayoutError(ValueError):
    """A group of AutoLayout values got no layout, or two different ones."""

    def __init__(self, message: str, loc=None):
        super().__init__(message)
        self.loc = loc


# Ops whose tensor operands and results need not share one encoding (the rest must).
_FREE = {"ttg.convert_layout", "tt.expand_dims", "tt.reduce", "tt.trans", "tt.reshape",
         "tt.join", "tt.split", "tt.cat", "tt.gather", "tt.histogram", "ttg.local_alloc",
         "ttg.local_load", "ttg.local_store", "tt.splat", "tt.make_range", "tt.dot",
         "tt.reduce.return", "tt.scan.return", "tt.map_elementwise.return", "tt.call",
         "tt.return", "tt.func", "scf.for", "scf.if", "scf.while", "scf.yield",
         "scf.condition", "ttng.warp_group_dot", "tt.descriptor_load", "tt.descriptor_store"}


def _is_tensor(v) -> bool:
    return isinstance(v.type, T.TensorType)


def _is_auto(enc) -> bool:
    return isinstance(enc, AutoEncoding) or (isinstance(enc, SliceEncoding)
                                             and _is_auto(enc.parent))


class _Groups:
    def __init__(self):
        self.parent: Dict[int, int] = {}
        self.values: Dict[int, object] = {}

    def add(self, v):
        self.parent.setdefault(id(v), id(v))
        self.values[id(v)] = v

    def find(self, k):
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def union(self, a, b):
        if not (_is_tensor(a) and _is_tensor(b)):
            return
        self.add(a)
        self.add(b)
        ra, rb = self.find(id(a)), self.find(id(b))
        if ra != rb:
            self.parent[ra] = rb


def _union_all(groups: _Groups, values) -> None:
    values = [v for v in values if _is_tensor(v)]
    for v in values:
        groups.add(v)
    for a, b in zip(values, values[1:]):
        groups.union(a, b)


def _region_pairs(op: Operation):
    """(value, value) pairs a structured op's types must match one to one."""
    pairs = []
    if op.name == "scf.for":
        body = op.regions[0].entry
        inits = op.operands[3:]
        yields = body.terminator.operands if body.terminator is not None else []
        for i, init in enumerate(inits):
            pairs += [(init, body.args[i + 1]), (init, op.results[i])]
            if i < len(yields):
                pairs.append((init, yields[i]))
    elif op.name == "scf.if":
        for region in op.regions:
            for block in region.blocks:
                term = block.terminator
                if term is not None:
                    pairs += list(zip(op.results, term.operands))
    elif op.name == "scf.while":
        before, after = op.regions[0].entry, op.regions[1].entry
        pairs += list(zip(op.operands, before.args))
        cond = before.terminator
        if cond is not None:
            forwarded = cond.operands[1:]
            pairs += list(zip(forwarded, after.args)) + list(zip(forwarded, op.results))
        term = after.terminator
        if term is not None:
            pairs += list(zip(term.operands, before.args))
    return pairs


def resolve_auto_layouts(module: Operation) -> Operation:
    ops = list(module.walk())
    if not any(_is_tensor(v) and _is_auto(v.type.encoding)
               for op in ops for v in list(op.results) + _block_args(op)):
        return module
    groups = _Groups()
    for op in ops:
        for v in list(op.operands) + list(op.results) + _block_args(op):
            if _is_tensor(v):
                groups.add(v)
        if op.name in ("tt.reduce", "tt.scan"):
            _union_all(groups, op.operands)
            _union_all(groups, op.results)
            if op.name == "tt.scan":
                _union_all(groups, list(op.operands) + list(op.results))
        elif op.name not in _FREE:
            _union_all(groups, list(op.operands) + list(op.results))
        for a, b in _region_pairs(op):
            groups.union(a, b)
    layout: Dict[int, object] = {}
    origin: Dict[int, Operation] = {}

    def assign(v, enc, op) -> bool:
        root = groups.find(id(v))
        have = layout.get(root)
        if have is None:
            layout[root] = enc
            return True
        if have != enc:
            raise AutoLayoutError(f"conflicting layouts inferred for an AutoLayout value: "
                                  f"{have} and {enc}", op.loc)
        return False

    for op in ops:
        for v in list(op.results) + _block_args(op):
            if _is_tensor(v):
                origin.setdefault(groups.find(id(v)), op)
                if not _is_auto(v.type.encoding):
                    assign(v, v.type.encoding, op)
    changed = True
    while changed:
        changed = False
        for op in ops:
            changed |= _propagate(op, groups, layout, assign)
    for k, v in groups.values.items():
        if not _is_auto(v.type.encoding):
            continue
        enc = layout.get(groups.find(k))
        if enc is None or _is_auto(enc):
            where = origin.get(groups.find(k))
            raise AutoLayoutError(
                "could not infer a layout for a tensor created with AutoLayout (for example "
                "gl.arange or gl.full without layout=): give it a layout, or use "
                "gl.set_auto_layout / gl.convert_layout on it",
                where.loc if where is not None else None)
        retype(v, enc)
    for op in ops:
        if op.name == "tt.func" and op.regions and op.regions[0].blocks:
            from .convert_to_ttgir import _update_signature
            _update_signature(op)
    return module


def _block_args(op: Operation) -> List:
    return [a for region in op.regions for block in region.blocks for a in block.args]


def _known(v, groups, layout) -> Optional[object]:
    enc = layout.get(groups.find(id(v)))
    return None if enc is None or _is_auto(enc) else enc


def _propagate(op, groups, layout, assign) -> bool:
    """Layouts across ops whose sides differ by a slice, or that set an AutoLayout."""
    changed = False
    if op.name == "ttg.convert_layout":
        src, dst = op.operand(0), op.results[0]
        if _is_auto(src.type.encoding) and _known(src, groups, layout) is None:
            known = _known(dst, groups, layout)
            if known is not None:
                changed |= assign(src, known, op)
    elif op.name == "tt.expand_dims":
        src, dst = op.operand(0), op.results[0]
        axis = int(op.attr("axis"))
        s, d = _known(src, groups, layout), _known(dst, groups, layout)
        if d is not None and s is None:
            changed |= assign(src, SliceEncoding(axis, d), op)
        elif s is not None and d is None and isinstance(s, SliceEncoding):
            changed |= assign(dst, s.parent, op)
    elif op.name == "tt.reduce":
        src = op.operand(0)
        s = _known(src, groups, layout)
        axis = int(op.attr("axis"))
        for r in op.results:
            if _is_tensor(r) and s is not None and _known(r, groups, layout) is None:
                changed |= assign(r, SliceEncoding(axis, s), op)
        if s is None:
            for r in op.results:
                k = _known(r, groups, layout) if _is_tensor(r) else None
                if isinstance(k, SliceEncoding) and k.dim == axis:
                    changed |= assign(src, k.parent, op)
                    break
    return changed


@register_pass
class ResolveAutoLayouts(Pass):
    name = "gluon-resolve-auto-encodings"
    description = "replace Gluon's AutoLayout by the concrete layouts it must equal"

    def run(self, module: Operation) -> None:
        resolve_auto_layouts(module)
