"""`tritium explain --target cpu` on the CPU's compiled path: the page shows the host assembly
of the object code as a stage, linked both ways to the Python source through the line table
the LLIR carries (`!dbg` → DWARF `.loc`), like the PTX and SASS panes on NVIDIA."""
import ast
import os
import re

import pytest

from explain_util import ROOT, source_lines, stage_lines


def _compiled_or_skip():
    import tritium.knobs as knobs
    if not knobs.cpu.compiled():
        pytest.skip("the CPU's compiled path is off (TRITIUM_CPU_PATH / TRITON_INTERPRET)")


def _calls(script, kernel, names):
    """{call name: source lines} of the kernel's tl.<name>(...) calls."""
    with open(script) as f:
        tree = ast.parse(f.read())
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel)
    out = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in names:
            out.setdefault(node.func.attr, set()).add(node.lineno)
    return out


@pytest.fixture(scope="module")
def matmul_page(tmp_path_factory):
    _compiled_or_skip()
    from tritium.tools.explain import default_target
    if default_target() != "cpu":
        pytest.skip("a GPU is present: --target cpu runs the evaluator there")
    from tritium.tools.explain.cli import run
    out = tmp_path_factory.mktemp("cpu_matmul")
    script = os.path.join(ROOT, "examples", "matmul.py")
    index = run(script, output=str(out), target="cpu", log=open(os.devnull, "w"))
    with open(index) as f:
        assert "compiled for this CPU" in f.read()
    with open(os.path.join(out, "matmul_kernel.html")) as f:
        return script, f.read()


def test_host_asm_stage_linked_to_the_source(matmul_page):
    script, page = matmul_page
    stages = stage_lines(page)
    assert list(stages) == ["ttir", "llir", "asm"]
    asm = stages["asm"]
    instructions = [(s, t) for s, t in asm if t[:1].isspace() and not t.strip().startswith(".")
                    and not t.strip().endswith(":") and t.strip()]
    assert len(instructions) > 100
    assert sum(1 for s, _ in instructions if s) > 0.6 * len(instructions)
    assert not any(".loc" in t or ".debug_line" in t for _, t in asm)   # line table hidden
    # Every load, store and dot line of the kernel has machine code linked to it, and so
    # does the loop; the LLIR is linked too (the line table is emitted from it).
    calls = _calls(script, "matmul_kernel", ("load", "store", "dot"))
    linked = {s for s, _ in instructions if s}
    for name, lines in calls.items():
        assert lines <= linked, (name, lines)
        assert lines <= {s for s, _ in stages["llir"] if s}, (name, lines)
    # The default panes are TTIR and the host assembly; the Python pane counts asm lines.
    assert '<section class="pane stage-pane" data-default="ttir">' in page
    assert '<section class="pane stage-pane" data-default="asm">' in page
    dot_line = next(iter(calls["dot"]))
    counted = [t for n, t in source_lines(page) if n == dot_line]
    assert counted and f'data-s="{dot_line}" title="TTIR: ' in page
    assert sum(1 for s, _ in instructions if s == dot_line) > 0


def test_api_page_has_host_asm(rng):
    """`kernel.explain(..., target="cpu")` on a small kernel: the asm stage, and the
    instructions of the store line include a store to memory."""
    _compiled_or_skip()
    import numpy as np
    import tritium as triton
    import tritium.language as tl

    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n)
        tl.store(Y + offs, x * 3.0, mask=offs < n)

    x = rng.standard_normal(100).astype(np.float32)
    page = scale.explain(x, np.empty_like(x), 100, BLOCK=64, target="cpu")
    rec = page.record
    assert rec.error is None and "asm" in rec.stages
    first = scale.starting_line_number
    asm = rec.stages["asm"]
    store = [l for l, s in zip(asm.lines, asm.src) if s == first + 3]
    # x86: a move from a register to memory (AT&T order); elsewhere a store instruction.
    assert any(re.search(r"mov\w*\s+%\w+, [^%]*\(", l) or l.split()[0].startswith("st")
               for l in store), store
    assert "host asm" in page.html
