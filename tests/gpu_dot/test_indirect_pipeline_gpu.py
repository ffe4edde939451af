"""Tiles found through an index table read in the loop, on the H100 against torch (float64
references on the same rounded inputs), at num_stages 1 to 4: a block-sparse matmul (the
table names each iteration's K block) and flex attention's block walk (a carried KV offset
moved by table reads at the end of each iteration, K transposed into the dot). With N and K
multiples of 16 the tiles ride cp.async rings with the table reads running ahead (see
test_indirect_pipeline.py for the IR); ragged shapes and empty block lists stay correct."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from indirect_kernels import (rel_err, run_attn, run_bsr, run_matmul_bt,  # noqa: E402
                              run_tma_bsr, run_walk)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(256, 256, 1024), (333, 200, 1000)])
@pytest.mark.parametrize("cfg", [(128, 128, 64, 4), (64, 64, 32, 4), (128, 64, 32, 8)])
@pytest.mark.parametrize("max_nnz", [0, 1, 3, 32])
def test_bsr_matmul_matches_torch(stages, dtype, shape, cfg, max_nnz):
    M, N, K = shape
    BM, BN, BK, warps = cfg
    c, ref = run_bsr(torch, "cuda", M, N, K, BM, BN, BK, max_nnz, getattr(torch, dtype),
                     seed=M + K + max_nnz + stages, warps=warps, stages=stages)
    assert not torch.isnan(c).any()
    err = rel_err(torch, c, ref)
    assert err < 1e-3, err


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("shape", [(256, 256, 1024), (333, 200, 1000)])
@pytest.mark.parametrize("cfg", [(128, 128, 64, 4), (128, 64, 32, 8)])
@pytest.mark.parametrize("max_nnz", [1, 32])
def test_bsr_matmul_pointer_walk_matches_torch(stages, shape, cfg, max_nnz):
    """The table read through a pointer carried and bumped each iteration (in place, D
    ahead), the index load one iteration before its copies."""
    M, N, K = shape
    BM, BN, BK, warps = cfg
    c, ref = run_bsr(torch, "cuda", M, N, K, BM, BN, BK, max_nnz, torch.float16,
                     seed=M + max_nnz + stages, warps=warps, stages=stages, walk_ptr=True)
    assert not torch.isnan(c).any()
    assert rel_err(torch, c, ref) < 1e-3


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("N_CTX", [512, 333])
@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("cfg", [(128, 64, 4), (64, 32, 4), (128, 128, 8)])
@pytest.mark.parametrize("max_blocks", [1, 3, 16])
def test_block_attention_matches_torch(stages, N_CTX, D, cfg, max_blocks):
    BM, BN, warps = cfg
    o, ref, num = run_attn(torch, "cuda", 2, N_CTX, D, BM, BN, max_blocks, torch.float16,
                           seed=N_CTX * D + max_blocks + stages, warps=warps, stages=stages)
    assert not torch.isnan(o).any()
    err = rel_err(torch, o, ref)
    assert err < 5e-3, err
    empty = [(z, r) for z in range(num.shape[0]) for r in range(num.shape[1]) if num[z, r] == 0]
    for z, r in empty:  # a row block with no KV blocks writes zeros
        assert (o[z, r * BM:(r + 1) * BM] == 0).all()


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("K", [1, 2, 7])
def test_pointers_read_after_a_pipelined_loop(stages, K):
    """The loop's carried pointers, read after it, are the loop's own (not D steps ahead)."""
    out, last, ref, ref_last = run_walk(torch, "cuda", K, 64, 64, seed=K + stages,
                                        stages=stages)
    assert rel_err(torch, out, ref) < 1e-3
    assert torch.equal(last, ref_last)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("shape", [(256, 256, 1024), (333, 200, 1000)])
@pytest.mark.parametrize("max_nnz", [0, 1, 3, 32])
def test_tma_bsr_matmul_matches_torch(stages, shape, max_nnz):
    """The same through tensor descriptors (TMA rings, coordinates from the table)."""
    M, N, K = shape
    c, ref = run_tma_bsr(torch, "cuda", M, N, K, 128, 128, 64, max_nnz,
                         seed=M + max_nnz + stages, stages=stages)
    assert not torch.isnan(c).any()
    assert rel_err(torch, c, ref) < 1e-3


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(256, 256, 512), (200, 136, 1000)])
@pytest.mark.parametrize("cfg", [(128, 128, 64, 4), (64, 32, 64, 4), (128, 256, 64, 8)])
def test_transposed_operand_matches_torch(stages, dtype, shape, cfg):
    """B loaded [N, K] and transposed in the kernel (a cp.async ring as loaded, the dot
    reading a transposed view)."""
    M, N, K = shape
    BM, BN, BK, warps = cfg
    c, ref = run_matmul_bt(torch, "cuda", M, N, K, BM, BN, BK, getattr(torch, dtype),
                           seed=M + K + stages, warps=warps, stages=stages)
    assert not torch.isnan(c).any()
    assert rel_err(torch, c, ref) < 1e-3
