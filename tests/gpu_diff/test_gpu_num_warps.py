"""num_warps 1, 2 and 8 (the other files launch with the default 4) on one representative
kernel of each family: elementwise, reductions along either axis, scans, layout changes
(trans, sort), atomics, histogram, gather, and the softmax and layer-norm examples.
Blocks both smaller and larger than the CTA's threads, so data is replicated or wrapped."""
import numpy as np
import pytest

import tritium as triton

from e2e import grid1, random_array
from harness import InOut, Out, assert_ref, assert_same, compare, run_both
from test_e2e_memory import atomic_kernel
from test_e2e_reduce import gather_kernel, histogram_kernel, reduce_2d, scan_kernel
from test_e2e_shape import shape_kernel
from test_gpu_examples import run_layer_norm, run_softmax
from vector_add import add_kernel

pytestmark = pytest.mark.gpu

WARPS = [1, 2, 8]


@pytest.mark.parametrize("nw", WARPS)
def test_vector_add(rng, nw):
    n = 3001
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = compare(add_kernel, (triton.cdiv(n, 1024),), x, y, Out(n, np.float32), n,
                       tol="arith", BLOCK_SIZE=1024, num_warps=nw)
    assert_ref(gpu[0], x + y)


@pytest.mark.parametrize("nw", WARPS)
@pytest.mark.parametrize("axis", [0, 1])
def test_sum_reduction(rng, axis, nw):
    M, N = 32, 64
    x = rng.standard_normal((M, N)).astype(np.float32)
    cpu, gpu = run_both(reduce_2d, (1,), x, Out(N if axis == 0 else M, np.float32), M, N,
                        OP="sum", AXIS=axis, KEEP=False, BM=M, BN=N, num_warps=nw)
    assert_same(cpu[0], gpu[0], kind="sum", n=x.shape[axis],
                scale=np.abs(x.astype(np.float64)).sum(axis))
    assert_ref(gpu[0], x.astype(np.float64).sum(axis), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nw", WARPS)
def test_cumsum(rng, nw):
    x = random_array(rng, "int32", (16, 64), -3, 3)
    cpu, gpu = compare(scan_kernel, (1,), x, Out((16, 64), np.int32), OP="cumsum", AXIS=1,
                       REV=False, M=16, N=64, num_warps=nw)
    assert_ref(gpu[0], np.cumsum(x, axis=1))


@pytest.mark.parametrize("nw", WARPS)
@pytest.mark.parametrize("op,M,N", [("trans", 32, 64), ("sort", 4, 64)])
def test_layout_changes(rng, op, M, N, nw):
    x = random_array(rng, "int32", (M, N), -1000, 1000)
    cpu, gpu = compare(shape_kernel, (1,), x, Out((N, M), np.int32), OP=op, M=M, N=N,
                       num_warps=nw)
    want = x.T if op == "trans" else np.sort(x, 1).reshape(N, M)
    assert_ref(gpu[0], want)


@pytest.mark.parametrize("nw", WARPS)
def test_atomic_add(rng, nw):
    n = 1000
    x = rng.integers(-100, 100, n).astype(np.int32)
    cpu, gpu = compare(atomic_kernel, grid1(n, 256), x, InOut(np.zeros(4, np.int32)), n,
                       OP="add", BLOCK=256, num_warps=nw)
    assert_ref(gpu[0], [x[i::4].sum() for i in range(4)])


@pytest.mark.parametrize("nw", WARPS)
def test_histogram(rng, nw):
    x = rng.integers(0, 64, 1024).astype(np.int32)
    cpu, gpu = compare(histogram_kernel, (1,), x, Out(64, np.int32), N=1024, BINS=64,
                       num_warps=nw)
    assert_ref(gpu[0], np.bincount(x, minlength=64))


@pytest.mark.parametrize("nw", WARPS)
def test_gather(rng, nw):
    x = rng.standard_normal((32, 64)).astype(np.float32)
    idx = rng.integers(0, 64, (32, 16)).astype(np.int32)
    cpu, gpu = compare(gather_kernel, (1,), x, idx, Out((32, 16), np.float32), M=32, N=64,
                       K=16, num_warps=nw)
    assert_ref(gpu[0], np.take_along_axis(x, idx, 1))


@pytest.mark.parametrize("nw", WARPS)
def test_fused_softmax(rng, nw):
    run_softmax(rng, 37, 781, num_warps=nw)


@pytest.mark.parametrize("nw", WARPS)
def test_layer_norm(rng, nw):
    run_layer_norm(rng, 23, 1500, num_warps=nw)
