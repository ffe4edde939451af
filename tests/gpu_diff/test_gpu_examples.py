"""The examples' kernels (examples/*.py) on the GPU vs the CPU backend and NumPy: vector add
over block sizes from 1 to 4096 with ragged ends, fused softmax, layer norm, seeded dropout;
matmul needs tl.dot, not lowered for the GPU yet."""
import numpy as np
import pytest

import tritium as triton

from harness import Out, assert_ref, assert_same, compare, run_both
from fused_softmax import softmax_kernel
from layer_norm import _layer_norm_fwd_fused
from low_memory_dropout import _seeded_dropout
from matmul import matmul_kernel
from vector_add import add_kernel

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("block,n", [(1, 7), (16, 37), (128, 1000), (1024, 98432), (1024, 3001),
                                     (4096, 3 * 4096 + 5)])
def test_vector_add(rng, block, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = compare(add_kernel, (triton.cdiv(n, block),), x, y, Out(n, np.float32), n,
                       tol="arith", BLOCK_SIZE=block)
    assert_ref(gpu[0], x + y)


def softmax_ref(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def run_softmax(rng, rows, cols, **meta):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    cpu, gpu = run_both(softmax_kernel, (rows,), Out((rows, cols), np.float32), x, cols, cols,
                        cols, BLOCK_SIZE=triton.next_power_of_2(cols), **meta)
    # exp is ex2.approx, the row sum adds in a tree, the division is div.full.f32.
    assert_same(cpu[0], gpu[0], kind="sum", n=cols)
    assert_ref(gpu[0], softmax_ref(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows,cols", [(137, 781), (64, 100), (3, 2048)])
def test_fused_softmax(rng, rows, cols):
    run_softmax(rng, rows, cols)


def layer_norm_ref(x, w, b, eps):
    xd = x.astype(np.float64)
    mean = xd.mean(1)
    var = xd.var(1)
    rstd = 1 / np.sqrt(var + eps)
    return (xd - mean[:, None]) * rstd[:, None] * w + b, mean, rstd


def run_layer_norm(rng, M, N, **meta):
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.random(N).astype(np.float32)
    b = rng.random(N).astype(np.float32)
    block = min(1024, triton.next_power_of_2(N))
    cpu, gpu = run_both(_layer_norm_fwd_fused, (M,), x, Out((M, N), np.float32), w, b,
                        Out(M, np.float32), Out(M, np.float32), N, N, 1e-5, BLOCK_SIZE=block,
                        **meta)
    # Mean and variance are N-term sums (another order on the GPU); y and rstd inherit it.
    for i, name in enumerate(["y", "mean", "rstd"]):
        assert_same(cpu[i], gpu[i], kind="sum", n=N, scale=np.ones_like(cpu[i]), err_msg=name)
    y, mean, rstd = layer_norm_ref(x, w, b, 1e-5)
    assert_ref(gpu[0], y, rtol=1e-4, atol=1e-4)
    assert_ref(gpu[1], mean, rtol=1e-5, atol=1e-6)
    assert_ref(gpu[2], rstd, rtol=1e-4)


@pytest.mark.parametrize("M,N", [(151, 1500), (4, 100)])
def test_layer_norm(rng, M, N):
    run_layer_norm(rng, M, N)


@pytest.mark.parametrize("p,seed", [(0.5, 123), (0.25, 2 ** 35 + 7)])
def test_seeded_dropout(rng, p, seed):
    n = 10_000
    x = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = run_both(_seeded_dropout, (triton.cdiv(n, 1024),), x, Out(n, np.float32), n, p,
                        seed, BLOCK_SIZE=1024)
    np.testing.assert_array_equal(cpu[0] == 0, gpu[0] == 0)  # the same mask, bit for bit
    assert_same(cpu[0], gpu[0], kind="div")                  # x / (1 - p): div.full.f32
    kept = gpu[0] != 0
    assert_ref(gpu[0][kept], x[kept] / np.float32(1 - p), rtol=1e-6)
    assert abs(kept.mean() - (1 - p)) < 0.05


def test_matmul(rng):
    M, N, K = 96, 80, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    B = 32
    grid = (triton.cdiv(M, B) * triton.cdiv(N, B),)
    cpu, gpu = run_both(matmul_kernel, grid, a, b, Out((M, N), np.float16), M, N, K, K, 1, N, 1,
                        N, 1, BLOCK_SIZE_M=B, BLOCK_SIZE_N=B, BLOCK_SIZE_K=B, GROUP_SIZE_M=8)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # fp16 inputs, fp32 accumulation in another order, one rounding to fp16.
    assert_same(cpu[0], gpu[0], kind="sum", n=K,
                scale=np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert_ref(gpu[0], ref, rtol=2e-3, atol=2e-2)
