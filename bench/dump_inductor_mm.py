"""Compile Inductor's `triton_mm` template kernel (bench/inductor_mm_kernels.py, the fused
`relu(a @ b + bias)` epilogue) for sm_90a without a GPU, with tritium or upstream Triton, and
dump TTGIR/LLIR/PTX/SASS, registers, shared memory and the main loop's SASS opcode mix.

    PYTHONPATH=. python bench/dump_inductor_mm.py tritium  OUTDIR [BMxBNxBK:W:S ...]
    /work/upvenv/bin/python bench/dump_inductor_mm.py upstream OUTDIR [BMxBNxBK:W:S ...]
    python bench/sass_loop_mix.py --diff OUTDIR/up_...json OUTDIR/tri_...json

(upstream: run from a cwd other than /tmp.) Without configs, every config of the H100
autotune table (CONFIGS) is dumped.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sass_loop_mix import CUOBJDUMP, write_stages  # noqa: E402

SIZE = 4096

def parse_cfg(s):
    blk, w, st = s.split(":")
    return tuple(int(x) for x in blk.split("x")) + (int(w), int(st))


def kernels(flavor):
    """bench/inductor_mm_kernels.py with `triton` bound to the flavour's compiler."""
    if flavor == "upstream":
        import triton  # noqa: F401  (before kernel_loader imports tritium)
    from kernel_loader import load_kernels_from
    return load_kernels_from("inductor_mm_kernels.py", flavor)


def compile_one(flavor, cfg, size=SIZE):
    """The template kernel for one (BM, BN, BK, warps, stages) config, compiled for sm_90a
    as Inductor's launch specialises it (the four pointers divisible by 16)."""
    k = kernels(flavor)
    W, S = cfg[3:]
    mod = __import__("triton" if flavor == "upstream" else "tritium")
    from importlib import import_module
    GPUTarget = import_module(f"{mod.__name__}.backends.compiler").GPUTarget
    src = mod.compiler.ASTSource(k.triton_tem_fused_addmm_relu, k.SIGNATURE,
                                 k.constexprs(cfg, size), k.ATTRS)
    return mod.compile(src, target=GPUTarget("cuda", 90, 32),
                       options=dict(num_warps=W, num_stages=S))


def dump(flavor, cfg, out):
    h = compile_one(flavor, cfg)
    tag = ("up" if flavor == "upstream" else "tri") + "_{}x{}x{}_w{}_s{}".format(*cfg)
    sass, body, _ = write_stages(h, out, tag)
    cub = os.path.join(out, tag + ".cubin")
    md = h.metadata
    shared = md["shared"] if isinstance(md, dict) else md.shared
    n_all = sum(1 for line in sass.splitlines() if line.strip().startswith("/*") and ";" in line)
    res = subprocess.run([CUOBJDUMP, "-res-usage", cub], capture_output=True, text=True).stdout
    regs = re.search(r"REG:(\d+)", res)
    print(f"{tag}: regs {regs.group(1) if regs else '?'} shared {shared} sass {n_all} "
          f"loop {len(body)} converts {h.asm['ttgir'].count('ttg.convert_layout')} "
          f"local_alloc {h.asm['ttgir'].count('ttg.local_alloc')}")


def main():
    flavor, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cfgs = [parse_cfg(s) for s in sys.argv[3:]] or kernels(flavor).CONFIGS
    for cfg in cfgs:
        dump(flavor, cfg, out)


if __name__ == "__main__":
    main()
