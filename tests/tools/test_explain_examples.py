"""`tritium explain` on every example script for sm_90a (no GPU: the script stops at the
kernel's first launch and it is compiled through every NVIDIA stage): every stage is on the
page, the kernel's memory and program-id lines are linked in every stage, and the passes
that changed the IR have non-empty diffs while the others have none."""
import ast
import os
import re

import pytest

from explain_util import EXAMPLES, stage_lines, source_lines
from tritium.backends.nvidia import toolchain

pytestmark = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas")

# SASS too where nvdisasm is found (its line table links SASS to the source).
STAGES = ["ttir", "ttgir", "llir", "ptx"] + (["sass"] if toolchain.find_tool("nvdisasm") else [])


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    from tritium.tools.explain.cli import run
    out = {}
    for script in EXAMPLES:
        d = tmp_path_factory.mktemp(os.path.basename(script)[:-3])
        index = run(script, output=str(d), target="sm_90a", log=open(os.devnull, "w"))
        with open(index) as f:
            idx = f.read()
        hrefs = re.findall(r'<a href="([^"]+\.html)">', idx)
        assert hrefs, f"no kernel page for {script}"
        with open(os.path.join(d, hrefs[0])) as f:
            out[os.path.basename(script)] = f.read()
    return out


def _kernel_call_lines(script, page):
    """Source lines (file numbering) of the kernel's tl.load/tl.store/tl.program_id calls."""
    src = source_lines(page)
    first = src[0][0] if src[0][0] else None
    with open(script) as f:
        tree = ast.parse(f.read())
    name = re.search(r"<h1>([^<]+)</h1>", page).group(1)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    lines = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("load", "store", "program_id"):
            lines.add(node.lineno)
    assert lines, name
    return lines


@pytest.mark.parametrize("script", EXAMPLES, ids=os.path.basename)
def test_every_stage_present_and_mapped(pages, script):
    page = pages[os.path.basename(script)]
    stages = stage_lines(page)
    for s in STAGES:
        assert s in stages and len(stages[s]) > 5, f"stage {s} missing"
        mapped = [line for line, _ in stages[s] if line]
        assert len(mapped) > 0.3 * len(stages[s]), f"{s}: few lines mapped"
    assert "Compilation stopped" not in page
    assert not re.search(r"https?://|@import|url\(|\b(src|href)=\"/", page)   # self-contained
    wanted = _kernel_call_lines(script, page)
    for s in STAGES:
        have = {line for line, _ in stages[s] if line}
        assert wanted <= have, f"{s}: source lines {sorted(wanted - have)} not linked"
    # The source pane links the same lines back.
    linked = {line for line, _ in source_lines(page) if line}
    assert wanted <= linked


@pytest.mark.parametrize("script", EXAMPLES, ids=os.path.basename)
def test_linked_lines_do_what_the_source_says(pages, script):
    """A store line's PTX holds st.global, a load line's holds ld.global (or cp.async); in
    SASS, STG and LDG (or LDGSTS)."""
    page = pages[os.path.basename(script)]
    stages = stage_lines(page)
    src = dict((n, t) for n, t in source_lines(page) if n)
    store_load = {"ptx": (("st.global",), ("ld.global", "cp.async")),
                  "sass": ((" STG.",), (" LDG.", " LDGSTS."))}
    for stage, (stores, loads) in store_load.items():
        if stage not in STAGES:
            continue
        for n, text in src.items():
            body = " ".join(t for line, t in stages[stage] if line == n)
            if "tl.store(" in text:
                assert any(s in body for s in stores), (stage, n, text)
            if re.search(r"\btl\.load\(", text) and "tl.store(" not in text:
                assert any(s in body for s in loads), (stage, n, text)


@pytest.mark.parametrize("script", EXAMPLES, ids=os.path.basename)
def test_pass_diffs(pages, script):
    page = pages[os.path.basename(script)]
    rows = re.findall(r'<tr class="(changed|same)">.*?<td class="pass">([^<]+)</td>(.*?)</tr>',
                      page, re.S)
    assert len(rows) >= 20
    changed = {name for cls, name, _ in rows if cls == "changed"}
    assert "convert-triton-to-tritongpu{num-warps=4 threads-per-warp=32 num-ctas=1 target=cuda:90}" \
        in changed or any(n.startswith("convert-triton-to-tritongpu") for n in changed)
    for cls, name, rest in rows:
        if cls == "changed":
            diff = re.search(r'<pre class="diff">(.*?)</pre>', rest, re.S).group(1)
            assert re.search(r'class="(add|del)"', diff), name
        else:
            assert "<details>" not in rest
