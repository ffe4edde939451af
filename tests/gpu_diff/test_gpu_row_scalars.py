"""A loop that reads a row's scalars (mean, rstd: Xx1 loads) beside the row (Inductor's
layer-norm backward): GPU vs the CPU backend vs numpy, at block shapes where the scalars'
layouts used to spread into the rows (tests/gpu_passes/test_tiny_load_layouts.py), with a
ragged last program."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from harness import Out, assert_ref, run_both  # noqa: E402
from tests.gpu_passes.row_kernels import norm_bwd_rows  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("R,XBLOCK,num_warps", [(1024, 1, 4), (512, 2, 1), (256, 4, 4),
                                                (128, 8, 8)])
def test_norm_backward_rows(R, XBLOCK, num_warps):
    rng = np.random.default_rng(R + XBLOCK)
    n_rows, split = 40, 16                       # programs of 16, 16 and 8 rows
    grid = (n_rows + split - 1) // split
    dy = rng.standard_normal((n_rows, R)).astype(np.float16)
    w = rng.standard_normal(R).astype(np.float16)
    x = rng.standard_normal((n_rows, R)).astype(np.float16)
    mean = x.astype(np.float32).mean(1)
    rstd = (1.0 / np.sqrt(x.astype(np.float32).var(1) + 1e-5)).astype(np.float32)
    # (dx cancels: g*R - s1 - xhat*s2 is small against its terms, so the two sides' sums in
    # different orders agree to a tolerance of the terms' size, not of dx's own)
    cpu, gpu = run_both(norm_bwd_rows, (grid,), dy, w, x, mean, rstd,
                        Out((n_rows, R), np.float16), Out((2 * grid, R), np.float32), n_rows,
                        R=R, XBLOCK=XBLOCK, SPLIT=split, num_warps=num_warps)
    assert_ref(gpu[0].astype(np.float32), cpu[0].astype(np.float32), rtol=1e-2, atol=1e-2)
    assert_ref(gpu[1], cpu[1], rtol=1e-4, atol=1e-3)
    g = dy.astype(np.float32) * w.astype(np.float32)
    xhat = (x.astype(np.float32) - mean[:, None]) * rstd[:, None]
    dx = (rstd[:, None] / R) * (g * R - g.sum(1, keepdims=True) - xhat * (g * xhat).sum(1, keepdims=True))
    assert_ref(gpu[0].astype(np.float32), dx, rtol=2e-2, atol=2e-2)
    ws = gpu[1].reshape(2, grid, R).sum(1)
    assert_ref(ws[0], (dy.astype(np.float32) * xhat).sum(0), rtol=1e-3, atol=1e-2)
    assert_ref(ws[1], dy.astype(np.float32).sum(0), rtol=1e-3, atol=1e-2)
