"""Dump both compilers' stages (TTGIR, PTX, SASS) for one matmul and one attention config
into $OUT, with registers and shared memory, to compare what each made of the same source.

    python bench/dump_tc.py OUTDIR
"""
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from kernel_loader import load_kernels_from  # noqa: E402

out = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else None  # "upstream" or "tritium": one flavour
os.makedirs(out, exist_ok=True)
import tritium  # noqa: E402
import triton  # noqa: E402

M = N = K = 4096
a = torch.randn((M, K), device="cuda", dtype=torch.float16)
b = torch.randn((K, N), device="cuda", dtype=torch.float16)
c = torch.empty((M, N), device="cuda", dtype=torch.float16)
for flavor, cdiv in (("tritium", tritium.cdiv), ("upstream", triton.cdiv)):
    if only and flavor != only:
        continue
    k = load_kernels_from("tc_kernels.py", flavor)
    for (BM, BN, BK, W, S) in ((128, 128, 64, 4, 4),):
        h = k.matmul_kernel[(cdiv(M, BM) * cdiv(N, BN),)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1), BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8,
            num_warps=W, num_stages=S)
        tag = f"{flavor}_mm{BM}x{BN}"
        for key in ("ttgir", "ptx"):
            with open(os.path.join(out, f"{tag}.{key}"), "w") as f:
                f.write(h.asm[key])
        with open(os.path.join(out, f"{tag}.cubin"), "wb") as f:
            f.write(h.asm["cubin"])
        sass = subprocess.run(["cuobjdump", "-sass", os.path.join(out, f"{tag}.cubin")],
                              capture_output=True, text=True).stdout
        with open(os.path.join(out, f"{tag}.sass"), "w") as f:
            f.write(sass)
        print(tag, "regs", getattr(h, "n_regs", None), "shared", h.metadata["shared"]
              if isinstance(h.metadata, dict) else h.metadata.shared,
              "sass lines", sass.count("\n"))
    q = torch.randn((128, 4096, 128), device="cuda", dtype=torch.float16)
    o = torch.empty_like(q)
    h = k.attn_fwd[(cdiv(4096, 128), 128)](q, q, q, o, 0.1, 4096, q.stride(0), q.stride(1),
                                           HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, CAUSAL=False,
                                           num_warps=8, num_stages=3)
    tag = f"{flavor}_attn128"
    for key in ("ttgir", "ptx"):
        with open(os.path.join(out, f"{tag}.{key}"), "w") as f:
            f.write(h.asm[key])
    print(tag, "regs", getattr(h, "n_regs", None))
