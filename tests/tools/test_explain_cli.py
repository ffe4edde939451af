"""The command line: `tritium explain` / `python -m tritium explain`, its outputs and its
errors (each names what is wrong)."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

from explain_util import ROOT
from tritium.__main__ import main

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    import tritium as triton
    import tritium.language as tl

    @triton.jit
    def double(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)

    @triton.jit
    def negate(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, -tl.load(X + offs, mask=offs < n), mask=offs < n)

    x = np.arange(10, dtype=np.float32)
    y = np.empty_like(x)
    double[(1,)](x, y, 10, BLOCK=16)
    assert (y == 2 * x).all()
    double[(1,)](x, y, 10, BLOCK=32)
    negate[(1,)](x, y, 10, BLOCK=16)
    assert (y == -x).all()
    if sys.argv[1:] == ["--fail"]:
        raise RuntimeError("late failure")
''')


@pytest.fixture
def script(tmp_path):
    p = tmp_path / "two_kernels.py"
    p.write_text(SCRIPT)
    return str(p)


def _pages(d):
    with open(os.path.join(d, "index.html")) as f:
        index = f.read()
    return index, re.findall(r'<a href="([^"]+)">([^<]+)</a>', index)


def test_cpu_target_records_every_specialisation(script, tmp_path):
    out = str(tmp_path / "out")
    assert main(["explain", script, "--target", "cpu", "-o", out]) == 0
    index, links = _pages(out)
    assert [name for _, name in links] == ["double", "double", "negate"]
    assert [href for href, _ in links] == ["double.html", "double-1.html", "negate.html"]
    assert "BLOCK: =16" in index and "BLOCK: =32" in index
    with open(os.path.join(out, "negate.html")) as f:
        page = f.read()
    assert 'data-stage="ttir"' in page and 'data-stage="ptx"' not in page
    # Static and self-contained: nothing is fetched (no external script, style, font or
    # image; the CSS and JS are inline), so the page opens from disk with no network.
    for text in (page, index):
        assert not re.search(r'<(script|link|img|iframe)\b[^>]*\b(src|href)=', text)
        assert not re.search(r"https?://|@import|url\(", text)
    assert "<script>" in page and "<style>" in page


def test_kernel_filter_and_script_arguments(script, tmp_path):
    out = str(tmp_path / "out")
    assert main(["explain", "--target", "cpu", "--kernel", "negate", "-o", out, script,
                 "--", "--fail"]) == 0
    index, links = _pages(out)
    assert [name for _, name in links] == ["negate"]
    assert "late failure" in index   # the script's own error is kept on the index


def test_sm90a_without_gpu_stops_at_the_kernel(script, tmp_path):
    from tritium.tools.explain import default_target
    if default_target() != "cpu":
        pytest.skip("a GPU is present: the script runs on it instead")
    out = str(tmp_path / "out")
    assert main(["explain", script, "--target", "sm_90a", "--kernel", "negate", "-o", out]) == 0
    index, links = _pages(out)
    assert [name for _, name in links] == ["negate"]
    assert "stopped at the first launch of negate" in index


def test_errors(script, tmp_path, capsys):
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert main(["explain", str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["explain", script, "--target", "sm_9x"]) == 2
    assert "target must be 'cpu' or an NVIDIA arch" in capsys.readouterr().err
    with pytest.raises(SystemExit, match=r"did not compile a kernel named 'nope'; it compiled: "
                                         r"double, negate"):
        main(["explain", script, "--target", "cpu", "--kernel", "nope", "-o", str(tmp_path / "o")])


def test_python_dash_m(script, tmp_path):
    out = str(tmp_path / "out")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "tritium", "explain", script, "--target", "cpu",
                           "--kernel", "double", "-o", out], capture_output=True, text=True,
                          env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "2 kernel page(s)" in proc.stderr
    assert os.path.isfile(os.path.join(out, "double-1.html"))


BENCH_SCRIPT = textwrap.dedent('''
    import numpy as np
    import tritium as triton
    import tritium.language as tl
    from tritium.testing import do_bench

    @triton.jit
    def add(X, Y, Z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Z + offs, tl.load(X + offs, mask=m) + tl.load(Y + offs, mask=m), mask=m)

    n = 5000
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    z = np.empty_like(x)
    ms = do_bench(lambda: add[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024), warmup=1, rep=5)
    assert np.array_equal(z, x + y)
    print("MS", ms)
''')


def test_do_bench_bandwidth(tmp_path):
    """Bytes per call are the three tensors of one launch; GB/s is bytes over do_bench's time."""
    from tritium.tools.explain.record import run_script
    p = tmp_path / "bench_add.py"
    p.write_text(BENCH_SCRIPT)
    rec = run_script(str(p), force_cpu=True)
    (c,) = rec.compiled
    b = rec.bench_of(c)
    assert b is not None and b.launches_per_call == 1 and b.kernels_in_call == 1
    assert b.bytes_per_call == 3 * 5000 * 4
    assert b.gbps == pytest.approx(3 * 5000 * 4 / (b.ms * 1e-3) / 1e9)
    from tritium import testing
    assert testing.do_bench.__name__ == "do_bench"   # the wrapper is gone afterwards
    out = str(tmp_path / "out")
    assert main(["explain", str(p), "--target", "cpu", "-o", out]) == 0
    with open(os.path.join(out, "add.html")) as f:
        page = f.read()
    assert "measured (do_bench)" in page and "0.06 MB of tensor arguments" in page
