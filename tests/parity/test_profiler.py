"""`triton.profiler` (proton's Python API) on the CPU: sessions, scopes, kernel launches seen
through the launch hooks (named and measured by the kernel's `launch_metadata` with
`hook="triton"`), the `.hatchet` file and the viewer; profiling never changes results."""
import json
import warnings

import numpy as np
import pytest

import tritium.knobs as knobs
import tritium.language as tl
from tritium import jit
from tritium import profiler as proton
from tritium.profiler import language as pl
from tritium.profiler import viewer


def _meta(grid, kernel, args):
    return {"name": f"add [n={args['n']}]", "flops32": args["n"], "bytes": 12 * args["n"]}


@jit(launch_metadata=_meta)
def _add(x, y, o, n, B: tl.constexpr):
    pl.enter_scope("body")             # intra-kernel markers: accepted, compile to nothing
    offs = tl.program_id(0) * B + tl.arange(0, B)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)
    pl.exit_scope("body")


def _bad_meta(grid, kernel, args):
    raise KeyError("no such argument")


@jit(launch_metadata=_bad_meta)
def _copy(x, o, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(o + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    assert not knobs.runtime.launch_enter_hook.calls  # finalize removed the profiler's hooks


def _launch(x, y, o, n):
    _add[(-(-n // 256),)](x, y, o, n, B=256)


def test_session_scopes_kernels_and_viewer(in_tmp, rng, capsys):
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    o = np.zeros(n, np.float32)
    sid = proton.start("run", hook="triton")
    with proton.scope("outer", {"flops32": 7}):
        for _ in range(3):
            _launch(x, y, o, n)
        with proton.scope("inner"):
            _launch(x, y, o, n)
    proton.deactivate(sid)
    _launch(x, y, o, n)                          # not recorded
    proton.activate(sid)
    proton.enter_scope("manual")
    proton.exit_scope("manual")
    proton.finalize()
    np.testing.assert_array_equal(o, x + y)

    data = json.loads((in_tmp / "run.hatchet").read_text())
    root = data[0]
    assert root["frame"]["name"] == "ROOT" and data[1]["device_type"] == "cpu"
    outer = {c["frame"]["name"]: c for c in root["children"]}["outer"]
    kids = {c["frame"]["name"]: c for c in outer["children"]}
    assert set(kids) == {"add [n=1000]", "inner"}
    assert kids["add [n=1000]"]["metrics"]["count"] == 3
    assert kids["add [n=1000]"]["metrics"]["flops32"] == 3 * n
    assert kids["inner"]["children"][0]["metrics"]["count"] == 1
    assert outer["metrics"]["flops32"] == 4 * n + 7     # inclusive, plus the scope's own
    assert outer["metrics"]["time (ns)"] >= kids["add [n=1000]"]["metrics"]["time (ns)"] > 0

    tree, metrics = viewer.parse(["time/ms", "gflop32/s", "count"], str(in_tmp / "run.hatchet"))
    assert tree.values["time/ms"] > 0 and "gflop32/s" in tree.children[0].values
    viewer.print_tree(tree, metrics)
    out = capsys.readouterr().out
    assert "└─" in out and "add [n=1000]" in out and "manual" in out
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        viewer.parse(["nope"], str(in_tmp / "run.hatchet"))
    viewer.main(["-m", "time/us", "--depth", "1", str(in_tmp / "run.hatchet")])
    assert "add [n=1000]" not in capsys.readouterr().out   # below depth 1


def test_without_triton_hook_kernels_keep_their_names(in_tmp, rng):
    n = 100
    x, y, o = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    proton.start("plain")
    _launch(x, y, o, n)
    proton.finalize()
    kernel = json.loads((in_tmp / "plain.hatchet").read_text())[0]["children"][0]
    assert kernel["frame"]["name"] == "_add" and "flops32" not in kernel["metrics"]


def test_a_failing_launch_metadata_never_breaks_the_kernel(in_tmp, rng):
    n = 40
    x, o = rng.standard_normal(n).astype(np.float32), np.zeros(n, np.float32)
    proton.start("bad", hook="triton")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _copy[(1,)](x, o, n, B=64)
    proton.finalize()
    np.testing.assert_array_equal(o, x)
    assert any("triton.profiler" in str(w.message) for w in caught)


def test_scope_errors_and_decorators(in_tmp):
    with pytest.raises(RuntimeError, match="without a matching enter_scope"):
        proton.exit_scope("x")
    proton.enter_scope("a")
    with pytest.raises(RuntimeError, match="'a' is the innermost"):
        proton.exit_scope("b")
    proton.exit_scope("a")

    @proton.scope("decorated")
    def work():
        return 3

    @proton.profile(name="prof")
    def run():
        return work() + 1

    assert run() == 4
    names = [c["frame"]["name"] for c in
             json.loads((in_tmp / "prof.hatchet").read_text())[0]["children"]]
    assert names == ["decorated"]
    with pytest.raises(ValueError, match="hook must be"):
        proton.start("x", hook="cupti")


def test_importable_under_upstream_names():
    import tritium.compat as compat
    compat.install()
    import triton.profiler as p
    import triton.profiler.viewer as v
    import triton.profiler.language as lang
    assert p.start is proton.start and v.parse is viewer.parse and lang.enter_scope
