"""Parse MLIR text (what `printer.py` writes, and upstream TTIR/TTGIR dumps) back into IR.

    parse_module(text) -> builtin.module Operation
    parse_op(text, values=None) -> one Operation (`values` binds names it uses from outside)
    parse_type(text) / parse_attr(text)

A recursive-descent parser over `lexer.Lexer`: the type, attribute and location grammars
live in `attr_parser.AsmReader`, the ops' custom formats in `asm_formats.py`. Values are
bound by name in scopes that follow the region nesting; IsolatedFromAbove ops (tt.func,
module) start a fresh name table. A use before the definition gets a placeholder value
that the definition replaces (use-lists included), so forward references within a region
parse. Errors are `ParseError`s whose message starts `line:col:`.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from . import types as T
from .asm_formats import FORMATS, CustomFormats
from .attr_parser import (AsmReader, OpaqueEncoding, OpaqueType, ParseError, Token,  # noqa: F401
                          describe)
from .attrs import BoolAttr, IntegerAttr
from .core import Block, Operation, Region, Value, make_module
from .ops import lookup

__all__ = ["parse_module", "parse_op", "parse_type", "parse_attr", "ParseError", "Parser",
           "OpaqueType", "OpaqueEncoding", "FORMATS"]

_DEFINES = re.compile(r"\s*(?::\s*[0-9]+\s*)?=")


class _Frame:
    """Names visible in one IsolatedFromAbove region (and its non-isolated descendants)."""

    __slots__ = ("values", "forward", "scopes")

    def __init__(self):
        self.values: Dict[str, list] = {}
        self.forward: Dict[tuple, tuple] = {}   # (name, index) -> (placeholder, use token)
        self.scopes: List[List[str]] = [[]]


class Parser(CustomFormats, AsmReader):
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
            fmt = FORMATS.get(tok.text)
            if fmt is None:
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
