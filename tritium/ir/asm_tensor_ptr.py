"""Assembly formats of block pointers and tensor descriptors, printer and parser side.

Upstream's spellings (TritonOps.td), e.g.

    %p = tt.make_tensor_ptr %base, [%M, %N], [%sM, %c1_i64], [%o0, %o1] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
    %q = tt.advance %p, [%c0_i32, %c32_i32] : <tensor<64x32xf16>>
    %d = tt.make_tensor_descriptor %base, [%M, %N], [%sM, %c1_i64] : <f16>, <tensor<64x32xf16>>
    %x = tt.descriptor_load %d[%i, %j] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
    tt.descriptor_store %d[%i, %j], %x : !tt.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
    tt.descriptor_reduce add, %d[%i, %j], %x : !tt.tensordesc<...>, tensor<64x32xf16>
    %g = tt.descriptor_gather %d[%rows, %j] : (!tt.tensordesc<...>, tensor<8xi32>, i32) -> tensor<8x32xf16>
    tt.descriptor_scatter %d[%rows, %j], %g : !tt.tensordesc<...>, tensor<8xi32>, i32, tensor<8x32xf16>

Where the op fixes the dialect of a type, upstream prints it without `!tt.ptr` /
`!tt.tensordesc`; the parser reads both spellings. Operand order is the op catalogue's
(`ops.py`): descriptor stores take (desc, src, *indices), scatters (desc, x, y, src).
"""
from __future__ import annotations

from typing import Callable, Dict

from . import types as T
from .attr_parser import describe
from .attrs import i32_attr
from .ops import DESCRIPTOR_REDUCE_KINDS

PRINTERS: Dict[str, Callable] = {}
FORMATS: Dict[str, Callable] = {}
_REDUCE_NAMES = {v: k for k, v in DESCRIPTOR_REDUCE_KINDS.items()}


def _printer(name):
    def register(fn):
        PRINTERS[name] = fn
        return fn
    return register


def _parser(*names):
    def register(fn):
        for n in names:
            FORMATS[n] = fn
        return fn
    return register


def block_rank(t: T.Type) -> int:
    """Rank of the block behind a block pointer or a tensor descriptor type."""
    if isinstance(t, T.TensorDescType):
        return t.block.rank
    return t.pointee.rank


# ------------------------------------------------------------------ printing
def _bracket(p, values) -> str:
    return "[" + ", ".join(p.namer(v) for v in values) + "]"


@_printer("tt.make_tensor_ptr")
def _p_make_tensor_ptr(p, op):
    ty = op.results[0].type
    r = block_rank(ty)
    ops = op.operands
    return (f"tt.make_tensor_ptr {p.namer(ops[0])}, {_bracket(p, ops[1:1 + r])}, "
            f"{_bracket(p, ops[1 + r:1 + 2 * r])}, {_bracket(p, ops[1 + 2 * r:])}"
            f"{p._attrs(op)} : {T.elide_dialect(ty)}")


@_printer("tt.advance")
def _p_advance(p, op):
    return (f"tt.advance {p.namer(op.operand(0))}, {_bracket(p, op.operands[1:])}"
            f"{p._attrs(op)} : {T.elide_dialect(op.results[0].type)}")


@_printer("tt.make_tensor_descriptor")
def _p_make_desc(p, op):
    ty = op.results[0].type
    r = block_rank(ty)
    ops = op.operands
    elide = ("padding",) if op.attr("padding", 1) == 1 else ()
    return (f"tt.make_tensor_descriptor {p.namer(ops[0])}, {_bracket(p, ops[1:1 + r])}, "
            f"{_bracket(p, ops[1 + r:])}{p._attrs(op, elide)} : "
            f"{T.elide_dialect(ops[0].type)}, {T.elide_dialect(ty)}")


def _desc_attrs(p, op, extra=()):
    elide = tuple(k for k in ("cache", "evict") if op.attr(k, 1) == 1) + tuple(extra)
    return p._attrs(op, elide)


@_printer("tt.descriptor_load")
def _p_desc_load(p, op):
    d = op.operand(0)
    return (f"tt.descriptor_load {p.namer(d)}{_bracket(p, op.operands[1:])}"
            f"{_desc_attrs(p, op)} : {d.type} -> {op.results[0].type}")


@_printer("tt.descriptor_store")
def _p_desc_store(p, op):
    d, src = op.operand(0), op.operand(1)
    return (f"tt.descriptor_store {p.namer(d)}{_bracket(p, op.operands[2:])}, {p.namer(src)}"
            f"{_desc_attrs(p, op)} : {d.type}, {src.type}")


@_printer("tt.descriptor_reduce")
def _p_desc_reduce(p, op):
    d, src = op.operand(0), op.operand(1)
    kind = _REDUCE_NAMES[op.attr("kind")]
    return (f"tt.descriptor_reduce {kind}, {p.namer(d)}{_bracket(p, op.operands[2:])}, "
            f"{p.namer(src)}{_desc_attrs(p, op, ('kind',))} : {d.type}, {src.type}")


@_printer("tt.descriptor_gather")
def _p_desc_gather(p, op):
    d, x, y = op.operands
    return (f"tt.descriptor_gather {p.namer(d)}{_bracket(p, (x, y))}{p._attrs(op)} : "
            f"({d.type}, {x.type}, {y.type}) -> {op.results[0].type}")


@_printer("tt.descriptor_scatter")
def _p_desc_scatter(p, op):
    d, x, y, src = op.operands
    return (f"tt.descriptor_scatter {p.namer(d)}{_bracket(p, (x, y))}, {p.namer(src)}"
            f"{p._attrs(op)} : {d.type}, {x.type}, {y.type}, {src.type}")


# ------------------------------------------------------------------ parsing
# Each function below is a method of `parser.Parser` (through `asm_formats.FORMATS`).
def _elided_type(self, dialect: str) -> T.Type:
    """A type the op's format prints without its dialect prefix (`<f16>` for a pointer)."""
    if not self.at("<"):
        return self.parse_type()
    if dialect == "!tt.tensordesc":
        return self.tensordesc_body()
    self.expect("<")
    pointee = self.parse_type()
    space = self.parse_int() if self.accept(",") else 1
    self.expect(">", "closing the pointer type")
    return T.PointerType(pointee, space)


def _bracket_toks(self, what: str):
    self.expect("[", f"opening the {what} list")
    return self.comma_list(self.value_tok, "]")


def _indices(self, toks):
    return [self.use(t, T.i32) for t in toks]


@_parser("tt.make_tensor_ptr")
def _make_tensor_ptr(self, name):
    base = self.value_tok()
    lists = []
    for what in ("shape", "strides", "offsets"):
        self.expect(",")
        lists.append(_bracket_toks(self, what))
    attrs = self.parse_opt_attr_dict()
    self.expect(":")
    tok = self.peek()
    ty = _elided_type(self, "!tt.ptr")
    if not T.is_block_ptr(ty):
        raise self.error(f"tt.make_tensor_ptr makes a block pointer, not {ty}", tok)
    elt = T.PointerType(ty.pointee.element, ty.address_space)
    shape, strides, offsets = lists
    operands = ([self.use(base, elt)] + [self.use(t, T.i64) for t in shape + strides]
                + _indices(self, offsets))
    return self.make_op(name, operands, [ty], attrs)


@_parser("tt.advance")
def _advance(self, name):
    ptr = self.value_tok()
    self.expect(",")
    offsets = _bracket_toks(self, "offsets")
    attrs = self.parse_opt_attr_dict()
    self.expect(":")
    ty = _elided_type(self, "!tt.ptr")
    return self.make_op(name, [self.use(ptr, ty)] + _indices(self, offsets), [ty], attrs)


@_parser("tt.make_tensor_descriptor")
def _make_desc(self, name):
    base = self.value_tok()
    self.expect(",")
    shape = _bracket_toks(self, "shape")
    self.expect(",")
    strides = _bracket_toks(self, "strides")
    attrs = self.parse_opt_attr_dict()
    self.expect(":")
    base_ty = _elided_type(self, "!tt.ptr")
    self.expect(",")
    tok = self.peek()
    ty = _elided_type(self, "!tt.tensordesc")
    if not isinstance(ty, T.TensorDescType):
        raise self.error(f"tt.make_tensor_descriptor makes a !tt.tensordesc, not {ty}", tok)
    attrs.setdefault("padding", i32_attr(1))
    operands = ([self.use(base, base_ty)] + _indices(self, shape)
                + [self.use(t, T.i64) for t in strides])
    return self.make_op(name, operands, [ty], attrs)


def _desc_head(self):
    desc = self.value_tok()
    self.expect("[", "opening the descriptor indices")
    return desc, self.comma_list(self.value_tok, "]")


def _desc_type(self):
    tok = self.peek()
    ty = self.parse_type()
    if not isinstance(ty, T.TensorDescType):
        raise self.error(f"expected a !tt.tensordesc type, found {ty}", tok)
    return ty


def _cache_defaults(attrs):
    attrs.setdefault("cache", i32_attr(1))
    attrs.setdefault("evict", i32_attr(1))
    return attrs


@_parser("tt.descriptor_load")
def _desc_load(self, name):
    desc, idx = _desc_head(self)
    attrs = _cache_defaults(self.parse_opt_attr_dict())
    self.expect(":")
    dty = _desc_type(self)
    self.expect("->", "in tt.descriptor_load")
    rty = self.parse_type()
    return self.make_op(name, [self.use(desc, dty)] + _indices(self, idx), [rty], attrs)


@_parser("tt.descriptor_store", "tt.descriptor_reduce")
def _desc_store(self, name):
    attrs = {}
    if name == "tt.descriptor_reduce":
        tok = self.next()
        if tok.text not in DESCRIPTOR_REDUCE_KINDS:
            raise self.error(f"unknown descriptor reduce kind {describe(tok)}", tok)
        attrs["kind"] = i32_attr(DESCRIPTOR_REDUCE_KINDS[tok.text])
        self.expect(",")
    desc, idx = _desc_head(self)
    self.expect(",")
    src = self.value_tok()
    attrs.update(_cache_defaults(self.parse_opt_attr_dict()))
    self.expect(":")
    dty = _desc_type(self)
    self.expect(",")
    sty = self.parse_type()
    operands = [self.use(desc, dty), self.use(src, sty)] + _indices(self, idx)
    return self.make_op(name, operands, [], attrs)


@_parser("tt.descriptor_gather")
def _desc_gather(self, name):
    desc, idx = _desc_head(self)
    if len(idx) != 2:
        raise self.error(f"tt.descriptor_gather takes [x_offsets, y_offset], found "
                         f"{len(idx)} indices")
    attrs = self.parse_opt_attr_dict()
    self.expect(":")
    self.expect("(")
    types = self.type_list(3)
    self.expect(")")
    self.expect("->", "in tt.descriptor_gather")
    rty = self.parse_type()
    operands = [self.use(t, ty) for t, ty in zip([desc] + idx, types)]
    return self.make_op(name, operands, [rty], attrs)


@_parser("tt.descriptor_scatter")
def _desc_scatter(self, name):
    desc, idx = _desc_head(self)
    if len(idx) != 2:
        raise self.error(f"tt.descriptor_scatter takes [x_offsets, y_offset], found "
                         f"{len(idx)} indices")
    self.expect(",")
    src = self.value_tok()
    attrs = self.parse_opt_attr_dict()
    self.expect(":")
    types = self.type_list(4)
    operands = [self.use(t, ty) for t, ty in zip([desc] + idx + [src], types)]
    return self.make_op(name, operands, [], attrs)
