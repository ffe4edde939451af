"""Run one upstream Triton tutorial with tritium standing in for `triton`.

    python bench/tutorial_shim.py [--quick] TUTORIAL.py [tutorial args...]

Used by `bench/run_tutorials.py`, one subprocess per tutorial. Before the tutorial runs,
`tritium.compat.install()` makes `import triton` resolve to tritium. The tutorial file is
executed unchanged as `__main__`; afterwards its pytest-style `test_*` functions (tutorial 06
keeps its correctness check in `test_op`) are called once per parametrize combination,
because running the file as a script would skip them.

`--quick` shrinks the benchmark tail that every tutorial ends with, from the outside:
`triton.testing.Benchmark` keeps only its first x value(s), and `do_bench` /
`do_bench_cudagraph` time a single call instead of hundreds of milliseconds of calls.
Nothing in the tutorial's own checks is changed.
"""
from __future__ import annotations

import argparse
import itertools
import os
import runpy
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _one_call_bench(fn, *args, quantiles=None, return_mode="mean", grad_to_none=None, **kwargs):
    """Stand-in for do_bench/do_bench_cudagraph: one timed call, returned in the shape the
    caller asked for (a list per quantile, or one number)."""
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None
    torch = sys.modules.get("torch")
    sync = torch.cuda.synchronize if torch is not None and torch.cuda.is_available() else (lambda: None)
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    ms = (time.perf_counter() - t0) * 1e3
    if quantiles is not None:
        return [ms for _ in quantiles]
    if return_mode == "all":
        return [ms]
    return ms


def _shrink_benchmarks(testing, points: int) -> None:
    original_init = testing.Benchmark.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.x_vals = list(self.x_vals)[:points]

    testing.Benchmark.__init__ = init
    testing.do_bench = _one_call_bench
    testing.do_bench_cudagraph = _one_call_bench


def _parametrizations(fn):
    """The keyword sets pytest would call `fn` with, from its parametrize marks."""
    axes = []
    for mark in getattr(fn, "pytestmark", []):
        if getattr(mark, "name", "") != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        combos = []
        for v in values:
            v = getattr(v, "values", v)          # pytest.param(...)
            v = v if len(names) > 1 else (v[0] if isinstance(v, tuple) and len(v) == 1 else v,)
            combos.append(dict(zip(names, v)))
        axes.append(combos)
    if not axes:
        return []
    out = []
    for parts in itertools.product(*axes):
        merged = {}
        for p in parts:
            merged.update(p)
        out.append(merged)
    return out


def _run_tests(namespace: dict, quick: bool) -> None:
    for name, fn in list(namespace.items()):
        if not name.startswith("test_") or not callable(fn) or not hasattr(fn, "pytestmark"):
            continue
        combos = _parametrizations(fn)
        for kwargs in combos[:1] if quick else combos:
            shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            fn(**kwargs)
            print(f"[shim] {name}({shown}) passed", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shrink the benchmark sweeps")
    ap.add_argument("--points", type=int, default=1, help="x values kept per Benchmark in --quick")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    ap.add_argument("tutorial")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args(argv)

    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    os.environ.setdefault("MPLBACKEND", "Agg")   # show_plots=True must not need a display
    import tritium.compat
    tritium.compat.install()
    if opts.device == "cpu":
        import torch
        if not hasattr(torch.cpu, "set_stream"):
            # Tutorial 02's benchmark calls getattr(torch, DEVICE.type).set_stream(...); torch
            # has no such call for the CPU, whose work runs on the calling thread anyway.
            torch.cpu.set_stream = lambda stream: None
    if opts.quick:
        import triton.testing
        _shrink_benchmarks(triton.testing, opts.points)

    path = os.path.abspath(opts.tutorial)
    sys.argv = [path] + list(opts.args)
    sys.path.insert(0, os.path.dirname(path))
    namespace = runpy.run_path(path, run_name="__main__")
    _run_tests(namespace, opts.quick)


if __name__ == "__main__":
    main()
