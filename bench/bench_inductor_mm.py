"""Inductor's `triton_mm` template kernel (bench/inductor_mm_kernels.py: what
torch.compile(mode="max-autotune-no-cudagraphs") renders for `relu(a @ b + bias)`, fp16)
at the configs of the H100 autotune table: tritium vs upstream Triton vs torch, one table.

    python bench/bench_inductor_mm.py [--size 4096] [--json PATH]

Each row checks the output against torch in fp32 first (max abs error), then times with
do_bench (median ms, as Inductor's autotune table prints). torch = cuBLAS matmul + eager
bias/relu (`torch.relu(torch.addmm(bias, a, b))`); `torch mm` = the bare cuBLAS matmul.
"""
import argparse
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from kernel_loader import load_kernels_from  # noqa: E402



def run_row(kernel, do_bench, a, b, bias, cfg):
    BM, BN, BK, W, S = cfg
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = (((M + BM - 1) // BM) * ((N + BN - 1) // BN),)

    def run():
        kernel[grid](bias, a, b, out, M=M, N=N, K=K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                     GROUP_M=8, EVEN_K=K % BK == 0, num_warps=W, num_stages=S)
    run()
    torch.cuda.synchronize()
    ref = torch.relu(a.float() @ b.float() + bias.float())
    err = (out.float() - ref).abs().max().item()
    ms = do_bench(run, warmup=25, rep=200, return_mode="median")
    return {"ms": ms, "err": err}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="bench-ind-mm-"))
    import tritium
    from tritium.testing import do_bench
    flavors = {"tritium": load_kernels_from("inductor_mm_kernels.py", "tritium")}
    try:
        import triton  # noqa: F401
        flavors["upstream"] = load_kernels_from("inductor_mm_kernels.py", "upstream")
    except ImportError:
        pass
    n = args.size
    torch.manual_seed(0)
    a = torch.randn((n, n), device="cuda", dtype=torch.float16)
    b = torch.randn((n, n), device="cuda", dtype=torch.float16)
    bias = torch.randn((n,), device="cuda", dtype=torch.float16)
    t_torch = do_bench(lambda: torch.relu(torch.addmm(bias, a, b)), warmup=25, rep=200,
                       return_mode="median")
    t_mm = do_bench(lambda: a @ b, warmup=25, rep=200, return_mode="median")
    rows = []
    for cfg in flavors["tritium"].CONFIGS:
        row = {"cfg": cfg}
        for name, mod in flavors.items():
            try:
                row[name] = run_row(mod.triton_tem_fused_addmm_relu, do_bench, a, b, bias, cfg)
            except Exception as e:  # a failing flavour is a row, not a crash
                row[name] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        rows.append(row)
    print(f"\ntriton_mm template, relu(a @ b + bias), fp16 {n}^3 (ms, median; tritium "
          f"{tritium.__version__})")
    print(f"{'config':<24}{'tritium':>10}{'upstream':>10}{'up/tri':>8}{'torch':>9}"
          f"{'torch mm':>10}{'max err':>10}")
    for r in rows:
        t, u = r.get("tritium", {}), r.get("upstream", {})
        name = "{}x{}x{} w{} s{}".format(*r["cfg"])
        if "error" in t:
            print(f"{name:<24} tritium error: {t['error']}")
            continue
        um = u.get("ms", float("nan"))
        print(f"{name:<24}{t['ms']:>10.4f}{um:>10.4f}{um / t['ms']:>8.3f}{t_torch:>9.4f}"
              f"{t_mm:>10.4f}{t['err']:>10.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "torch_ms": t_torch, "torch_mm_ms": t_mm}, f, indent=1,
                      default=str)


if __name__ == "__main__":
    main()
