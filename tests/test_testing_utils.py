"""tritium.testing on the CPU: assert_close, do_bench's wall-clock fallback, perf_report."""
import csv
import os
import time

import numpy as np
import pytest

from tritium import testing


def test_assert_close_numpy():
    x = np.linspace(0, 1, 100, dtype=np.float32)
    testing.assert_close(x, x + 5e-3)
    with pytest.raises(AssertionError):
        testing.assert_close(x, x + 5e-2)
    testing.assert_close(x, x * 1.01, atol=0, rtol=0.02)
    testing.assert_close(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))


def test_assert_close_scalars_and_callables():
    testing.assert_close(1.0, 1.005)
    with pytest.raises(AssertionError, match=r"ctx 1.0 is not close to 2.0"):
        testing.assert_close(1.0, 2.0, err_msg="ctx")
    seen = []

    def atol(dtype):
        seen.append(dtype)
        return 0.5
    testing.assert_close(np.float32(1.0), 1.4, atol=atol)
    assert seen == [np.dtype(np.float32)]
    testing.assert_close([1, 2, 3], [1, 2, 3], atol=0)
    testing.assert_close(np.array([True, False]), np.array([True, False]))


def test_assert_close_torch():
    torch = pytest.importorskip("torch")
    a = torch.randn(64)
    testing.assert_close(a, a.clone())
    testing.assert_close(a.to(torch.bfloat16), a.to(torch.bfloat16).float(), atol=1e-6)
    testing.assert_close(a, a.numpy())
    with pytest.raises(AssertionError):
        testing.assert_close(a, a + 1)


def test_do_bench_cpu_fallback():
    calls = []

    def fn():
        calls.append(1)
        time.sleep(0.001)
    ms = testing.do_bench(fn, warmup=5, rep=20, device="cpu")
    assert 0.9 <= ms < 50
    assert 5 < len(calls) < 200
    q = testing.do_bench(fn, warmup=1, rep=10, quantiles=[0.2, 0.5, 0.8], device="cpu")
    assert len(q) == 3 and q[0] <= q[1] <= q[2]
    allt = testing.do_bench(fn, warmup=1, rep=5, return_mode="all", device="cpu")
    assert isinstance(allt, list) and all(t > 0.9 for t in allt)
    with pytest.raises(ValueError):
        testing.do_bench(fn, return_mode="p99", device="cpu")


def test_do_bench_picks_cpu_without_gpu():
    from tritium.backends.nvidia import driver
    if driver.is_available():
        pytest.skip("a GPU is present")
    ms = testing.do_bench(lambda: sum(range(1000)), warmup=1, rep=5)
    assert 0 < ms < 10
    assert testing.do_bench_cudagraph(lambda: sum(range(1000)), rep=5) > 0


def test_do_bench_clears_grads():
    class P:
        grad = 1
    p = P()
    testing.do_bench(lambda: None, warmup=1, rep=1, grad_to_none=[p], device="cpu")
    assert p.grad is None


def _report(save_path=""):
    @testing.perf_report(testing.Benchmark(
        x_names=["N"], x_vals=[128, 1024], line_arg="provider", line_vals=["a", "b"],
        line_names=["Alpha", "Beta"], plot_name="demo", args={"scale": 2.0}, ylabel="ms"))
    def bench(N, provider, scale):
        v = N * scale / 1000 + (0.5 if provider == "b" else 0.25)
        return v, v * 0.9, v * 1.1
    return bench


def test_perf_report_prints_table(capsys):
    table = _report().run(print_data=True, return_df=True)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "demo:"
    header = out[1].split()
    assert header == ["N", "Alpha", "(ms)", "Beta", "(ms)"]  # upstream's "Alpha (ms)"
    rows = [line.split() for line in out[2:]]
    assert rows[0][0] == "0" and float(rows[0][1]) == 128 and float(rows[0][2]) == pytest.approx(0.506)
    assert float(rows[1][3]) == pytest.approx(2.548)
    assert list(table["Alpha (ms)"]) == pytest.approx([0.506, 2.298])


def test_perf_report_saves_csv(tmp_path):
    path = str(tmp_path / "out")
    _report().run(save_path=path)
    with open(os.path.join(path, "demo.csv")) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["N", "Alpha (ms)", "Beta (ms)"]
    assert float(rows[1][1]) == pytest.approx(0.506)
    assert os.path.isfile(os.path.join(path, "results.html"))


def test_perf_report_multi_x_and_diff(capsys):
    @testing.perf_report([testing.Benchmark(
        x_names=["M", "N"], x_vals=[(1, 2), 3], line_arg="p", line_vals=[1], line_names=["one"],
        plot_name="multi", args={})])
    def bench(M, N, p):
        return float(M * N * p)
    bench.run(print_data=True)
    out = capsys.readouterr().out
    assert "multi:" in out and out.splitlines()[1].split() == ["M", "N", "one", "()"]


def test_table_formatting():
    t = testing.Table(["x", "y"], [[1, 0.5], [2, 0.125]])
    lines = t.to_string().splitlines()
    assert lines[1].split() == ["0", "1", "0.500"] and lines[2].split() == ["1", "2", "0.125"]
