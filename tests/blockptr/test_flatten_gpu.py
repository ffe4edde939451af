"""GPU: persistent matmuls whose tile loop is `tl.range(..., flatten=True)` (fused with the K
loop and pipelined across tiles: the next tile's loads issued under this tile's epilogue)
against torch: tutorial 09's TMA kernel and a cp.async pointer version, ragged M/N/K, K
below BLOCK_K, K = 0 (pointer version), more programs than tiles, every config of
bench_matmul.py's persistent rows."""
import pytest

import tritium as triton
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr.flatten_kernels import matmul_ptr_persistent, matmul_tma_persistent

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")


def _padded(rows, cols, fill=None):
    """A (rows, cols) fp16 view whose row stride is a multiple of 8 elements (TMA's 16-byte
    rule), so `cols` itself may be ragged; the padding holds NaN, which a read past the
    descriptor's shape would carry into the result."""
    full = torch.full((rows, triton.cdiv(cols, 8) * 8), float("nan"), dtype=torch.float16,
                      device="cuda")
    view = full[:, :cols]
    if fill is None:
        view.copy_(torch.randn(rows, cols, device="cuda"))
    return view


def _check(c, ref, K):
    torch.testing.assert_close(c.float(), ref, rtol=2e-2, atol=2e-2 * max(K, 1) ** 0.5)


CONFIGS = [(128, 128, 64, 4, 4), (128, 256, 64, 8, 3), (64, 64, 32, 4, 2)]
SHAPES = [(512, 512, 512), (1000, 744, 520), (200, 136, 40), (129, 264, 96), (64, 64, 8)]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("M,N,K", SHAPES)
@pytest.mark.parametrize("programs", ["sms", 3, 1000])
def test_tma_persistent_matmul(cfg, M, N, K, programs):
    BM, BN, BK, warps, stages = cfg
    a, b = _padded(M, K), _padded(N, K)
    c = _padded(M, N, fill=False)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    P = sms if programs == "sms" else programs
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    grid = (min(P, tiles) if programs == "sms" else P,)   # 1000: more programs than tiles
    matmul_tma_persistent[grid](TensorDescriptor.from_tensor(a, [BM, BK]),
                                TensorDescriptor.from_tensor(b, [BN, BK]),
                                TensorDescriptor.from_tensor(c, [BM, BN]), M, N, K,
                                BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                                GROUP_SIZE_M=8, NUM_SMS=grid[0], num_warps=warps,
                                num_stages=stages)
    _check(c, a.float() @ b.float().T, K)


@pytest.mark.parametrize("cfg", [(128, 128, 64, 4, 3), (64, 128, 32, 4, 4)],
                         ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("M,N,K", SHAPES + [(300, 200, 0), (77, 33, 13)])
@pytest.mark.parametrize("programs", [132, 5, 700])
def test_pointer_persistent_matmul(cfg, M, N, K, programs):
    BM, BN, BK, warps, stages = cfg
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda")
    matmul_ptr_persistent[(programs,)](a, b, c, M, N, K, *a.stride(), *b.stride(),
                                       *c.stride(), BM=BM, BN=BN, BK=BK, GROUP=8,
                                       NUM_PROGS=programs, num_warps=warps, num_stages=stages)
    _check(c, a.float() @ b.float(), K)


def test_flattened_matches_nested():
    """The same kernel with the fusion off (1 stage: the nest is left nested) gives the same
    sums, to an fp16 ulp: the fused loop only changes when loads are issued."""
    M, N, K = 520, 392, 328
    a, b = _padded(M, K), _padded(N, K)
    outs = []
    for stages in (1, 4):
        c = _padded(M, N, fill=False)
        matmul_tma_persistent[(7,)](TensorDescriptor.from_tensor(a, [128, 64]),
                                    TensorDescriptor.from_tensor(b, [128, 64]),
                                    TensorDescriptor.from_tensor(c, [128, 128]), M, N, K,
                                    BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                                    GROUP_SIZE_M=8, NUM_SMS=7, num_warps=4, num_stages=stages)
        outs.append(c.clone())
    torch.testing.assert_close(outs[1], outs[0], rtol=2e-3, atol=2e-3)
    _check(outs[1], a.float() @ b.float().T, K)
