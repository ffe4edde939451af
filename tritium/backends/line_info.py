"""Line tables for the LLVM IR the backends emit: `!dbg` on instructions, so LLVM writes
`.loc` into the PTX (and ptxas, with `-lineinfo`, into the cubin), or into the host assembly
and the object file's DWARF line table on the CPU's compiled path.

Opt-in (`make_llir(..., line_info=True)` on NVIDIA, `lower_kernel(..., line_info=True)` on
the CPU): the interleaved `.loc` lines would change the PTX the FileCheck tests read, and
only the explain tool needs them today. Line tables change no machine code (tests check it
for both backends). Each op's location is reduced to its outermost frame (the line of the
function being compiled that the op came from), so an op inlined from `tl.max` maps to the
kernel line calling it.
"""
from __future__ import annotations

import itertools
import os
from typing import Dict, Iterator, List, Optional, Tuple

from ..ir.core import Location


def outermost(loc) -> Optional[Location]:
    """The caller-most frame of a (possibly inlined) location; None when unknown."""
    if not isinstance(loc, Location):
        return None
    while loc.callsite is not None:
        loc = loc.callsite
    return loc


class LineInfo:
    """The debug metadata of one LLVM module: one DIFile per source file, one DISubprogram
    per function and one DILocation per (line, column, function).

    `ids` hands out metadata numbers; a lowering that writes metadata of its own (the CPU
    path's loop hints) passes the counter it numbers those from, so the two never clash."""

    def __init__(self, ids: Optional[Iterator[int]] = None):
        self._ids = ids if ids is not None else itertools.count()
        self._nodes: List[Tuple[int, str]] = []
        self._files: Dict[str, int] = {}
        self._locs: Dict[Tuple[int, int, int], int] = {}
        self._cu = self._node("")  # filled in text(), once the first file is known

    def _node(self, text: str) -> int:
        idx = next(self._ids)
        self._nodes.append((idx, text))
        return idx

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
        """The metadata and the module flags LLVM requires ('' when nothing was tagged)."""
        if not self._files:
            return ""
        first_file = next(iter(self._files.values()))
        cu = (f"distinct !DICompileUnit(language: DW_LANG_C, file: !{first_file}, "
              f'producer: "tritium", isOptimized: true, runtimeVersion: 0, '
              f"emissionKind: LineTablesOnly)")
        version, dwarf = next(self._ids), next(self._ids)
        out = [f"!llvm.dbg.cu = !{{!{self._cu}}}",
               f"!llvm.module.flags = !{{!{version}, !{dwarf}}}"]
        out += [f"!{i} = {cu if i == self._cu else node}" for i, node in self._nodes]
        out.append(f'!{version} = !{{i32 2, !"Debug Info Version", i32 3}}')
        out.append(f'!{dwarf} = !{{i32 2, !"Dwarf Version", i32 4}}')
        return "\n".join(out) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\5C").replace('"', "\\22")
