"""Where a torch.compile model's first call goes, upstream Triton vs tritium: each side in a
fresh process with empty caches runs the model once and prints Inductor's own timed sections
(`torch._dynamo.utils.compilation_time_metrics`, e.g. `mm_template_precompiling`,
`mm_template_autotuning`, `compile_fx_inner`), plus, for `triton.compile` calls made in
that process, how many ran, their summed time and the wall time they covered (sum/covered
= how many ran at once), and tritium's compile-worker hand-offs.

    python bench/first_call_split.py --models mm_autotune [--top 14] [--timeline]
                                     [--after pointwise,softmax] [--prof DIR]
"""
from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from bench_clients import covered  # noqa: E402


def _timeline(spans, gcs=()):
    """One line per compile, by start: start, end of TTIR, slot taken, end, where, in ms
    from the first compile's start; then the garbage collections inside it (ms, and
    generation)."""
    if not spans:
        return []
    t0 = min(sp[0] for sp in spans)
    ms = lambda t: "-" if t is None else f"{(t - t0) * 1e3:6.0f}"  # noqa: E731
    lines = []
    for a, b, c, d, w in sorted(spans):
        inside = " ".join(f"gc{g}:{(e - s) * 1e3:.0f}" for s, e, g in gcs if a <= s < b)
        lines.append(f"{ms(a)} {ms(c)} {ms(d)} {ms(b)} {w} {inside}".rstrip())
    return lines


def worker(side, model, after=(), prof_dir=None):
    if side == "tritium":
        import tritium.compat
        tritium.compat.install()
    import torch
    import triton
    import bench_clients
    spans, lock = [], threading.Lock()
    real = triton.compile

    @functools.wraps(real)
    def timed_compile(*a, **k):
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            with lock:
                spans.append((t0, time.perf_counter(), *claims.pop(threading.get_ident(),
                                                                    (None, None, "-"))))
    triton.compile = timed_compile
    claims = {}  # thread id -> (claim time, "here"/"worker") of its compile in flight
    stage_ms = []  # tritium: (kernel, IR ms, [(stage, ms)]) per compile
    if side == "tritium":
        from tritium.compiler import workers
        real_claim = workers.claim

        def timed_claim(*a, **k):
            t = time.perf_counter()
            c = real_claim(*a, **k)
            claims[threading.get_ident()] = (t, time.perf_counter(),
                                             "here" if c.worker is None else "worker")
            return c
        workers.claim = timed_claim
        # Each compile's stage times (a worker's come back with its result): the span
        # minus their sum is what the hand-off and the frontend cost.
        def listener(src, metadata, times, cache_hit, **_):
            if not cache_hit:
                stage_ms.append((metadata.name, times.ir_initialization / 1e3,
                                 [(s, round(us / 1e3)) for s, us in times.lowering_stages]))
        triton.knobs.compilation.listener = listener
    try:
        import triton.compiler.compiler as cc
        cc.compile = timed_compile
    except ImportError:
        pass
    for earlier in after:  # first calls of other models first, as bench_clients.py runs them
        efn, exs, _tol, _grad = bench_clients.build(earlier, "cuda", False)
        torch.compile(efn, **bench_clients.COMPILE_KW.get(earlier, {}))(*exs)
    torch.cuda.synchronize()
    del spans[:], stage_ms[:]
    from torch._dynamo.utils import compilation_time_metrics
    before = {k: sum(v) for k, v in compilation_time_metrics.items()}  # (the --after models')
    fn, xs, _tol, _grad = bench_clients.build(model, "cuda", False)
    cfn = torch.compile(fn, **bench_clients.COMPILE_KW.get(model, {}))
    gcs, gc_start = [], {}

    def on_gc(phase, info):  # every collection of the first call: (start, end, generation)
        if phase == "start":
            gc_start[threading.get_ident()] = time.perf_counter()
        else:
            gcs.append((gc_start.pop(threading.get_ident(), time.perf_counter()),
                        time.perf_counter(), info["generation"]))
    gc.callbacks.append(on_gc)
    prof = None
    if prof_dir:  # the whole first call under cProfile, for offline comparison of the sides
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t0 = time.perf_counter()
    cfn(*xs)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    if prof:
        prof.disable()
        os.makedirs(prof_dir, exist_ok=True)
        prof.dump_stats(os.path.join(prof_dir, f"{side}_{model}.prof"))
    gc.callbacks.remove(on_gc)
    sections = {k: sum(v) - before.get(k, 0) for k, v in compilation_time_metrics.items()}
    row = {"first_s": first, "sections": sections, "compiles": len(spans),
           "compile_sum_s": sum(sp[1] - sp[0] for sp in spans),
           "compile_covered_s": covered([sp[:2] for sp in spans]),
           "gc_s": sum(e - a for a, e, _g in gcs),
           "full_gcs": f"{sum(g == 2 for *_, g in gcs)} ({sum(e - a for a, e, g in gcs if g == 2):.3f} s)",
           "timeline": _timeline(spans, gcs)}
    if side == "tritium":
        from tritium.compiler import workers
        row["workers"] = dict(workers.stats, last_fallback=workers.last_fallback[0])
        row["stage_ms"] = [f"{n[:40]} ir {ir:.0f} " + " ".join(f"{s}:{t}" for s, t in st)
                           for n, ir, st in stage_ms]
    try:
        from torch._inductor.async_compile import AsyncCompile
        row["process_pool"] = bool(AsyncCompile.use_process_pool())
    except Exception as e:  # noqa: BLE001 - a report, not a check
        row["process_pool"] = repr(e)
    print(json.dumps(row), flush=True)


def run_side(side, model, after="", prof_dir=""):
    with tempfile.TemporaryDirectory(prefix=f"first-split-{side}-") as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"))
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", side,
                               "--models", model, "--after", after, "--prof", prof_dir], env=env,
                              capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    return {"error": proc.stderr[-3000:]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="mm_autotune")
    ap.add_argument("--top", type=int, default=14)
    ap.add_argument("--timeline", action="store_true", help="every compile's start and end")
    ap.add_argument("--after", default="",
                    help="models whose first calls run before, in the same process")
    ap.add_argument("--prof", default="",
                    help="folder for each side's cProfile of the first call (SIDE_MODEL.prof); "
                         "its times are inflated, so compare them between sides only")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    after = [m for m in args.after.split(",") if m]
    if args.worker:
        worker(args.worker, args.models, after, args.prof or None)
        return
    for model in args.models.split(","):
        b, t = (run_side("baseline", model, args.after, args.prof),
                run_side("tritium", model, args.after, args.prof))
        for side, r in (("upstream", b), ("tritium", t)):
            if "error" in r:
                print(f"{model} {side} FAILED:\n{r['error']}")
        if "error" in b or "error" in t:
            continue
        print(f"\n== {model}: first call upstream {b['first_s']:.2f} s, tritium {t['first_s']:.2f} s")
        for k in ("compiles", "compile_sum_s", "compile_covered_s", "gc_s", "full_gcs",
                  "process_pool"):
            print(f"  {k:<22} {b[k]!s:>12} {t[k]!s:>12}")
        if args.timeline:
            for side, r in (("upstream", b), ("tritium", t)):
                print(f"  {side} compiles (start, ttir done, slot taken, end ms; where):")
                for line in r["timeline"]:
                    print("    " + line)
        if "workers" in t:
            print(f"  tritium workers: {t['workers']}")
            for line in t.get("stage_ms", []):
                print("    stages (ms) " + line)
        keys = sorted(set(b["sections"]) | set(t["sections"]),
                      key=lambda k: -max(b["sections"].get(k, 0), t["sections"].get(k, 0)))
        print(f"  {'section (s)':<46} {'upstream':>9} {'tritium':>9}")
        for k in keys[:args.top]:
            print(f"  {k[:46]:<46} {b['sections'].get(k, 0):9.3f} {t['sections'].get(k, 0):9.3f}")


if __name__ == "__main__":
    main()
