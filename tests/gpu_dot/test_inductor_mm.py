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

MM = load_kernels_from("inductor_mm_kernels.py", "tritium")
KERNEL, CONFIGS = MM.triton_tem_fused_addmm_relu, MM.CONFIGS

def _compile(cfg, size=4096, arch=90):
    src = ASTSource(KERNEL, MM.SIGNATURE, MM.constexprs(cfg, size), MM.ATTRS)
    return tritium_compile(src, target=GPUTarget("cuda", arch, 32),
                           options=dict(num_warps=cfg[3], num_stages=cfg[4]))


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
    # the output tile leaves the accumulator through stmatrix (16-byte rows) where the
    # registers alone would give 4-byte stores (8 warps along M, or 64-row tiles)
    stm = len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx))
    assert stm == (0 if (W, BM) == (4, 128) else BM * BN // (W * 32) // 8), stm
    assert not re.search(r"st\.shared\.(b16|b32)", ptx)


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas (nvidia-cuda-nvcc)")
def test_no_stmatrix_before_sm90():
    k = _compile((128, 128, 64, 8, 3), arch=80)
    assert "mma.sync" in k.asm["ptx"] and "stmatrix" not in k.asm["ptx"]


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "{}x{}x{}_w{}_s{}".format(*c))
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


import tritium as triton  # noqa: E402
import tritium.language as tl  # noqa: E402


@triton.jit
def _epilogue_variants(x_ptr, a_ptr, b_ptr, out_ptr, M, N, K, MODE: tl.constexpr,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A matmul whose epilogue adds, as Inductor's fused epilogues do, a bias along N
    (MODE 0), a bias along M (MODE 1) or a whole fp16 residual tile (MODE 2), then relu."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + (rm % M)[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + (rn % N)[None, :], mask=kk[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)
    if MODE == 0:
        x = tl.load(x_ptr + tl.broadcast_to(idx_n, [BM, BN]), mask).to(tl.float32)
    elif MODE == 1:
        x = tl.load(x_ptr + tl.broadcast_to(idx_m, [BM, BN]), mask).to(tl.float32)
    else:
        x = tl.load(x_ptr + (idx_n + N * idx_m), mask).to(tl.float32)
    y = tl.maximum(acc + x, 0.0)
    tl.store(out_ptr + (idx_n + N * idx_m), y, mask)


def _compile_variant(mode):
    sig = {"x_ptr": "*fp16", "a_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp16",
           "M": "i32", "N": "i32", "K": "i32", "MODE": "constexpr", "BM": "constexpr",
           "BN": "constexpr", "BK": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(7)}
    src = ASTSource(_epilogue_variants, sig, {"MODE": mode, "BM": 128, "BN": 128, "BK": 64},
                    attrs)
    return tritium_compile(src, target=GPUTarget("cuda", 90, 32),
                           options=dict(num_warps=4, num_stages=3))


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas (nvidia-cuda-nvcc)")
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_epilogue_operand_layouts(mode):
    """Broadcast operands (biases along N or M) are read in the accumulator layout; a whole
    residual tile is loaded coalesced and converted as fp16, before its widening."""
    k = _compile_variant(mode)
    ttgir = k.asm["ttgir"]
    tiles = [ln for ln in ttgir.splitlines() if "tt.load" in ln and "128x128x!tt.ptr<f16>" in ln]
    cvts = [ln for ln in ttgir.splitlines() if "ttg.convert_layout" in ln]
    assert len(tiles) == 1, tiles
    if mode < 2:
        assert "#mma" in tiles[0] and len(cvts) == 1, (tiles, cvts)
    else:
        assert "#mma" not in tiles[0] and len(cvts) == 2, (tiles, cvts)
        assert all("128x128xf16" in c for c in cvts), cvts  # not the fp32 widening
    assert k.metadata["n_spills"] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("M,N,K", [(256, 256, 128), (200, 136, 72)])
def test_epilogue_variants_match_torch(mode, M, N, K):
    torch = pytest.importorskip("torch")
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    x = torch.randn((N,) if mode == 0 else (M,) if mode == 1 else (M, N), device="cuda",
                    dtype=torch.float16)
    out = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = ((M + 127) // 128, (N + 127) // 128)
    _epilogue_variants[grid](x, a, b, out, M, N, K, MODE=mode, BM=128, BN=128, BK=64,
                             num_warps=4, num_stages=3)
    xb = x[None, :] if mode == 0 else x[:, None] if mode == 1 else x
    ref = torch.relu(a.float() @ b.float() + xb.float())
    torch.testing.assert_close(out.float(), ref, atol=2e-2 * K ** 0.5, rtol=1e-2)
