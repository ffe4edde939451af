"""Compile time of Inductor's generated kernels, upstream Triton vs tritium, without a GPU.

torch.compile's first call of a small model spends most of its Triton time compiling one
kernel after another on the main thread (Inductor's process pool is still starting).
This replays exactly those compiles: it reads the kernel modules Inductor wrote (kept by
`profile_clients.py --keep DIR`, or any Inductor cache folder), asks torch's own
heuristics for each kernel's configs, and calls `triton.compile` for a GPU target as
Inductor's `_precompile_config` does (same signature, constants, attributes and options,
`debug` included). Each side runs in a fresh process with an empty Triton cache, kernels in
file order, so the first compile carries the process's warm-up as it does in Inductor.

    python bench/compile_inductor_kernels.py DIR [--upstream-python PY] [--arch 90]
                                             [--profile N] [--heap 3] [--after pointwise]

`--upstream-python` names an interpreter where `import triton` is upstream's (default:
this one, for a machine where plain `import triton` is upstream's, as on the device).
`--profile N` prints tritium's top N functions by own time under cProfile.
"""
from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def kernels(folder):
    """(path, kernel name) of every Inductor kernel module under folder, by name."""
    found = {}
    for path in glob.glob(os.path.join(folder, "**", "*.py"), recursive=True):
        with open(path) as f:
            text = f.read()
        if "@triton.jit" not in text or "triton_heuristics." not in text or "async_compile" in text:
            continue
        name = text.split("@triton.jit", 1)[1].split("def ", 1)[1].split("(", 1)[0]
        found.setdefault(name, path)
    return sorted((p, n) for n, p in found.items())


def worker(side, folder, arch, profile, heap, fork=False, thread=False, after=()):
    import gc
    # Inductor's process holds millions of Python objects (FX graphs, torch's modules);
    # a full collection walks all of them, so a compiler that allocates many objects pays
    # for that heap. --heap N keeps N million such objects alive here.
    ballast = [{"i": i, "s": (i, i)} for i in range(int(heap * 1e6))]
    gc_s = [0.0, 0, 0.0]

    def on_gc(phase, info):
        if phase == "start":
            gc_s[2] = time.perf_counter()
        else:
            gc_s[0] += time.perf_counter() - gc_s[2]
            gc_s[1] += info["generation"] == 2
    gc.callbacks.append(on_gc)
    if side == "tritium":
        sys.path.insert(0, ROOT)
        import tritium.compat
        tritium.compat.install()
    import triton
    from torch._inductor.runtime import triton_heuristics as th
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    captured = []

    def capture(size_hints, configs, triton_meta, heuristic_type, filename=None,
                inductor_meta=None, **_):
        def deco(fn):
            captured.append((fn, configs, triton_meta, inductor_meta or {}))
            return fn
        return deco

    th.cached_autotune = capture
    jobs = []
    for path, name in kernels(folder):
        del captured[:]
        src = open(path).read().replace("triton_helpers.set_driver_to_gpu()", "")
        exec(compile(src, path, "exec"), {"__file__": path, "__name__": "k_" + name})
        for fn, configs, meta, imeta in captured:
            for cfg in configs:
                cmeta = copy.deepcopy(meta)
                cmeta["constants"].update(cfg.kwargs)
                opts = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                        "debug": imeta.get("assert_indirect_indexing", True),
                        "sanitize_overflow": False,
                        "launch_cooperative_grid": False, "launch_pdl": False}
                if "enable_fp_fusion" in cmeta:
                    opts["enable_fp_fusion"] = cmeta["enable_fp_fusion"]
                jobs.append((name, fn, cmeta, opts))
    target = GPUTarget("cuda", arch, 32)
    if after:  # the process an Inductor first call compiles in: other models ran first
        import torch
        sys.path.insert(0, HERE)
        import bench_clients
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        for model in after:
            efn, exs, _tol, _grad = bench_clients.build(model, dev, False)
            torch.compile(efn, **bench_clients.COMPILE_KW.get(model, {}))(*exs)
    if fork:
        # Inductor's compile pool: a process that imported the compiler (and, for
        # tritium, ran compat_inductor.warm_up) forks its workers; compiles run there.
        if side == "tritium":
            from tritium import compat_inductor
            compat_inductor.warm_up()
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            sys.exit(os.waitstatus_to_exitcode(status))
    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
    stage_ms = {}
    if side == "tritium":
        def listener(src, metadata, times, cache_hit, **_):
            stage_ms.update(ir=round(times.ir_initialization / 1e3),
                            **{s: round(us / 1e3) for s, us in times.lowering_stages})
        triton.knobs.compilation.listener = listener
    gc_s[:2] = [0.0, 0]
    t_all = time.perf_counter()
    for name, fn, cmeta, opts in jobs:
        src = ASTSource(fn, cmeta["signature"], cmeta["constants"], cmeta["configs"][0])
        t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        if prof:
            prof.enable()
        if thread:  # Inductor's precompile runs compiles on a thread pool's threads
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(1) as ex:
                k = ex.submit(triton.compile, src, target=target, options=opts).result()
        else:
            k = triton.compile(src, target=target, options=opts)
        if prof:
            prof.disable()
        ms = (time.perf_counter() - t0) * 1e3
        # CPU time of this thread and of the whole process (not ptxas, a child) over the
        # compile: wall well above them means waiting; both near wall means slow work.
        cpu = ((time.thread_time() - c0) * 1e3, (time.process_time() - p0) * 1e3)
        print(json.dumps({"kernel": name, "ms": ms, "cpu_ms": cpu, "warps": opts["num_warps"],
                          "ptx_chars": len(k.asm.get("ptx", "")), "stages": dict(stage_ms)}),
              flush=True)
        stage_ms.clear()
    print(json.dumps({"total_ms": (time.perf_counter() - t_all) * 1e3, "gc_ms": gc_s[0] * 1e3,
                      "full_gcs": gc_s[1]}), flush=True)
    del ballast
    if prof:
        import io
        import pstats
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(profile)
        sys.stderr.write(s.getvalue())
    if fork:
        sys.stdout.flush()
        os._exit(0)


def run(side, python, args):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TRITON_CACHE_DIR=tmp, TORCHINDUCTOR_CACHE_DIR=tmp + "/ind")
        cmd = [python, os.path.abspath(__file__), args.folder, "--worker", side,
               "--arch", str(args.arch), "--heap", str(args.heap),
               "--profile", str(args.profile if side == "tritium" else 0)]
        cmd += ["--fork"] if args.fork else []
        cmd += ["--thread"] if args.thread else []
        cmd += ["--after", args.after] if args.after else []
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode:
        sys.stderr.write(p.stderr[-4000:])
    elif args.profile and side == "tritium":
        sys.stderr.write(p.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--upstream-python", default=sys.executable)
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--heap", type=float, default=0.0,
                    help="millions of live Python objects to hold, as Inductor's process does")
    ap.add_argument("--worker")
    ap.add_argument("--fork", action="store_true",
                    help="compile in a child forked after the warm-up, as Inductor's pool does")
    ap.add_argument("--thread", action="store_true",
                    help="call triton.compile from a thread, as Inductor's precompile does "
                         "(tritium then hands the compile to its worker processes)")
    ap.add_argument("--after", default="",
                    help="bench_clients.py models whose torch.compile first calls run in the "
                         "process before the replay (on the GPU if there is one)")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.folder, args.arch, args.profile, args.heap, args.fork, args.thread,
               [m for m in args.after.split(",") if m])
        return
    up = run("upstream", args.upstream_python, args)
    ours = run("tritium", sys.executable, args)
    print(f"{'kernel':<72} {'warps':>5} {'upstream ms':>11} {'tritium ms':>10}  "
          "(cpu ms: thread/process, each side)")
    for u, t in zip(up[:-1], ours[:-1]):
        stages = " ".join(f"{k}:{v}" for k, v in t.get("stages", {}).items())
        stages += "  cpu " + " ".join(f"{a:.0f}/{b:.0f}" for a, b in (u["cpu_ms"], t["cpu_ms"]))
        stages += f"  ptx chars {u['ptx_chars']} / {t['ptx_chars']}"
        print(f"{u['kernel'][:72]:<72} {u['warps']:>5} {u['ms']:11.1f} {t['ms']:10.1f}  {stages}")
    if up and ours:
        print(f"{'total (' + str(len(up) - 1) + ' compiles)':<78} "
              f"{up[-1]['total_ms']:11.1f} {ours[-1]['total_ms']:10.1f}")
        print(f"{'  of which garbage collection (full collections)':<78} "
              f"{up[-1]['gc_ms']:6.1f} ({up[-1]['full_gcs']:2}) {ours[-1]['gc_ms']:5.1f} "
              f"({ours[-1]['full_gcs']})")


if __name__ == "__main__":
    main()
