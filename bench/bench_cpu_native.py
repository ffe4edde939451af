"""Compiled CPU path vs the numpy evaluator vs torch eager on the CPU (vs upstream's
interpreter when `import triton` works), one run, same machine.

torch writes into preallocated outputs where it can (`out=` for add and mm); softmax, layer
norm and dropout allocate their output per call, as torch eager code does.

    PYTHONPATH=. python bench/bench_cpu_native.py [--repeat N] [--eval-repeat N] [--quick]
                                                  [--threads N]

Each row: best wall time of --repeat runs after a warm-up. Compile time is the frontend
(TTIR) plus lowering and LLVM for the host, with the on-disk cache off.
The evaluator and upstream's interpreter are slow: they run --eval-repeat times.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


# ------------------------------------------------------------------ kernels (shared source)
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):  # noqa: F821
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # noqa: F821
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),  # noqa: F821
             mask=mask)


def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):  # noqa: F821
    row = tl.program_id(0)  # noqa: F821
    cols = tl.arange(0, BLOCK)  # noqa: F821
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))  # noqa: F821
    x = x - tl.max(x, axis=0)  # noqa: F821
    num = tl.exp(x)  # noqa: F821
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)  # noqa: F821


def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):  # noqa: F821
    row = tl.program_id(0)  # noqa: F821
    cols = tl.arange(0, BLOCK)  # noqa: F821
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)  # noqa: F821
    mean = tl.sum(x, axis=0) / n  # noqa: F821
    d = tl.where(mask, x - mean, 0.0)  # noqa: F821
    var = tl.sum(d * d, axis=0) / n  # noqa: F821
    rstd = 1.0 / tl.sqrt(var + eps)  # noqa: F821
    w = tl.load(w_ptr + cols, mask=mask)  # noqa: F821
    b = tl.load(b_ptr + cols, mask=mask)  # noqa: F821
    tl.store(y_ptr + row * stride + cols, d * rstd * w + b, mask=mask)  # noqa: F821


def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):  # noqa: F821
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # noqa: F821
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # noqa: F821
    keep = tl.rand(seed, offs) > p  # noqa: F821
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)  # noqa: F821


def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,  # noqa: F821
                  stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr,  # noqa: F821
                  BK: tl.constexpr):  # noqa: F821
    pid_m = tl.program_id(0)  # noqa: F821
    pid_n = tl.program_id(1)  # noqa: F821
    rm = pid_m * BM + tl.arange(0, BM)  # noqa: F821
    rn = pid_n * BN + tl.arange(0, BN)  # noqa: F821
    rk = tl.arange(0, BK)  # noqa: F821
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)  # noqa: F821
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)  # noqa: F821
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k, other=0.0)  # noqa: F821
        acc = tl.dot(a, b, acc)  # noqa: F821
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))  # noqa: F821


def attn_kernel(Q, K, V, Out, sm_scale, N_CTX, stride_z, stride_m, HEAD_DIM: tl.constexpr,  # noqa: F821
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):  # noqa: F821
    """FlashAttention-2 forward (non-causal), as bench/tc_kernels.py's attn_fwd."""
    start_m = tl.program_id(0)  # noqa: F821
    off_z = tl.program_id(1).to(tl.int64) * stride_z  # noqa: F821
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)  # noqa: F821
    offs_n = tl.arange(0, BLOCK_N)  # noqa: F821
    offs_d = tl.arange(0, HEAD_DIM)  # noqa: F821
    q = tl.load(Q + off_z + offs_m[:, None] * stride_m + offs_d[None, :],  # noqa: F821
                mask=offs_m[:, None] < N_CTX, other=0.0)
    k_ptrs = K + off_z + offs_n[None, :] * stride_m + offs_d[:, None]   # K^T tile [D, N]
    v_ptrs = V + off_z + offs_n[:, None] * stride_m + offs_d[None, :]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")  # noqa: F821
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)  # noqa: F821
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)  # noqa: F821
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        kt = tl.load(k_ptrs, mask=(start_n + offs_n[None, :]) < N_CTX, other=0.0)  # noqa: F821
        qk = tl.dot(q, kt)  # noqa: F821
        qk = tl.where((start_n + offs_n[None, :]) < N_CTX, qk * qk_scale, -1.0e6)  # noqa: F821
        m_ij = tl.maximum(m_i, tl.max(qk, 1))  # noqa: F821
        p = tl.math.exp2(qk - m_ij[:, None])  # noqa: F821
        alpha = tl.math.exp2(m_i - m_ij)  # noqa: F821
        l_i = l_i * alpha + tl.sum(p, 1)  # noqa: F821
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs, mask=(start_n + offs_n[:, None]) < N_CTX, other=0.0)  # noqa: F821
        acc = tl.dot(p, v, acc)  # noqa: F821
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_m
        v_ptrs += BLOCK_N * stride_m
    acc = acc / l_i[:, None]
    tl.store(Out + off_z + offs_m[:, None] * stride_m + offs_d[None, :], acc,  # noqa: F821
             mask=offs_m[:, None] < N_CTX)


KERNELS = (add_kernel, softmax_kernel, layernorm_kernel, dropout_kernel, matmul_kernel,
           attn_kernel)


def jit_all(jit, tl_module):
    g = {"tl": tl_module, "__name__": f"bench_native_{tl_module.__name__}",
         "__builtins__": __builtins__}
    out = {}
    for fn in KERNELS:
        copy = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
        copy.__annotations__ = dict(fn.__annotations__)
        g[fn.__name__] = copy
        out[fn.__name__] = jit(copy)
    return out


# ------------------------------------------------------------------ workloads
def workloads(torch, quick: bool):
    g = torch.Generator().manual_seed(0)
    n = 1 << (20 if quick else 24)
    R = 1024 if quick else 4096
    x, y = torch.rand(n, generator=g), torch.rand(n, generator=g)
    add_out = torch.empty(n)
    sm = torch.randn(R, R, generator=g)
    w, b = torch.randn(R, generator=g), torch.randn(R, generator=g)
    F = torch.nn.functional
    add_case = dict(args=(x, y, torch.empty(n), n), kw=dict(BLOCK=4096), grid=((n + 4095) // 4096,))
    cases = [
        (f"vector add 2^{n.bit_length() - 1} fp32", "add_kernel", lambda: add_case,
         lambda o: torch.equal(o[2], x + y), lambda: torch.add(x, y, out=add_out)),
        # The same kernel with streaming stores off (native/stream.py): what they buy.
        ("  same, plain stores", "add_kernel",
         lambda: dict(add_case, env={"TRITIUM_CPU_STREAM_BYTES": "-1"}),
         lambda o: torch.equal(o[2], x + y), lambda: torch.add(x, y, out=add_out)),
        (f"row softmax {R}x{R} fp32", "softmax_kernel",
         lambda: dict(args=(torch.empty(R, R), sm, R, R, R), kw=dict(BLOCK=R), grid=(R,)),
         lambda o: torch.allclose(o[0], torch.softmax(sm, 1), atol=1e-6),
         lambda: torch.softmax(sm, 1)),
        (f"layer norm {R}x{R} fp32", "layernorm_kernel",
         lambda: dict(args=(sm, torch.empty(R, R), w, b, R, R, 1e-5), kw=dict(BLOCK=R),
                      grid=(R,)),
         lambda o: torch.allclose(o[1], F.layer_norm(sm, (R,), w, b, 1e-5), atol=1e-4),
         lambda: F.layer_norm(sm, (R,), w, b, 1e-5)),
        (f"dropout p=0.5 2^{n.bit_length() - 1} fp32", "dropout_kernel",
         lambda: dict(args=(x, torch.empty(n), n, 0.5, 123), kw=dict(BLOCK=4096),
                      grid=((n + 4095) // 4096,)),
         lambda o: abs(float((o[1] == 0).float().mean()) - 0.5) < 0.01,
         lambda: F.dropout(x, 0.5, True)),
    ]
    for S in ((256,) if quick else (512, 1024)):
        a, bb = torch.randn(S, S, generator=g), torch.randn(S, S, generator=g)
        cases.append((f"matmul {S}^3 fp32 (64x64x32)", "matmul_kernel",
                      lambda S=S, a=a, bb=bb: dict(
                          args=(a, bb, torch.empty(S, S), S, S, S, S, 1, S, 1, S, 1),
                          kw=dict(BM=64, BN=64, BK=32), grid=(S // 64, S // 64)),
                      lambda o, a=a, bb=bb: torch.allclose(o[2], a @ bb, atol=1e-3, rtol=1e-4),
                      lambda a=a, bb=bb, o=torch.empty(S, S): torch.mm(a, bb, out=o)))
    Z, L, D = (2, 128, 64) if quick else (8, 512, 64)
    q, k, v = (torch.randn(Z, L, D, generator=g) for _ in range(3))
    scale = D ** -0.5
    cases.append((f"attention {Z}x{L}x{D} fp32 (64x64)", "attn_kernel",
                  lambda: dict(args=(q, k, v, torch.empty(Z, L, D), scale, L, L * D, D),
                               kw=dict(HEAD_DIM=D, BLOCK_M=64, BLOCK_N=64), grid=(L // 64, Z)),
                  lambda o: torch.allclose(o[3], F.scaled_dot_product_attention(q, k, v),
                                           atol=1e-4, rtol=1e-4),
                  lambda: F.scaled_dot_product_attention(q, k, v)))
    return cases


def best(fn, repeat):
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--eval-repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--threads", type=int, default=0,
                    help="cores for both tritium and torch (default: all)")
    args = ap.parse_args()
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"      # compile times without the disk cache
    if args.threads:
        os.environ["TRITON_CPU_MAX_THREADS"] = str(args.threads)
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    import tritium
    import tritium.language as tl
    try:
        os.environ["TRITON_INTERPRET"] = "1"
        import triton
        import triton.language as ttl
        upstream = jit_all(triton.jit, ttl)
    except Exception:  # noqa: BLE001
        upstream = None
    finally:
        os.environ.pop("TRITON_INTERPRET", None)
    ours = jit_all(tritium.jit, tl)
    print(f"threads: tritium {__import__('tritium.backends.cpu.native.launcher', fromlist=['x']).max_threads()}, "
          f"torch {torch.get_num_threads()}; upstream interpreter: "
          f"{'yes' if upstream else 'not importable (column skipped)'}")
    hdr = (f"| {'kernel':34} | compiled ms | evaluator ms | torch ms | "
           f"{'interp ms | ' if upstream else ''}compiled/torch | compile s |")
    print(hdr)
    print("|" + "|".join("---" for _ in hdr.split("|")[1:-1]) + "|")
    for label, name, make, check, ref in workloads(torch, args.quick):
        case = make()
        k = ours[name]

        def run_native(k=k, case=case):
            k[case["grid"]](*case["args"], **case["kw"])
        os.environ.pop("TRITIUM_CPU_STREAM_BYTES", None)
        os.environ.update(case.get("env", {}))
        os.environ["TRITIUM_CPU_PATH"] = "native"
        # Compile time: the frontend (TTIR) plus lowering and LLVM for this CPU.
        t0 = time.perf_counter()
        kernel = k.warmup(*case["args"], grid=case["grid"], **case["kw"])
        kernel._init_handles()
        nk = kernel.function.native(kernel.metadata)
        compile_s = time.perf_counter() - t0
        run_native()
        ok = check(case["args"]) and nk is not None
        tn = best(run_native, args.repeat)
        os.environ["TRITIUM_CPU_PATH"] = "evaluator"
        te = best(run_native, args.eval_repeat) if "env" not in case else float("nan")
        os.environ["TRITIUM_CPU_PATH"] = "native"
        tt = best(ref, args.repeat)
        cols = [f"{tn * 1e3:11.2f}", f"{te * 1e3:12.1f}", f"{tt * 1e3:8.2f}"]
        if upstream:
            uk = upstream[name]
            os.environ["TRITON_INTERPRET"] = "1"
            try:
                cols.append(f"{best(lambda: uk[case['grid']](*case['args'], **case['kw']), 1) * 1e3:9.1f}")
            except Exception as e:  # noqa: BLE001  (upstream's interpreter failing is a cell)
                cols.append(f"{'error':>9}")
                print(f"upstream interpreter, {label}: {type(e).__name__}: {str(e)[:200]}",
                      file=sys.stderr)
            os.environ.pop("TRITON_INTERPRET", None)
        ratio = tt / tn
        print(f"| {label + ('' if ok else ' (WRONG)'):34} | " + " | ".join(cols)
              + f" | {ratio:13.2f}x | {compile_s:9.3f} |", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
