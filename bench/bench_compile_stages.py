"""Per-stage compile time of one kernel on tritium's NVIDIA backend (sm_90a, no GPU needed),
for two trees side by side: this checkout and another (`--base DIR`, e.g. a
`git archive <commit> | tar -x -C DIR` of an older commit).

    python bench/bench_compile_stages.py [--base DIR] [--flex FILE] [--runs 5]

Kernels: Inductor's `triton_mm` template (inductor_mm_kernels.py, 128x128x64, 4 warps, 3
stages) and, with --flex, Inductor's flex-attention kernel saved from a torch.compile run
(a module defining `triton_tem_fused_flex_attention_0`; needs torch). Each run is a fresh
process: one warm-up compile of another kernel (imports, LLVM's first use), then the kernel
once through `triton.compile` (disk cache off). CPU time per stage (this process's, plus
ptxas' own for cubin; "ttir" is the frontend, the TTIR passes and the driver's own work), so
other jobs on a shared machine move the figures less than wall time would; the median of
--runs.
The PTX of both trees is compared byte for byte and the verdict printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, os, resource, sys, time, hashlib, tempfile
tree, which, flex = sys.argv[1], sys.argv[2], sys.argv[3]
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
os.environ["TRITON_ALWAYS_COMPILE"] = "1"
sys.path.insert(0, tree)
import tritium.compat; tritium.compat.install()
import importlib.util
import triton
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
from tritium.backends.nvidia.backend import CUDABackend

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m

def cpu():
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime

times = {{}}
def timed(stage, f):
    def run(*a, **k):
        t = cpu()
        try:
            return f(*a, **k)
        finally:
            times[stage] = times.get(stage, 0) + cpu() - t
    return run
for stage in ("ttgir", "llir", "ptx", "cubin"):
    name = "make_" + stage
    setattr(CUDABackend, name, timed(stage, getattr(CUDABackend, name)))

mm = load({kfile!r}, "inductor_mm_kernels")
def mm_case(bm, bn, bk, w, s):
    return ASTSource(mm.triton_tem_fused_addmm_relu, mm.SIGNATURE, attrs=mm.ATTRS,
                     constexprs=mm.constexprs((bm, bn, bk))), w, s

def flex_case():
    m = load(flex, "flex_kernel_mod")
    fn = m.triton_tem_fused_flex_attention_0
    types = ["*fp16", "*fp16", "*fp16", "*fp32", "*fp32", "*i32", "*i32", "*i32", "*i32", "*fp16"]
    sig = dict(zip(fn.arg_names, types))
    attrs = {{(i,): [["tt.divisibility", 16]] for i in range(len(types))}}
    return ASTSource(fn, sig, attrs=attrs), 4, 3

def run(src, w, s):
    times.clear()
    t = cpu()
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=w, num_stages=s))
    total = cpu() - t
    times["ttir"] = total - sum(times.values())  # the frontend, TTIR passes, driver
    return k

run(*mm_case(64, 64, 32, 4, 2))  # warm-up: another kernel
k = run(*(flex_case() if which == "flex" else mm_case(128, 128, 64, 4, 3)))
print("RESULT", json.dumps(dict(times=times, ttgir=hashlib.sha256(k.asm["ttgir"].encode()).hexdigest(),
                               ptx=hashlib.sha256(k.asm["ptx"].encode()).hexdigest())))
"""

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")


def one(tree, which, flex):
    code = CHILD.format(kfile=os.path.join(HERE, "inductor_mm_kernels.py"))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, "-c", code, tree, which, flex or ""], cwd=ROOT,
                       env=env, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"{which} on {tree} failed:\n{p.stderr[-3000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", help="another tritium tree to compare with")
    ap.add_argument("--flex", help="Inductor's flex-attention kernel module (.py)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    trees = [("this", ROOT)] + ([("base", os.path.abspath(args.base))] if args.base else [])
    kernels = ["mm"] + (["flex"] if args.flex else [])
    print(f"CPU ms per stage, median of {args.runs} fresh processes")
    print("| kernel | tree | " + " | ".join(STAGES) + " | total | PTX |")
    print("|---|---|" + "---|" * (len(STAGES) + 2))
    for which in kernels:
        ptx = {}
        rows = []
        for name, tree in trees:
            runs = [one(tree, which, args.flex) for _ in range(args.runs)]
            med = {s: statistics.median(r["times"][s] for r in runs) * 1000 for s in STAGES}
            ptx[name] = {r["ptx"] for r in runs} | {r["ttgir"] for r in runs}
            rows.append((name, med))
        same = "identical" if len({frozenset(v) for v in ptx.values()}) == 1 else "DIFFERENT"
        for name, med in rows:
            cells = " | ".join(f"{med[s]:.0f}" for s in STAGES)
            print(f"| {which} | {name} | {cells} | {sum(med.values()):.0f} | "
                  f"{same if len(trees) > 1 else '-'} |")


if __name__ == "__main__":
    main()
