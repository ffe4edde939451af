"""Dump both compilers' stages (TTGIR, PTX, SASS) for one matmul and one attention config
into $OUT, with registers and shared memory, to compare what each made of the same source.

    python bench/dump_tc.py OUTDIR [upstream|tritium|both] [attn-only]

`attn-only` dumps only the attention kernels: D128 non-causal and D64 causal (the
bench's two configs), with their SASS.
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
only = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "both" else None  # one flavour
attn_only = len(sys.argv) > 3 and sys.argv[3] == "attn-only"
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
    for (BM, BN, BK, W, S) in () if attn_only else ((128, 128, 64, 4, 4),):
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
    for D, BM, BN, W, S, causal in ((128, 128, 64, 8, 3, False), (64, 128, 64, 4, 3, True),
                                    (128, 128, 64, 8, 3, True)):
        q = torch.randn((128, 4096, D), device="cuda", dtype=torch.float16)
        o = torch.empty_like(q)
        h = k.attn_fwd[(cdiv(4096, BM), 128)](q, q, q, o, 0.1, 4096, q.stride(0), q.stride(1),
                                              HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal,
                                              num_warps=W, num_stages=S)
        tag = f"{flavor}_attn{D}{'c' if causal else ''}"
        if attn_only and not causal:
            continue
        with open(os.path.join(out, f"{tag}.ttgir"), "w") as f:
            f.write(h.asm["ttgir"])
        cub = os.path.join("/tmp", f"{tag}.cubin")
        with open(cub, "wb") as f:
            f.write(h.asm["cubin"])
        sass = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
        with open(os.path.join(out, f"{tag}.sass"), "w") as f:
            f.write(sass)
        print(tag, "regs", getattr(h, "n_regs", None), "sass lines", sass.count("\n"))
