"""`make_llir(line_info=True)`: `!dbg` on the instructions, `.loc` in the PTX, accepted by
ptxas, and the same machine code as without line info; off by default."""
import re

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.nvidia import toolchain


@triton.jit
def _axpy(X, Y, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    tl.store(Y + offs, tl.exp(x) * a + tl.max(x, 0), mask=offs < n)


def _ttgir():
    from tritium.frontend.compiler import make_ttir
    from tritium.gpu.pipeline import make_ttgir
    x = np.zeros(16, np.float32)
    _, spec, _ = _axpy.bind(x, x, 2.0, 16, BLOCK=256)
    module, _ = make_ttir(_axpy, spec)
    return make_ttgir(module, num_warps=4)


def _code_only(ptx: str) -> list:
    """PTX instructions with the line table, DWARF sections and labels of it removed."""
    ptx = re.sub(r"\.section\s+\.debug\w*\s*\{.*?\}", "", ptx, flags=re.S)
    out = []
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith((".loc", ".file", "$L__", ".section")):
            continue
        out.append(s)
    return out


def test_line_info_off_by_default_and_on_when_asked():
    from tritium.backends.nvidia.lowering import make_llir
    from tritium.backends.nvidia.llvm import llir_to_ptx
    plain, _ = make_llir(_ttgir())
    assert "!dbg" not in plain
    tagged, _ = make_llir(_ttgir(), line_info=True)
    first = _axpy.starting_line_number
    dbg_lines = {int(m) for m in re.findall(r"!DILocation\(line: (\d+)", tagged)}
    assert dbg_lines == {first + 1, first + 2, first + 3}   # the three body lines
    assert re.search(r"define ptx_kernel void @_axpy\(.*\) .*!dbg !\d+ \{", tagged)
    ptx = llir_to_ptx(tagged)
    locs = {int(m) for m in re.findall(r"^\s*\.loc\s+\d+\s+(\d+)", ptx, re.M)}
    assert {first + 2, first + 3} <= locs
    assert re.search(r'\.file\s+\d+\s+".*test_line_info\.py"', ptx)
    assert re.search(r"^\.target sm_90a$", ptx, re.M)
    assert _code_only(ptx) == _code_only(llir_to_ptx(plain))
    if toolchain.find_ptxas() is None:
        pytest.skip("ptxas not found")
    _, info_tagged = toolchain.make_cubin(ptx)
    _, info_plain = toolchain.make_cubin(llir_to_ptx(plain))
    assert info_tagged.registers == info_plain.registers
