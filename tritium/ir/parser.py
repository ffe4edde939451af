"""Parse MLIR text (what `printer.py` writes, and upstream TTIR/TTGIR dumps) back into IR.

    parse_module(text) -> builtin.module Operation
    parse_op(text, values=None) -> one Operation (`values` binds names it uses from outside)
    parse_type(text) / parse_attr(text)

A recursive-descent parser over `lexer.Lexer`; the type, attribute and location grammars
live in `attr_parser.AsmReader`. Values are bound by name in scopes that follow the region nesting;
IsolatedFromAbove ops (tt.func, module) start a fresh name table. A use before the definition
gets a placeholder value that the definition replaces (use-lists included), so forward
references within a region parse. Errors are `ParseError`s whose message starts `line:col:`.
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional

from . import types as T
from .attrs import (ArrayAttr, BoolAttr, DictAttr, IntegerAttr, StringAttr, SymbolRefAttr,
                    TypeAttr, i32_attr)
from .core import Block, Operation, Region, Value, make_module
from .attr_parser import (AsmReader, OpaqueEncoding, OpaqueType, ParseError, Token,  # noqa: F401
                          TypedOpaqueAttr, describe)
from .ops import (CACHE_MODIFIERS, CMPF_PREDICATES, CMPI_PREDICATES, EVICTION_POLICIES,
                  INPUT_PRECISIONS, PROGRAM_AXES, lookup)
from .printer import ARROW_OPS, BINARY_OPS, CAST_OPS

__all__ = ["parse_module", "parse_op", "parse_type", "parse_attr", "ParseError", "Parser",
           "OpaqueType", "OpaqueEncoding"]

_FORMATS: Dict[str, Callable] = {}
_DEFINES = re.compile(r"\s*(?::\s*[0-9]+\s*)?=")


def _format(*names: str):
    def register(fn):
        for n in names:
            _FORMATS[n] = fn
        return fn
    return register


class _Frame:
    """Names visible in one IsolatedFromAbove region (and its non-isolated descendants)."""

    __slots__ = ("values", "forward", "scopes")

    def __init__(self):
        self.values: Dict[str, list] = {}
        self.forward: Dict[tuple, tuple] = {}   # (name, index) -> (placeholder, use token)
        self.scopes: List[List[str]] = [[]]


def pointee_shaped(ptr_type: T.Type) -> Optional[T.Type]:
    """What `tt.load` of `ptr_type` yields: the pointee, shaped like the pointer tensor."""
    elt = ptr_type.element_type
    if not isinstance(elt, T.PointerType):
        return None
    if isinstance(elt.pointee, T.TensorType) and not isinstance(ptr_type, T.TensorType):
        return elt.pointee  # block pointer
    return T.with_element(ptr_type, elt.pointee)


class Parser(AsmReader):
    def __init__(self, text: str, values: Optional[Dict[str, Value]] = None):
        super().__init__(text)
        self.frames: List[_Frame] = [_Frame()]
        self.pending_locs: list = []
        for name, v in (values or {}).items():
            self.frames[0].values["%" + name.lstrip("%")] = [v]

    # ---------------------------------------------------------------- names
    def use(self, tok: Token, type_: Optional[T.Type], strict: bool = True) -> Value:
        name, _, idx = tok.text.partition("#")
        index = int(idx) if idx else 0
        frame = self.frames[-1]
        vals = frame.values.get(name)
        if vals is not None:
            if index >= len(vals):
                raise self.error(f"'{name}' has {len(vals)} results, no #{index}", tok)
            v = vals[index]
        else:
            fw = frame.forward.get((name, index))
            if fw is not None:
                v = fw[0]
            elif type_ is None:
                raise self.error(f"use of undefined value '{tok.text}'", tok)
            else:
                v = Value(type_)
                frame.forward[(name, index)] = (v, tok)
                return v
        if strict and type_ is not None and v.type != type_:
            raise self.error(f"'{tok.text}' has type {v.type}, but is used as {type_}", tok)
        return v

    def define(self, tok: Token, values) -> None:
        name = tok.text
        if "#" in name:
            raise self.error(f"cannot define '{name}': '#' is for uses", tok)
        frame = self.frames[-1]
        if name in frame.values:
            raise self.error(f"redefinition of value '{name}'", tok)
        frame.values[name] = list(values)
        frame.scopes[-1].append(name)
        if frame.forward:
            for i, v in enumerate(values):
                fw = frame.forward.pop((name, i), None)
                if fw is not None:
                    ph, use_tok = fw
                    if ph.type != v.type:
                        raise self.error(f"'{use_tok.text}' is used as {ph.type}, but defined "
                                         f"as {v.type}", use_tok)
                    ph.replace_all_uses_with(v)

    def push_scope(self, isolated: bool) -> None:
        if isolated:
            self.frames.append(_Frame())
        else:
            self.frames[-1].scopes.append([])

    def pop_scope(self, isolated: bool) -> None:
        frame = self.frames[-1]
        if isolated:
            self._check_forward(frame)
            self.frames.pop()
        else:
            for name in frame.scopes.pop():
                del frame.values[name]

    def _check_forward(self, frame: _Frame) -> None:
        if frame.forward:
            ph, tok = min(frame.forward.values(), key=lambda f: f[1].start)
            raise self.error(f"use of undefined value '{tok.text}'", tok)

    def finish(self) -> None:
        self._check_forward(self.frames[0])
        for op, loc in self.pending_locs:
            op.loc = self.resolve_loc(loc)
        self.pending_locs = []

    # ---------------------------------------------------------------- operations
    def value_tok(self) -> Token:
        return self.expect_kind("value", "an SSA value")

    def value_list(self) -> List[Token]:
        """Comma-separated operands (maybe none). A value followed by `=` starts the next
        op (after an operand-less terminator), so it is not taken."""
        toks = []
        tok = self.peek()
        if tok.kind == "value" and not _DEFINES.match(self.text, tok.end):
            toks.append(self.next())
            while self.accept(","):
                toks.append(self.value_tok())
        return toks

    def parse_operation(self, block: Block) -> Operation:
        groups = []
        if self.peek().kind == "value":
            while True:
                t = self.value_tok()
                n = 1
                if self.accept(":"):
                    n = int(self.expect_kind("int", "a result count").text)
                groups.append((t, n))
                if not self.accept(","):
                    break
            self.expect("=", "after result names")
        tok = self.peek()
        if tok.kind == "string":
            op = self.parse_generic()
        elif tok.kind == "id":
            fmt = _FORMATS.get(tok.text)
            if fmt is None:
                if tok.text in BINARY_OPS:
                    fmt = Parser._binary
                elif tok.text in CAST_OPS:
                    fmt = Parser._cast
                elif tok.text in ARROW_OPS:
                    fmt = Parser._arrow
                else:
                    raise self.error(f"unknown operation '{tok.text}' (no custom format known; "
                                     f"write it in the generic form \"{tok.text}\"(...))", tok)
            self.next()
            op = fmt(self, tok.text)
        else:
            raise self.error(f"expected an operation, found {describe(tok)}", tok)
        loc = self.parse_opt_loc()
        if loc is not None:
            if isinstance(loc, tuple):
                self.pending_locs.append((op, loc))
            else:
                op.loc = loc
        n_names = sum(n for _, n in groups)
        if groups and n_names != len(op.results):
            raise self.error(f"'{op.name}' has {len(op.results)} results but {n_names} "
                             f"names are given", groups[0][0])
        if not groups and op.results:
            raise self.error(f"'{op.name}' has {len(op.results)} results but no names", tok)
        block.append(op)
        i = 0
        for t, n in groups:
            self.define(t, op.results[i:i + n])
            i += n
        return op

    def make_op(self, name, operands, result_types, attrs, regions=()) -> Operation:
        if name == "arith.constant" and isinstance(attrs.get("value"), BoolAttr):
            attrs["value"] = IntegerAttr(int(attrs["value"].value), T.i1)
        op = Operation(name, operands, result_types, attrs)
        for r in regions:
            r.parent = op
            op.regions.append(r)
        return op

    def parse_generic(self) -> Operation:
        tok = self.next()
        name = self.string_value(tok)
        self.expect("(", "after the op name")
        operand_toks = self.comma_list(self.value_tok, ")")
        if self.at("["):
            raise self.error("successor blocks are not supported (control flow is structured)")
        attrs = {}
        if self.accept("<"):
            attrs.update(self.parse_dict().value)
            self.expect(">", "closing the properties")
        regions = []
        if self.accept("("):
            isolated = "IsolatedFromAbove" in lookup(name).traits
            regions = self.comma_list(lambda: self.parse_region(isolated=isolated), ")")
        attrs.update(self.parse_opt_attr_dict())
        self.expect(":", "before the op's type")
        if not self.at("("):
            raise self.error(f"expected a function type, found {describe(self.peek())}")
        ftype = self.parse_type()
        if len(ftype.inputs) != len(operand_toks):
            raise self.error(f"'{name}' has {len(operand_toks)} operands but its type lists "
                             f"{len(ftype.inputs)}", tok)
        operands = [self.use(t, ty) for t, ty in zip(operand_toks, ftype.inputs)]
        return self.make_op(name, operands, ftype.results, attrs, regions)

    # ---------------------------------------------------------------- blocks, regions
    def parse_region(self, args=None, isolated: bool = False, need_block: bool = False) -> Region:
        region = Region()
        self.expect("{", "opening a region")
        self.push_scope(isolated)
        block = None
        if args is not None:
            block = region.add_block(Block())
            for t, ty in args:
                self.define(t, [block.add_argument(ty)])
        labels = set()
        while True:
            tok = self.peek()
            kind = tok.kind
            if kind == "punct" and tok.text == "}":
                self.next()
                break
            if kind == "caret":
                block = self.parse_block_label(region, labels)
            elif kind == "eof":
                raise self.error("unterminated region: expected '}'", tok)
            else:
                if block is None:
                    block = region.add_block(Block())
                self.parse_operation(block)
        if need_block and not region.blocks:
            region.add_block(Block())
        self.pop_scope(isolated)
        return region

    def parse_block_label(self, region: Region, labels: set) -> Block:
        tok = self.next()
        if tok.text in labels:
            raise self.error(f"redefinition of block '{tok.text}'", tok)
        labels.add(tok.text)
        block = region.add_block(Block())
        if self.accept("("):
            def arg():
                t = self.value_tok()
                self.expect(":", "after a block argument")
                ty = self.parse_type()
                self.parse_opt_loc()
                return t, ty
            for t, ty in self.comma_list(arg, ")"):
                self.define(t, [block.add_argument(ty)])
        self.expect(":", "after the block label")
        return block

    @staticmethod
    def _implicit_yield(region: Region) -> None:
        """MLIR elides an operand-less `scf.yield`; put it back."""
        for block in region.blocks[:1]:
            last = block.last
            if last is None or "Terminator" not in lookup(last.name).traits:
                block.append(Operation("scf.yield"))

    # ---------------------------------------------------------------- custom formats
    @_format("module", "builtin.module")
    def _module(self, name):
        attrs = {}
        if self.peek().kind == "at":
            attrs["sym_name"] = StringAttr(self.next().text[1:])
        if self.accept("attributes"):
            attrs.update(self.parse_dict().value)
        region = self.parse_region(isolated=True, need_block=True)
        return self.make_op("builtin.module", [], [], attrs, [region])

    @_format("tt.func")
    def _func(self, name):
        vis = None
        if self.peek().kind == "id" and self.peek().text in ("public", "private", "nested"):
            vis = self.next().text
        sym = self.expect_kind("at", "a function name")
        self.expect("(", "opening the parameter list")
        declaration = self.peek().kind != "value" and not self.at(")")

        def param():
            t = None if declaration else self.value_tok()
            if t is not None:
                self.expect(":", "after a parameter name")
            ty = self.parse_type()
            d = self.parse_dict() if self.at("{") else DictAttr(())
            self.parse_opt_loc()
            return t, ty, d
        params = self.comma_list(param, ")")
        results = []
        if self.accept("->"):
            def result():
                return self.parse_type(), (self.parse_dict() if self.at("{") else DictAttr(()))
            results = (self.comma_list(result, ")") if self.accept("(")
                       else [(self.parse_type(), DictAttr(()))])
        fname = sym.text[1:]
        if fname.startswith('"'):
            fname = self.string_value(Token("string", fname, sym.start, sym.end))
        ftype = T.FunctionType(tuple(p[1] for p in params), tuple(r[0] for r in results))
        attrs = {"sym_name": StringAttr(fname), "function_type": TypeAttr(ftype)}
        if vis is not None:
            attrs["sym_visibility"] = StringAttr(vis)
        if any(p[2].value for p in params):
            attrs["arg_attrs"] = ArrayAttr(tuple(p[2] for p in params))
        if any(r[1].value for r in results):
            attrs["res_attrs"] = ArrayAttr(tuple(r[1] for r in results))
        if self.accept("attributes"):
            attrs.update(self.parse_dict().value)
        if declaration or not self.at("{"):
            return self.make_op("tt.func", [], [], attrs, [Region()])
        region = self.parse_region(args=[(p[0], p[1]) for p in params], isolated=True)
        return self.make_op("tt.func", [], [], attrs, [region])

    def _typed_operands(self, toks):
        if not toks:
            return []
        self.expect(":", "before the operand types")
        return [self.use(t, ty) for t, ty in zip(toks, self.type_list(len(toks)))]

    @_format("tt.return", "scf.yield", "tt.reduce.return", "tt.scan.return")
    def _return_like(self, name):
        attrs = self.parse_opt_attr_dict()
        toks = self.value_list()
        attrs.update(self.parse_opt_attr_dict())
        return self.make_op(name, self._typed_operands(toks), [], attrs)

    @_format("scf.condition")
    def _condition(self, name):
        self.expect("(")
        cond = self.use(self.value_tok(), T.i1, strict=False)
        self.expect(")")
        attrs = self.parse_opt_attr_dict()
        rest = self._typed_operands(self.value_list())
        return self.make_op(name, [cond] + rest, [], attrs)

    @_format("arith.constant")
    def _constant(self, name):
        attrs = self.parse_opt_attr_dict()
        tok = self.peek()
        value = self.parse_attr()
        if isinstance(value, BoolAttr):
            value = IntegerAttr(int(value.value), T.i1)
        type_ = getattr(value, "type", None)
        if not isinstance(type_, T.Type):
            raise self.error(f"arith.constant needs a typed value, found {value}", tok)
        attrs["value"] = value
        return self.make_op(name, [], [type_], attrs)

    @_format("arith.cmpi", "arith.cmpf")
    def _cmp(self, name):
        table = CMPI_PREDICATES if name == "arith.cmpi" else CMPF_PREDICATES
        tok = self.next()
        if tok.text not in table:
            raise self.error(f"unknown {name} predicate {describe(tok)}", tok)
        self.expect(",")
        a = self.value_tok()
        self.expect(",")
        b = self.value_tok()
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        ty = self.parse_type()
        attrs["predicate"] = IntegerAttr(table.index(tok.text), T.i64)
        return self.make_op(name, [self.use(a, ty), self.use(b, ty)],
                            [T.with_element(ty, T.i1)], attrs)

    @_format("arith.select")
    def _select(self, name):
        toks = self.value_list()
        if len(toks) != 3:
            raise self.error(f"arith.select takes 3 operands, found {len(toks)}")
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        ty = self.parse_type()
        cond_ty = T.i1
        if self.accept(","):
            cond_ty, ty = ty, self.parse_type()
        ops = [self.use(toks[0], cond_ty), self.use(toks[1], ty), self.use(toks[2], ty)]
        return self.make_op(name, ops, [ty], attrs)

    def _binary(self, name):
        toks = self.value_list()
        attrs = self.parse_opt_attr_dict()
        self.expect(":", f"before the type of {name}")
        ty = self.parse_type()
        return self.make_op(name, [self.use(t, ty) for t in toks], [ty], attrs)

    def _cast(self, name):
        tok = self.value_tok()
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        src = self.parse_type()
        self.expect("to", f"in {name}")
        return self.make_op(name, [self.use(tok, src)], [self.parse_type()], attrs)

    def _arrow(self, name):
        toks = self.value_list()
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        ins = self.type_list(len(toks))
        self.expect("->", f"in {name}")
        outs = [self.parse_type()]
        while self.accept(","):
            outs.append(self.parse_type())
        return self.make_op(name, [self.use(t, ty) for t, ty in zip(toks, ins)], outs, attrs)

    @_format("tt.get_program_id", "tt.get_num_programs")
    def _program_id(self, name):
        attrs = {}
        tok = self.peek()
        if tok.kind == "id" and tok.text in PROGRAM_AXES:
            attrs["axis"] = i32_attr(PROGRAM_AXES.index(self.next().text))
        attrs.update(self.parse_opt_attr_dict())
        self.expect(":")
        return self.make_op(name, [], [self.parse_type()], attrs)

    @_format("tt.make_range")
    def _make_range(self, name):
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        return self.make_op(name, [], [self.parse_type()], attrs)

    @_format("tt.addptr")
    def _addptr(self, name):
        toks = self.value_list()
        if len(toks) != 2:
            raise self.error(f"tt.addptr takes 2 operands, found {len(toks)}")
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        pty, oty = self.type_list(2)
        return self.make_op(name, [self.use(toks[0], pty), self.use(toks[1], oty)], [pty], attrs)

    @_format("tt.load", "tt.store")
    def _memory(self, name):
        start = self.peek()
        toks = self.value_list()
        is_load = name == "tt.load"
        lo, hi = (1, 3) if is_load else (2, 3)
        if not lo <= len(toks) <= hi:
            raise self.error(f"{name} takes {lo} to {hi} operands, found {len(toks)}", start)
        attrs = {}
        while True:
            if self.accept("cacheModifier"):
                self.expect("=")
                tok = self.next()
                key = "" if tok.text == "none" else "." + tok.text
                if key not in CACHE_MODIFIERS:
                    raise self.error(f"unknown cache modifier {describe(tok)}", tok)
                attrs["cache"] = i32_attr(CACHE_MODIFIERS[key])
            elif self.accept("evictionPolicy"):
                self.expect("=")
                tok = self.next()
                key = "" if tok.text == "evict_normal" else tok.text
                if key not in EVICTION_POLICIES:
                    raise self.error(f"unknown eviction policy {describe(tok)}", tok)
                attrs["evict"] = i32_attr(EVICTION_POLICIES[key])
            else:
                break
        attrs.update(self.parse_opt_attr_dict())
        self.expect(":")
        ptr_tok = self.peek()
        pty = self.parse_type()
        value_ty = pointee_shaped(pty)
        if value_ty is None:
            raise self.error(f"{name} needs a pointer type, found {pty}", ptr_tok)
        mask_ty = T.with_element(pty, T.i1)
        if is_load:
            types = [pty, mask_ty, value_ty]
        else:
            types = [pty, value_ty, mask_ty]
        operands = [self.use(toks[0], pty)] + [self.use(t, ty, strict=False)
                                               for t, ty in zip(toks[1:], types[1:])]
        attrs.setdefault("cache", i32_attr(1))
        attrs.setdefault("evict", i32_attr(1))
        if is_load:
            attrs.setdefault("isVolatile", BoolAttr(False))
        return self.make_op(name, operands, [value_ty] if is_load else [], attrs)

    @_format("tt.dot")
    def _dot(self, name):
        toks = [self.value_tok()]
        for _ in range(2):
            self.expect(",", "between tt.dot operands")
            toks.append(self.value_tok())
        attrs = {}
        if self.accept(","):
            self.expect("inputPrecision")
            self.expect("=")
            tok = self.next()
            if tok.text not in INPUT_PRECISIONS:
                raise self.error(f"unknown input precision {describe(tok)}", tok)
            attrs["inputPrecision"] = i32_attr(INPUT_PRECISIONS[tok.text])
        attrs.update(self.parse_opt_attr_dict())
        attrs.setdefault("inputPrecision", i32_attr(0))
        self.expect(":")
        a = self.parse_type()
        self.expect("*", "between tt.dot operand types")
        b = self.parse_type()
        self.expect("->")
        d = self.parse_type()
        ops = [self.use(toks[0], a), self.use(toks[1], b), self.use(toks[2], d)]
        return self.make_op(name, ops, [d], attrs)

    @_format("tt.call")
    def _call(self, name):
        callee = self.expect_kind("at", "a callee symbol")
        self.expect("(")
        toks = self.comma_list(self.value_tok, ")")
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        if not self.at("("):
            raise self.error("expected the callee's function type")
        ftype = self.parse_type()
        if len(ftype.inputs) != len(toks):
            raise self.error(f"tt.call has {len(toks)} operands but its type lists "
                             f"{len(ftype.inputs)}", callee)
        attrs["callee"] = SymbolRefAttr(callee.text[1:])
        return self.make_op(name, [self.use(t, ty) for t, ty in zip(toks, ftype.inputs)],
                            ftype.results, attrs)

    @_format("scf.for")
    def _for(self, name):
        iv = self.value_tok()
        self.expect("=")
        lb = self.value_tok()
        self.expect("to", "in scf.for")
        ub = self.value_tok()
        self.expect("step", "in scf.for")
        step = self.value_tok()
        iters, result_types = [], []
        if self.accept("iter_args"):
            self.expect("(")

            def pair():
                a = self.value_tok()
                self.expect("=")
                return a, self.value_tok()
            iters = self.comma_list(pair, ")")
            self.expect("->", "after iter_args")
            self.expect("(")
            result_types = self.comma_list(self.parse_type, ")")
            if len(result_types) != len(iters):
                raise self.error(f"scf.for has {len(iters)} iter_args but {len(result_types)} "
                                 f"result types", iv)
        ity = self.parse_type() if self.accept(":") else OpaqueType("index")
        operands = [self.use(lb, ity), self.use(ub, ity), self.use(step, ity)]
        operands += [self.use(v, ty) for (_, v), ty in zip(iters, result_types)]
        args = [(iv, ity)] + [(a, ty) for (a, _), ty in zip(iters, result_types)]
        body = self.parse_region(args=args)
        self._implicit_yield(body)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, operands, result_types, attrs, [body])

    @_format("scf.if")
    def _if(self, name):
        cond = self.use(self.value_tok(), T.i1, strict=False)
        result_types = []
        if self.accept("->"):
            self.expect("(")
            result_types = self.comma_list(self.parse_type, ")")
        then = self.parse_region(need_block=True)
        self._implicit_yield(then)
        other = Region()
        if self.accept("else"):
            other = self.parse_region(need_block=True)
            self._implicit_yield(other)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, [cond], result_types, attrs, [then, other])

    @_format("scf.while")
    def _while(self, name):
        self.expect("(")

        def pair():
            a = self.value_tok()
            self.expect("=")
            return a, self.value_tok()
        inits = self.comma_list(pair, ")")
        self.expect(":")
        if not self.at("("):
            raise self.error("expected the scf.while function type")
        ftype = self.parse_type()
        if len(ftype.inputs) != len(inits):
            raise self.error(f"scf.while has {len(inits)} initial values but its type lists "
                             f"{len(ftype.inputs)}")
        operands = [self.use(v, ty) for (_, v), ty in zip(inits, ftype.inputs)]
        before = self.parse_region(args=[(a, ty) for (a, _), ty in zip(inits, ftype.inputs)])
        self.expect("do", "after the scf.while condition region")
        after = self.parse_region(need_block=True)
        self._implicit_yield(after)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, operands, ftype.results, attrs, [before, after])


# ---------------------------------------------------------------- entry points
def _expect_end(p: Parser) -> None:
    tok = p.peek()
    if tok.kind != "eof":
        raise p.error(f"unexpected {describe(tok)} after the end", tok)


def parse_module(text: str) -> Operation:
    """Parse a whole file: alias definitions and one `module` (top-level ops without a
    `module` are wrapped in one, as MLIR does)."""
    p = Parser(text)
    top = Block()
    while True:
        tok = p.peek()
        if tok.kind == "eof":
            break
        if tok.kind in ("hash", "bang"):
            p.parse_alias_definition()
        else:
            p.parse_operation(top)
    p.finish()
    ops = top.ops
    if len(ops) == 1 and ops[0].name == "builtin.module":
        return ops[0].remove_from_parent()
    module = make_module()
    for op in ops:
        module.regions[0].entry.append(op.remove_from_parent())
    return module


def parse_op(text: str, values: Optional[Dict[str, Value]] = None) -> Operation:
    """Parse one operation; `values` maps the names (`%x` or `x`) it uses from outside."""
    p = Parser(text, values)
    while p.peek().kind in ("hash", "bang"):
        p.parse_alias_definition()
    block = Block()
    op = p.parse_operation(block)
    _expect_end(p)
    p.finish()
    return op.remove_from_parent()


def parse_type(text: str) -> T.Type:
    p = Parser(text)
    t = p.parse_type()
    _expect_end(p)
    return t


def parse_attr(text: str):
    p = Parser(text)
    a = p.parse_attr()
    _expect_end(p)
    return a
