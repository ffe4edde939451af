"""bench/run_tutorials.py and its shim, on small stand-in tutorials written here (upstream's
own copies live outside the repository): the verdicts, the --quick shrinking, the CPU device."""
import importlib.util
import os
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "bench", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


runner = _load("run_tutorials")
shim = _load("tutorial_shim")


@pytest.mark.parametrize("output, rc, status, cause", [
    ("tensor([1., 2.])\n✅ Triton and Torch match\n", 0, "PASS", ""),
    ("✅ fp16\n❌ Triton and Torch differ\n", 0, "FAIL", "❌ Triton and Torch differ"),
    ("⛔ This example requires GPU support\n", 0, "SKIP", "⛔ This example requires GPU support"),
    ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'tabulate'\n", 1,
     "SKIP", "needs the 'tabulate' package"),
    ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'triton.profiler'\n", 1,
     "FAIL", "No module named 'triton.profiler'"),
    ('Traceback (most recent call last):\n  File "/x/05-layer-norm.py", line 322, in t\n'
     "    assert torch.allclose(a, b)\nAssertionError\n", 1,
     "FAIL", "AssertionError at 05-layer-norm.py:322: assert torch.allclose(a, b)"),
])
def test_classify(output, rc, status, cause):
    got_status, got_cause = runner.classify(output, rc)
    assert got_status == status
    assert cause in got_cause


def test_parametrizations_expand_like_pytest():
    pytest_mod = pytest

    @pytest_mod.mark.parametrize("Z, H", [(1, 2), (3, 4)])
    @pytest_mod.mark.parametrize("causal", [True, False])
    def test_op(Z, H, causal):
        pass

    combos = shim._parametrizations(test_op)
    assert len(combos) == 4
    assert {"Z": 1, "H": 2, "causal": True} in combos and {"Z": 3, "H": 4, "causal": False} in combos


TUTORIAL = '''
import pytest
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
assert DEVICE.type == "cpu", DEVICE


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


def scale(x):
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 64), )](x, y, x.numel(), BLOCK=64)
    return y


x = torch.randn(1000, device=DEVICE)
print("✅" if torch.allclose(scale(x), 3 * x) else "❌", "scale")


@pytest.mark.parametrize("n", [7, 130])
def test_scale(n):
    x = torch.randn(n, device=DEVICE)
    torch.testing.assert_close(scale(x), 3 * x)


@triton.testing.perf_report(
    triton.testing.Benchmark(x_names=["n"], x_vals=[2**i for i in range(10, 15)], line_arg="p",
                             line_vals=["triton"], line_names=["Triton"], plot_name="scale", args={}))
def bench(n, p):
    x = torch.randn(n, device=DEVICE)
    print("bench point", n)
    return triton.testing.do_bench(lambda: scale(x), quantiles=[0.5, 0.2, 0.8])


bench.run(print_data=True, show_plots=True, save_path=".")
'''


def test_runner_on_stand_in_tutorials(tmp_path, capsys):
    src = tmp_path / "tut"
    src.mkdir()
    (src / "01-scale.py").write_text(TUTORIAL, encoding="utf-8")
    (src / "02-wrong.py").write_text(TUTORIAL.replace("3 * x) else", "4 * x) else"), encoding="utf-8")
    logs = tmp_path / "logs"
    rc = runner.main(["--device", "cpu", "--quick", "--dir", str(src), "--logs", str(logs)])
    table = capsys.readouterr().out
    assert rc == 1
    assert "| 01-scale.py | PASS |" in table
    assert "| 02-wrong.py | FAIL |" in table and "❌ scale" in table
    assert table.rstrip().splitlines()[-1].startswith("| 02-wrong.py")      # the table is last
    log = (logs / "01-scale.py.log").read_text(encoding="utf-8")
    assert log.count("bench point") == 1          # --quick: one x value of five
    assert "test_scale(n=7) passed" in log        # pytest-style checks are run too


def test_cuda_without_a_gpu_says_so(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    (tmp_path / "01-x.py").write_text("print('never run')\n")
    assert runner.main(["--device", "cuda", "--dir", str(tmp_path)]) == 2
    assert "--device cuda: torch sees no GPU" in capsys.readouterr().err
