"""SASS as upstream shows it (`kernel.asm["sass"]`, `triton.tools.disasm`): cuobjdump's
listing rewritten to one line per instruction, `Function:<name>` first, each instruction
after its scheduling controls decoded from the second encoding word
(`<wait mask>:<read barrier>:<write barrier>:<yield>:<stall>`, '-' for none), and branch
targets turned into `LBB<n>:` labels. Only the first function of the listing is shown, as
upstream. Text that is not a cuobjdump listing (nvdisasm's) is returned unchanged.
"""
from __future__ import annotations

import re
from typing import Dict, List, Tuple

# "/*0a10*/   LDG.E R2, desc[UR4][R2.64] ;   /* 0x... */" — the offset widens past 64 KiB.
_INSTR = re.compile(r"\s*/\*\w{4,}\*/\s*([^;]*;)\s*/\* 0x(\w{16}) \*/\s*")
_CTRL = re.compile(r"\s*/\* 0x(\w{16}) \*/\s*")
_FUNCTION = re.compile(r"\s*Function : (\w+)\s*")
_BRANCH = re.compile(r"(.*BRA(?:\.U)? )(0x\w+);")


def _controls(word: int) -> str:
    stall = (word >> 41) & 0xF
    yld = (word >> 45) & 0x1
    write = (word >> 46) & 0x7
    read = (word >> 49) & 0x7
    wait = (word >> 52) & 0x3F
    return (f"{'--' if wait == 0 else f'{wait:02d}'}:{'-' if read == 7 else read}:"
            f"{'-' if write == 7 else write}:{'Y' if yld == 0 else '-'}:{stall:x}")


def format_sass(listing: str) -> str:
    lines = listing.splitlines()
    start = next((i for i, line in enumerate(lines) if _FUNCTION.match(line)), None)
    if start is None:
        return listing
    out = f"Function:{_FUNCTION.match(lines[start]).group(1)}\n"
    i = start + 2  # past the .headerflags line
    body: List[Tuple[str, str]] = []
    labels: Dict[int, int] = {}  # branch target offset -> label number
    while i + 1 < len(lines) and _INSTR.match(lines[i]):
        asm = _INSTR.match(lines[i]).group(1)
        if asm.endswith(" ;"):
            asm = asm[:-2] + ";"
        ctrl = _CTRL.match(lines[i + 1])
        branch = _BRANCH.match(asm)
        if branch is not None:
            labels.setdefault(int(branch.group(2), 16), len(labels))
        body.append((_controls(int(ctrl.group(1), 16)) if ctrl else "", asm))
        i += 2
    for n, (ctrl, asm) in enumerate(body):
        if n * 16 in labels:
            out += f"LBB{labels[n * 16]}:\n"
        branch = _BRANCH.match(asm)
        if branch is not None:
            asm = _BRANCH.sub(rf"\1LBB{labels[int(branch.group(2), 16)]};", asm)
        out += f"{ctrl}\t{asm}\n"
    return out + "\n"
