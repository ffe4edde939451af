"""`@autotune` on the CPU backend: every hook, pruning, failing configs, reporting and
results kept on disk, each checked against what the kernel must compute."""
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

import tritium as triton
import tritium.language as tl
from tritium.frontend.errors import CompileTimeAssertionFailure
from tritium.frontend.autotuner import Autotuner, Heuristics
from tritium.runtime.errors import AutotunerError, OutOfResources, PTXASError

CONFIGS = [triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64}, num_warps=2),
           triton.Config({"BLOCK": 128}, num_warps=8)]


@pytest.fixture(autouse=True)
def clean_autotune_env(private_cache, monkeypatch):
    """Results persist by default: each test gets its own cache directory."""
    for var in ("TRITON_CACHE_AUTOTUNING", "TRITON_PRINT_AUTOTUNING", "TRITIUM_AUTOTUNE_PROGRESS"):
        monkeypatch.delenv(var, raising=False)


def grid(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK"]),)


class Bench:
    """A user `do_bench`: runs the call `reps` times, checking the state after each run,
    and returns made-up times so the chosen config is known in advance."""

    def __init__(self, times=None, reps=3, after_each=None):
        self.times, self.reps, self.after_each = times, reps, after_each
        self.calls = 0

    def __call__(self, fn, quantiles=None):
        for _ in range(self.reps):
            fn()
            if self.after_each:
                self.after_each()
        t = self.times[self.calls] if self.times else 1.0 + self.calls
        self.calls += 1
        return [t, t * 0.9, t * 1.1]


@triton.jit
def accumulate(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_add(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.jit
def add_one_in_place(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


@triton.jit
def scale(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 64, "BLOCK too large")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * factor, mask=m)


def _np(a):
    return a.numpy() if isinstance(a, torch.Tensor) else a


def _data(rng, n, dtype, lib):
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(n).astype(dtype)
    else:
        x = rng.integers(-50, 50, n).astype(dtype)
    return torch.from_numpy(x) if lib == "torch" else x


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@pytest.mark.parametrize("dtype,n", [(np.float32, 1000), (np.int32, 77)])
def test_reset_to_zero_before_each_timing_run_and_the_real_run(rng, lib, dtype, n):
    x = _data(rng, n, dtype, lib)
    y = _data(rng, n, dtype, lib)  # garbage in the output: reset_to_zero must clear it
    seen = []
    bench = Bench(times=[3.0, 1.0, 2.0], after_each=lambda: seen.append(_np(y).copy()))
    tuned = triton.autotune(CONFIGS, key=["n"], reset_to_zero=["y_ptr"], do_bench=bench)(
        accumulate)
    tuned[grid(n)](x, y, n)
    # Every timing run started from zeros, and so did the real run (not 2 * x).
    assert len(seen) == 9 and all(np.array_equal(s, _np(x)) for s in seen)
    np.testing.assert_array_equal(_np(y), _np(x))
    assert tuned.best_config is CONFIGS[1]
    # A later call with the same key does not tune again, and (as upstream) does not reset.
    tuned[grid(n)](x, y, n)
    np.testing.assert_array_equal(_np(y), 2 * _np(x))
    assert bench.calls == 3


def test_restore_value_after_each_timing_run(rng):
    n = 300
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    original = x.clone()
    seen = []
    bench = Bench(after_each=lambda: seen.append(torch.equal(x, original)))
    tuned = triton.autotune(CONFIGS[:2], key=["n"], restore_value=["x_ptr"], do_bench=bench)(
        add_one_in_place)
    tuned[grid(n)](x, n)
    assert seen == [True] * 6  # restored after each of the 3 runs of both configs
    torch.testing.assert_close(x, original + 1, rtol=0, atol=0)  # the real run: once


def test_user_hooks_get_upstreams_arguments(rng):
    n = 200
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)
    pre, post = [], []

    def pre_hook(kwargs, reset_only=False):
        pre.append((reset_only, kwargs["BLOCK"], kwargs["num_warps"], kwargs["n"]))
        kwargs["y_ptr"][...] = 0

    def post_hook(kwargs, exception):
        post.append((kwargs["BLOCK"], exception))

    tuned = triton.autotune(CONFIGS, key=["n"], pre_hook=pre_hook, post_hook=post_hook,
                            do_bench=Bench(times=[2.0, 1.0], reps=1))(scale)
    tuned[grid(n)](x, y, n, 3.0)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)
    # One run per config, BLOCK=128 failing its static_assert, then the reset before the
    # real run with the chosen config.
    assert pre == [(False, 32, 4, n), (False, 64, 2, n), (False, 128, 8, n), (True, 64, 2, n)]
    assert [b for b, _ in post] == [32, 64, 128]
    assert post[0][1] is None and post[1][1] is None
    assert isinstance(post[2][1], CompileTimeAssertionFailure)


def test_one_argument_pre_hook_and_config_pre_hook(rng):
    n = 100
    x = _data(rng, n, np.int32, "numpy")
    y = _data(rng, n, np.int32, "numpy")
    cfg_calls = []
    configs = [triton.Config({"BLOCK": 32}, pre_hook=lambda a: cfg_calls.append(a["BLOCK"])),
               triton.Config({"BLOCK": 64})]
    with pytest.warns(UserWarning, match="replaces the reset_to_zero"):
        tuned = triton.autotune(configs, key=["n"], reset_to_zero=["y_ptr"],
                                pre_hook=lambda a: a["y_ptr"].fill(0),
                                do_bench=Bench(times=[1.0, 2.0]))(accumulate)
    tuned[grid(n)](x, y, n)
    np.testing.assert_array_equal(y, x)
    assert cfg_calls == [32] * 4  # 3 timing runs and the real one


def test_prune_configs_by_early_prune_and_perf_model(rng):
    n = 500
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in (16, 32, 64) for w in (1, 2, 4)]
    early, model = [], []

    def early_prune(cfgs, nargs, **kwargs):
        early.append((len(cfgs), nargs["n"], sorted(k for k in kwargs if k != "grid")))
        return [c for c in cfgs if c.num_warps != 1]

    def perf_model(**kw):
        model.append(kw["n"])
        return abs(kw["BLOCK"] - 32) + kw["num_warps"]  # best: BLOCK 32, then fewer warps

    bench = Bench(times=[5.0, 1.0])
    tuned = triton.autotune(configs, key=["n"], do_bench=bench, prune_configs_by={
        "early_config_prune": early_prune, "perf_model": perf_model, "top_k": 2})(scale)
    tuned[grid(n)](x, y, n, -2.0)
    np.testing.assert_allclose(y, -2 * x, rtol=1e-6)
    assert early == [(9, n, ["warmup"])] and model == [n] * 6
    assert [str(c) for c in tuned.configs_timings] == [str(configs[4]), str(configs[5])]
    assert tuned.best_config is configs[5]

    frac = triton.autotune(configs, key=["n"], do_bench=Bench(), prune_configs_by={
        "perf_model": perf_model, "top_k": 0.25})(scale)
    assert len(_pruned(frac, x, y, n)) == 2  # int(9 * 0.25)


def _pruned(tuned, x, y, n):
    tuned.nargs = dict(zip(tuned.arg_names, (x, y, n, 1.0)))
    return tuned.prune_configs({})


def test_pruning_errors_name_the_problem(rng):
    x = _data(rng, 64, np.float32, "numpy")
    none_left = triton.autotune(CONFIGS, key=["n"], do_bench=Bench(),
                                prune_configs_by={"early_config_prune": lambda c, a, **k: []})(scale)
    with pytest.raises(AutotunerError, match="^Autotuner error: No valid autotuner configs "
                       "after pruning"):  # upstream's str()
        none_left[grid(64)](x, x.copy(), 64, 1.0)
    bad_k = triton.autotune(CONFIGS, key=["n"], do_bench=Bench(),
                            prune_configs_by={"perf_model": lambda **k: 0, "top_k": "2"})(scale)
    with pytest.raises(TypeError, match="top_k must be"):
        bad_k[grid(64)](x, x.copy(), 64, 1.0)
    with pytest.raises(ValueError, match=r"reset_to_zero.*'y'.*x_ptr, y_ptr"):
        triton.autotune(CONFIGS, key=["n"], reset_to_zero=["y"])(scale)
    with pytest.raises(TypeError, match=r"configs\[1\] must be a triton.Config"):
        triton.autotune([CONFIGS[0], {"BLOCK": 64}], key=["n"])(scale)
    with pytest.warns(UserWarning, match=r"key \['N'\].*names no argument"):
        triton.autotune(CONFIGS, key=["N"])(scale)


def test_warmup_rep_and_cuda_graph_on_the_cpu(rng, monkeypatch):
    import tritium.testing as testing
    calls = []
    real = testing.do_bench

    def spy(fn, warmup=25, rep=100, quantiles=None, device=None, **kw):
        calls.append((warmup, rep, device))
        return real(fn, warmup=warmup, rep=rep, quantiles=quantiles, device=device)

    monkeypatch.setattr(testing, "do_bench", spy)
    monkeypatch.setattr(testing, "do_bench_cudagraph", lambda *a, **k: pytest.fail("graph on CPU"))
    n = 256
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)
    with pytest.warns(DeprecationWarning, match="warmup, rep, and use_cuda_graph"):
        tuned = triton.autotune(CONFIGS[:2], key=["n"], warmup=1, rep=2,
                                use_cuda_graph=True)(scale)
    tuned[grid(n)](x, y, n, 0.5)
    np.testing.assert_allclose(y, 0.5 * x)
    assert calls == [(1, 2, "cpu")] * 2  # wall clock: the kernels run on the CPU backend
    t = tuned.configs_timings[tuned.best_config]
    assert len(t) == 3 and 0 < t[1] <= t[0] <= t[2] < float("inf")


def test_failing_configs_are_skipped_with_infinite_time(rng):
    n = 130
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)

    def out_of_smem(args):
        raise OutOfResources(300000, 232448, "shared memory")

    def ptxas_fails(args):
        raise PTXASError("fake")

    configs = [triton.Config({"BLOCK": 16}, pre_hook=out_of_smem),
               triton.Config({"BLOCK": 128}),  # fails its static_assert
               triton.Config({"BLOCK": 32}, pre_hook=ptxas_fails),
               triton.Config({"BLOCK": 64})]
    bench = Bench(times=[0.5, 9.0])  # only the two configs that run get a time
    tuned = triton.autotune(configs, key=["n"], do_bench=bench)(scale)
    tuned[grid(n)](x, y, n, 4.0)
    np.testing.assert_allclose(y, 4 * x, rtol=1e-6)
    inf = [float("inf")] * 3
    assert [tuned.configs_timings[c] for c in configs[:3]] == [inf] * 3
    assert tuned.best_config is configs[3]


def test_every_config_failing_is_a_clear_error(rng):
    x = _data(rng, 64, np.float32, "numpy")
    tuned = triton.autotune([triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})],
                            key=["n"], do_bench=Bench())(scale)
    with pytest.raises(AutotunerError, match=r"every config of scale failed.*\n.*BLOCK: 128.*"
                                             r"CompileTimeAssertionFailure") as exc:
        tuned[grid(64)](x, x.copy(), 64, 1.0)
    assert isinstance(exc.value.__cause__, CompileTimeAssertionFailure)


def test_print_autotuning_and_progress(rng, monkeypatch, capsys):
    n = 100
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)
    tuned = triton.autotune(CONFIGS[:2], key=["n"], do_bench=Bench(times=[2.0, 1.0] * 2))(scale)
    tuned[grid(n)](x, y, n, 1.0)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""  # quiet unless asked (stderr is no terminal here)

    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    monkeypatch.setenv("TRITIUM_AUTOTUNE_PROGRESS", "1")
    tuned[grid(n - 1)](x, y, n - 1, 1.0)
    out = capsys.readouterr()
    assert out.out.count("Autotuning kernel scale with config") == 2
    assert (f"Triton autotuning for function scale,\nwith key as ({n - 1}, 'float32', "
            f"'float32'),\nfinished after ") in out.out
    assert out.out.endswith(f"best config selected: {CONFIGS[1]};\n")
    assert out.err.splitlines() == ["autotuning scale: 1/2 configs, best 2 ms",
                                    "autotuning scale: 2/2 configs, best 1 ms"]
    tuned[grid(n - 1)](x, y, n - 1, 1.0)  # known key: nothing to report
    assert capsys.readouterr().out == ""


class _Terminal:
    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_redraws_one_line_on_a_terminal(rng, monkeypatch):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    n = 50
    x = _data(rng, n, np.float32, "numpy")
    tuned = triton.autotune(CONFIGS, key=["n"], do_bench=Bench(times=[3.0, 0.25] * 2))(scale)
    tuned[grid(n)](x, np.zeros_like(x), n, 1.0)
    assert term.text == ("\rautotuning scale: 1/3 configs, best 3 ms\033[K"
                         "\rautotuning scale: 2/3 configs, best 0.25 ms\033[K"
                         "\rautotuning scale: 3/3 configs, best 0.25 ms\033[K\n")
    monkeypatch.setenv("TRITIUM_AUTOTUNE_PROGRESS", "0")
    term.text = ""
    tuned[grid(n - 1)](x, np.zeros_like(x), n - 1, 1.0)
    assert term.text == ""


def _kernel_and_bench(times):
    bench = Bench(times=times, reps=1)
    return bench, triton.autotune(CONFIGS, key=["n"], restore_value=["x_ptr"], do_bench=bench)(
        add_one_in_place)


def test_results_persist_on_disk_keyed_by_key_configs_and_kernel(rng, monkeypatch):
    n = 90
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    bench, first = _kernel_and_bench([3.0, 2.0, 1.0])
    first[grid(n)](x, n)
    assert bench.calls == 3 and first.best_config is CONFIGS[2]
    # A fresh autotuner (as in a new process) reads the result instead of benchmarking.
    bench, second = _kernel_and_bench([1.0, 2.0, 3.0])
    before = x.clone()
    second[grid(n)](x, n)
    assert bench.calls == 0 and second.best_config is CONFIGS[2]
    torch.testing.assert_close(x, before + 1, rtol=0, atol=0)
    assert second.configs_timings[CONFIGS[2]] == [1.0, 0.9, 1.1]
    # Another key value, or other configs, are tuned anew.
    bench, third = _kernel_and_bench(None)
    third[grid(n - 1)](x, n - 1)
    assert bench.calls == 3
    other = Bench(reps=1)
    triton.autotune(CONFIGS[:2], key=["n"], do_bench=other)(add_one_in_place)[grid(n)](x, n)
    assert other.calls == 2
    # Turned off by the knob or by the argument; the argument wins over the knob.
    monkeypatch.setenv("TRITON_CACHE_AUTOTUNING", "0")
    bench, off = _kernel_and_bench(None)
    off[grid(n)](x, n)
    assert bench.calls == 3
    bench = Bench(reps=1)
    triton.autotune(CONFIGS, key=["n"], do_bench=bench, cache_results=True)(
        add_one_in_place)[grid(n)](x, n)
    assert bench.calls == 0
    monkeypatch.delenv("TRITON_CACHE_AUTOTUNING")
    bench = Bench(reps=1)
    triton.autotune(CONFIGS, key=["n"], do_bench=bench, cache_results=False)(
        add_one_in_place)[grid(n)](x, n)
    assert bench.calls == 3


def test_damaged_cache_entry_is_benchmarked_again(rng):
    n = 40
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    bench, first = _kernel_and_bench(None)
    first[grid(n)](x, n)
    root = os.environ["TRITON_CACHE_DIR"]
    (entry,) = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                if f.endswith(".autotune.json")]
    assert os.path.basename(entry) == "add_one_in_place.autotune.json"
    with open(entry, "w") as f:
        f.write("{not json")
    bench, second = _kernel_and_bench([2.0, 1.0, 3.0])
    before = x.clone()
    second[grid(n)](x, n)
    assert bench.calls == 3 and second.best_config is CONFIGS[1]
    torch.testing.assert_close(x, before + 1, rtol=0, atol=0)


SCRIPT = """
import sys
import numpy as np
import tritium as triton
import tritium.language as tl

calls = []

def bench(fn, quantiles=None):
    fn()
    calls.append(1)
    return [{times}[len(calls) - 1]] * 3

@triton.autotune([triton.Config({{"BLOCK": 16}}), triton.Config({{"BLOCK": 32}}),
                  triton.Config({{"BLOCK": 64}})], key=["n"], restore_value=["y_ptr"],
                 do_bench=bench)
@triton.jit
def axpy(x_ptr, y_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
             mask=m)

rng = np.random.default_rng(int(sys.argv[1]))
x = rng.standard_normal(1000).astype(np.float32)
y = rng.standard_normal(1000).astype(np.float32)
expect = 2.5 * x + y
axpy[lambda m: (triton.cdiv(1000, m["BLOCK"]),)](x, y, 1000, 2.5)
np.testing.assert_allclose(y, expect, rtol=1e-6)
print(len(calls), axpy.best_config.kwargs["BLOCK"])
"""


def test_second_process_starts_from_the_cached_choice(tmp_path, rng):
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "cache"))
    for var in ("TRITON_CACHE_AUTOTUNING", "TRITON_PRINT_AUTOTUNING", "TRITIUM_AUTOTUNE_PROGRESS"):
        env.pop(var, None)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")

    def run(times):
        script = tmp_path / "tuned.py"  # @jit needs the kernel's source in a file
        script.write_text(textwrap.dedent(SCRIPT.format(times=times)))
        seed = str(rng.integers(2 ** 31))
        out = subprocess.run([sys.executable, str(script), seed], capture_output=True,
                             text=True, env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert run([3.0, 1.0, 2.0]) == ["3", "32"]
    # The second process would pick BLOCK 16 if it benchmarked; it must not benchmark.
    assert run([1.0, 2.0, 3.0]) == ["0", "32"]


def test_upstream_attributes_and_config_identity(rng):
    n = 64
    x = _data(rng, n, np.float32, "numpy")
    y = np.zeros_like(x)
    tuned = triton.autotune(CONFIGS[:2], key=["n"], do_bench=Bench(times=[2.0, 1.0]))(scale)
    assert isinstance(tuned, Autotuner) and tuned.best_config is None and tuned.cache == {}
    tuned[grid(n)](x, y, n, 1.0)
    assert tuned.cache == {(n, "float32", "float32"): CONFIGS[1]}
    assert tuned.best_config is CONFIGS[1] and set(tuned.configs_timings) == set(CONFIGS[:2])
    assert tuned.keys == ["n"] and tuned.fn is scale and tuned.base_fn is scale.fn
    assert tuned.bench_time >= 0 and tuned.arg_names == ["x_ptr", "y_ptr", "n", "factor", "BLOCK"]
    tuned.do_bench = Bench(times=[1.0, 2.0])  # torch's inductor replaces it
    tuned[grid(n - 1)](x, y, n - 1, 1.0)
    assert tuned.best_config is CONFIGS[0] and len(tuned.cache) == 2
    c = triton.Config({"BLOCK": 64}, num_warps=2)
    assert c == CONFIGS[1] and hash(c) == hash(CONFIGS[1]) and c != CONFIGS[0]
    assert pickle.loads(pickle.dumps(c)) == c
    assert str(c).endswith("maxnreg: None, ir_override: None")

    h = triton.heuristics({"BLOCK": lambda a: triton.next_power_of_2(a["n"])})(scale)
    assert isinstance(h, Heuristics) and h.fn is scale and h.arg_names == scale.arg_names
    y2 = np.zeros(40, np.float32)
    h[(1,)](x[:40].copy(), y2, 40, 2.0)
    np.testing.assert_allclose(y2, 2 * x[:40], rtol=1e-6)
    with pytest.raises(TypeError, match="heuristics"):
        triton.heuristics({"BLOCK": 64})(scale)


@pytest.mark.gpu
@pytest.mark.parametrize("use_cuda_graph", [False, True])
def test_on_the_gpu_reset_to_zero_with_event_and_graph_timers(use_cuda_graph):
    if not torch.cuda.is_available():
        pytest.skip("needs torch with CUDA")
    n = 3000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    kw = {"use_cuda_graph": True, "rep": 5} if use_cuda_graph else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        tuned = triton.autotune(CONFIGS, key=["n"], reset_to_zero=["y_ptr"], **kw)(accumulate)
    tuned[grid(n)](x, y, n)
    torch.testing.assert_close(y, x, rtol=0, atol=0)
    assert tuned.best_config in CONFIGS and all(
        0 < t[0] < float("inf") for t in tuned.configs_timings.values())
