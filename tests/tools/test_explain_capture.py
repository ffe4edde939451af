"""The stage capture against independent replays: the pass diffs match what each pass does
to the printed module, the TTIR stage is what the CPU backend compiles, the options reach
the pipeline, and errors are reported, not raised."""
import difflib

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.tools.explain import capture, explain
from tritium.tools.explain.capture import capability_of


@triton.jit
def _scale_rows(X, Y, n_cols, stride, ALPHA: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    total = tl.sum(x, axis=0)
    tl.store(Y + row * stride + cols, x * ALPHA + total, mask=cols < n_cols)


def _spec(rng, cols=100, block=128):
    x = rng.standard_normal((3, cols)).astype(np.float32)
    _, spec, extra = _scale_rows.bind(x, np.empty_like(x), cols, cols, ALPHA=2.0, BLOCK=block)
    return spec, extra


def test_pass_diffs_match_a_replay(rng):
    from tritium.frontend.compiler import ast_to_ttir
    from tritium.ir.printer import print_module
    from tritium.passes import PassManager, TTIR_PIPELINE
    spec, _ = _spec(rng)
    rec = capture(_scale_rows, spec, {}, "cpu")
    from tritium.runtime import knobs
    # The compiled CPU path adds its LLVM IR and its object code as host assembly.
    want_stages = ["ttir", "llir", "asm"] if knobs.cpu_path() == "native" else ["ttir"]
    assert rec.error is None and list(rec.stages) == want_stages
    module, _ = ast_to_ttir(_scale_rows, spec, None)
    before = print_module(module)
    ttir_runs = [p for p in rec.passes if p.stage == "ttir"]
    assert [p.label for p in ttir_runs] == [p.pipeline_text()
                                            for p in PassManager(TTIR_PIPELINE).passes]
    for run, p in zip(ttir_runs, PassManager(TTIR_PIPELINE).passes):
        PassManager([p]).run(module)
        after = print_module(module)
        want = [d for d in difflib.unified_diff(before.splitlines(), after.splitlines(),
                                                lineterm="", n=2)][2:]
        assert (run.diff != "") == (after != before), run.label
        assert run.added == sum(1 for d in want if d.startswith("+"))
        assert run.removed == sum(1 for d in want if d.startswith("-"))
        before = after
    assert any(p.diff for p in ttir_runs if p.label == "inline")  # tl.sum is inlined
    # The TTIR stage is the module the CPU backend runs.
    shown = "\n".join(rec.stages["ttir"].lines) + "\n"
    assert shown == before


def test_sm90a_options_reach_the_pipeline(rng):
    spec, _ = _spec(rng)
    rec = capture(_scale_rows, spec, {"num_warps": 2}, "sm_90a")
    assert rec.error is None, rec.error
    ttgir = "\n".join(rec.stages["ttgir"].lines)
    assert '"ttg.num-warps" = 2' in ttgir
    assert ".reqntid 64" in "\n".join(rec.stages["ptx"].lines)
    assert rec.resources["num_warps"] == 2 and rec.resources["registers"] > 0
    assert rec.layouts and all(l["drawn"] for l in rec.layouts if l["memory"] == "registers")


def test_layout_data_is_the_linear_layout(rng):
    """The bases on the page reproduce LinearLayout.apply for every hardware index."""
    from tritium.gpu.layouts import BlockedEncoding
    spec, _ = _spec(rng, cols=300, block=512)
    rec = capture(_scale_rows, spec, {"num_warps": 4}, "sm_90a")
    lay = next(l for l in rec.layouts if l["shape"] == [512])
    enc = next(e for e in _encodings(rec) if str(e) == lay["text"])
    ll = enc.to_linear_layout([512])
    for reg in range(1 << len(lay["in_dims"]["register"])):
        for lane in range(32):
            for warp in range(4):
                coord = 0
                for dim, v in (("register", reg), ("lane", lane), ("warp", warp)):
                    for bit, base in enumerate(lay["in_dims"][dim]):
                        if v >> bit & 1:
                            coord ^= base[0]
                want = ll.apply({"register": reg, "lane": lane, "warp": warp, "block": 0})
                assert coord == want["dim0"]
    assert isinstance(enc, BlockedEncoding)


def _encodings(rec):
    """The encodings of the page's TTGIR text, parsed back."""
    from tritium.ir.parser import parse_module
    module = parse_module("\n".join(rec.stages["ttgir"].lines))
    return [r.type.encoding for op in module.walk() for r in op.results
            if getattr(r.type, "encoding", None) is not None]


@triton.jit
def _broken(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, undefined_name)  # noqa: F821


def test_errors_are_reported(rng):
    spec, _ = _spec(rng)
    with pytest.raises(ValueError, match="num_warps"):
        capture(_scale_rows, spec, {"num_warps": 3}, "sm_90a")
    with pytest.raises(ValueError, match="target"):
        capability_of("gfx942")
    x = np.zeros(8, np.float32)
    _, spec, _ = _broken.bind(x, BLOCK=8)
    rec = capture(_broken, spec, {}, "sm_90a")
    assert "undefined_name" in rec.error and not rec.stages
    from tritium.tools.explain.render import kernel_page
    assert "Compilation stopped" in kernel_page(rec)


def test_explain_api_and_notebook_html(rng):
    x = rng.standard_normal(50).astype(np.float32)
    y = np.empty_like(x)
    page = explain(_scale_rows, x, y, 50, 50, ALPHA=1.0, BLOCK=64, target="cpu")
    assert page.record.name == "_scale_rows" and "ttir" in page.record.stages
    assert page._repr_html_().startswith("<iframe srcdoc=")
    assert "&lt;pre class=&quot;source&quot;&gt;" in page._repr_html_()
    with pytest.raises(TypeError, match="@jit"):
        explain(lambda: None)


def test_explain_last_launch(rng):
    @triton.jit
    def twice(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)

    with pytest.raises(ValueError, match="not been launched"):
        twice.explain()
    x = rng.standard_normal(40).astype(np.float32)
    y = np.empty_like(x)
    twice[(1,)](x, y, 40, BLOCK=64, num_warps=2)
    np.testing.assert_array_equal(y, x * 2)
    page = twice.explain(target="cpu")
    assert page.record.options["num_warps"] == 2
    assert "BLOCK: =64" in page.record.signature
