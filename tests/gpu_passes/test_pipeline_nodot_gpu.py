"""GPU: dot-less loops with an explicit num_stages, their loads pipelined through cp.async
rings (pipeline_nodot.py; IR and PTX in test_pipeline_nodot.py), against torch: a row
reduction over dtypes, ragged shapes and stage counts 1-5, the test_hooks kernel, and
upstream's test_hooks itself (100 stages of a 4096-float block: OutOfResources, skipped by
the autotuner; the 32-float config runs)."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tritium  # noqa: E402
from nodot_kernels import hooks_kernel, row_sum_kernel  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("M,N", [(256, 4096), (333, 1000), (64, 64), (7, 3)])
@pytest.mark.parametrize("cfg", [(16, 64, 4), (32, 128, 8)])
def test_row_sum_matches_torch(stages, dtype, M, N, cfg):
    BM, BN, warps = cfg
    g = torch.Generator(device="cuda").manual_seed(M * 7 + N + stages)
    x = torch.randn((M, N), device="cuda", generator=g).to(getattr(torch, dtype))
    y = torch.empty(M, device="cuda", dtype=torch.float32)
    row_sum_kernel[(tritium.cdiv(M, BM),)](x, y, M, N, x.stride(0), BLOCK_M=BM, BLOCK_N=BN,
                                           STAGES=stages, num_warps=warps)
    ref = x.double().sum(1).float()
    torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("stages,block", [(3, 256), (100, 32), (4, 4096)])
def test_hooks_kernel_copies_back(stages, block):
    src = torch.randn(4096, device="cuda")
    ref = src.clone()
    hooks_kernel[(1,)](src, 4096, N_STAGES=stages, BLOCK_SIZE=block)
    assert torch.equal(src, ref)


def test_upstream_test_hooks():
    """upstream's runtime/test_autotuner.py::test_hooks (its kernel is hooks_kernel), as a
    CUDA device sees it."""
    values = {"counter": 0, "has_exception": False}

    def pre_hook(*args, **kwargs):
        values["counter"] += 1

    def post_hook(*args, exception):
        values["counter"] -= 1
        if exception is not None:
            values["has_exception"] = True
        assert values["counter"] == 0

    configs = [tritium.Config(kwargs={"BLOCK_SIZE": 4096}), tritium.Config(kwargs={"BLOCK_SIZE": 32})]

    _kernel = tritium.autotune(configs=configs, key=["N"], pre_hook=pre_hook,
                               post_hook=post_hook)(tritium.heuristics(
        {"N_STAGES": lambda nargs: 100 if nargs["N"] == 4096 else 4})(hooks_kernel))

    src = torch.randn(4096, device="cuda")
    ref = src.clone()
    _kernel[(1,)](src, 4096)
    assert values["has_exception"] is True
    assert torch.equal(src, ref)
