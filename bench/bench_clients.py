"""torch.compile (Inductor) through tritium vs the other Triton (or Inductor's C++ backend):
cold compile time (the first call, with empty caches) and steady-state time per model, each
checked against eager. One side-by-side table.

On a GPU the two sides are upstream Triton (plain) and tritium (`tritium.compat.install()`
before torch imports triton). On the CPU they are Inductor's default C++ backend and
Inductor's Triton CPU backend (`cpu_backend="triton"`) running on tritium. Each side runs in
its own subprocess with fresh Inductor and Triton cache folders, so both compile from cold.

    python bench/bench_clients.py [--quick] [--models mlp,softmax] [--iters 50]
                                  [--no-indirect-asserts] [--liger] [--repeat 3]

`--liger` adds a second table: Liger-Kernel's ops forward + backward (on the CPU against
torch eager, the only other side there).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

MODELS = ("pointwise", "softmax", "layernorm", "reductions", "embedding", "mlp",
          "mlp_train", "transformer", "conv_bn", "mm_autotune", "flex_attention")
# GPU-only rows: Inductor's Triton matmul templates (max-autotune) and flex attention have
# no Triton CPU path in Inductor.
GPU_ONLY = ("mm_autotune", "flex_attention")
# torch.compile keyword arguments per model (default: none)
COMPILE_KW = {"mm_autotune": {"mode": "max-autotune-no-cudagraphs"}}


def build(name: str, dev: str, quick: bool):
    """(callable, inputs, tolerance, needs_grad) of one model; sizes shrink with --quick and
    on the CPU (Inductor's Triton CPU kernels are not the point of a long run)."""
    import torch
    import torch.nn as nn
    small = quick or dev == "cpu"
    n = 256 if small else 8192       # rows
    d = 256 if small else 1024       # features
    dt = torch.float32 if dev == "cpu" else torch.float16
    tol = 1e-4 if dt == torch.float32 else 2e-2

    def rnd(*shape, dtype=dt):
        return torch.randn(*shape, device=dev, dtype=dtype)

    if name == "pointwise":
        return (lambda x, y: torch.sigmoid(x) * torch.tanh(y) + torch.exp(-x * x) / (1 + y * y),
                (rnd(n, d + 3), rnd(n, d + 3)), tol, False)
    if name == "softmax":
        return (lambda x: torch.softmax(x * 0.5, dim=-1), (rnd(n, d + 1),), tol, False)
    if name == "layernorm":
        return (nn.LayerNorm(d).to(dev, dt), (rnd(n, d),), tol, False)
    if name == "reductions":
        # (no argmax: fp16 rows of thousands of values tie at their maximum often enough
        # that an index comparison would report a mismatch that is none)
        return (lambda x: (x.sum(0), x.amax(1), x.var(1), torch.cumsum(x, 1)),
                (rnd(n, d + 5),), tol * 10, False)
    if name == "embedding":
        emb = nn.Embedding(1000, d).to(dev, dt)
        return (lambda i: emb(i).sum(1) * 2.0,
                (torch.randint(0, 1000, (n // 4, 8), device=dev),), tol, False)
    if name in ("mlp", "mlp_train"):
        mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d),
                            nn.LayerNorm(d)).to(dev, dt)
        return mlp, (rnd(n, d),), tol * 10, name == "mlp_train"
    if name == "transformer":
        layer = nn.TransformerEncoderLayer(d // 2, 4, d, dropout=0.0, batch_first=True)
        return layer.to(dev, dt), (rnd(4 if small else 16, 32 if small else 256, d // 2),), \
            tol * 10, True
    if name == "conv_bn":
        block = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                              nn.Conv2d(16, 8, 3, padding=1)).to(dev, dt).eval()
        return block, (rnd(2 if small else 32, 3, 24 if small else 128, 24 if small else 128),), \
            tol * 10, False
    if name == "mm_autotune":
        # Inductor benchmarks its Triton matmul templates (and cuBLAS) and keeps the fastest
        m = 256 if small else 4096
        return (lambda a, b, bias: torch.relu(a @ b + bias),
                (rnd(m, m), rnd(m, m), rnd(m)), tol * 10, False)
    if name == "flex_attention":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        B, H, S, D = (1, 2, 256, 64) if small else (4, 16, 2048, 64)
        mask = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, S, S, device=dev)

        def attn(q, k, v):
            return flex_attention(q, k, v, block_mask=mask,
                                  score_mod=lambda s, b, h, q, kv: s + 0.01 * (q - kv))
        return attn, (rnd(B, H, S, D), rnd(B, H, S, D), rnd(B, H, S, D)), tol, False
    raise KeyError(name)


def compiled(name: str, dev: str, quick: bool):
    """(eager callable, torch.compile'd callable, inputs, tolerance, needs_grad) of one
    model, graded inputs made to require grad, Dynamo reset first."""
    import torch
    fn, inputs, tol, grad = build(name, dev, quick)
    if grad:
        inputs = tuple(x.requires_grad_() if x.is_floating_point() else x for x in inputs)
    torch._dynamo.reset()
    return fn, torch.compile(fn, **COMPILE_KW.get(name, {})), inputs, tol, grad


def worker(side: str, models, quick: bool, iters: int, no_asserts: bool) -> None:
    """One side, in this (fresh) process: one JSON line per model."""
    if side == "tritium":
        import tritium.compat
        tritium.compat.install()
    import torch
    import torch._inductor.config as inductor_config
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if no_asserts:
        # Inductor compiles its Triton kernels with debug=True while this is on (its
        # default), which on tritium's CPU backend means the evaluator, not compiled code.
        inductor_config.assert_indirect_indexing = False
    if dev == "cpu" and side == "tritium":
        inductor_config.cpu_backend = "triton"
    if dev == "cuda":
        import triton
        origin = "tritium" if getattr(triton, "__tritium__", False) else f"triton {triton.__version__}"
    else:
        origin = "tritium" if side == "tritium" else "C++"
    print(json.dumps({"side": side, "device": dev, "backend": origin}), flush=True)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    spans = compile_spans() if dev == "cuda" else None
    reported = inductor_compile_times() if dev == "cuda" else None
    for name in models:
        row = {"model": name}
        if spans is not None:
            del spans[:]
        if reported is not None:
            del reported[:]
        try:
            torch.manual_seed(0)
            row["pool_ready"] = pool_ready()
            fn, cfn, inputs, tol, grad = compiled(name, dev, quick)

            def step(f):
                out = f(*inputs)
                if grad:
                    out.float().square().mean().backward()
                return out

            with torch.set_grad_enabled(grad):
                sync()
                t0 = time.perf_counter()
                out = step(cfn)
                sync()
                row["first_s"] = time.perf_counter() - t0
                if spans is not None:
                    # the Triton compiler's own share of the first call: wall time while a
                    # triton.compile ran in this process (not the compiles Inductor's worker
                    # processes ran; their results load here through triton.compile too)
                    row["compile_s"] = covered(list(spans))
                if reported:
                    # Inductor's own per-kernel compile times, summed: its worker processes'
                    # compiles included (none of which the spans above see)
                    row["inductor_compile_s"] = sum(reported) / 1e6
                    row["kernels"] = len(reported)
                ref = step(fn)
                outs = out if isinstance(out, tuple) else (out,)
                refs = ref if isinstance(ref, tuple) else (ref,)
                err = max(float((o.detach().double() - r.detach().double()).abs().max())
                          for o, r in zip(outs, refs))
                scale = max(float(r.detach().double().abs().max()) for r in refs) or 1.0
                row["ok"] = err <= tol * max(1.0, scale)
                row["err"] = err
                row["pool_wait_s"] = pool_settle()
                row["steady_ms"] = steady_ms(lambda: step(cfn), sync, iters)
                row["device_us"] = device_us(lambda: step(cfn), dev)
        except Exception as e:  # noqa: BLE001  (one model's failure is a row, not the end)
            row["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:120] if str(e).strip() else ''}"
        print(json.dumps(row), flush=True)


def pool_ready():
    """Whether Inductor's compile-worker pool is ready (its kernels then compile in the
    workers; before, in this process); None where this torch keeps no such state."""
    try:
        from torch._inductor.async_compile import AsyncCompile
    except ImportError:
        return None
    fut = getattr(AsyncCompile, "_ready_future", None)
    return None if fut is None else fut.done()


def pool_settle(timeout: float = 120.0):
    """Wait until Inductor's compile-worker pool has started (seconds waited; None where
    this torch keeps no such state). Its start-up is ~16 processes importing torch for ~10 s
    from the first compile on, so a steady loop timed inside that window shares its core:
    one H100 table had the first four models' steady loops at 0.68-0.83x on the side whose
    first calls were faster (its loops ran earlier in the window), and the later models at
    1.0-1.6x. Both sides wait, so every later model also finds the pool ready on both."""
    try:
        from torch._inductor.async_compile import AsyncCompile
    except ImportError:
        return None
    if getattr(AsyncCompile, "_ready_future", None) is None:
        return None
    t0 = time.perf_counter()
    try:
        AsyncCompile._ready_future.result(timeout=timeout)
    except Exception:  # noqa: BLE001 - a pool that never starts: time the loop anyway
        pass
    return round(time.perf_counter() - t0, 3)


def compile_spans() -> list:
    """(start, end) of every `triton.compile` from now on in this process, any thread."""
    import threading
    import triton
    spans, real, lock = [], triton.compile, threading.Lock()

    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            with lock:
                spans.append((t0, time.perf_counter()))
    timed.__wrapped__ = real
    triton.compile = timed
    return spans


def inductor_compile_times():
    """Every kernel compile time (µs) Inductor records from now on in this process, where it
    compiled (its precompile here, or a compile worker's own timing); None where this torch
    does not record them."""
    try:
        from torch._inductor import async_compile
    except ImportError:
        return None
    real = getattr(async_compile, "_add_triton_kernel_info", None)
    if real is None:
        return None
    got = []

    def record(kernel_name, info, *a, **k):
        if isinstance(info, dict) and isinstance(info.get("compile_time_us"), (int, float)):
            got.append(info["compile_time_us"])
        return real(kernel_name, info, *a, **k)
    record.__wrapped__ = real
    async_compile._add_triton_kernel_info = record
    return got


def covered(spans) -> float:
    """Wall time inside at least one of the (start, end) spans."""
    tot, end = 0.0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            tot += b - a
            end = b
        elif b > end:
            tot += b - end
            end = b
    return tot


def steady_ms(step, sync, iters, rounds=5):
    """Steady-state ms per call: `iters` calls back to back with one synchronise at the end,
    best of `rounds`, i.e. what a loop of such calls costs, host and GPU overlapping as
    they do in a training loop. (A synchronise around every call, which this replaced, made
    the host wait on the driver's wake-up each time, and its median of these sub-millisecond
    steps moved by +-30% between runs of the same side.)"""
    for _ in range(3):
        step()
    sync()
    return best_loop_s(step, sync, iters, rounds) * 1e3


def best_loop_s(step, sync, iters, rounds=5) -> float:
    """Seconds per call of `iters` calls and one synchronise, best of `rounds`, the timing
    thread on one fixed core."""
    best = float("inf")
    with one_core():
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(iters):
                step()
            sync()
            best = min(best, (time.perf_counter() - t0) / iters)
    return best


@contextlib.contextmanager
def one_core():
    """This thread on one fixed core (the last this process may use) while timing: both
    sides' host loops then run on the same core, whichever cores the scheduler would have
    given each process (on the shared GPU host, identical torch code ran 20-30% apart
    between two processes)."""
    get = getattr(os, "sched_getaffinity", None)
    if get is None:
        yield
        return
    allowed = get(0)
    try:
        os.sched_setaffinity(0, {max(allowed)})
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


def device_us(step, dev):
    """GPU kernel time per step (µs, summed over its kernels by torch.profiler): what the
    kernels cost, apart from the host time that dominates small steps and swings between
    runs by tens of percent. None on the CPU."""
    if dev != "cuda":
        return None
    from profile_clients import _profile
    return sum(us for _calls, us in _profile(step, 10)[1].values())


def liger_worker(side: str, quick: bool, iters: int) -> None:
    """Liger-Kernel's ops (tests/clients/liger_ops.py's table), forward + backward, each
    checked against its torch reference once, then timed. On the CPU the baseline side
    times the torch references instead (there is no other Triton there)."""
    import torch
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if side == "tritium" or dev == "cpu":  # (the CPU's baseline imports Liger, runs torch)
        import tritium.compat
        tritium.compat.install()
    sys.path.insert(0, os.path.join(ROOT, "tests", "clients"))
    import liger_ops
    torch.set_default_device(dev)
    sizes = {"BT": 2048, "H": 2048, "V": 32000} if dev == "cuda" and not quick else \
        {"BT": 256, "H": 512, "V": 4096} if dev == "cuda" else {"BT": 128, "H": 256, "V": 1024}
    eager_baseline = dev == "cpu" and side != "tritium"
    backend = "torch eager" if eager_baseline else \
        "tritium" if side == "tritium" else f"triton {__import__('triton').__version__}"
    print(json.dumps({"side": side, "device": dev, "backend": backend}), flush=True)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    for name, (fn, ref, make) in liger_ops.ops(**sizes).items():
        row = {"model": name}
        try:
            torch.manual_seed(0)
            graded, fixed = make()
            f = ref if eager_baseline else fn

            def step():
                xs = [x.detach().requires_grad_() for x in graded]
                outs = [o for o in liger_ops._flat(f(*xs, *fixed)) if torch.is_tensor(o)]
                if xs:
                    sum(o.float().sum() for o in outs).backward()

            t0 = time.perf_counter()
            step()
            sync()
            row["first_s"] = time.perf_counter() - t0
            if eager_baseline:
                row["ok"], row["err"] = True, 0.0
            else:
                check = liger_ops.run(name, fn, ref, make)
                row["ok"], row["err"] = check["err"] <= check["tol"], check["err"]
            row["steady_ms"] = steady_ms(step, sync, iters)
            row["device_us"] = device_us(step, dev)
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:120] if str(e).strip() else ''}"
        print(json.dumps(row), flush=True)


def _has_gpu() -> bool:
    """Without importing torch in this (parent) process."""
    probe = "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    return subprocess.run([sys.executable, "-c", probe]).returncode == 0


def run_side(side: str, args) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench-clients-{side}-") as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"),
                   PYTHONPATH=os.pathsep.join([ROOT] + [p for p in
                                               os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", side,
               "--models", ",".join(args.models), "--iters", str(args.iters)]
        if args.quick:
            cmd.append("--quick")
        if args.no_indirect_asserts:
            cmd.append("--no-indirect-asserts")
        if args.liger_only:
            cmd.append("--liger-only")
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines or proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
    head = lines[0] if lines else {"backend": side, "device": "?"}
    return {"head": head, "rows": {r["model"]: r for r in lines[1:]}, "wall": wall}


def cell(row) -> tuple:
    if row is None:
        return ("-", "-", "-", "missing")
    if "error" in row:
        return ("-", "-", "-", "FAIL " + row["error"][:60])
    dev = f"{row['device_us']:.1f}" if row.get("device_us") is not None else "-"
    return (f"{row['first_s']:.2f}", f"{row['steady_ms']:.3f}", dev,
            "ok" if row["ok"] else f"MISMATCH {row['err']:.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, few iterations")
    ap.add_argument("--models", default=None)
    ap.add_argument("--iters", type=int, default=None)
    ap.add_argument("--no-indirect-asserts", action="store_true",
                    help="Inductor's assert_indirect_indexing off, on both sides (without it "
                         "Inductor asks for debug=True kernels, which tritium's CPU backend "
                         "runs on its evaluator)")
    ap.add_argument("--liger", action="store_true",
                    help="also time Liger-Kernel's ops (needs liger_kernel installed)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each side this many times (alternating) and print medians, "
                         "with each run's first-call ratio")
    ap.add_argument("--liger-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.models_default = args.models is None
    args.models = ",".join(MODELS) if args.models is None else args.models
    args.models = [m for m in args.models.split(",") if m]
    if args.models_default and not _has_gpu():
        args.models = [m for m in args.models if m not in GPU_ONLY]
    if args.iters is None:
        # (a CPU step is tens of microseconds: a loop of 5 timed Python's noise, not it)
        args.iters = 5 if args.quick and _has_gpu() else 50
    if args.worker:
        if args.liger_only:
            liger_worker(args.worker, args.quick, args.iters)
        else:
            worker(args.worker, args.models, args.quick, args.iters, args.no_indirect_asserts)
        return
    args.liger_only = False
    base, ours = run_sides(args)
    table(base, ours, args.models, "torch.compile", "first call with cold caches")
    if args.liger:
        args.liger_only = True
        base, ours = run_sides(args)
        table(base, ours, list(ours["rows"]) or list(base["rows"]), "Liger-Kernel",
              "first forward+backward, compiles included")


def run_sides(args):
    """Both sides `--repeat` times, alternating so that a slow spell of the machine falls on
    both; each figure is then the median over the runs."""
    runs = [(run_side("baseline", args), run_side("tritium", args)) for _ in range(args.repeat)]
    return merge([b for b, _ in runs]), merge([t for _, t in runs])


def merge(runs):
    if len(runs) == 1:
        return runs[0]

    rows = {}
    for name in dict.fromkeys(n for r in runs for n in r["rows"]):
        got = [r["rows"].get(name) for r in runs]
        bad = [g for g in got if g is None or "error" in g]
        if bad:
            rows[name] = bad[0]
            continue
        row = {"model": name, "ok": all(g["ok"] for g in got), "err": max(g["err"] for g in got),
               "runs_first_s": [g["first_s"] for g in got],
               "runs_pool_ready": [g.get("pool_ready") for g in got]}
        for key in ("first_s", "compile_s", "inductor_compile_s", "steady_ms", "device_us"):
            vals = [g[key] for g in got if g.get(key) is not None]
            # steady: the best process. Both sides launch Inductor's kernels through torch's
            # own static launcher, so the loop runs the same code; what differs between
            # processes is the machine's (bench/steady_split.py: one side's own processes
            # ran one model's loop at 27-58 µs, with no collections and the same launchers).
            pick = min if key == "steady_ms" else statistics.median
            row[key] = pick(vals) if vals else None
        rows[name] = row
    return {"head": runs[0]["head"], "rows": rows,
            "wall": statistics.median([r["wall"] for r in runs]), "repeat": len(runs)}


def table(base, ours, names, title, first) -> None:
    bname, dev = base["head"].get("backend"), base["head"].get("device")
    print(f"\n{title} on {dev}: {bname} vs tritium"
          f" (first = {first}, s; steady = ms per call in a loop)")
    width = max([12] + [len(n) for n in names])
    hdr = (f"{'model':<{width}} | {bname + ' first':>14} {'steady':>9} {'gpu µs':>8} | "
           f"{'tritium first':>14} {'steady':>9} {'gpu µs':>8} | {'first x':>7} {'comp x':>6} "
           f"{'steady x':>8} {'gpu x':>6} | check")
    print(hdr)
    print("-" * len(hdr))
    for name in names:
        b, t = base["rows"].get(name), ours["rows"].get(name)
        bf, bs, bd, bcheck = cell(b)
        tf, ts, td, tcheck = cell(t)
        both = b and t and "error" not in b and "error" not in t
        fx = f"{b['first_s'] / t['first_s']:.2f}" if both else "-"
        sx = f"{b['steady_ms'] / t['steady_ms']:.2f}" if both else "-"
        gx = f"{b['device_us'] / t['device_us']:.2f}" if both and b.get("device_us") and \
            t.get("device_us") else "-"
        cx = f"{b['compile_s'] / t['compile_s']:.2f}" if both and b.get("compile_s") and \
            t.get("compile_s") else "-"
        check = tcheck if bcheck == "ok" else f"{bname}: {bcheck}; tritium: {tcheck}"
        if both and b.get("inductor_compile_s") and t.get("inductor_compile_s"):
            check += f"  kernel compiles x {b['inductor_compile_s'] / t['inductor_compile_s']:.2f}"
        if both and (any(b.get("runs_pool_ready", ())) or any(t.get("runs_pool_ready", ()))):
            # (a model straddling the compile pool's start compiles partly in this process)
            check += "  pool ready at start " + "/".join(
                f"{sum(map(bool, r.get('runs_pool_ready', ())))} of "
                f"{len(r.get('runs_pool_ready', ()))}" for r in (b, t))
        if both and "runs_first_s" in b and "runs_first_s" in t:
            check += "  first x per run " + " ".join(
                f"{x / y:.2f}" for x, y in zip(b["runs_first_s"], t["runs_first_s"]))
        print(f"{name:<{width}} | {bf:>14} {bs:>9} {bd:>8} | {tf:>14} {ts:>9} {td:>8} | "
              f"{fx:>7} {cx:>6} {sx:>8} {gx:>6} | {check}")
    runs = f"medians of {base['repeat']} runs per side (steady: the best run), " \
        if base.get("repeat") else ""
    print(f"(x = {bname} time / tritium time: above 1 means tritium is faster; "
          f"{runs}whole runs {base['wall']:.0f} s vs {ours['wall']:.0f} s; comp = wall time "
          f"inside triton.compile during the first call, in the calling process; kernel compiles: "
          f"Inductor's per-kernel compile times summed, its workers' included)")


if __name__ == "__main__":
    main()
