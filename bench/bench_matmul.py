"""Tensor-core matmul: tritium vs upstream Triton vs torch (cuBLAS), same kernel source,
same configs, same run, same GPU.

    python bench/bench_matmul.py [--json PATH] [--quick]

Each row checks the output against torch before timing (relative Frobenius error), then
times with do_bench (median). TFLOP/s = 2*M*N*K / time. Cold compile = first call with an
empty cache (upstream's includes its C launcher build on a fresh cache dir).
"""
import argparse
import json
import os
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from kernel_loader import load_kernels_from  # noqa: E402

CONFIGS = [  # (BM, BN, BK, GROUP_M, warps, stages)
    (128, 256, 64, 8, 8, 3),
    (128, 128, 64, 8, 4, 4),
]


FP8_CONFIG = (128, 256, 128, 8, 8, 3)


def run_row(k, cdiv, do_bench, M, N, K, cfg, dtype):
    BM, BN, BK, G, W, S = cfg
    torch.manual_seed(0)
    a = torch.randn((M, K), device="cuda").to(dtype)
    b = torch.randn((K, N), device="cuda").to(dtype)
    if dtype != torch.float16:  # fp8: B K-major, as tutorial 03 pre-transposes it
        b = torch.randn((N, K), device="cuda").to(dtype).T
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = (cdiv(M, BM) * cdiv(N, BN),)

    def run():
        k.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                              b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=BM,
                              BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=G, num_warps=W,
                              num_stages=S)
    t0 = time.perf_counter()
    run()
    torch.cuda.synchronize()
    cold = time.perf_counter() - t0
    ref = (a.float() @ b.float())
    err = ((c.float() - ref).norm() / ref.norm()).item()
    ms = do_bench(run, warmup=25, rep=200, return_mode="median")
    return {"tflops": 2 * M * N * K / ms * 1e-9, "err": err, "cold_s": cold, "ms": ms}


def run_tma_row(k, cdiv, do_bench, TD, M, N, K, cfg, dtype, persistent=False):
    """tutorial 09's TMA matmul (host TensorDescriptors of each flavour's own class), or its
    persistent variant (one program per SM); persistent="device": the persistent kernel
    with descriptors made on the device (each flavour's set_allocator gives the scratch)."""
    BM, BN, BK, G, W, S = cfg
    torch.manual_seed(0)
    a = torch.randn((M, K), device="cuda").to(dtype)
    b = torch.randn((N, K), device="cuda").to(dtype)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    a_d, b_d, c_d = TD.from_tensor(a, [BM, BK]), TD.from_tensor(b, [BN, BK]), \
        TD.from_tensor(c, [BM, BN])
    grid = (cdiv(M, BM) * cdiv(N, BN),)
    sms = torch.cuda.get_device_properties(0).multi_processor_count

    if persistent == "device":
        k.triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                       device="cuda"))

    def run():
        if persistent == "device":
            k.matmul_kernel_descriptor_persistent[(min(sms, grid[0]),)](
                a, b, c, M, N, K, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                GROUP_SIZE_M=G, NUM_SMS=sms, num_warps=W, num_stages=S)
        elif persistent:
            k.matmul_kernel_tma_persistent[(min(sms, grid[0]),)](
                a_d, b_d, c_d, M, N, K, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                GROUP_SIZE_M=G, NUM_SMS=sms, num_warps=W, num_stages=S)
        else:
            k.matmul_kernel_tma[grid](a_d, b_d, c_d, M, N, K, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN,
                                      BLOCK_SIZE_K=BK, GROUP_SIZE_M=G, num_warps=W, num_stages=S)
    t0 = time.perf_counter()
    run()
    torch.cuda.synchronize()
    cold = time.perf_counter() - t0
    ref = a.float() @ b.float().T
    err = ((c.float() - ref).norm() / ref.norm()).item()
    ms = do_bench(run, warmup=25, rep=200, return_mode="median")
    return {"tflops": 2 * M * N * K / ms * 1e-9, "err": err, "cold_s": cold, "ms": ms}


def tma_rows(flavors, descs, do_bench, sizes):
    rows = []
    cases = [(s, c, torch.float16, p) for p in (False, True, "device") for s in sizes
             for c in CONFIGS]
    for n, cfg, dtype, persistent in cases + [(8192, FP8_CONFIG, torch.float8_e4m3fn, False)]:
        tag = "tma fp16" if dtype == torch.float16 else "tma fp8e4m3"
        tag += " persistent" if persistent else ""
        tag += " device-desc" if persistent == "device" else ""
        row = {"size": f"{tag} {n}^3", "cfg": (None,) + cfg}
        for name, (k, cdiv) in flavors.items():
            try:
                row[name] = run_tma_row(k, cdiv, do_bench, descs[name], n, n, n, cfg, dtype,
                                        persistent)
            except Exception as e:
                row[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        if dtype == torch.float16:
            a = torch.randn((n, n), device="cuda", dtype=torch.float16)
            b = torch.randn((n, n), device="cuda", dtype=torch.float16)
            ms = do_bench(lambda: a @ b, warmup=25, rep=200, return_mode="median")
        else:
            a = torch.randn((n, n), device="cuda").to(dtype)
            b = torch.randn((n, n), device="cuda").to(dtype).T
            one = torch.tensor(1.0, device="cuda")
            ms = do_bench(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.float16),
                          warmup=25, rep=200, return_mode="median")
        row["torch"] = {"tflops": 2 * n ** 3 / ms * 1e-9}
        rows.append(row)
    return rows


ATTN_CONFIGS = [  # (D, BM, BN, warps, stages)
    (64, 128, 64, 4, 3),
    (128, 128, 64, 8, 3),
]


def run_attn_row(k, cdiv, do_bench, Z, H, N, cfg, causal):
    D, BM, BN, W, S = cfg
    torch.manual_seed(0)
    q, kk, v = (torch.randn((Z * H, N, D), device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)

    def run():
        k.attn_fwd[(cdiv(N, BM), Z * H)](q, kk, v, o, D ** -0.5, N, q.stride(0), q.stride(1),
                                         HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal,
                                         num_warps=W, num_stages=S)
    t0 = time.perf_counter()
    run()
    torch.cuda.synchronize()
    cold = time.perf_counter() - t0
    ref = torch.nn.functional.scaled_dot_product_attention(q, kk, v, is_causal=causal)
    err = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
    ms = do_bench(run, warmup=25, rep=200, return_mode="median")
    flops = 4 * Z * H * N * N * D * (0.5 if causal else 1)
    return {"tflops": flops / ms * 1e-9, "err": err, "cold_s": cold, "ms": ms}


def attention_rows(flavors, do_bench):
    rows = []
    Z, H, N = 4, 32, 4096
    for cfg in ATTN_CONFIGS:
        for causal in (False, True):
            row = {"size": f"attn Z{Z} H{H} N{N} D{cfg[0]}{' causal' if causal else ''}",
                   "cfg": cfg}
            for name, (k, cdiv) in flavors.items():
                try:
                    row[name] = run_attn_row(k, cdiv, do_bench, Z, H, N, cfg, causal)
                except Exception as e:
                    row[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            q, kk, v = (torch.randn((Z, H, N, cfg[0]), device="cuda", dtype=torch.float16)
                        for _ in range(3))
            ms = do_bench(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, kk, v, is_causal=causal), warmup=25, rep=200, return_mode="median")
            row["torch"] = {"tflops": 4 * Z * H * N * N * cfg[0] * (0.5 if causal else 1) / ms * 1e-9}
            rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--attention", action="store_true", help="with --quick: attention rows too")
    ap.add_argument("--fp8", action="store_true", help="only the fp8 row (8192^3)")
    ap.add_argument("--tma", action="store_true", help="only the TMA (tensor descriptor) rows")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="bench-mm-"))
    import tritium
    from tritium.testing import do_bench
    from tritium.tools.tensor_descriptor import TensorDescriptor as TritiumTD
    flavors = {"tritium": (load_kernels_from("tc_kernels.py", "tritium"), tritium.cdiv)}
    descs = {"tritium": TritiumTD}
    try:
        import triton
        from triton.tools.tensor_descriptor import TensorDescriptor as UpstreamTD
        flavors["upstream"] = (load_kernels_from("tc_kernels.py", "upstream"), triton.cdiv)
        descs["upstream"] = UpstreamTD
    except ImportError:
        pass
    if args.tma:
        rows = tma_rows(flavors, descs, do_bench, [4096, 8192])
        _print(rows)
        return
    sizes = [] if args.fp8 else [4096] if args.quick else [4096, 8192]
    rows = []
    for n in sizes:
        for cfg in CONFIGS:
            row = {"size": n, "cfg": cfg}
            for name, (k, cdiv) in flavors.items():
                try:
                    row[name] = run_row(k, cdiv, do_bench, n, n, n, cfg, torch.float16)
                except Exception as e:  # a failing flavour is a row, not a crash
                    row[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            a = torch.randn((n, n), device="cuda", dtype=torch.float16)
            b = torch.randn((n, n), device="cuda", dtype=torch.float16)
            ms = do_bench(lambda: a @ b, warmup=25, rep=200, return_mode="median")
            row["torch"] = {"tflops": 2 * n ** 3 / ms * 1e-9}
            rows.append(row)
    for n in ([] if args.quick and not args.fp8 else [8192]):
        row = {"size": f"fp8e4m3 {n}^3", "cfg": (None,) + FP8_CONFIG}
        for name, (k, cdiv) in flavors.items():
            try:
                row[name] = run_row(k, cdiv, do_bench, n, n, n, FP8_CONFIG, torch.float8_e4m3fn)
            except Exception as e:
                row[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        a = torch.randn((n, n), device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn((n, n), device="cuda").to(torch.float8_e4m3fn).T
        one = torch.tensor(1.0, device="cuda")
        ms = do_bench(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.float16),
                      warmup=25, rep=200, return_mode="median")
        row["torch"] = {"tflops": 2 * n ** 3 / ms * 1e-9}
        rows.append(row)
    if not args.quick and not args.fp8:
        rows += tma_rows(flavors, descs, do_bench, [8192])
    if (not args.quick or args.attention) and not args.fp8:
        rows += attention_rows(flavors, do_bench)
    _print(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)


def _print(rows):
    print(f"\n{'fp16 TFLOP/s':<46}{'tritium':>10}{'upstream':>10}{'torch':>10}{'ratio':>8}"
          f"{'err':>10}{'cold s (tri/up)':>18}")
    for r in rows:
        t, u = r.get("tritium", {}), r.get("upstream", {})
        if isinstance(r["size"], str) and r["cfg"][0] is None:
            name = r["size"] + " {}x{}x{} w{} s{}".format(*(r["cfg"][i] for i in (1, 2, 3, 5, 6)))
        elif isinstance(r["size"], str):
            name = r["size"] + f" {r['cfg'][1]}x{r['cfg'][2]} w{r['cfg'][3]}"
        else:
            name = f"{r['size']}^3 {r['cfg'][0]}x{r['cfg'][1]}x{r['cfg'][2]} w{r['cfg'][4]} s{r['cfg'][5]}"
        if "error" in t:
            print(f"{name:<46} tritium error: {t['error']}")
            continue
        ratio = t["tflops"] / u["tflops"] if "tflops" in u else float("nan")
        print(f"{name:<46}{t['tflops']:>10.1f}{u.get('tflops', float('nan')):>10.1f}"
              f"{r['torch']['tflops']:>10.1f}{ratio:>8.3f}{t['err']:>10.1e}"
              f"{t['cold_s']:>9.2f}/{u.get('cold_s', float('nan')):.2f}")


if __name__ == "__main__":
    main()
