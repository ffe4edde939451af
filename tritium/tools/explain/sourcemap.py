"""Which line of the kernel's Python source each line of each stage came from.

TTIR/TTGIR: printed with `loc(...)` (the printer's debug form); the location is cut off the
displayed line. An op inlined from a callee (`tl.max` is a `@jit` function of
`language/standard.py`) carries a callsite chain; the frame that lies inside the kernel's
source is the one shown. LLIR: `!dbg !N` → `!N = !DILocation(line: ...)`. PTX and the
host assembly of the CPU's compiled path: `.loc` directives, which hold for the instructions
after them; they are hidden from the display. SASS: nvdisasm's line markers.
"""
from __future__ import annotations

import os
import re
from typing import List, Tuple

_FRAME = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_LOC_SUFFIX = re.compile(r" loc\((.*)\)$")
_DBG = re.compile(r", !dbg !(\d+)")
_DILOC = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)")
_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")


class Mapped:
    """Display lines of one stage and, per line, the kernel source line (0: none)."""

    def __init__(self, lines: List[str], src: List[int], note: str = ""):
        self.lines, self.src, self.note = lines, src, note

    def mapped_fraction(self) -> float:
        code = [s for s, l in zip(self.src, self.lines) if l.strip()]
        return sum(1 for s in code if s) / max(1, len(code))


class SourceSpan:
    """The kernel's file and the lines its `def` spans."""

    def __init__(self, file: str, first: int, last: int):
        self.file, self.first, self.last = file, first, last

    def pick(self, frames: List[Tuple[str, int]]) -> int:
        """First frame (innermost to outermost) inside the kernel; 0 when none is."""
        for f, line in frames:
            if line and self.first <= line <= self.last and _same_file(f, self.file):
                return line
        return 0


def _same_file(a: str, b: str) -> bool:
    # Locations hold the path codegen saw; a relative and an absolute spelling of one file
    # must still match.
    return a == b or os.path.basename(a) == os.path.basename(b)


def map_mlir(text: str, span: SourceSpan) -> Mapped:
    """TTIR/TTGIR printed with debug info. A region op's location is printed on its closing
    line; its opening line gets the same source line."""
    lines, src, opened = [], [], []
    for raw in text.splitlines():
        m = _LOC_SUFFIX.search(raw)
        line = raw[:m.start()] if m else raw
        s = span.pick([(f, int(l)) for f, l, _ in _FRAME.findall(m.group(1))]) if m else 0
        stripped = line.strip()
        if stripped.startswith("}") and opened:
            start = opened.pop()
            if s and not src[start]:
                src[start] = s
        if stripped.endswith("{"):
            opened.append(len(lines))
        lines.append(line)
        src.append(s)
    return Mapped(lines, src)


def map_llir(text: str, span: SourceSpan) -> Mapped:
    """LLVM IR with `!dbg`; the debug metadata at the end is left out of the display."""
    lines_of = {}
    body = []
    for raw in text.splitlines():
        m = _DILOC.match(raw)
        if m:
            lines_of[m.group(1)] = int(m.group(2))
            continue
        if raw.startswith("!llvm.dbg.cu") or raw.startswith("!") and "!DI" in raw \
                or "Debug Info Version" in raw or "Dwarf Version" in raw:
            continue
        body.append(raw)
    if body and body[-1].startswith("!llvm.module.flags"):
        body.pop()
    while body and not body[-1].strip():
        body.pop()
    out, src = [], []
    for raw in body:
        m = _DBG.search(raw)
        line = _DBG.sub("", raw)
        s = lines_of.get(m.group(1), 0) if m else 0
        if raw.startswith("define ") and "!dbg" in raw:
            line = re.sub(r" !dbg !\d+", "", raw)
        out.append(line)
        src.append(span.pick([(span.file, s)]) if s else 0)
    return Mapped(out, src, "debug metadata hidden")


def map_ptx(text: str, span: SourceSpan) -> Mapped:
    """PTX with `.loc`: each directive holds until the next one or the end of the function.
    The `.loc` lines and the DWARF sections LLVM appends are hidden."""
    files = {m.group(1): m.group(2) for m in map(_PTX_FILE.match, text.splitlines()) if m}
    out, src, cur, hidden = [], [], 0, 0
    in_section = False
    for raw in text.splitlines():
        if in_section:
            hidden += 1
            if raw.strip() == "}" or raw.strip().endswith("{\t}") or raw.strip().endswith("{ }"):
                in_section = False
            continue
        if raw.lstrip().startswith(".section") and ".debug" in raw:
            hidden += 1
            in_section = not (raw.rstrip().endswith("}"))
            continue
        m = _PTX_LOC.match(raw)
        if m:
            cur = span.pick([(files.get(m.group(1), ""), int(m.group(2)))])
            hidden += 1
            continue
        if _PTX_FILE.match(raw) or raw.strip().startswith("$L__"):
            hidden += 1
            continue
        stripped = raw.strip()
        if stripped == "}":
            cur = 0
        # `// begin inline asm` belongs with the asm it brackets, so comments keep the line.
        code = stripped not in ("", "{", "}") and not stripped.startswith(
            (".reg", ".param", ")", ".visible", ".entry", ".func"))
        out.append(raw)
        src.append(cur if code else 0)
    return Mapped(out, src, f"{hidden} line-table lines hidden")


def map_plain(text: str) -> Mapped:
    lines = text.splitlines()
    return Mapped(lines, [0] * len(lines), "no line table")


_SASS_LINE = re.compile(r'^\s*//## File "([^"]*)", line (\d+)')


def map_sass(text: str, span: SourceSpan) -> Mapped:
    """`nvdisasm -g` output: each `//## File "...", line N` marker holds for the
    instructions after it (the markers are hidden)."""
    out, src, cur, hidden = [], [], 0, 0
    for raw in text.splitlines():
        m = _SASS_LINE.match(raw)
        if m:
            cur = span.pick([(m.group(1), int(m.group(2)))])
            hidden += 1
            continue
        is_inst = raw.lstrip().startswith("/*") and ";" in raw
        if raw.startswith("//----"):  # a new section: the line table starts afresh
            cur = 0
        out.append(raw)
        src.append(cur if is_inst else 0)
    return Mapped(out, src, f"nvdisasm; {hidden} line markers hidden")


_ASM_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"((?:[^"\\]|\\.)*)")?')
_ASM_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")


def map_host_asm(text: str, span: SourceSpan) -> Mapped:
    """Host assembly (GNU syntax, as LLVM prints it) with `.loc`: each directive holds for the
    instructions after it until the next one (line 0: code with no source line, such as a
    loop's preheader LLVM made). Hidden: the line table (`.loc`, `.file`, `.Ltmp` labels),
    call-frame directives and the DWARF sections LLVM appends."""
    files = {}
    for raw in text.splitlines():
        m = _ASM_FILE.match(raw)
        if m:
            files[m.group(1)] = os.path.join(m.group(2), m.group(3)) if m.group(3) else m.group(2)
    out, src, cur, hidden, in_debug = [], [], 0, 0, False
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith(".section"):
            in_debug = ".debug" in stripped or ".note.GNU-stack" in stripped
        if in_debug:
            hidden += 1
            continue
        m = _ASM_LOC.match(raw)
        if m:
            line = int(m.group(2))
            cur = span.pick([(files.get(m.group(1), ""), line)]) if line else 0
            hidden += 1
            continue
        if _ASM_FILE.match(raw) or stripped.startswith((".cfi_", ".Ltmp")):
            hidden += 1
            continue
        if stripped.startswith(".Lfunc_end"):
            cur = 0
        # An instruction: indented, not a directive, not a label.
        code = raw[:1].isspace() and stripped and not stripped.startswith((".", "#")) \
            and not stripped.endswith(":")
        out.append(raw)
        src.append(cur if code else 0)
    return Mapped(out, src, f"{hidden} line-table, call-frame and DWARF lines hidden")
