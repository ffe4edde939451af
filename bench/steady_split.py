"""Where the steady-state host time of a torch.compile'd model goes, upstream Triton vs
tritium: each side in fresh processes (alternating, `--rounds` each) compiles the models of
bench_clients.py, then times the same loop of calls (one synchronise at the end, best of 5,
on one fixed core) as it is, with the cyclic collector off, and after `gc.freeze()`; it
reports what could make two processes that run the same torch code differ: collections
during the loop, objects the collector tracks, resident memory, threads.

    python bench/steady_split.py [--models softmax,conv_bn,pointwise] [--rounds 3]
                                 [--iters 200]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _loop_us(step, sync, iters):
    from bench_clients import best_loop_s
    return best_loop_s(step, sync, iters) * 1e6


def _cpu_times():
    """(busy, total) jiffies of every CPU and of the one the loop is pinned to."""
    core = f"cpu{max(os.sched_getaffinity(0))}"
    got = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *vals = line.split()
            if name in ("cpu", core):
                vals = [int(v) for v in vals[:8]]
                got["all" if name == "cpu" else "core"] = (sum(vals) - vals[3] - vals[4], sum(vals))
    return got


def _busy(before, after, key):
    b = after[key][0] - before[key][0]
    t = after[key][1] - before[key][1]
    return round(100 * b / t) if t else None


def _collections():
    return [s["collections"] for s in gc.get_stats()]


def _launchers():
    """Each live Inductor kernel's launcher: static (torch's own CUDA launcher over the
    cubin) or the Triton side's `CompiledKernel.run` (name of the runner's class)."""
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    kinds = {}
    for obj in gc.get_objects():
        if isinstance(obj, CachingAutotuner):
            for launcher in obj.launchers:
                runner = launcher.__globals__.get("runner")
                kind = "static" if getattr(launcher, "_is_static", False) else \
                    type(getattr(runner, "__self__", runner)).__name__
                kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def _package_calls(step, sync, steps=5):
    """Python functions of the Triton package (triton's or tritium's files) that `steps`
    steps call, per step: a steady loop whose host code is the same on both sides has
    none, so any difference between the sides' loops is in what is left."""
    import triton
    roots = tuple(os.path.dirname(os.path.abspath(m.__file__)) for m in
                  {triton, sys.modules.get("tritium") or triton} if getattr(m, "__file__", None))
    got = {}

    def prof(frame, event, _arg):
        if event in ("call", "c_call"):
            code = frame.f_code
            if code.co_filename.startswith(roots):
                key = f"{os.path.basename(code.co_filename)}:{code.co_name}"
                got[key] = got.get(key, 0) + 1
    sync()
    sys.setprofile(prof)
    try:
        for _ in range(steps):
            step()
        sync()
    finally:
        sys.setprofile(None)
    return {k: round(v / steps, 1) for k, v in sorted(got.items(), key=lambda kv: -kv[1])[:8]}


def worker(side, models, iters):
    if side == "tritium":
        import tritium.compat
        tritium.compat.install()
    sys.path.insert(0, HERE)
    import torch
    import bench_clients
    sync = torch.cuda.synchronize
    for name in models:
        torch.manual_seed(0)
        _fn, cfn, inputs, _tol, grad = bench_clients.compiled(name, "cuda", False)

        def step():
            out = cfn(*inputs)
            if grad:
                out.float().square().mean().backward()

        with torch.set_grad_enabled(grad):
            row0 = {"pool_wait_s": bench_clients.pool_settle()}
            for _ in range(20):
                step()
            sync()
            row = {"model": name, "side": side, **row0}
            before, cpu = _collections(), _cpu_times()
            row["us"] = _loop_us(step, sync, iters)
            cpu2 = _cpu_times()
            row["busy_all"], row["busy_core"] = _busy(cpu, cpu2, "all"), _busy(cpu, cpu2, "core")
            row["gc_runs"] = [a - b for a, b in zip(_collections(), before)]
            gc.disable()
            row["us_nogc"] = _loop_us(step, sync, iters)
            gc.enable()
            gc.collect()
            gc.freeze()
            row["us_frozen"] = _loop_us(step, sync, iters)
            gc.unfreeze()
            row["us_again"] = _loop_us(step, sync, iters)
            row["package_calls"] = _package_calls(step, sync)
        row["launchers"] = _launchers()
        row["tracked"] = len(gc.get_objects())
        with open("/proc/self/statm") as f:
            row["rss_mb"] = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
        row["threads"] = sorted(t.name for t in threading.enumerate())
        row["os_threads"] = len(os.listdir("/proc/self/task"))
        row["modules"] = len(sys.modules)
        print(json.dumps(row), flush=True)


def _keep_wrappers(cache, dest):
    """Inductor's generated wrapper modules (the ones that define `call`), named by the
    kernels they launch so that the two sides' files pair up."""
    import re
    import shutil
    os.makedirs(dest, exist_ok=True)
    for root, _dirs, files in os.walk(cache):
        for f in files:
            path = os.path.join(root, f)
            if not f.endswith(".py"):
                continue
            with open(path, errors="replace") as fh:
                text = fh.read()
            if "def call(" not in text:
                continue
            kernels = sorted(set(re.findall(r"\b(triton_\w+?)\.run\(", text)))
            name = "_".join(kernels)[:120] or f
            shutil.copy(path, os.path.join(dest, name + ".py"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="softmax,conv_bn,pointwise")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--keep-code", metavar="DIR",
                    help="copy each side's Inductor wrapper modules (the host code of the "
                         "loop) to DIR/<side>-<round>/ to diff them")
    ap.add_argument("--worker")
    a = ap.parse_args()
    models = [m for m in a.models.split(",") if m]
    if a.worker:
        worker(a.worker, models, a.iters)
        return
    rows = []
    for rnd in range(a.rounds):
        for side in ("baseline", "tritium"):
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "i"),
                           TRITON_CACHE_DIR=os.path.join(tmp, "t"),
                           PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
                p = subprocess.run([sys.executable, __file__, "--worker", side, "--models",
                                    a.models, "--iters", str(a.iters)],
                                   capture_output=True, text=True, env=env)
                if a.keep_code:
                    _keep_wrappers(env["TORCHINDUCTOR_CACHE_DIR"],
                                   os.path.join(a.keep_code, f"{side}-{rnd}"))
            if p.returncode:
                print(side, "FAILED", p.stderr[-3000:])
            got = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
            # each process as it ends: a timeout on the device then still leaves its rounds
            for r in got:
                print(f"round {rnd} {side:<9} {r['model']:<12} us {r['us']:.0f} nogc "
                      f"{r['us_nogc']:.0f} frozen {r['us_frozen']:.0f} again {r['us_again']:.0f}"
                      f" pool wait {r.get('pool_wait_s')} s"
                      f" package calls {json.dumps(r.get('package_calls'))}", flush=True)
            rows += got
    keys = ("us", "us_nogc", "us_frozen", "us_again")
    print(f"\nhost µs per step, best of 5 x {a.iters}, {a.rounds} processes per side "
          "(each cell: every process's value)")
    print(f"{'model':<12} {'side':<9} " + " ".join(f"{k:>20}" for k in keys)
          + "  gc runs (gen0/1/2)  tracked  rss MB  threads  busy% all/core  launchers")
    for name in models:
        for side in ("baseline", "tritium"):
            got = [r for r in rows if r["model"] == name and r["side"] == side]
            if not got:
                continue
            cells = " ".join(f"{' '.join(f'{r[k]:.0f}' for r in got):>20}" for k in keys)
            last = got[-1]
            busy = " ".join(f"{r['busy_all']}/{r['busy_core']}" for r in got)
            kinds = " ".join(json.dumps(r["launchers"]) for r in got)
            print(f"{name:<12} {side:<9} {cells}  {str(last['gc_runs']):>18} {last['tracked']:>8} "
                  f"{last['rss_mb']:7.0f}  {last['os_threads']} ({len(last['threads'])} py)  "
                  f"{busy}  {kinds}")
    for name in models:
        b = [r["us"] for r in rows if r["model"] == name and r["side"] == "baseline"]
        t = [r["us"] for r in rows if r["model"] == name and r["side"] == "tritium"]
        if b and t:
            print(f"{name}: median upstream/tritium {statistics.median(b) / statistics.median(t):.2f}")
    for name in models:
        for side in ("baseline", "tritium"):
            got = [r for r in rows if r["model"] == name and r["side"] == side]
            if got:
                print(f"{name} {side}: Triton-package Python calls per step",
                      json.dumps(got[-1].get("package_calls")))
    extra = {r["side"]: r["threads"] for r in rows}
    print("threads:", json.dumps(extra))


if __name__ == "__main__":
    main()
