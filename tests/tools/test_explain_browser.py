"""A generated page in a real browser (Debian's headless Chromium driven by Playwright):
clicking a Python line lights up its TTGIR and PTX lines, clicking a PTX line lights up
its Python line, tabs swap stages, and the layout map's tooltip names the thread and
register the linear layout gives; on the CPU page, the same links with the host assembly.
Saves screenshots (TRITIUM_EXPLAIN_SCREENSHOT / TRITIUM_EXPLAIN_CPU_SCREENSHOT=path keep
them). Without Playwright or Chromium the tests skip, saying which is missing."""
import os
import platform
import re
import shutil
import sys

import pytest

from explain_util import ROOT, source_lines

CHROMIUM = os.environ.get("TRITIUM_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; the test extra)")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set "
                    f"TRITIUM_CHROMIUM)")
    return sync_playwright


@pytest.fixture(scope="module")
def page_path(tmp_path_factory):
    from tritium.backends.nvidia import toolchain
    if toolchain.find_ptxas() is None:
        pytest.skip("needs ptxas")
    from tritium.tools.explain.cli import run
    out = tmp_path_factory.mktemp("browser")
    run(os.path.join(ROOT, "examples", "fused_softmax.py"), output=str(out), target="sm_90a",
        log=open(os.devnull, "w"))
    return os.path.join(out, "softmax_kernel.html")


def test_click_links_source_and_stages(page_path, tmp_path):
    sync_playwright = _browser_or_skip()
    with open(page_path) as f:
        html_text = f.read()
    load_line = next(n for n, t in source_lines(html_text) if n and "tl.load(" in t)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("file://" + page_path)
            # Nothing is highlighted before a click; the pass diffs start folded.
            assert page.locator(".l.hl").count() == 0
            assert page.locator("#passes details").count() >= 2
            assert page.locator("#passes details[open]").count() == 0
            # Hovering a Python line marks its lines in the shown stages.
            page.hover(f'pre.source .l[data-s="{load_line}"]')
            hovered = page.eval_on_selector_all(".stage-pane .l.hv", "els => els.map(e => e.dataset.s)")
            assert hovered and set(hovered) == {str(load_line)}
            page.click(f'pre.source .l[data-s="{load_line}"]')
            lit = page.eval_on_selector_all(
                ".stage-pane .l.hl",
                "els => els.map(e => [e.closest('pre').dataset.stage, e.dataset.s, e.textContent])")
            stages = {s for s, _, _ in lit}
            assert stages == {"ttgir", "ptx"}, stages   # the two panes shown by default
            assert all(s == str(load_line) for _, s, _ in lit)
            assert any("tt.load" in t for st, _, t in lit if st == "ttgir")
            assert any("ld.global" in t for st, _, t in lit if st == "ptx")
            # The highlighted lines were scrolled into view in their panes.
            visible = page.evaluate("""() => [...document.querySelectorAll('.stage-pane')].map(p => {
                const sc = p.querySelector('.scroll'), el = sc.querySelector('.l.hl');
                const a = el.getBoundingClientRect(), b = sc.getBoundingClientRect();
                return [a.top >= b.top && a.bottom <= b.bottom, sc.scrollHeight > sc.clientHeight]; })""")
            assert visible == [[True, True], [True, True]]   # scrolled to, inside a scrolling pane
            shot = os.environ.get("TRITIUM_EXPLAIN_SCREENSHOT") or str(tmp_path / "explain.png")
            page.screenshot(path=shot)
            assert os.path.getsize(shot) > 10_000

            # Back: a PTX line lights its Python line (and every stage's lines of it).
            ptx_line = page.locator('.stage-pane pre[data-stage="ptx"] .l[data-s]').filter(
                has_text="st.global").first
            store_src = ptx_line.get_attribute("data-s")
            assert store_src != str(load_line)
            ptx_line.click()
            src_lit = page.eval_on_selector_all("pre.source .l.hl", "els => els.map(e => e.dataset.s)")
            assert src_lit == [store_src]
            assert page.locator(f'pre[data-stage="ttgir"] .l.hl[data-s="{store_src}"]').count() > 0

            # Tabs: LLIR replaces TTGIR in the first pane; its lines carry the highlight too.
            page.click('.stage-pane >> nth=0 >> button[data-stage="llir"]')
            assert page.locator('.stage-pane >> nth=0 >> pre[data-stage="llir"]').count() == 1
            assert page.locator(f'pre[data-stage="llir"] .l.hl[data-s="{store_src}"]').count() > 0

            # Layout map: the tooltip of element 130 of the 1024-element blocked tensor.
            canvas = page.locator(".layout-draw canvas").first
            canvas.scroll_into_view_if_needed()
            box = canvas.bounding_box()
            width = page.evaluate("() => document.querySelector('.layout-draw canvas').width")
            cell = width / 32   # 1024 elements wrap at 32 columns
            scale = box["width"] / width
            x = box["x"] + (130 % 32 + 0.5) * cell * scale
            y = box["y"] + (130 // 32 + 0.5) * cell * scale
            page.mouse.move(x, y)
            tip = page.locator(".layout-tip").first.text_content()
            # sizePerThread 1, 32 lanes, 4 warps over 1024: element e sits in thread e % 128,
            # register e // 128.
            assert re.search(r"element \[130\] → thread 2, register 1, lane 2, warp 0", tip), tip
            assert errors == []
        finally:
            browser.close()


@pytest.fixture(scope="module")
def cpu_page_path(tmp_path_factory):
    """The CPU page of the examples' matmul kernel (the compiled path: host assembly)."""
    import tritium.knobs as knobs
    if not knobs.cpu.compiled():
        pytest.skip("the CPU's compiled path is off (TRITIUM_CPU_PATH / TRITON_INTERPRET)")
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        from matmul import matmul_kernel
    finally:
        sys.path.pop(0)
    a, b = np.ones((64, 48), np.float32), np.ones((48, 40), np.float32)
    c = np.empty((64, 40), np.float32)
    page = matmul_kernel.explain(a, b, c, 64, 40, 48, 48, 1, 40, 1, 40, 1, BLOCK_SIZE_M=32,
                                 BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4, target="cpu")
    assert "asm" in page.record.stages, page.record.stages.keys()
    return page.save(str(tmp_path_factory.mktemp("cpu_browser") / "matmul_kernel.html"))


def test_click_links_source_and_host_asm(cpu_page_path, tmp_path):
    """The CPU page: clicking the tl.dot line lights up its TTIR and host-assembly lines
    (the multiply-adds), clicking an instruction lights up its Python line."""
    sync_playwright = _browser_or_skip()
    with open(cpu_page_path) as f:
        html_text = f.read()
    dot_line = next(n for n, t in source_lines(html_text) if n and "tl.dot(" in t)
    store_line = next(n for n, t in source_lines(html_text) if n and "tl.store(" in t)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("file://" + cpu_page_path)
            shown = page.eval_on_selector_all(".stage-pane pre", "els => els.map(e => e.dataset.stage)")
            assert shown == ["ttir", "asm"]
            page.click(f'pre.source .l[data-s="{dot_line}"]')
            lit = page.eval_on_selector_all(
                ".stage-pane .l.hl",
                "els => els.map(e => [e.closest('pre').dataset.stage, e.dataset.s, e.textContent])")
            assert {s for s, _, _ in lit} == {"ttir", "asm"}
            assert all(s == str(dot_line) for _, s, _ in lit)
            assert any("tt.dot" in t for st, _, t in lit if st == "ttir")
            asm_lit = [t.split()[0] for st, _, t in lit if st == "asm"]
            if platform.machine() in ("x86_64", "AMD64"):
                assert any(m.startswith("vfmadd") or m.startswith("vmul") for m in asm_lit), asm_lit
            shot = os.environ.get("TRITIUM_EXPLAIN_CPU_SCREENSHOT") or str(tmp_path / "cpu.png")
            page.screenshot(path=shot)
            assert os.path.getsize(shot) > 10_000
            # Back: an instruction of the store lights up the store's Python line.
            asm_store = page.locator(f'.stage-pane pre[data-stage="asm"] .l[data-s="{store_line}"]').first
            asm_store.click()
            src_lit = page.eval_on_selector_all("pre.source .l.hl", "els => els.map(e => e.dataset.s)")
            assert src_lit == [str(store_line)]
            assert page.locator(f'pre[data-stage="ttir"] .l.hl[data-s="{store_line}"]').count() > 0
            # The LLIR tab (the IR the line table came from) carries the highlight too.
            page.click('.stage-pane >> nth=0 >> button[data-stage="llir"]')
            assert page.locator(f'pre[data-stage="llir"] .l.hl[data-s="{store_line}"]').count() > 0
            assert errors == []
        finally:
            browser.close()
