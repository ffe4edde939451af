"""Where a client's time goes, upstream Triton vs tritium: for each named torch.compile model
(bench_clients.py's) or Liger-Kernel op, run it warm under torch.profiler on each side (each
side in its own fresh process) and print the GPU kernels by total device time, side by side,
plus the host wall time per step. A failing model prints its whole traceback.

    python bench/profile_clients.py [--models pointwise,embedding] [--liger rms_norm,rope]
                                    [--top 6] [--iters 20] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)


def _profile(step, iters):
    """(host ms per step, {kernel: (calls per step, device µs per step)})."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / iters * 1e3
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            step()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.key_averages():
        dt = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        if dt and e.count:
            kernels[e.key] = (e.count / iters, dt / iters)
    return wall, kernels


def _static_launch():
    """Per Inductor kernel alive now: does Inductor launch it through torch's own static
    CUDA launcher (the cubin loaded by torch), or through the Triton's launcher?"""
    import gc
    try:
        from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    except ImportError:
        return {}
    out = {}
    for o in gc.get_objects():
        try:
            if not isinstance(o, CachingAutotuner):
                continue
        except ReferenceError:  # a dead weak proxy
            continue
        name = o.inductor_meta.get("kernel_name", "?")
        kinds = sorted({type(r).__name__ for r in getattr(o, "compile_results", [])})
        out[name] = ",".join(kinds) or "-"
    return out


def worker(side, models, liger, iters):
    if side == "tritium":
        import tritium.compat
        tritium.compat.install()
    import torch
    import bench_clients
    for name in models:
        row = {"name": name}
        try:
            torch.manual_seed(0)
            _fn, cfn, inputs, _tol, grad = bench_clients.compiled(name, "cuda", False)

            def step():
                with torch.set_grad_enabled(grad):
                    out = cfn(*inputs)
                    if grad:
                        out.float().square().mean().backward()
            row["wall_ms"], row["kernels"] = _profile(step, iters)
            row["static"] = _static_launch()
        except Exception:  # noqa: BLE001
            row["error"] = traceback.format_exc()[-6000:]
        print(json.dumps(row), flush=True)
    if liger:
        sys.path.insert(0, os.path.join(ROOT, "tests", "clients"))
        import liger_ops
        torch.set_default_device("cuda")
        table = liger_ops.ops(BT=2048, H=2048, V=32000)
        for name in liger:
            row = {"name": "liger:" + name}
            try:
                fn, _ref, make = table[name]
                torch.manual_seed(0)
                graded, fixed = make()

                def step():
                    xs = [x.detach().requires_grad_() for x in graded]
                    outs = [o for o in liger_ops._flat(fn(*xs, *fixed)) if torch.is_tensor(o)]
                    if xs:
                        sum(o.float().sum() for o in outs).backward()
                row["wall_ms"], row["kernels"] = _profile(step, iters)
            except Exception:  # noqa: BLE001
                row["error"] = traceback.format_exc()[-6000:]
            print(json.dumps(row), flush=True)


def run_side(side, args):
    with tempfile.TemporaryDirectory(prefix=f"profile-clients-{side}-") as tmp:
        if args.keep:  # the generated kernels, for reading afterwards
            tmp = os.path.join(args.keep, side)
            os.makedirs(tmp, exist_ok=True)
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", side, "--models",
               ",".join(args.models), "--liger", ",".join(args.liger), "--iters", str(args.iters)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if args.keep:  # Inductor's autotuning tables and warnings go to stderr
            with open(os.path.join(tmp, "stderr.txt"), "w") as f:
                f.write(proc.stderr)
    rows = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            rows[r["name"]] = r
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="")
    ap.add_argument("--liger", default="")
    ap.add_argument("--top", type=int, default=6)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--keep", help="keep each side's Inductor and Triton caches under this folder")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    args.liger = [m for m in args.liger.split(",") if m]
    if args.worker:
        worker(args.worker, args.models, args.liger, args.iters)
        return
    base, ours = run_side("baseline", args), run_side("tritium", args)
    for name in list(base) + [n for n in ours if n not in base]:
        b, t = base.get(name, {}), ours.get(name, {})
        print(f"\n== {name}: host ms/step upstream {b.get('wall_ms', float('nan')):.3f}"
              f"  tritium {t.get('wall_ms', float('nan')):.3f}")
        for side, r in (("upstream", b), ("tritium", t)):
            if "error" in r:
                print(f"  {side} FAILED:\n{r['error']}")
                continue
            ks = sorted(r.get("kernels", {}).items(), key=lambda kv: -kv[1][1])[:args.top]
            tot = sum(v[1] for v in r.get("kernels", {}).values())
            print(f"  {side}: device µs/step {tot:.1f}")
            for k, kind in sorted(r.get("static", {}).items()):
                print(f"    launched by {kind}: {k}")
            for k, (calls, us) in ks:
                print(f"    {us:9.1f} µs  x{calls:<4.1f} {k[:90]}")


if __name__ == "__main__":
    main()
