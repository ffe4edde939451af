"""`make_llir(line_info=True)`: `!dbg` on the instructions, `.loc` in the PTX, accepted by
ptxas, and the same machine code as without line info; off by default."""
import re

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.nvidia import toolchain

from explain_util import masked_mm


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


# ------------------------------------------------------------------ the CPU's compiled path
@triton.jit
def _row_stats(X, Y, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * n + cols, mask=cols < n, other=-float("inf"))
    m = tl.max(x, 0)
    if m > 0:
        e = tl.exp(x - m)
        tl.store(Y + row * n + cols, e / tl.sum(e, 0), mask=cols < n)
    else:
        tl.store(Y + row * n + cols, tl.cumsum(tl.where(cols < n, x, 0.0), 0), mask=cols < n)


def _cpu_ttir(fn, *args, **meta):
    from tritium.frontend.compiler import make_ttir
    from tritium.passes import make_ttir_pipeline
    _, spec, _ = fn.bind(*args, **meta)
    module, _ = make_ttir(fn, spec)
    make_ttir_pipeline().run(module)
    return module


def _code_sections(obj: bytes) -> dict:
    """The object's machine code and constant pools (everything LLVM emits that is not
    debug info or relocations, whose symbol numbers the debug sections shift)."""
    import llvmlite.binding as llvm
    out = {}
    for sec in llvm.ObjectFileRef.from_data(obj).sections():
        name = sec.name() or b""
        if name.startswith((b".debug", b".rela", b".symtab", b".strtab")) or not sec.size():
            continue
        out[name] = bytes(sec.data())
    return out


def _instructions(asm: str) -> list:
    """Host assembly without the line table, call-frame directives, labels and DWARF."""
    asm = re.split(r'\n\t\.section\t(?:\.debug|"\.note)', asm)[0]
    return [l.strip() for l in asm.splitlines()
            if l.strip() and not l.strip().startswith((".loc", ".file", ".cfi", ".Ltmp", ".Lfunc_begin"))]


CPU_CASES = [
    ("_axpy", _axpy, (np.zeros(16, np.float32), np.zeros(16, np.float32), 2.0, 16), {"BLOCK": 256}),
    ("masked_mm", masked_mm, (np.zeros((4, 4), np.float32),) * 3 + (40, 24, 33),
     {"BM": 16, "BN": 8, "BK": 16}),
    ("_row_stats", _row_stats, (np.zeros(8, np.float32), np.zeros(8, np.float32), 100),
     {"BLOCK": 128}),
]


@pytest.mark.parametrize("name,fn,args,meta", CPU_CASES, ids=[c[0] for c in CPU_CASES])
def test_cpu_line_info_changes_no_machine_code(name, fn, args, meta):
    from tritium.backends.cpu.native import jit
    from tritium.backends.cpu.native.module import lower_kernel
    module = _cpu_ttir(fn, *args, **meta)
    plain, kinds, _ = lower_kernel(module, name, jit.vector_bits())
    assert "!dbg" not in plain and "DILocation" not in plain
    tagged, kinds_tagged, _ = lower_kernel(module, name, jit.vector_bits(), line_info=True)
    assert kinds_tagged == kinds
    # Every line of the kernel that loads, stores or computes on tensors is in the line table.
    first = fn.starting_line_number
    calls = ("tl.load(", "tl.store(", "tl.dot(", "tl.max(", "tl.sum(", "tl.exp(", "tl.cumsum(")
    body = {first + i for i, l in enumerate(fn.src.splitlines()) if any(c in l for c in calls)}
    tagged_lines = {int(m) for m in re.findall(r"!DILocation\(line: (\d+)", tagged)}
    assert body <= tagged_lines <= set(range(first, first + len(fn.src.splitlines())))
    assert re.search(rf'define void @"{name}"\(.*\) #0 !dbg !\d+ \{{', tagged)
    plain_eng, tagged_eng = jit.Engine(plain), jit.Engine(tagged)
    assert b".debug_line" not in plain_eng.obj and b".debug_line" in tagged_eng.obj
    code = _code_sections(plain_eng.obj)
    assert any(code.values()) and _code_sections(tagged_eng.obj) == code
    asm = jit.host_asm(tagged_eng.llir_opt)
    assert re.search(r"^\s*\.loc\s+1\s+\d+", asm, re.M)
    assert _instructions(asm) == _instructions(jit.host_asm(plain_eng.llir_opt))
