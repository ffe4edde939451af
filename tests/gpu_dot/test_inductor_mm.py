"""Inductor's `triton_mm` template with its fused `relu(acc + bias)` epilogue
(`bench/inductor_mm_kernels.py`, the kernel torch.compile's max-autotune renders for
`relu(a @ b + bias)`), at the H100 autotune table's configs.

Without a GPU: compiled for sm_90a, the epilogue's bias is read in the wgmma accumulator
layout (one 32-bit load per column pair a thread holds, no conversion through shared
memory; the store's is the only convert left), Inductor's `max_contiguous(multiple_of(rm %
M))` hints give 16-byte `cp.async` copies of A and B, nothing spills. On the GPU: the
results against torch, on ragged sizes too (masked K, rows and columns past the end)."""
import os
import re
import sys

import pytest

from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia import toolchain
from tritium.compiler import ASTSource, compile as tritium_compile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from kernel_loader import load_kernels_from  # noqa: E402

KERNEL = load_kernels_from("inductor_mm_kernels.py", "tritium").triton_tem_fused_addmm_relu
CONFIGS = [(128, 128, 64, 4, 3), (128, 128, 64, 8, 5), (128, 128, 32, 4, 3),
           (64, 128, 128, 4, 4), (64, 128, 64, 4, 3)]
SIG = {"in_ptr0": "*fp16", "arg_A": "*fp16", "arg_B": "*fp16", "out_ptr1": "*fp16",
       **{k: "constexpr" for k in ("M", "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M",
                                   "EVEN_K")}}


def _compile(cfg, size=4096):
    BM, BN, BK, W, S = cfg
    consts = {"M": size, "N": size, "K": size, "BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK,
              "GROUP_M": 8, "EVEN_K": size % BK == 0}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}
    src = ASTSource(KERNEL, SIG, consts, attrs)
    return tritium_compile(src, target=GPUTarget("cuda", 90, 32),
                           options=dict(num_warps=W, num_stages=S))


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas (nvidia-cuda-nvcc)")
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "{}x{}x{}_w{}_s{}".format(*c))
def test_template_epilogue_and_copies(cfg):
    BM, BN, BK, W, S = cfg
    k = _compile(cfg)
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    assert "ttng.warp_group_dot" in ttgir
    # the bias tile is loaded in the accumulator layout: no conversion of it
    bias = [ln for ln in ttgir.splitlines() if "tt.load" in ln and "128x" in ln]
    assert bias and all("#mma" in ln for ln in bias), bias
    cvts = [ln for ln in ttgir.splitlines() if "ttg.convert_layout" in ln]
    assert len(cvts) == 1 and "xf16, #mma> -> " in cvts[0], cvts  # the store's
    # one 32-bit load per (row-shared) column pair: BN/8 per thread, from L1 (evict_last)
    loads = re.findall(r"ld\.global[^\n]*", ptx)
    assert len(loads) == BN // 8 and all("evict_last" in ln and ".v" not in ln and ".b32" in ln
                                         for ln in loads), loads
    # A and B tiles copied 16 bytes at a time (Inductor's index hints honoured)
    copies = re.findall(r"cp\.async\.cg\.shared\.global[^\n]*", ptx)
    assert copies and all(ln.rstrip("; ").endswith(", 16") or ", 16," in ln for ln in copies)
    assert not re.search(r"cp\.async\.c[ag]\.shared\.global[^\n]*, (4|8)[,;]", ptx)
    assert k.metadata["n_spills"] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", CONFIGS[:3], ids=lambda c: "{}x{}x{}_w{}_s{}".format(*c))
@pytest.mark.parametrize("size", [256, 200])
def test_template_matches_torch(cfg, size):
    torch = pytest.importorskip("torch")
    BM, BN, BK, W, S = cfg
    a = torch.randn((size, size), device="cuda", dtype=torch.float16)
    b = torch.randn((size, size), device="cuda", dtype=torch.float16)
    bias = torch.randn((size,), device="cuda", dtype=torch.float16)
    out = torch.empty((size, size), device="cuda", dtype=torch.float16)
    grid = (((size + BM - 1) // BM) * ((size + BN - 1) // BN),)
    KERNEL[grid](bias, a, b, out, M=size, N=size, K=size, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                 GROUP_M=8, EVEN_K=size % BK == 0, num_warps=W, num_stages=S)
    ref = torch.relu(a.float() @ b.float() + bias.float())
    torch.testing.assert_close(out.float(), ref, atol=2e-2 * size ** 0.5, rtol=1e-2)
