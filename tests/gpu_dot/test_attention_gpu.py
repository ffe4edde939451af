"""Fused attention forward (two chained dots, P from registers) on the H100 against torch's
scaled_dot_product_attention in float32, causal and not, head dims 64 and 128, ragged
sequence lengths."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from attn_kernels import attn_fwd  # noqa: E402
import tritium as triton  # noqa: E402

pytestmark = pytest.mark.gpu


def run_attn(Z, N, D, causal, BM, BN, warps, stages, dtype=torch.float16, seed=0):
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn((Z, N, D), generator=gen).to(dtype).cuda() for _ in range(3))
    o = torch.full_like(q, float("nan"))
    scale = D ** -0.5
    attn_fwd[(triton.cdiv(N, BM), Z)](q, k, v, o, scale, N, q.stride(0), q.stride(1),
                                      HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal,
                                      num_warps=warps, num_stages=stages)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                           is_causal=causal, scale=scale)
    return o, ref


@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("N", [256, 333])
@pytest.mark.parametrize("cfg", [(128, 64, 4, 3), (64, 32, 4, 2), (128, 128, 8, 3)])
def test_attention_matches_sdpa(D, causal, N, cfg):
    BM, BN, warps, stages = cfg
    o, ref = run_attn(2, N, D, causal, BM, BN, warps, stages, seed=N * D + causal)
    assert not torch.isnan(o).any()
    err = ((o.float() - ref).norm() / ref.norm()).item()
    assert err < 5e-3, err
