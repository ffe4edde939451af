"""Bandwidth of a few memory-bound kernels lowered by tritium, next to torch and (when it
imports) upstream Triton: vector add (fp32/fp16), row softmax, row sum.

    python tests/nvidia_lowering/gpu_bench.py      (needs a GPU and torch)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402

import tritium as triton  # noqa: E402
import tritium.language as tl  # noqa: E402
from tritium.testing import do_bench  # noqa: E402
from nvl_kernels import add_kernel, softmax_kernel  # noqa: E402


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def gbps(nbytes, ms):
    return nbytes / ms * 1e-6


def main():
    rows = []
    for dt in (torch.float32, torch.float16):
        n = 1 << 26
        x, y = torch.randn(n, device="cuda", dtype=dt), torch.randn(n, device="cuda", dtype=dt)
        out = torch.empty_like(x)
        grid = (triton.cdiv(n, 1024),)
        add_kernel[grid](x, y, out, n, BLOCK=1024)
        torch.testing.assert_close(out, x + y)
        ms = do_bench(lambda: add_kernel[grid](x, y, out, n, BLOCK=1024))
        ms_t = do_bench(lambda: torch.add(x, y, out=out))
        nb = 3 * n * x.element_size()
        rows.append((f"vector add {str(dt)[6:]} n=2^26", gbps(nb, ms), gbps(nb, ms_t)))
    M, N = 4096, 4096
    x = torch.randn(M, N, device="cuda")
    out = torch.empty_like(x)
    softmax_kernel[(M,)](out, x, N, N, BLOCK=N, num_warps=8)
    torch.testing.assert_close(out, torch.softmax(x, 1), atol=1e-6, rtol=1e-5)
    ms = do_bench(lambda: softmax_kernel[(M,)](out, x, N, N, BLOCK=N, num_warps=8))
    ms_t = do_bench(lambda: torch.softmax(x, 1))
    rows.append(("softmax 4096x4096 fp32", gbps(2 * x.numel() * 4, ms), gbps(2 * x.numel() * 4, ms_t)))
    s = torch.empty(M, device="cuda")
    rowsum_kernel[(M,)](x, s, N, BLOCK=N, num_warps=8)
    torch.testing.assert_close(s, x.sum(1), atol=1e-3, rtol=1e-4)
    ms = do_bench(lambda: rowsum_kernel[(M,)](x, s, N, BLOCK=N, num_warps=8))
    ms_t = do_bench(lambda: torch.sum(x, 1, out=s))
    rows.append(("row sum 4096x4096 fp32", gbps(x.numel() * 4, ms), gbps(x.numel() * 4, ms_t)))
    print(f"{'kernel':32s} {'tritium GB/s':>14s} {'torch GB/s':>12s}")
    for name, a, b in rows:
        print(f"{name:32s} {a:14.0f} {b:12.0f}")
    k = add_kernel.cache
    for dev in k:
        for key, kern in list(k[dev].items())[:1]:
            print("vector add metadata:", {m: kern.metadata.get(m) for m in ("n_regs", "n_spills", "shared")})


if __name__ == "__main__":
    main()
