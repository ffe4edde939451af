"""Compiled CPU path vs the numpy evaluator vs torch eager on the CPU (vs upstream's
interpreter when `import triton` works), one run, same machine.

torch writes into preallocated outputs where it can (`out=` for add and mm); softmax, layer
norm and dropout allocate their output per call, as torch eager code does.

    PYTHONPATH=. python bench/bench_cpu_native.py [--repeat N] [--eval-repeat N] [--quick]

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


KERNELS = (add_kernel, softmax_kernel, layernorm_kernel, dropout_kernel, matmul_kernel)


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
    cases = [
        (f"vector add 2^{n.bit_length() - 1} fp32", "add_kernel",
         lambda: dict(args=(x, y, torch.empty(n), n), kw=dict(BLOCK=4096),
                      grid=((n + 4095) // 4096,)),
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
    args = ap.parse_args()
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"      # compile times without the disk cache
    import torch
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
        te = best(run_native, args.eval_repeat)
        os.environ["TRITIUM_CPU_PATH"] = "native"
        tt = best(ref, args.repeat)
        cols = [f"{tn * 1e3:11.2f}", f"{te * 1e3:12.1f}", f"{tt * 1e3:8.2f}"]
        if upstream:
            uk = upstream[name]
            os.environ["TRITON_INTERPRET"] = "1"
            cols.append(f"{best(lambda: uk[case['grid']](*case['args'], **case['kw']), 1) * 1e3:9.1f}")
            os.environ.pop("TRITON_INTERPRET", None)
        ratio = tt / tn
        print(f"| {label + ('' if ok else ' (WRONG)'):34} | " + " | ".join(cols)
              + f" | {ratio:13.2f}x | {compile_s:9.3f} |", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
