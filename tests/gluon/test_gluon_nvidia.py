"""`gl.nvidia`: Ampere's cp.async (`async_copy`), Hopper's wgmma (operands in NVMMA shared memory, or A in registers; sync
and async with its wait), mbarriers and the async-proxy fence, Ampere's mma_v2 and the
CUDA-core `dot_fma` — on both CPU paths vs numpy (barriers and fences do nothing there, a
wgmma is a dot of its operands' values), as sm_90a cubins whose PTX holds the
instructions, and (GPU) vs torch."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from gluon_kernels import cp_async_kernel, dot_fma_kernel, mma_v2_kernel, wgmma_kernel  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.compiler import ASTSource, CompilationError, compile  # noqa: E402
from tritium.experimental.gluon import language as gl  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")

SM90 = GPUTarget("cuda", 90, 32)
BL = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
BL32 = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
MMA3 = gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
MMA2 = gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
WGMMA_CASES = [(False, False), (True, False), (False, True), (True, True)]
SIG16 = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}



def _mm(a, b):
    """a @ b computed on the CPU in float64: the reference needs no cuBLAS (which fails
    under compute-sanitizer's racecheck and synccheck, bench/sanitize_gluon.py)."""
    return (a.cpu().double() @ b.cpu().double()).float().to(a.device)

def _mats(rng, M, N, K, dtype=np.float16):
    return rng.standard_normal((M, K)).astype(dtype), rng.standard_normal((K, N)).astype(dtype)


@pytest.mark.parametrize("is_async,a_in_regs", WGMMA_CASES)
@pytest.mark.parametrize("M,N,K", [(64, 64, 32), (64, 64, 64)])
def test_wgmma_cpu(cpu_path, rng, is_async, a_in_regs, M, N, K):
    a, b = _mats(rng, M, N, K)
    c = torch.empty(M, N)
    wgmma_kernel[(1,)](torch.from_numpy(a), torch.from_numpy(b), c, M, N, K, BL, MMA3,
                       is_async, a_in_regs)
    ref = a.astype(np.float32) @ b.astype(np.float32) + 1
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-3, atol=1e-3)


def test_mma_v2_and_dot_fma_cpu(cpu_path, rng):
    a, b = _mats(rng, 64, 64, 32)
    c = torch.empty(64, 64)
    mma_v2_kernel[(1,)](torch.from_numpy(a), torch.from_numpy(b), c, 64, 64, 32, BL, MMA2)
    np.testing.assert_allclose(c.numpy(), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    a, b = _mats(rng, 32, 32, 16, np.float32)
    c0 = rng.standard_normal((32, 32)).astype(np.float32)
    c = torch.from_numpy(c0.copy())
    dot_fma_kernel[(1,)](torch.from_numpy(a), torch.from_numpy(b), c, 32, 32, 16, BL32)
    np.testing.assert_allclose(c.numpy(), a @ b + c0, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("is_async,a_in_regs", WGMMA_CASES)
def test_wgmma_sm90(is_async, a_in_regs):
    k = compile(ASTSource(wgmma_kernel, SIG16, {"M": 64, "N": 64, "K": 32, "blocked": BL,
                                                "mma": MMA3, "IS_ASYNC": is_async,
                                                "A_IN_REGS": a_in_regs}), target=SM90)
    ptx = k.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "wgmma.wait_group" in ptx
    assert "mbarrier.init.shared::cta.b64" in ptx and "mbarrier.arrive.shared::cta.b64" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.inval" in ptx
    assert "fence.proxy.async.shared::cta" in ptx
    assert k.asm["cubin"][:4] == b"\x7fELF"
    assert ("ttng.warp_group_dot" in k.asm["ttgir"]) and ("#ttg.nvmma_shared" in k.asm["ttgir"])


def test_mma_v2_and_dot_fma_sm90():
    k = compile(ASTSource(mma_v2_kernel, SIG16, {"M": 64, "N": 64, "K": 32, "blocked": BL,
                                                 "mma": MMA2}), target=SM90)
    assert "mma.sync.aligned.m16n8k16" in k.asm["ptx"]
    k = compile(ASTSource(dot_fma_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
                          {"M": 32, "N": 32, "K": 16, "blocked": BL32}), target=SM90)
    assert "mma" not in k.asm["ptx"] and "fma.rn.f32" in k.asm["ptx"]


def test_dot_layouts_checked():
    with pytest.raises(CompilationError, match="DotOperandLayout"):
        compile(ASTSource(mma_v2_kernel, SIG16, {"M": 64, "N": 64, "K": 32, "blocked": BL,
                                                 "mma": MMA3}), target=SM90)


@pytest.mark.gpu
@pytest.mark.parametrize("is_async,a_in_regs", WGMMA_CASES)
def test_wgmma_gpu(rng, is_async, a_in_regs):
    a, b = (torch.from_numpy(x).cuda() for x in _mats(rng, 64, 64, 32))
    c = torch.empty(64, 64, device="cuda")
    wgmma_kernel[(1,)](a, b, c, 64, 64, 32, BL, MMA3, is_async, a_in_regs)
    torch.testing.assert_close(c, _mm(a, b) + 1, rtol=1e-3, atol=1e-3)


@pytest.mark.gpu
def test_mma_v2_and_dot_fma_gpu(rng):
    a, b = (torch.from_numpy(x).cuda() for x in _mats(rng, 64, 64, 32))
    c = torch.empty(64, 64, device="cuda")
    mma_v2_kernel[(1,)](a, b, c, 64, 64, 32, BL, MMA2)
    torch.testing.assert_close(c, _mm(a, b), rtol=1e-3, atol=1e-3)
    a, b = (torch.from_numpy(x).cuda() for x in _mats(rng, 32, 32, 16, np.float32))
    c0 = torch.randn(32, 32, device="cuda")
    c = c0.clone()
    dot_fma_kernel[(1,)](a, b, c, 32, 32, 16, BL32)
    torch.testing.assert_close(c, _mm(a, b) + c0, rtol=1e-4, atol=1e-4)


CP_L = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
CP_LT = gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
CP_SMEM = [gl.SwizzledSharedLayout(4, 2, 4, [1, 0]), gl.SwizzledSharedLayout(1, 1, 1, [1, 0])]


@pytest.mark.parametrize("smem", CP_SMEM)
@pytest.mark.parametrize("M", [64, 50, 17])
def test_cp_async_cpu(cpu_path, rng, smem, M):
    x = rng.standard_normal((64, 16)).astype(np.float32)
    out = torch.full((64, 16), -1.0)
    cp_async_kernel[(2,)](torch.from_numpy(x), out, M, 16, 16, CP_L, CP_LT, smem)
    ref = x.copy()
    ref[M:] = 0
    np.testing.assert_array_equal(out.numpy(), ref)


def test_cp_async_sm90():
    k = compile(ASTSource(cp_async_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32"},
                          {"N": 16, "BM": 16, "src": CP_L, "dst": CP_LT, "smem": CP_SMEM[0]}),
                target=SM90)
    ptx = k.asm["ptx"]
    assert "cp.async.ca.shared.global" in ptx or "cp.async.cg.shared.global" in ptx
    assert "cp.async.commit_group" in ptx and "cp.async.wait_group 1" in ptx
    assert "cp.async.wait_group 0" in ptx
    # another thread's copies are read only after a barrier behind the wait
    ttgir = k.asm["ttgir"]
    assert ttgir.index("ttg.async_wait") < ttgir.index("ttg.barrier", ttgir.index("ttg.async_wait"))
    # CP_L covers 16x32 with a 16x16 tile: two threads hold each pointer and only the owner
    # copies (racecheck: one element written by two threads' cp.async); a layout that
    # covers the tile exactly copies unconditionally.
    assert "cp_own" in k.asm["llir"]
    exact = compile(ASTSource(cp_async_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32"},
                              {"N": 32, "BM": 16, "src": CP_L, "dst": CP_LT, "smem": CP_SMEM[0]}),
                    target=SM90)
    assert "cp_own" not in exact.asm["llir"] and "cp.async.c" in exact.asm["ptx"]


@pytest.mark.gpu
@pytest.mark.parametrize("smem", CP_SMEM)
def test_cp_async_gpu(rng, smem):
    x = torch.from_numpy(rng.standard_normal((64, 16)).astype(np.float32)).cuda()
    out = torch.full((64, 16), -1.0, device="cuda")
    cp_async_kernel[(2,)](x, out, 50, 16, 16, CP_L, CP_LT, smem)
    ref = x.clone()
    ref[50:] = 0
    torch.testing.assert_close(out, ref)
