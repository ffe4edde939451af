"""The layout rules of docs/ttgir-contract.md, as code.

`operand_requirements(op)` says which encoding each tensor operand of `op` must have given
the op's own layout (its results, or the pointer of a store); the passes use it to insert
`ttg.convert_layout`s and `check_ttgir_legality(module)` uses it to verify the contract.
"""
from __future__ import annotations

from typing import List, Optional

from ...ir import types as T
from ...ir.attrs import DenseElementsAttr
from ...ir.builder import Builder
from ...ir.core import Operation, Value
from ...ir.ops import lookup
from ..layouts import BlockedEncoding, LinearEncoding, SliceEncoding
from ..mma_layouts import DotOperandEncoding, NvidiaMmaEncoding

__all__ = ["LayoutLegalityError", "check_ttgir_legality", "operand_requirements",
           "result_requirements", "encoding_of", "with_encoding", "insert_convert", "retype",
           "legalize_op", "MEMORY_OPS", "FREE_LAYOUT_OPS", "is_elementwise", "MODULE_ATTRS"]

MODULE_ATTRS = ("ttg.num-warps", "ttg.threads-per-warp", "ttg.num-ctas", "ttg.target")
MEMORY_OPS = frozenset({"tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas"})
# Rule 7 (and the convert itself): operands and results may differ.
FREE_LAYOUT_OPS = frozenset({"tt.trans", "tt.reshape", "tt.join", "tt.split", "tt.cat",
                             "tt.histogram", "tt.gather", "ttg.convert_layout"})
DISTRIBUTED = (BlockedEncoding, SliceEncoding, LinearEncoding, NvidiaMmaEncoding,
               DotOperandEncoding)


class LayoutLegalityError(Exception):
    pass


def encoding_of(v: Value):
    return v.type.encoding if isinstance(v.type, T.TensorType) else None


def with_encoding(t: T.Type, enc) -> T.Type:
    if not isinstance(t, T.TensorType):
        return t
    return T.TensorType(t.dims, t.element, enc)


def is_elementwise(op: Operation) -> bool:
    return "Elementwise" in lookup(op.name).traits


def _tensor(v: Value) -> bool:
    return isinstance(v.type, T.TensorType)


def reference_encoding(op: Operation):
    """The layout of an elementwise or memory op: its tensor result's, else (stores) the
    pointer's."""
    for r in op.results:
        if _tensor(r):
            return r.type.encoding
    for v in op.operands:
        if _tensor(v):
            return v.type.encoding
    return None


def _region_owner_args(op: Operation) -> Optional[List[Value]]:
    """For a terminator: the values its operands must match, in order."""
    parent = op.parent_op
    if parent is None:
        return None
    if op.name == "scf.yield":
        if parent.name == "scf.for":
            return list(parent.regions[0].entry.args[1:])
        if parent.name == "scf.if":
            return list(parent.results)
        if parent.name == "scf.while":
            return list(parent.regions[0].entry.args)
    if op.name == "scf.condition" and parent.name == "scf.while":
        return [None] + list(parent.regions[1].entry.args)
    return None


def _lookup_function(call: Operation) -> Optional[Operation]:
    module = call.parent_op
    while module is not None and module.name != "builtin.module":
        module = module.parent_op
    if module is None:
        return None
    for f in module.regions[0].entry:
        if f.name == "tt.func" and f.attr("sym_name") == call.attr("callee"):
            return f
    return None


def operand_requirements(op: Operation, ref=None) -> List[Optional[object]]:
    """Per operand: the encoding it must have, or None (scalar, or any layout goes).
    `ref` overrides the layout of an elementwise/memory op (e.g. a store's anchor)."""
    name = op.name
    req: List[Optional[object]] = [None] * op.num_operands
    if name == "tt.histogram" and op.num_operands > 1:
        # The lowering pairs the mask's registers with the source's one by one.
        req[1] = encoding_of(op.operand(0))
        return req
    if name in FREE_LAYOUT_OPS:
        return req
    if name in MEMORY_OPS or is_elementwise(op):
        enc = ref if ref is not None else reference_encoding(op)
        for i, v in enumerate(op.operands):
            if _tensor(v):
                req[i] = enc
        return req
    if name == "tt.broadcast":
        req[0] = encoding_of(op.results[0])
    elif name == "tt.expand_dims":
        enc = encoding_of(op.results[0])
        req[0] = SliceEncoding(op.attr("axis"), enc) if enc is not None else None
    elif name == "tt.reduce":
        res = encoding_of(op.results[0])
        enc = res.parent if isinstance(res, SliceEncoding) and res.dim == op.attr("axis") \
            else encoding_of(op.operand(0))
        req = [enc] * op.num_operands
    elif name == "tt.scan":
        req = [encoding_of(op.results[0])] * op.num_operands
    elif name in ("tt.dot", "ttng.warp_group_dot"):
        # The accumulator is the result's registers; operands already given dot-operand
        # layouts must stay those of this result's layout.
        res = encoding_of(op.results[0])
        req[2] = res
        for i in (0, 1):
            cur = encoding_of(op.operand(i))
            if isinstance(cur, DotOperandEncoding) and res is not None:
                req[i] = DotOperandEncoding(i, res, cur.k_width)
    elif name == "scf.for":
        for i, r in enumerate(op.results):
            req[3 + i] = encoding_of(r)
    elif name == "scf.while":
        for i, a in enumerate(op.regions[0].entry.args):
            req[i] = encoding_of(a)
    elif name == "tt.return":
        func = op.parent_op
        ftype = func.attr("function_type") if func is not None else None
        if isinstance(ftype, T.FunctionType):
            for i, t in enumerate(ftype.results[:op.num_operands]):
                req[i] = t.encoding if isinstance(t, T.TensorType) else None
    elif name == "tt.call":
        callee = _lookup_function(op)
        if callee is not None and callee.regions and callee.regions[0].blocks:
            for i, a in enumerate(callee.regions[0].entry.args[:op.num_operands]):
                req[i] = encoding_of(a)
    elif name in ("scf.yield", "scf.condition"):
        targets = _region_owner_args(op)
        if targets is not None:
            for i, t in enumerate(targets[:op.num_operands]):
                if t is not None:
                    req[i] = encoding_of(t)
    return req


def result_requirements(op: Operation) -> List[Optional[object]]:
    """Encodings the results must have given the operands (reduce, scan, elementwise)."""
    name = op.name
    if name == "tt.reduce":
        enc = encoding_of(op.operand(0))
        return [SliceEncoding(op.attr("axis"), enc) if _tensor(r) and enc is not None else None
                for r in op.results]
    if name == "tt.scan":
        return [encoding_of(op.operand(0))] * len(op.results)
    if name in MEMORY_OPS or is_elementwise(op):
        enc = reference_encoding(op)
        return [enc if _tensor(r) else None for r in op.results]
    return [None] * len(op.results)


def retype(v: Value, enc) -> None:
    """Give `v` another layout in place (a dense constant's attribute follows)."""
    v.type = with_encoding(v.type, enc)
    op = v.owner_op
    if op is not None and op.name == "arith.constant":
        attr = op.attributes.get("value")
        if isinstance(attr, DenseElementsAttr):
            op.attributes["value"] = DenseElementsAttr(attr.value, v.type)


def insert_convert(v: Value, enc, before: Operation) -> Value:
    b = Builder()
    b.set_insertion_point_before(before)
    b.loc = before.loc
    return b.create1("ttg.convert_layout", [v], with_encoding(v.type, enc))


def legalize_op(op: Operation, ref=None) -> int:
    """Convert the operands of `op` that break the contract; returns how many."""
    n = 0
    for i, want in enumerate(operand_requirements(op, ref)):
        v = op.operand(i)
        if want is None or not _tensor(v) or v.type.encoding == want:
            continue
        # before the op itself: loop inits before the loop, yielded values before the yield
        op.set_operand(i, insert_convert(v, want, op))
        n += 1
    return n


# ---------------------------------------------------------------- the checker
def check_ttgir_legality(module: Operation) -> None:
    """Raise LayoutLegalityError listing every place `module` breaks the contract."""
    problems: List[str] = []
    for key in MODULE_ATTRS:
        if key not in module.attributes:
            problems.append(f"module attribute {key!r} is missing")

    def where(op: Operation) -> str:
        loc = op.loc
        line = getattr(loc, "line", 0)
        return f"'{op.name}'" + (f" at {loc.file}:{line}" if line else "")

    def check_type(v: Value, what: str, op: Operation):
        if isinstance(v.type, T.TensorType):
            enc = v.type.encoding
            if enc is None:
                problems.append(f"{where(op)}: {what} {v.type} has no layout")
            elif not isinstance(enc, DISTRIBUTED):
                problems.append(f"{where(op)}: {what} has non-register layout {enc}")
            elif enc.rank != v.type.rank:
                problems.append(f"{where(op)}: {what} {v.type}: layout rank {enc.rank}")

    for op in module.walk():
        for i, r in enumerate(op.results):
            check_type(r, f"result #{i}", op)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    check_type(a, f"block argument #{a.index}", op)
        for i, (v, want) in enumerate(zip(op.operands, operand_requirements(op))):
            if want is not None and isinstance(v.type, T.TensorType) and v.type.encoding != want:
                problems.append(f"{where(op)}: operand #{i} has layout {v.type.encoding}, "
                                f"the contract wants {want}")
        for i, (r, want) in enumerate(zip(op.results, result_requirements(op))):
            if want is not None and isinstance(r.type, T.TensorType) and r.type.encoding != want:
                problems.append(f"{where(op)}: result #{i} has layout {r.type.encoding}, "
                                f"the contract wants {want}")
        _check_special(op, problems, where)
    if problems:
        raise LayoutLegalityError("TTGIR breaks the layout contract:\n  " +
                                  "\n  ".join(problems[:50]))


def _check_special(op: Operation, problems: List[str], where) -> None:
    if op.name == "scf.for":
        args = op.regions[0].entry.args[1:]
        for i, (a, r) in enumerate(zip(args, op.results)):
            if a.type != r.type:
                problems.append(f"{where(op)}: iter_arg #{i} is {a.type}, result {r.type}")
    elif op.name == "scf.while":
        after = op.regions[1].entry.args
        for i, (a, r) in enumerate(zip(after, op.results)):
            if a.type != r.type:
                problems.append(f"{where(op)}: after-region arg #{i} is {a.type}, "
                                f"result {r.type}")
    elif op.name == "ttg.convert_layout":
        s, r = op.operand(0).type, op.results[0].type
        if not (isinstance(s, T.TensorType) and isinstance(r, T.TensorType)) or \
                s.dims != r.dims or s.element != r.element:
            problems.append(f"{where(op)}: converts {s} to {r}")
    elif op.name == "tt.make_range":
        enc = encoding_of(op.results[0])
        if enc is not None and getattr(enc, "rank", 1) != 1:
            problems.append(f"{where(op)}: make_range needs a rank-1 layout")
    elif op.name == "arith.constant":
        attr = op.attributes.get("value")
        if isinstance(attr, DenseElementsAttr) and attr.type != op.results[0].type:
            problems.append(f"{where(op)}: dense attribute type {attr.type} differs from "
                            f"the result type {op.results[0].type}")
