"""Compile time of Inductor's matmul template, serial vs from threads, tritium vs upstream.

    python bench/bench_compile_threads.py [--threads N] [--configs K] [--upstream PYTHON]

Inductor precompiles its max-autotune choices from a ThreadPoolExecutor (one thread per
core). This bench does the same with K distinct configs of its `triton_mm` template
(inductor_mm_kernels.py) compiled to PTX and a cubin for sm_90a (`triton.compile` of an
`ASTSource`, target `GPUTarget("cuda", 90, 32)`, local ptxas; no GPU needed): once one
after another and once from N threads, each run in a fresh process with an empty cache
after one warm-up compile of another config (imports, first LLVM use). tritium runs
through compat (`import triton` is tritium), upstream Triton in the interpreter given by
--upstream (default /work/upvenv/bin/python); a missing one is reported and skipped.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
flavor, threads, nconf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if flavor == "tritium":
    sys.path.insert(0, {root!r})
    import tritium.compat; tritium.compat.install()
import importlib.util
spec = importlib.util.spec_from_file_location("inductor_mm_kernels", {kfile!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
import triton
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
target = GPUTarget("cuda", 90, 32)

def compile_one(cfg):
    w, s = cfg[3:]
    src = ASTSource(m.triton_tem_fused_addmm_relu, m.SIGNATURE, attrs=m.ATTRS,
                    constexprs=m.constexprs(cfg))
    k = triton.compile(src, target=target, options={{"num_warps": w, "num_stages": s}})
    assert len(k.asm["cubin"]) > 1000 and ".entry" in k.asm["ptx"]
    return k

compile_one((32, 32, 32, 4, 2))  # warm-up: imports, first LLVM/ptxas use
configs = m.MORE_CONFIGS[:nconf]
t0 = time.perf_counter()
if threads <= 1:
    for c in configs:
        compile_one(c)
else:
    with ThreadPoolExecutor(max_workers=threads) as ex:
        list(ex.map(compile_one, configs))
print("RESULT", json.dumps(time.perf_counter() - t0))
"""


def run_side(python, flavor, threads, nconf, extra_env=None):
    code = CHILD.format(root=ROOT, kfile=os.path.join(HERE, "inductor_mm_kernels.py"))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache, TRITON_ALWAYS_COMPILE="1",
                   **(extra_env or {}))
        env.pop("PYTHONPATH", None)
        p = subprocess.run([python, "-c", code, flavor, str(threads), str(nconf)], cwd=ROOT,
                           env=env, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    sys.stderr.write(f"{flavor} (threads={threads}) failed:\n{p.stderr[-3000:]}\n")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--configs", type=int, default=8)
    ap.add_argument("--upstream", default="/work/upvenv/bin/python")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell; the best is shown")
    ap.add_argument("--workers", type=int, help="TRITIUM_COMPILE_WORKERS for the first row")
    args = ap.parse_args()
    # tritium with its compile workers (the default) and without (what threads got before).
    sides = [("tritium", sys.executable, None),
             ("tritium, TRITIUM_COMPILE_WORKERS=0", sys.executable, {"TRITIUM_COMPILE_WORKERS": "0"})]
    if os.path.exists(args.upstream):
        sides.append(("upstream", args.upstream, None))
    else:
        print(f"(upstream Triton: {args.upstream} not found, skipped)")
    if args.workers is not None:
        sides[0] = (f"tritium, TRITIUM_COMPILE_WORKERS={args.workers}", sys.executable,
                    {"TRITIUM_COMPILE_WORKERS": str(args.workers)})
    rows = []
    for label, python, extra in sides:
        flavor = label.split(",")[0]
        cells = []
        for threads in (1, args.threads):
            runs = [run_side(python, flavor, threads, args.configs, extra)
                    for _ in range(args.repeat)]
            runs = [r for r in runs if r is not None]
            cells.append(min(runs) if runs else None)
        rows.append((label, *cells))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{args.configs} distinct triton_mm configs -> PTX + cubin (sm_90a), "
          f"{os.cpu_count()} cores (load average after: {load}), wall seconds, best of "
          f"{args.repeat}")
    print(f"| Triton | serial | {args.threads} threads | speed-up |")
    print("|---|---|---|---|")
    for flavor, serial, threaded in rows:
        sp = f"{serial / threaded:.2f}x" if serial and threaded else "-"
        fmt = (lambda v: f"{v:.2f}" if v is not None else "failed")
        print(f"| {flavor} | {fmt(serial)} | {fmt(threaded)} | {sp} |")


if __name__ == "__main__":
    main()
