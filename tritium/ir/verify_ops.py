"""Per-op verification rules: the operand/result type contracts of `ops.py`.

`RULES` maps an op name to a function that raises `VerificationError` (through `fail`) when
the op breaks its contract; `same_type` is the rule of the SameType trait. `verifier.py` runs
them after its generic checks (counts, structure, dominance), so a rule may index operands,
results and regions freely.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from . import types as T
from .attrs import (BoolAttr, DenseArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr,
                    StringAttr, SymbolRefAttr, TypeAttr)
from .core import Operation
from .ops import CMPF_PREDICATES, CMPI_PREDICATES, OPS


class VerificationError(Exception):
    """Invalid IR: `.op` is the offending op, `.problem` the message without the location."""

    def __init__(self, op: Operation, problem: str):
        self.op, self.problem = op, problem
        super().__init__(f"{_loc_text(op.loc)}: '{op.name}' op {problem}")


def _loc_text(loc) -> str:
    if getattr(loc, "line", 0) or getattr(loc, "file", "<unknown>") != "<unknown>":
        return f"{loc.file}:{loc.line}:{loc.col}"
    return "unknown location"


_FLOAT_OPS = {n for n in OPS if (n.startswith("arith.") and n.endswith("f") and n not in (
    "arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.cmpf"))
    or (n.startswith("math.") and n != "math.absi")} | {
    "tt.precise_sqrt", "tt.precise_divf", "tt.clampf"}
_INT_OPS = {n for n in OPS if n.startswith("arith.") and OPS[n].traits >= {"SameType"}
            and n not in _FLOAT_OPS} | {"math.absi", "tt.mulhiui"}


def pointee_shaped(ptr_type: T.Type) -> Optional[T.Type]:
    """What `tt.load` of `ptr_type` yields: the pointee, shaped like the pointer tensor (a
    block pointer `!tt.ptr<tensor<...>>` yields the tensor)."""
    elt = ptr_type.element_type
    if not isinstance(elt, T.PointerType):
        return None
    if isinstance(elt.pointee, T.TensorType) and not isinstance(ptr_type, T.TensorType):
        return elt.pointee
    return T.with_element(ptr_type, elt.pointee)


def _bits(t: T.Type) -> Optional[int]:
    return getattr(t.element_type, "bitwidth", None)


# ---------------------------------------------------------------- per-op rules
RULES: Dict[str, Callable] = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def fail(op, problem):
    raise VerificationError(op, problem)


def same_type(op: Operation) -> None:
    """The SameType trait: every operand has the result type (int/float per op name)."""
    if len(op.results) != 1:
        return
    rt = op.results[0].type
    for i, v in enumerate(op.operands):
        if v.type != rt:
            fail(op, f"operand #{i} has type {v.type}, expected {rt} (the result type)")
    elt = rt.element_type
    if op.name in _FLOAT_OPS and not isinstance(elt, T.FloatType):
        fail(op, f"expects float operands, found {rt}")
    if op.name in _INT_OPS and not isinstance(elt, T.IntegerType):
        fail(op, f"expects integer operands, found {rt}")


def _attr_int(op, name, required=True):
    a = op.attributes.get(name)
    if a is None:
        if required:
            fail(op, f"requires attribute '{name}'")
        return None
    if not isinstance(a, IntegerAttr):
        fail(op, f"attribute '{name}' must be an integer, found {a}")
    return a.value


def _yield_types(op, region_index, terminator, want, what):
    region = op.regions[region_index]
    if not region.blocks:
        return
    term = region.blocks[0].last
    if term is None or term.name != terminator:
        found = f"'{term.name}'" if term is not None else "an empty block"
        fail(op, f"region #{region_index} must end with '{terminator}', found {found}")
    got = [v.type for v in term.operands]
    if got != list(want):
        fail(op, f"region #{region_index} yields ({', '.join(map(str, got))}) but {what} "
                 f"({', '.join(map(str, want))})")


@rule("arith.constant")
def _constant(op):
    a = op.attributes.get("value")
    if a is None:
        fail(op, "requires attribute 'value'")
    rt = op.results[0].type
    at = T.i1 if isinstance(a, BoolAttr) else getattr(a, "type", None)
    if at != rt:
        fail(op, f"value {a} does not match the result type {rt}")
    if isinstance(a, DenseElementsAttr) != isinstance(rt, T.TensorType) and isinstance(
            a, (IntegerAttr, FloatAttr, DenseElementsAttr)):
        fail(op, f"value {a} does not match the result type {rt}")


@rule("arith.cmpi", "arith.cmpf")
def _cmp(op):
    a, b = op.operands
    if a.type != b.type:
        fail(op, f"operands have different types {a.type} and {b.type}")
    want_elt = T.IntegerType if op.name == "arith.cmpi" else T.FloatType
    if not isinstance(a.type.element_type, want_elt):
        fail(op, f"cannot compare operands of type {a.type}")
    table = CMPI_PREDICATES if op.name == "arith.cmpi" else CMPF_PREDICATES
    pred = _attr_int(op, "predicate")
    if not 0 <= pred < len(table):
        fail(op, f"predicate {pred} is out of range")
    want = T.with_element(a.type, T.i1)
    if op.results[0].type != want:
        fail(op, f"result type {op.results[0].type} should be {want}")


@rule("arith.select")
def _select(op):
    c, a, b = op.operands
    rt = op.results[0].type
    if a.type != rt or b.type != rt:
        fail(op, f"true/false values ({a.type}, {b.type}) must both have the result type {rt}")
    if c.type != T.i1 and c.type != T.with_element(rt, T.i1):
        fail(op, f"condition type {c.type} must be i1 or {T.with_element(rt, T.i1)}")


_CASTS = {"arith.extsi": (T.IntegerType, T.IntegerType, ">"),
          "arith.extui": (T.IntegerType, T.IntegerType, ">"),
          "arith.trunci": (T.IntegerType, T.IntegerType, "<"),
          "arith.extf": (T.FloatType, T.FloatType, ">"),
          "arith.truncf": (T.FloatType, T.FloatType, "<"),
          "arith.sitofp": (T.IntegerType, T.FloatType, ""),
          "arith.uitofp": (T.IntegerType, T.FloatType, ""),
          "arith.fptosi": (T.FloatType, T.IntegerType, ""),
          "arith.fptoui": (T.FloatType, T.IntegerType, ""),
          "arith.bitcast": (T.Type, T.Type, "="),
          "tt.fp_to_fp": (T.FloatType, T.FloatType, ""),
          "tt.bitcast": (T.Type, T.Type, "="),
          "tt.int_to_ptr": (T.IntegerType, T.PointerType, ""),
          "tt.ptr_to_int": (T.PointerType, T.IntegerType, "")}


@rule(*_CASTS)
def _cast(op):
    src, dst = op.operand(0).type, op.results[0].type
    want_src, want_dst, width = _CASTS[op.name]
    if not isinstance(src.element_type, want_src) or not isinstance(dst.element_type, want_dst):
        fail(op, f"cannot cast {src} to {dst}")
    if T.with_element(src, dst.element_type) != dst:
        fail(op, f"operand {src} and result {dst} must have the same shape")
    sb, db = _bits(src), _bits(dst)
    if (width == ">" and not db > sb) or (width == "<" and not db < sb) or (
            width == "=" and sb != db):
        rel = {">": "wider than", "<": "narrower than", "=": "as wide as"}[width]
        fail(op, f"result {dst} must be {rel} the operand {src}")


@rule("tt.get_program_id", "tt.get_num_programs")
def _program_id(op):
    axis = _attr_int(op, "axis")
    if axis not in (0, 1, 2):
        fail(op, f"axis {axis} must be 0, 1 or 2")
    if op.results[0].type != T.i32:
        fail(op, f"result must be i32, found {op.results[0].type}")


@rule("tt.make_range")
def _make_range(op):
    start, end = _attr_int(op, "start"), _attr_int(op, "end")
    n = end - start
    if n <= 0 or n & (n - 1):
        fail(op, f"end - start = {n} must be a positive power of two")
    rt = op.results[0].type
    if not isinstance(rt, T.TensorType) or rt.dims != (n,) or rt.element != T.i32:
        fail(op, f"result {rt} should be tensor<{n}xi32>")


@rule("tt.splat")
def _splat(op):
    src, rt = op.operand(0).type, op.results[0].type
    if isinstance(src, T.TensorType) or not isinstance(rt, T.TensorType) or rt.element != src:
        fail(op, f"cannot splat {src} to {rt}")


def _tensor_io(op):
    src, rt = op.operand(0).type, op.results[0].type
    if not isinstance(src, T.TensorType) or not isinstance(rt, T.TensorType):
        fail(op, f"operand {src} and result {rt} must be tensors")
    if src.element != rt.element:
        fail(op, f"operand {src} and result {rt} have different element types")
    return src, rt


@rule("tt.broadcast")
def _broadcast(op):
    src, rt = _tensor_io(op)
    if src.rank != rt.rank or any(s != d and s != 1 for s, d in zip(src.dims, rt.dims)):
        fail(op, f"cannot broadcast {src} to {rt}")


@rule("tt.expand_dims")
def _expand_dims(op):
    src, rt = _tensor_io(op)
    axis = _attr_int(op, "axis")
    if not 0 <= axis <= src.rank:
        fail(op, f"axis {axis} out of range for rank {src.rank}")
    want = src.dims[:axis] + (1,) + src.dims[axis:]
    if rt.dims != want:
        fail(op, f"result shape {list(rt.dims)} should be {list(want)}")


@rule("tt.reshape")
def _reshape(op):
    src, rt = _tensor_io(op)
    if src.numel != rt.numel:
        fail(op, f"cannot reshape {src} ({src.numel} elements) to {rt} ({rt.numel})")


@rule("tt.trans")
def _trans(op):
    src, rt = _tensor_io(op)
    order = op.attributes.get("order")
    order = tuple(order.value) if isinstance(order, DenseArrayAttr) else None
    if order is None or sorted(order) != list(range(src.rank)):
        fail(op, f"order {order} is not a permutation of the {src.rank} dims")
    want = tuple(src.dims[i] for i in order)
    if rt.dims != want:
        fail(op, f"result shape {list(rt.dims)} should be {list(want)}")


@rule("tt.join")
def _join(op):
    a, b = op.operands
    rt = op.results[0].type
    if a.type != b.type:
        fail(op, f"operands have different types {a.type} and {b.type}")
    dims = a.type.shape + (2,)
    if not isinstance(rt, T.TensorType) or rt.dims != dims or rt.element != a.type.element_type:
        fail(op, f"result {rt} should have shape {list(dims)}")


@rule("tt.split")
def _split(op):
    src = op.operand(0).type
    if not isinstance(src, T.TensorType) or src.dims[-1:] != (2,):
        fail(op, f"operand {src} must be a tensor whose last dim is 2")
    for r in op.results:
        if r.type.shape != src.dims[:-1] or r.type.element_type != src.element:
            fail(op, f"result {r.type} should have shape {list(src.dims[:-1])}")


@rule("tt.cat")
def _cat(op):
    a, b = op.operands
    rt = op.results[0].type
    if a.type != b.type or rt.element_type != a.type.element_type or \
            getattr(rt, "numel", 1) != 2 * getattr(a.type, "numel", 1):
        fail(op, f"cannot concatenate {a.type} and {b.type} into {rt}")


@rule("tt.addptr")
def _addptr(op):
    p, off = op.operands
    if not isinstance(p.type.element_type, T.PointerType):
        fail(op, f"operand #0 must be a pointer (or tensor of pointers), found {p.type}")
    if not isinstance(off.type.element_type, T.IntegerType):
        fail(op, f"offset must be an integer (or tensor of integers), found {off.type}")
    if p.type.shape != off.type.shape:
        fail(op, f"pointer {p.type} and offset {off.type} must have the same shape")
    if op.results[0].type != p.type:
        fail(op, f"result type {op.results[0].type} should be the pointer type {p.type}")


def _memory_types(op):
    ptr = op.operand(0).type
    value = pointee_shaped(ptr)
    if value is None:
        fail(op, f"operand #0 must be a pointer (or tensor of pointers), found {ptr}")
    return ptr, value


@rule("tt.load")
def _load(op):
    ptr, value = _memory_types(op)
    if check_block_pointer_access(op):
        return
    if op.results[0].type != value:
        fail(op, f"result type {op.results[0].type} should be {value} (the pointee of {ptr})")
    if op.num_operands > 1 and op.operand(1).type != T.with_element(ptr, T.i1):
        fail(op, f"mask type {op.operand(1).type} should be {T.with_element(ptr, T.i1)}")
    if op.num_operands > 2 and op.operand(2).type != value:
        fail(op, f"'other' type {op.operand(2).type} should be {value}")


@rule("tt.store", "tt.atomic_rmw", "tt.atomic_cas")
def _store(op):
    ptr, value = _memory_types(op)
    if op.name == "tt.store" and check_block_pointer_access(op):
        return
    values = op.operands[1:3] if op.name == "tt.atomic_cas" else op.operands[1:2]
    for i, x in enumerate(values, 1):
        if x.type != value:
            fail(op, f"operand #{i} has type {x.type}, should be {value} (the pointee of {ptr})")
    if op.name != "tt.atomic_cas" and op.num_operands > 2 and \
            op.operand(2).type != T.with_element(ptr, T.i1):
        fail(op, f"mask type {op.operand(2).type} should be {T.with_element(ptr, T.i1)}")
    if op.results and op.results[0].type != value:
        fail(op, f"result type {op.results[0].type} should be {value}")


@rule("tt.reduce", "tt.scan")
def _reduce(op):
    n = op.num_operands
    shape = op.operand(0).type.shape
    if not shape:
        fail(op, f"operands must be tensors, found {op.operand(0).type}")
    for i, x in enumerate(op.operands):
        if x.type.shape != shape:
            fail(op, f"operand #{i} shape {list(x.type.shape)} differs from {list(shape)}")
    axis = _attr_int(op, "axis")
    if not 0 <= axis < len(shape):
        fail(op, f"axis {axis} out of range for rank {len(shape)}")
    elts = [x.type.element_type for x in op.operands]
    region = op.regions[0]
    if len(region.blocks) != 1:
        fail(op, f"region must have exactly one block, found {len(region.blocks)}")
    args = [a.type for a in region.blocks[0].args]
    if args != elts + elts:
        fail(op, f"combine region takes ({', '.join(map(str, args))}) but {2 * n} scalar "
                 f"arguments ({', '.join(map(str, elts + elts))}) are expected")
    _yield_types(op, 0, op.name + ".return", elts, "the operands' element types are")
    if len(op.results) != n:
        fail(op, f"expects {n} results, found {len(op.results)}")
    for i, (x, r) in enumerate(zip(op.operands, op.results)):
        if op.name == "tt.scan":
            want_shape = shape
        else:
            want_shape = shape[:axis] + shape[axis + 1:]
        if r.type.shape != want_shape or r.type.element_type != elts[i]:
            fail(op, f"result #{i} type {r.type} should have shape {list(want_shape)} "
                     f"and element type {elts[i]}")


@rule("tt.map_elementwise")
def _map_elementwise(op):
    pack = _attr_int(op, "pack")
    if pack < 1:
        fail(op, f"pack must be positive, found {pack}")
    shapes = {tuple(x.type.shape) for x in list(op.operands) + list(op.results)}
    if len(shapes) > 1:
        fail(op, f"operands and results must have one shape, found {sorted(shapes)}")
    region = op.regions[0]
    if len(region.blocks) != 1:
        fail(op, f"region must have exactly one block, found {len(region.blocks)}")
    want = [x.type.element_type for x in op.operands for _ in range(pack)]
    args = [a.type for a in region.blocks[0].args]
    if args != want:
        fail(op, f"region takes ({', '.join(map(str, args))}) but ({', '.join(map(str, want))})"
                 f" are expected for pack {pack}")
    _yield_types(op, 0, "tt.map_elementwise.return",
                 [r.type.element_type for r in op.results for _ in range(pack)],
                 "the results' element types are")


@rule("tt.reduce.return", "tt.scan.return", "tt.map_elementwise.return")
def _combine_return(op):
    parent = op.parent_op
    want = op.name[:-len(".return")]
    if parent is None or parent.name != want:
        fail(op, f"must be inside '{want}'")


@rule("tt.dot")
def _dot(op):
    a, b, c = (x.type for x in op.operands)
    if not all(isinstance(t, T.TensorType) and t.rank in (2, 3) for t in (a, b, c)):
        fail(op, f"operands must be rank-2 (or batched rank-3) tensors: {a}, {b}, {c}")
    (m, k), (k2, n), (m2, n2) = a.dims[-2:], b.dims[-2:], c.dims[-2:]
    if k != k2 or m != m2 or n != n2:
        fail(op, f"shapes {list(a.dims)} x {list(b.dims)} -> {list(c.dims)} do not match")
    if op.results[0].type != c:
        fail(op, f"result type {op.results[0].type} should be the accumulator type {c}")


@rule("tt.func")
def _func(op):
    name = op.attributes.get("sym_name")
    ftype = op.attributes.get("function_type")
    if not isinstance(name, StringAttr):
        fail(op, "requires a 'sym_name' string attribute")
    if not isinstance(ftype, TypeAttr) or not isinstance(ftype.value, T.FunctionType):
        fail(op, "requires a 'function_type' attribute holding a function type")
    region = op.regions[0]
    if region.blocks:
        args = tuple(a.type for a in region.blocks[0].args)
        if args != ftype.value.inputs:
            fail(op, f"entry block arguments ({', '.join(map(str, args))}) do not match the "
                     f"function type {ftype.value}")


@rule("tt.return")
def _return(op):
    func = op.parent_op
    if func is None or func.name != "tt.func":
        fail(op, "must be directly inside a 'tt.func'")
    ftype = func.attr("function_type")
    got = tuple(x.type for x in op.operands)
    if isinstance(ftype, T.FunctionType) and got != ftype.results:
        fail(op, f"returns ({', '.join(map(str, got))}) but the function type is {ftype}")


@rule("tt.call")
def _call(op):
    callee = op.attributes.get("callee")
    if not isinstance(callee, SymbolRefAttr):
        fail(op, "requires a 'callee' symbol attribute")
    module = op.parent_op
    while module is not None and module.name != "builtin.module":
        module = module.parent_op
    if module is None:
        return
    for f in module.regions[0].blocks[0] if module.regions[0].blocks else ():
        if f.name == "tt.func" and f.attr("sym_name") == callee.value:
            ft = f.attr("function_type")
            ins = tuple(x.type for x in op.operands)
            outs = tuple(op.result_types)
            if isinstance(ft, T.FunctionType) and (ins, outs) != (ft.inputs, ft.results):
                fail(op, f"call type {T.FunctionType(ins, outs)} does not match @{callee.value}"
                         f" : {ft}")
            return
    fail(op, f"calls @{callee.value}, which is not defined in the module")


@rule("scf.for")
def _for(op):
    lb, ub, step, *inits = op.operands
    if not (lb.type == ub.type == step.type) or isinstance(lb.type, (T.TensorType, T.FloatType,
                                                                      T.PointerType)):
        fail(op, f"bounds and step must be integers of one type, found {lb.type}, {ub.type}, "
                 f"{step.type}")
    init_types = [x.type for x in inits]
    if init_types != op.result_types:
        fail(op, f"iter_args ({', '.join(map(str, init_types))}) do not match the results "
                 f"({', '.join(map(str, op.result_types))})")
    region = op.regions[0]
    if len(region.blocks) != 1:
        fail(op, f"body must have exactly one block, found {len(region.blocks)}")
    args = [a.type for a in region.blocks[0].args]
    if args != [lb.type] + init_types:
        fail(op, f"body arguments ({', '.join(map(str, args))}) should be the induction "
                 f"variable and the iter_args ({', '.join(map(str, [lb.type] + init_types))})")
    _yield_types(op, 0, "scf.yield", op.result_types, "the results are")


@rule("scf.if")
def _if(op):
    if op.operand(0).type != T.i1:
        fail(op, f"condition must be i1, found {op.operand(0).type}")
    then, other = op.regions
    if len(then.blocks) != 1 or len(other.blocks) > 1:
        fail(op, "then region needs one block and else region at most one")
    if op.results and not other.blocks:
        fail(op, "has results but no else region")
    for i in (0, 1):
        _yield_types(op, i, "scf.yield", op.result_types, "the results are")


@rule("scf.while")
def _while(op):
    before, after = op.regions
    if len(before.blocks) != 1 or len(after.blocks) != 1:
        fail(op, "both regions need exactly one block")
    inits = [x.type for x in op.operands]
    bargs = [a.type for a in before.blocks[0].args]
    if bargs != inits:
        fail(op, f"before-region arguments ({', '.join(map(str, bargs))}) do not match the "
                 f"initial values ({', '.join(map(str, inits))})")
    cond = before.blocks[0].last
    if cond is None or cond.name != "scf.condition":
        fail(op, "before region must end with 'scf.condition'")
    fwd = [x.type for x in cond.operands[1:]]
    aargs = [a.type for a in after.blocks[0].args]
    if fwd != op.result_types or aargs != op.result_types:
        fail(op, f"scf.condition forwards ({', '.join(map(str, fwd))}), the after region takes "
                 f"({', '.join(map(str, aargs))}) and the results are "
                 f"({', '.join(map(str, op.result_types))}); all three must match")
    _yield_types(op, 1, "scf.yield", inits, "the initial values are")


@rule("scf.yield")
def _yield(op):
    parent = op.parent_op
    if parent is None or not parent.name.startswith("scf."):
        fail(op, "must be inside an scf op")


@rule("scf.condition")
def _condition(op):
    parent = op.parent_op
    if parent is None or parent.name != "scf.while" or op.parent is not (
            parent.regions[0].blocks[0] if parent.regions[0].blocks else None):
        fail(op, "must end the before region of an 'scf.while'")
    if op.operand(0).type != T.i1:
        fail(op, f"condition must be i1, found {op.operand(0).type}")


@rule("builtin.module")
def _module(op):
    region = op.regions[0]
    if len(region.blocks) != 1 or region.blocks[0].args:
        fail(op, "body must be one block without arguments")


from .verify_tensor_ptr import check_block_pointer_access  # noqa: E402  (registers its rules)
