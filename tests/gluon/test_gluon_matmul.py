"""A pipelined Hopper matmul written in Gluon (`matmul_kernels.py`: TMA into a ring of
NVMMA buffers, one mbarrier per slot waited on by phase, async wgmma with one group in
flight, shared memory passed to a device function): on both CPU paths vs numpy over
shapes (ragged, K not a multiple of the tile), dtypes and ring depths; compiled for sm_90a;
and (GPU) vs torch."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from matmul_kernels import matmul_kernel  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.compiler import ASTSource, compile  # noqa: E402
from tritium.experimental.gluon import language as gl  # noqa: E402
from tritium.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")

MMA = gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
OUT = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
DTYPES = {"fp16": (torch.float16, gl.float16), "bf16": (torch.bfloat16, gl.bfloat16)}
# (M, N, K): N and K multiples of 8 (16-byte rows for the descriptors)
SHAPES = [(64, 64, 64), (200, 136, 296), (130, 64, 40)]



def _mm(a, b):
    """a @ b computed on the CPU in float64: the reference needs no cuBLAS (which fails
    under compute-sanitizer's racecheck and synccheck, bench/sanitize_gluon.py)."""
    return (a.cpu().double() @ b.cpu().double()).float().to(a.device)

def _launch(a, b, c, stages, block=(64, 64, 32)):
    BM, BN, BK = block
    gdt = DTYPES["bf16" if a.dtype == torch.bfloat16 else "fp16"][1]
    la = gl.NVMMASharedLayout.get_default_for([BM, BK], gdt)
    lb = gl.NVMMASharedLayout.get_default_for([BK, BN], gdt)
    ad = TensorDescriptor.from_tensor(a, [BM, BK], la)
    bd = TensorDescriptor.from_tensor(b, [BK, BN], lb)
    M, K = a.shape
    N = b.shape[1]
    grid = (-(-M // BM), -(-N // BN))
    matmul_kernel[grid](ad, bd, c, M, N, K, stages, MMA, OUT)


@pytest.mark.parametrize("M,N,K", SHAPES)
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_matmul_cpu(cpu_path, rng, M, N, K, dtype, stages):
    tdt = DTYPES[dtype][0]
    a = torch.from_numpy(rng.standard_normal((M, K)).astype(np.float32)).to(tdt)
    b = torch.from_numpy(rng.standard_normal((K, N)).astype(np.float32)).to(tdt)
    c = torch.empty(M, N)
    _launch(a, b, c, stages)
    ref = a.float().numpy() @ b.float().numpy()
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("stages", [2, 4])
def test_matmul_sm90(stages):
    la = gl.NVMMASharedLayout.get_default_for([64, 32], gl.float16)
    lb = gl.NVMMASharedLayout.get_default_for([32, 64], gl.float16)
    sig = {"a_desc": f"tensordesc<fp16[64, 32],{la!r}>", "b_desc": f"tensordesc<fp16[32, 64],{lb!r}>",
           "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    k = compile(ASTSource(matmul_kernel, sig, {"STAGES": stages, "mma": MMA, "out_layout": OUT}),
                target=GPUTarget("cuda", 90, 32))
    ptx = k.asm["ptx"]
    assert ptx.count("wgmma.mma_async") == 2  # BK = 32: two k-steps of 16
    assert "wgmma.wait_group.sync.aligned 1" in ptx
    assert "cp.async.bulk.tensor.2d" in ptx and "mbarrier.try_wait.parity" in ptx
    # ring of `stages` A and B slots (+ the accumulator's conversion scratch may reuse them)
    assert k.metadata.shared >= stages * (64 * 32 + 32 * 64) * 2
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("M,N,K", SHAPES + [(512, 512, 1024)])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_matmul_gpu(rng, M, N, K, dtype, stages):
    tdt = DTYPES[dtype][0]
    a = torch.from_numpy(rng.standard_normal((M, K)).astype(np.float32)).to(tdt).cuda()
    b = torch.from_numpy(rng.standard_normal((K, N)).astype(np.float32)).to(tdt).cuda()
    c = torch.empty(M, N, device="cuda")
    _launch(a, b, c, stages)
    torch.testing.assert_close(c, _mm(a, b), rtol=1e-3, atol=1e-2)
