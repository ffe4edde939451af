"""Host time of Liger-Kernel ops and torch.compile models (`model:NAME`, bench_clients.py's),
upstream Triton vs tritium: each side in a fresh process runs an op's forward+backward step
(bench_clients.py's) N times without synchronising, so
the time per step is the host's (Python, autograd, launches) while the GPU keeps up; then
the same loop under cProfile, its top functions by own time, on each side.

    python bench/profile_host.py [--ops rms_norm,relu_squared,model:transformer] [--iters 300]
                                 [--top 25]
                                 [--rounds 1]
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(side, ops, iters, top):
    if side == "tritium":
        import tritium.compat
        tritium.compat.install()
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "clients"))
    sys.path.insert(0, HERE)
    import bench_clients
    import liger_ops
    table = {}
    for name in ops:
        if name.startswith("model:"):  # a torch.compile model of bench_clients.py
            model = name[len("model:"):]
            fn, xs, _tol, grad = bench_clients.build(model, "cuda", False)
            cfn = torch.compile(fn, **bench_clients.COMPILE_KW.get(model, {}))

            def step(cfn=cfn, xs=xs, grad=grad):
                out = cfn(*xs)
                if grad:
                    out.float().sum().backward()
        else:
            if not table:
                torch.set_default_device("cuda")
                table = liger_ops.ops(BT=2048, H=2048, V=32000)
            fn, _ref, make = table[name]
            torch.manual_seed(0)
            graded, fixed = make()

            def step(fn=fn, graded=graded, fixed=fixed):
                xs = [x.detach().requires_grad_() for x in graded]
                outs = [o for o in liger_ops._flat(fn(*xs, *fixed)) if torch.is_tensor(o)]
                if xs:
                    sum(o.float().sum() for o in outs).backward()
        for _ in range(20):
            step()
        torch.cuda.synchronize()
        best = []
        with bench_clients.one_core():
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(iters):
                    step()
                best.append((time.perf_counter() - t0) / iters * 1e6)
                torch.cuda.synchronize()
        row = {"op": name, "side": side, "host_us": min(best)}
        if top:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(iters):
                step()
            prof.disable()
            torch.cuda.synchronize()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
            row["profile"] = s.getvalue()
        print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="rms_norm,relu_squared")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--worker")
    a = ap.parse_args()
    ops = a.ops.split(",")
    if a.worker:
        worker(a.worker, ops, a.iters, a.top)
        return
    rows = {}
    for rnd in range(a.rounds):  # sides alternate; each keeps its best round
        for side in ("baseline", "tritium"):
            p = subprocess.run([sys.executable, __file__, "--worker", side, "--ops", a.ops,
                                "--iters", str(a.iters), "--top", str(a.top if rnd == 0 else 0)],
                               capture_output=True, text=True)
            if p.returncode:
                print(side, "FAILED", p.stderr[-3000:])
            for line in p.stdout.splitlines():
                if line.startswith("{"):
                    r = json.loads(line)
                    old = rows.get((r["op"], side))
                    if old is not None:
                        r["host_us"] = min(r["host_us"], old["host_us"])
                        r.setdefault("profile", old.get("profile"))
                    rows[(r["op"], side)] = r
    for name in ops:
        for side in ("baseline", "tritium"):
            t = rows.get((name, side), {})
            if t.get("profile"):
                print(f"\n== {name} ({side}, {a.iters} steps)\n{t['profile']}")

    print(f"{'op':<24} {'upstream µs':>12} {'tritium µs':>12}")
    for name in ops:
        b, t = rows.get((name, "baseline"), {}), rows.get((name, "tritium"), {})
        print(f"{name:<24} {b.get('host_us', float('nan')):12.1f} {t.get('host_us', float('nan')):12.1f}")


if __name__ == "__main__":
    main()
