"""Tokens of the MLIR text format, read lazily from a string.

The lexer keeps one token of lookahead and can also hand out raw text (balanced `<...>`
bodies of dialect attributes and types, the `4x8x` dimension prefix of a shaped type),
which a token stream alone cannot delimit. Positions are character offsets; `line_col`
turns one into the `line:col` that error messages print.
"""
from __future__ import annotations

import bisect
import re
from typing import List, Optional, Tuple


class ParseError(ValueError):
    """A syntax or semantic error in IR text; the message starts with `line:col:`."""

    def __init__(self, message: str, line: int = 0, col: int = 0, source: str = ""):
        self.line, self.col, self.problem = line, col, message
        text = f"{line}:{col}: {message}" if line else message
        if source and line:
            lines = source.splitlines()
            if 0 < line <= len(lines):
                text += "\n  " + lines[line - 1] + "\n  " + " " * (col - 1) + "^"
        super().__init__(text)


_SKIP = re.compile(r"(?:\s+|//[^\n]*)*")
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_TOKEN = re.compile("|".join([
    r"(?P<value>%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?)",
    r"(?P<caret>\^[A-Za-z0-9_$.\-]+)",
    r"(?P<hash>#[A-Za-z_][A-Za-z0-9_$.]*)",
    r"(?P<bang>![A-Za-z_][A-Za-z0-9_$.]*)",
    r"(?P<at>@(?:[A-Za-z_][A-Za-z0-9_$.\-]*|" + _STRING + "))",
    r"(?P<string>" + _STRING + ")",
    r"(?P<hex>0x[0-9A-Fa-f]+)",
    r"(?P<float>[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)",
    r"(?P<int>[0-9]+)",
    # MLIR bare identifiers, plus what `attrs.format_named_attr` also prints unquoted: the
    # `-` of Triton's attribute names (`ttg.num-warps`) and non-ASCII letters.
    r"(?P<id>[^\W\d][\w$.]*(?:-(?!>)[\w$.]*)*)",
    r"(?P<punct>->|::|\.\.\.|[(){}\[\]<>,:=*?+\-|])",
]))
_DIMS = re.compile(r"(?:(?:[0-9]+|\?)x)+")
_STRING_RE = re.compile(_STRING)
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


class Token:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind: str, text: str, start: int, end: int):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r})"


def describe(tok: Token) -> str:
    return "end of input" if tok.kind == "eof" else repr(tok.text)


class Lexer:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0            # just after the last consumed token
        self._peeked: Optional[Token] = None
        self._line_starts: Optional[List[int]] = None

    # -- tokens
    def peek(self) -> Token:
        tok = self._peeked
        if tok is None:
            tok = self._peeked = self._lex(self.pos)
        return tok

    def next(self) -> Token:
        tok = self.peek()
        self._peeked = None
        self.pos = tok.end
        return tok

    def _lex(self, pos: int) -> Token:
        text = self.text
        pos = _SKIP.match(text, pos).end()
        if pos >= len(text):
            return Token("eof", "", pos, pos)
        m = _TOKEN.match(text, pos)
        if m is None:
            raise self.error(f"unexpected character {text[pos]!r}", pos)
        return Token(m.lastgroup, m.group(), pos, m.end())

    # -- raw text
    def seek(self, pos: int) -> None:
        self._peeked = None
        self.pos = pos

    def skip_space(self) -> int:
        self._peeked = None
        self.pos = _SKIP.match(self.text, self.pos).end()
        return self.pos

    def lex_dims(self) -> Tuple[int, ...]:
        """The `4x8x` prefix of a shaped type (may be empty); `?` reads as -1."""
        start = self.skip_space()
        m = _DIMS.match(self.text, start)
        if m is None:
            return ()
        self.pos = m.end()
        return tuple(-1 if d == "?" else int(d) for d in m.group()[:-1].split("x"))

    def balanced(self) -> str:
        """Raw text of a `<...>` body starting at the next token (`<` included), with
        nested brackets and strings skipped; `->` does not close it."""
        start = self.skip_space()
        text = self.text
        if not text.startswith("<", start):
            raise self.error("expected '<'", start)
        closing = {"<": ">", "(": ")", "[": "]", "{": "}"}
        stack = []
        i = start
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                m = _STRING_RE.match(text, i)
                if m is None:
                    raise self.error("unterminated string", i)
                i = m.end()
                continue
            if c == "-" and text.startswith("->", i):
                i += 2
                continue
            if c in closing:
                stack.append(closing[c])
            elif c in ">)]}":
                if not stack or stack.pop() != c:
                    raise self.error(f"unbalanced {c!r}", i)
                if not stack:
                    self.pos = i + 1
                    return text[start:i + 1]
            i += 1
        raise self.error("unterminated '<'", start)

    # -- diagnostics
    def line_col(self, pos: int) -> Tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(self._line_starts, pos)
        return line, pos - self._line_starts[line - 1] + 1

    def error(self, message: str, pos: Optional[int] = None) -> ParseError:
        if pos is None:
            try:
                pos = self.peek().start
            except ParseError:
                pos = self.pos
        line, col = self.line_col(pos)
        return ParseError(message, line, col, self.text)


def unescape(body: str) -> str:
    """The value of an MLIR string literal's body (quotes removed)."""
    if "\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            j = body.find("\\", i)
            j = n if j < 0 else j
            out += body[i:j].encode("utf-8", "surrogatepass")
            i = j
            continue
        nxt = body[i + 1:i + 2]
        if nxt in ('"', "\\"):
            out += nxt.encode()
            i += 2
        elif nxt in ("n", "t"):
            out += b"\n" if nxt == "n" else b"\t"
            i += 2
        elif _HEX2.fullmatch(body, i + 1, i + 3):
            out.append(int(body[i + 1:i + 3], 16))
            i += 3
        else:
            raise ValueError(f"bad escape sequence \\{nxt}")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return out.decode("latin-1")
