"""Line tables for the LLVM IR we emit: `!dbg` on instructions, so LLVM writes `.loc` into
the PTX and ptxas (`-lineinfo`) into the cubin.

Opt-in (`make_llir(..., line_info=True)`): the interleaved `.loc` lines would change the
PTX the FileCheck tests read, and only the explain tool needs them today. Each TTGIR op's
location is reduced to its outermost frame (the line of the function being compiled that
the op came from), so an op inlined from `tl.max` maps to the kernel line calling it.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

from ....ir.core import Location


def outermost(loc) -> Optional[Location]:
    """The caller-most frame of a (possibly inlined) location; None when unknown."""
    if not isinstance(loc, Location):
        return None
    while loc.callsite is not None:
        loc = loc.callsite
    return loc


class LineInfo:
    """The debug metadata of one LLVM module: one DIFile per source file, one DISubprogram
    per function and one DILocation per (line, column, function)."""

    def __init__(self):
        self._nodes: List[str] = []
        self._files: Dict[str, int] = {}
        self._locs: Dict[Tuple[int, int, int], int] = {}
        self._cu = self._node("")  # filled in text(), once the first file is known

    def _node(self, text: str) -> int:
        self._nodes.append(text)
        return len(self._nodes) - 1

    def _file(self, path: str) -> int:
        idx = self._files.get(path)
        if idx is None:
            d, f = os.path.split(path)
            idx = self._node(f'!DIFile(filename: "{_esc(f)}", directory: "{_esc(d)}")')
            self._files[path] = idx
        return idx

    def subprogram(self, name: str, loc) -> Optional[int]:
        """Metadata id of a new DISubprogram for function `name` defined at `loc`."""
        frame = outermost(loc)
        if frame is None:
            return None
        f = self._file(frame.file)
        ty = self._node("!DISubroutineType(types: !{})")
        return self._node(
            f'distinct !DISubprogram(name: "{_esc(name)}", linkageName: "{_esc(name)}", '
            f"scope: !{f}, file: !{f}, line: {frame.line}, type: !{ty}, "
            f"scopeLine: {frame.line}, spFlags: DISPFlagDefinition | DISPFlagOptimized, "
            f"unit: !{self._cu})")

    def tag(self, loc, scope: Optional[int]) -> str:
        """`, !dbg !N` for an instruction produced by an op at `loc` ('' when unknown)."""
        frame = outermost(loc)
        if frame is None or scope is None:
            return ""
        key = (frame.line, frame.col, scope)
        idx = self._locs.get(key)
        if idx is None:
            idx = self._node(f"!DILocation(line: {frame.line}, column: {frame.col}, "
                             f"scope: !{scope})")
            self._locs[key] = idx
        return f", !dbg !{idx}"

    def text(self) -> str:
        """The metadata and the module flags LLVM requires ('' when nothing was tagged).
        The lowering emits no other metadata, so the ids start at !0."""
        if not self._files:
            return ""
        first_file = next(iter(self._files.values()))
        self._nodes[self._cu] = (
            f"distinct !DICompileUnit(language: DW_LANG_C, file: !{first_file}, "
            f'producer: "tritium", isOptimized: true, runtimeVersion: 0, '
            f"emissionKind: LineTablesOnly)")
        n = len(self._nodes)
        out = [f"!llvm.dbg.cu = !{{!{self._cu}}}", f"!llvm.module.flags = !{{!{n}, !{n + 1}}}"]
        out += [f"!{i} = {node}" for i, node in enumerate(self._nodes)]
        out.append(f'!{n} = !{{i32 2, !"Debug Info Version", i32 3}}')
        out.append(f'!{n + 1} = !{{i32 2, !"Dwarf Version", i32 4}}')
        return "\n".join(out) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\5C").replace('"', "\\22")
