"""The leaf grammars of the MLIR text format: types, attributes, locations, aliases.

`AsmReader` wraps a `lexer.Lexer` with token helpers and parses `tensor<4x8xf32, #blocked>`,
`!tt.ptr<f16>`, `dense<0xFF800000> : tensor<128xf32>`, `{k = v}` dictionaries, `loc(...)`
and the `#name = ...` / `!name = ...` alias definitions; `parser.Parser` adds operations,
blocks and regions on top. Attributes and types this IR does not model are kept as their
text (`OpaqueType`, `OpaqueEncoding`) so they print back unchanged.
"""
from __future__ import annotations

import re
import struct as _struct
from dataclasses import dataclass, field
from typing import List, Optional

from . import types as T
from .attrs import (ArrayAttr, Attr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DictAttr,
                    FloatAttr, IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr,
                    UnitAttr)
from .core import Location, UnknownLoc
from .lexer import Lexer, ParseError, Token, describe, unescape  # noqa: F401


@dataclass(frozen=True, repr=False)
class OpaqueType(T.Type):
    """A type this IR does not model (`index`, `!ttg.memdesc<...>`), kept as its text."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, repr=False)
class OpaqueEncoding(OpaqueAttr):
    """A dialect attribute (layout) kept as text; `alias_base` names its `#alias`."""

    alias_base: str = field(default="enc", compare=False)


@dataclass(frozen=True, repr=False)
class TypedOpaqueAttr(OpaqueAttr):
    """Text of an attribute with a known type, e.g. a non-splat `dense<[1, 2]> : tensor<2xi32>`."""

    type: T.Type = None


_SIMPLE_TENSOR = re.compile(r"tensor<(?:[0-9]+x)*(?:[a-z][a-z0-9]*|!tt\.ptr<[a-z][a-z0-9]*>)"
                            r"(?:, #[A-Za-z_][A-Za-z0-9_$.]*)?>")
_INT_TYPE = re.compile(r"i([0-9]+)")
_SPLAT = re.compile(r"\s*(?:(true|false)|(-?)(0x[0-9A-Fa-f]+)|"
                    r"(-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?))\s*")
_ALIAS_REF = re.compile(r"#[A-Za-z_][A-Za-z0-9_$.]*")
_MNEMONIC_ALIAS = {"nvidia_mma": "mma", "amd_mfma": "mma", "amd_wmma": "mma",
                   "swizzled_shared": "shared", "nvmma_shared": "shared",
                   "shared_memory": "smem", "dot_op": "dot_op"}


def bits_to_float(bits: int, type_: T.Type) -> float:
    """The value whose bit pattern in `type_` is `bits` (MLIR's hex float literals)."""
    width = type_.bitwidth if isinstance(type_, T.FloatType) else 64
    if width == 64:
        return _struct.unpack("<d", _struct.pack("<Q", bits & (2**64 - 1)))[0]
    if width == 32:
        return _struct.unpack("<f", _struct.pack("<I", bits & 0xFFFFFFFF))[0]
    if type_.name == "bf16":
        return _struct.unpack("<f", _struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    if type_.name == "f16":
        import numpy as np
        return float(np.array(bits & 0xFFFF, np.uint16).view(np.float16))
    # fp8: `attrs.float_bits` writes the f32 bit pattern of the value; read it back the same way
    return _struct.unpack("<f", _struct.pack("<I", bits & 0xFFFFFFFF))[0]


def mnemonic_alias(text: str) -> str:
    """`#ttg.blocked<...>` -> `blocked`: the alias base upstream uses for a layout."""
    m = re.match(r"#(?:[A-Za-z_]+\.)?([A-Za-z_][A-Za-z0-9_]*)", text)
    base = m.group(1) if m else "enc"
    return _MNEMONIC_ALIAS.get(base, base)


def _is_memory_space(attr) -> bool:
    return "shared_memory" in str(attr)


_LAYOUT_PARSER: list = []


def _layout_parser():
    """`tritium.gpu.layouts.parse_layout_attr`, or None where that module is missing."""
    if not _LAYOUT_PARSER:
        try:
            from tritium.gpu.layouts import parse_layout_attr
        except Exception:  # the layouts module is optional here
            parse_layout_attr = None
        _LAYOUT_PARSER.append(parse_layout_attr)
    return _LAYOUT_PARSER[0]


class AsmReader:
    """Token helpers plus the type, attribute and location grammars."""

    def __init__(self, text: str):
        self.text = text
        self.lex = Lexer(text)
        self.attr_aliases: dict = {}      # "#name" -> Attr
        self.alias_text: dict = {}        # "#name" -> its text with nested aliases expanded
        self.type_aliases: dict = {}      # "!name" -> Type
        self.loc_aliases: dict = {}       # "#loc3" -> location (maybe unresolved tree)
        self._type_cache: dict = {}
        self._attr_cache: dict = {}

    # -- tokens
    def peek(self) -> Token:
        return self.lex.peek()

    def next(self) -> Token:
        return self.lex.next()

    def at(self, text: str) -> bool:
        tok = self.lex.peek()
        return tok.text == text and tok.kind in ("punct", "id")

    def accept(self, text: str) -> bool:
        tok = self.lex.peek()
        if tok.text == text and tok.kind in ("punct", "id"):
            self.lex.next()
            return True
        return False

    def expect(self, text: str, context: str = "") -> Token:
        tok = self.lex.peek()
        if tok.text != text or tok.kind not in ("punct", "id"):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{text}'{where}, found {describe(tok)}", tok)
        return self.lex.next()

    def expect_kind(self, kind: str, what: str) -> Token:
        tok = self.lex.peek()
        if tok.kind != kind:
            raise self.error(f"expected {what}, found {describe(tok)}", tok)
        return self.lex.next()

    def error(self, message: str, tok: Optional[Token] = None) -> ParseError:
        return self.lex.error(message, tok.start if tok is not None else None)

    def parse_int(self) -> int:
        neg = self.accept("-")
        tok = self.lex.next()
        if tok.kind not in ("int", "hex"):
            raise self.error(f"expected an integer, found {describe(tok)}", tok)
        v = int(tok.text, 0)
        return -v if neg else v

    def comma_list(self, item, close: str) -> list:
        """Items separated by commas up to (and consuming) `close`."""
        out = []
        if self.accept(close):
            return out
        while True:
            out.append(item())
            if self.accept(close):
                return out
            self.expect(",", f"or '{close}'")

    # -- types
    def parse_type(self) -> T.Type:
        tok = self.lex.peek()
        kind, text = tok.kind, tok.text
        if kind == "id":
            if text == "tensor":
                return self._tensor_type()
            self.lex.next()
            m = _INT_TYPE.fullmatch(text)
            if m:
                return T.IntegerType(int(m.group(1)))
            if text in T.FLOAT_WIDTHS:
                return T.FloatType(text)
            if text == "none":
                return T.NoneType()
            if text in ("vector", "memref", "complex", "tuple") and self.at("<"):
                return OpaqueType(text + self.lex.balanced())
            if text in ("index", "tf32", "f80", "f128") or text.startswith(("f8", "f6", "f4")) \
                    or re.fullmatch(r"[su]i[0-9]+", text):
                return OpaqueType(text)
            raise self.error(f"unknown type '{text}'", tok)
        if kind == "bang":
            self.lex.next()
            if text == "!tt.tensordesc":
                return self.tensordesc_body()
            if text == "!tt.ptr":
                self.expect("<")
                pointee = self.parse_type()
                space = self.parse_int() if self.accept(",") else 1
                self.expect(">", "closing !tt.ptr")
                return T.PointerType(pointee, space)
            if text == "!ttg.memdesc":
                return self._memdesc_type()
            if text in self.type_aliases:
                return self.type_aliases[text]
            if "." in text:
                body = self.lex.balanced() if self.at("<") else ""
                return OpaqueType(self.expand_aliases(text + body))
            raise self.error(f"undefined type alias '{text}'", tok)
        if text == "(" and kind == "punct":
            return self._function_type()
        raise self.error(f"expected a type, found {describe(tok)}", tok)

    def tensordesc_body(self) -> T.TensorDescType:
        """`<tensor<64x64xf16>>`, or upstream's newer `<64x64xf16>`, after `!tt.tensordesc`."""
        self.expect("<", "after !tt.tensordesc")
        if self.at("tensor"):
            block = self.parse_type()
        else:
            dims = self.lex.lex_dims()
            element = self.parse_type()
            encoding = self.parse_attr() if self.accept(",") else None
            block = T.TensorType(dims, element, encoding)
        self.expect(">", "closing !tt.tensordesc")
        return T.TensorDescType(block)

    def _tensor_type(self) -> T.Type:
        # Tensor types repeat on every line: cache the common spellings by their text.
        start = self.lex.peek().start
        m = _SIMPLE_TENSOR.match(self.text, start)
        if m is not None:
            cached = self._type_cache.get(m.group())
            if cached is not None:
                self.lex.seek(m.end())
                return cached
        t = self._parse_tensor_type()
        if m is not None and self.lex.pos == m.end():
            self._type_cache[m.group()] = t
        return t

    def _parse_tensor_type(self) -> T.Type:
        self.lex.next()
        self.expect("<", "after 'tensor'")
        dims = self.lex.lex_dims()
        element = self.parse_type()
        encoding = None
        if self.accept(","):
            encoding = self.parse_attr()
        self.expect(">", "closing tensor type")
        return T.TensorType(dims, element, encoding)

    def _memdesc_type(self) -> T.Type:
        self.expect("<", "after '!ttg.memdesc'")
        dims = self.lex.lex_dims()
        element = self.parse_type()
        encoding, mutable, alloc = None, False, None
        while self.accept(","):
            tok = self.lex.peek()
            if tok.kind == "id" and tok.text == "mutable":
                self.lex.next()
                mutable = True
            elif tok.kind == "int":
                m = re.compile(r"\s*([0-9]+(?:x[0-9]+)*)").match(self.text, self.lex.pos)
                alloc = tuple(int(d) for d in m.group(1).split("x"))
                self.lex.seek(m.end())
            else:
                attr = self.parse_attr()
                if not _is_memory_space(attr):
                    encoding = attr
        self.expect(">", "closing !ttg.memdesc")
        return T.MemDescType(dims, element, encoding, mutable, alloc)

    def _function_type(self) -> T.FunctionType:
        self.expect("(")
        inputs = self.comma_list(self.parse_type, ")")
        self.expect("->", "in function type")
        if self.at("("):
            self.next()
            results = self.comma_list(self.parse_type, ")")
        else:
            results = [self.parse_type()]
        return T.FunctionType(tuple(inputs), tuple(results))

    def type_list(self, n: int) -> List[T.Type]:
        """Exactly `n` comma-separated types."""
        out = []
        for i in range(n):
            if i:
                self.expect(",", f"before type {i + 1} of {n}")
            out.append(self.parse_type())
        return out

    # -- attributes
    def parse_attr(self) -> Attr:
        tok = self.lex.peek()
        kind, text = tok.kind, tok.text
        if kind == "punct":
            if text == "[":
                self.lex.next()
                return ArrayAttr(tuple(self.comma_list(self.parse_attr, "]")))
            if text == "{":
                return self.parse_dict()
            if text == "-":
                return self._number_attr()
            if text == "(":
                return TypeAttr(self.parse_type())
        elif kind in ("int", "float", "hex"):
            return self._number_attr()
        elif kind == "string":
            self.lex.next()
            return StringAttr(self.string_value(tok))
        elif kind == "at":
            self.lex.next()
            name = text[1:]
            return SymbolRefAttr(self.string_value(Token("string", name, tok.start, tok.end))
                                 if name.startswith('"') else name)
        elif kind == "hash":
            return self._hash_attr()
        elif kind == "bang":
            return TypeAttr(self.parse_type())
        elif kind == "id":
            if text in ("true", "false"):
                self.lex.next()
                return BoolAttr(text == "true")
            if text == "unit":
                self.lex.next()
                return UnitAttr()
            if text == "dense":
                return self._dense_attr()
            if text == "array":
                return self._dense_array()
            if text in ("affine_map", "affine_set", "dense_resource", "sparse", "strided",
                        "distinct", "opaque") and self._next_char_is("<"):
                self.lex.next()
                return OpaqueAttr(text + self.lex.balanced())
            return TypeAttr(self.parse_type())
        raise self.error(f"expected an attribute, found {describe(tok)}", tok)

    def _next_char_is(self, ch: str) -> bool:
        end = self.lex.peek().end
        return self.text.startswith(ch, end)

    def string_value(self, tok: Token) -> str:
        try:
            return unescape(tok.text[1:-1])
        except ValueError as e:
            raise self.error(str(e), tok)

    def parse_dict(self) -> DictAttr:
        self.expect("{")
        return DictAttr(tuple(self.comma_list(self._named_attr, "}")))

    def parse_opt_attr_dict(self) -> dict:
        if not self.at("{"):
            return {}
        return dict(self.parse_dict().value)

    def _named_attr(self):
        tok = self.lex.next()
        if tok.kind == "id":
            name = tok.text
        elif tok.kind == "string":
            name = self.string_value(tok)
        else:
            raise self.error(f"expected an attribute name, found {describe(tok)}", tok)
        if self.accept("="):
            return name, self.parse_attr()
        return name, UnitAttr()

    def _number_attr(self) -> Attr:
        neg = self.accept("-")
        tok = self.lex.next()
        if tok.kind not in ("int", "float", "hex"):
            raise self.error(f"expected a number, found {describe(tok)}", tok)
        type_ = self.parse_type() if self.accept(":") else None
        return self.number(tok, neg, type_)

    def number(self, tok: Token, neg: bool, type_) -> Attr:
        if type_ is None:
            type_ = T.f64 if tok.kind == "float" else T.i64
        if isinstance(type_, T.FloatType):
            if tok.kind == "hex":
                try:
                    v = bits_to_float(int(tok.text, 16), type_)
                except ValueError as e:
                    raise self.error(str(e), tok)
                return FloatAttr(-v if neg else v, type_)
            v = float(tok.text)
            return FloatAttr(-v if neg else v, type_)
        if tok.kind == "float":
            raise self.error(f"float literal {tok.text} with non-float type {type_}", tok)
        v = int(tok.text, 0)
        return IntegerAttr(-v if neg else v, type_)

    def _dense_attr(self) -> Attr:
        tok = self.lex.next()
        body = self.lex.balanced()
        self.expect(":", "after dense<...>")
        type_ = self.parse_type()
        m = _SPLAT.fullmatch(body, 1, len(body) - 1)
        if m is None or not isinstance(type_, T.TensorType):
            return TypedOpaqueAttr(f"dense{body} : {type_}", type_)
        elt = type_.element_type
        boolean, sign, hexa, num = m.groups()
        if boolean is not None:
            value = 1 if boolean == "true" else 0
        elif hexa is not None:
            bits = int(hexa, 16)
            value = bits_to_float(bits, elt) if isinstance(elt, T.FloatType) else bits
            value = -value if sign else value
        elif isinstance(elt, T.FloatType):
            value = float(num)
        else:
            try:
                value = int(num)
            except ValueError:
                raise self.error(f"float splat {num} for a tensor of {elt}", tok)
        return DenseElementsAttr(value, type_)

    def _dense_array(self) -> Attr:
        self.lex.next()
        self.expect("<")
        elt = self.parse_type()
        values = []
        if self.accept(":"):
            def item():
                if self.at("true") or self.at("false"):
                    return 1 if self.next().text == "true" else 0
                neg = self.accept("-")
                tok = self.next()
                if tok.kind == "float":
                    return -float(tok.text) if neg else float(tok.text)
                if tok.kind not in ("int", "hex"):
                    raise self.error(f"expected an array element, found {describe(tok)}", tok)
                return -int(tok.text, 0) if neg else int(tok.text, 0)
            values = self.comma_list(item, ">")
        else:
            self.expect(">", "closing array<...>")
        return DenseArrayAttr(elt, tuple(values))

    def _hash_attr(self) -> Attr:
        tok = self.lex.next()
        name = tok.text
        if name in self.attr_aliases and not self.lex.text.startswith("<", tok.end):
            return self.attr_aliases[name]
        if "." in name:
            text = name + (self.lex.balanced() if self.at("<") else "")
            return self.dialect_attr(self.expand_aliases(text), mnemonic_alias(text))
        raise self.error(f"undefined attribute alias '{name}'", tok)

    def dialect_attr(self, text: str, alias_base: str) -> Attr:
        """A `#dialect.name<...>` attribute: a layout when `tritium.gpu.layouts` can read
        it, otherwise its text."""
        key = (text, alias_base)
        attr = self._attr_cache.get(key)
        if attr is None:
            parse_layout = _layout_parser() if text.startswith("#ttg.") else None
            try:
                attr = parse_layout(text) if parse_layout is not None else None
            except Exception:
                attr = None
            if attr is None:
                attr = OpaqueEncoding(text, alias_base)
            self._attr_cache[key] = attr
        return attr

    def expand_aliases(self, text: str) -> str:
        if "#" not in text[1:] or not self.alias_text:
            return text
        return _ALIAS_REF.sub(lambda m: self.alias_text.get(m.group(), m.group()), text)

    # -- alias definitions: `#name = attr`, `!name = type`, `#loc = loc(...)`
    def parse_alias_definition(self) -> None:
        tok = self.lex.next()
        self.expect("=", "in alias definition")
        name = tok.text
        if tok.kind == "bang":
            if name in self.type_aliases:
                raise self.error(f"redefinition of type alias '{name}'", tok)
            self.type_aliases[name] = self.parse_type()
            return
        if name in self.attr_aliases or name in self.loc_aliases:
            raise self.error(f"redefinition of attribute alias '{name}'", tok)
        if self.at("loc"):
            self.next()
            self.expect("(")
            self.loc_aliases[name] = self.parse_loc_body()
            self.expect(")", "closing loc(...)")
            return
        start = self.lex.peek().start
        first = self.lex.peek()
        if first.kind == "hash" and "." in first.text:
            self.lex.next()
            text = first.text + (self.lex.balanced() if self.at("<") else "")
            text = self.expand_aliases(text)
            base = re.sub(r"[0-9]+$", "", name[1:]) or "enc"
            attr = self.dialect_attr(text, base)
        else:
            attr = self.parse_attr()
            text = self.expand_aliases(self.text[start:self.lex.pos])
        self.attr_aliases[name] = attr
        self.alias_text[name] = text

    # -- locations
    def parse_opt_loc(self):
        """A trailing `loc(...)`, or None. The result may be an unresolved tree
        (when it names `#loc` aliases, which MLIR prints at the end of the file)."""
        if not self.at("loc"):
            return None
        self.next()
        self.expect("(", "after 'loc'")
        loc = self.parse_loc_body()
        self.expect(")", "closing loc(...)")
        return loc

    def parse_loc_body(self):
        tok = self.lex.next()
        if tok.kind == "id" and tok.text == "unknown":
            return UnknownLoc
        if tok.kind == "id" and tok.text == "callsite":
            self.expect("(")
            callee = self.parse_loc_body()
            self.expect("at", "in callsite location")
            caller = self.parse_loc_body()
            self.expect(")", "closing callsite(...)")
            return ("callsite", callee, caller)
        if tok.kind == "id" and tok.text == "fused":
            if self.at("<"):
                self.next()
                self.parse_attr()
                self.expect(">")
            self.expect("[")
            return ("fused", self.comma_list(self.parse_loc_body, "]"))
        if tok.kind == "string":
            name = self.string_value(tok)
            if self.accept(":"):
                line = self.parse_int()
                col = self.parse_int() if self.accept(":") else 0
                if self.accept("to"):  # file ranges: keep the start
                    if self.accept(":"):
                        self.parse_int()
                    self.parse_int()
                    if self.accept(":"):
                        self.parse_int()
                return Location(name, line, col)
            if self.accept("("):
                child = self.parse_loc_body()
                self.expect(")", "closing name location")
                return ("name", name, child)
            return ("name", name, None)
        if tok.kind == "hash":
            return ("alias", tok.text, tok)
        raise self.error(f"expected a location, found {describe(tok)}", tok)

    def resolve_loc(self, loc, seen=()):
        if not isinstance(loc, tuple):
            return loc
        kind = loc[0]
        if kind == "alias":
            name = loc[1]
            if name not in self.loc_aliases or name in seen:
                raise self.error(f"undefined location alias '{name}'", loc[2])
            resolved = self.resolve_loc(self.loc_aliases[name], seen + (name,))
            self.loc_aliases[name] = resolved
            return resolved
        if kind == "callsite":
            callee = self.resolve_loc(loc[1], seen)
            caller = self.resolve_loc(loc[2], seen)
            return _attach_caller(callee, caller)
        if kind == "name":
            return self.resolve_loc(loc[2], seen) if loc[2] is not None else UnknownLoc
        for part in loc[1]:  # fused: the first known location
            r = self.resolve_loc(part, seen)
            if r is not UnknownLoc:
                return r
        return UnknownLoc


def _attach_caller(callee, caller):
    if callee is UnknownLoc:
        return caller
    if caller is UnknownLoc:
        return callee
    inner = _attach_caller(callee.callsite, caller) if callee.callsite is not None else caller
    return Location(callee.file, callee.line, callee.col, inner)
