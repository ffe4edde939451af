"""Memory-bound kernels on the GPU: tritium vs upstream Triton vs torch, same run, same GPU.

    python bench/bench_gpu.py            # prints a table; --json PATH writes the numbers
                                         # --ttgir-dir DIR keeps both compilers' TTGIR

Bandwidth counts bytes read + bytes written once. Each kernel's output is checked against
torch before it is timed. Cold compile = the first call of a kernel with an empty cache.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


from kernel_loader import load_kernels_from  # noqa: E402


def load_kernels(flavor: str):
    return load_kernels_from("gpu_kernels.py", flavor)


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def cases(k, triton_cdiv):
    """(name, bytes moved, run(), check()) for one flavour's kernels."""
    torch.manual_seed(0)
    out = []
    n = 2 ** 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    z = torch.empty_like(x)
    run = lambda: k.add_kernel[(triton_cdiv(n, 1024),)](x, y, z, n, BLOCK_SIZE=1024)
    out.append(("vector add 2^26 fp32", 3 * n * 4, run, lambda: torch.equal(z, x + y)))

    M, N = 4096, 8192
    a = torch.randn(M, N, device="cuda")
    s = torch.empty_like(a)
    run_s = lambda: k.softmax_kernel[(M,)](s, a, a.stride(0), s.stride(0), N, BLOCK_SIZE=N,
                                           num_warps=16)
    out.append(("softmax 4096x8192 fp32", 2 * M * N * 4, run_s,
                lambda: torch.allclose(s, torch.softmax(a, 1), atol=1e-6, rtol=1e-4)))

    h = torch.randn(M, N, device="cuda", dtype=torch.float16)
    w = torch.rand(N, device="cuda", dtype=torch.float16)
    b = torch.rand(N, device="cuda", dtype=torch.float16)
    yo = torch.empty_like(h)
    mean = torch.empty(M, device="cuda")
    rstd = torch.empty(M, device="cuda")
    run_ln = lambda: k.layer_norm_fwd[(M,)](h, yo, w, b, mean, rstd, h.stride(0), N, 1e-5,
                                            BLOCK_SIZE=8192, num_warps=8)
    out.append(("layer norm fwd 4096x8192 fp16", 2 * M * N * 2, run_ln,
                lambda: torch.allclose(yo.float(), torch.nn.functional.layer_norm(
                    h.float(), (N,), w.float(), b.float(), 1e-5), atol=2e-2, rtol=1e-2)))

    d = torch.randn(n, device="cuda")
    do = torch.empty_like(d)
    run_d = lambda: k.seeded_dropout[(triton_cdiv(n, 1024),)](d, do, n, 0.5, 123, BLOCK_SIZE=1024)
    out.append(("dropout 2^26 fp32", 2 * n * 4, run_d,
                lambda: bool(((do == 0) | torch.isclose(do, 2 * d)).all())
                and 0.45 < (do != 0).float().mean().item() < 0.55))
    return out


def launch_overhead_us(k, reps=5000):
    x = torch.empty(1, device="cuda")
    k.one_store[(1,)](x)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            k.one_store[(1,)](x)
        best = min(best, (time.perf_counter() - t0) / reps * 1e6)
        torch.cuda.synchronize()
    return best


def torch_rows(do_bench):
    n = 2 ** 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    a = torch.randn(4096, 8192, device="cuda")
    h = torch.randn(4096, 8192, device="cuda", dtype=torch.float16)
    w = torch.rand(8192, device="cuda", dtype=torch.float16)
    d = torch.randn(n, device="cuda")
    return {
        "vector add 2^26 fp32": gbps(3 * n * 4, do_bench(lambda: x + y)),
        "softmax 4096x8192 fp32": gbps(2 * a.numel() * 4, do_bench(lambda: torch.softmax(a, 1))),
        "layer norm fwd 4096x8192 fp16": gbps(2 * h.numel() * 2, do_bench(
            lambda: torch.nn.functional.layer_norm(h, (8192,), w, w, 1e-5))),
        "dropout 2^26 fp32": gbps(2 * n * 4, do_bench(lambda: torch.nn.functional.dropout(d, 0.5))),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--ttgir-dir", help="write each kernel's TTGIR from both compilers here")
    args = ap.parse_args()
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-")
    import triton
    from triton.testing import do_bench
    median = lambda f: do_bench(f, warmup=25, rep=200, return_mode="median")
    results = {"bandwidth": {}, "cold_s": {}, "launch_us": {}, "errors": {}}
    for flavor in ("upstream", "tritium"):
        k = load_kernels(flavor)
        for name, nbytes, run, check in cases(k, triton.cdiv):
            try:
                t0 = time.perf_counter()
                compiled = run()
                torch.cuda.synchronize()
                if args.ttgir_dir:
                    os.makedirs(args.ttgir_dir, exist_ok=True)
                    stem = re.sub(r"\W+", "_", name)
                    with open(os.path.join(args.ttgir_dir, f"{stem}.{flavor}.ttgir"), "w") as f:
                        f.write(compiled.asm["ttgir"])
                results["cold_s"].setdefault(name, {})[flavor] = time.perf_counter() - t0
                ok = check()
                if not ok:
                    raise AssertionError("wrong result")
                results["bandwidth"].setdefault(name, {})[flavor] = gbps(nbytes, median(run))
            except Exception as e:  # keep the table: report the failure in it
                results["errors"][f"{flavor}: {name}"] = f"{type(e).__name__}: {str(e)[:300]}"
        try:
            results["launch_us"][flavor] = launch_overhead_us(k)
        except Exception as e:
            results["errors"][f"{flavor}: launch"] = f"{type(e).__name__}: {str(e)[:300]}"
    for name, v in torch_rows(median).items():
        results["bandwidth"].setdefault(name, {})["torch"] = v
    x = torch.zeros(1, device="cuda")
    t0 = time.perf_counter()
    for _ in range(5000):
        x.add_(1)
    results["launch_us"]["torch x.add_(1)"] = (time.perf_counter() - t0) / 5000 * 1e6
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    for key, msg in results["errors"].items():
        print(f"ERROR {key}: {msg}")
    print(f"\n{'GB/s (median)':34s} {'tritium':>9s} {'upstream':>9s} {'torch':>9s} {'ratio':>6s}")
    for name, row in results["bandwidth"].items():
        t, u, th = (row.get(f, float("nan")) for f in ("tritium", "upstream", "torch"))
        print(f"{name:34s} {t:9.0f} {u:9.0f} {th:9.0f} {t / u:6.3f}")
    print(f"\n{'cold first call (s)':34s} {'tritium':>9s} {'upstream':>9s}")
    for name, row in results["cold_s"].items():
        print(f"{name:34s} {row.get('tritium', float('nan')):9.3f} {row.get('upstream', float('nan')):9.3f}")
    print("\nlaunch overhead (us per cached launch): " + ", ".join(
        f"{k} {v:.2f}" for k, v in results["launch_us"].items()))


if __name__ == "__main__":
    main()
