"""Kernels the compiled path runs after rewriting a copy of their TTIR (native/prepare.py):
block pointers, tensor descriptors (host and device-side) and calls of `noinline`
functions. Each must compile (no evaluator fallback) and give the evaluator's results on
random data with ragged shapes; tests/blockptr checks the same kernels against numpy."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr.test_tensor_descriptor_host import _aligned


def _both_paths(monkeypatch, launch, outputs):
    """Run `launch()` compiled then evaluated, with `outputs` reset to the same random
    contents before each; returns the compiled kernel and both results."""
    start = [o.copy() for o in outputs]
    got = {}
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        for o, s in zip(outputs, start):
            o[...] = s
        k = launch()
        got[path] = [o.copy() for o in outputs]
        if path == "native":
            kernel = k
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    assert kernel.function.native(kernel.metadata) is not None, kernel.metadata.get(
        "cpu_fallback")
    return got["native"], got["evaluator"]


@triton.jit(noinline=True)
def _scaled_tile(p, s, BN: tl.constexpr):
    # A block pointer in and out of a non-inlined function.
    return tl.load(p, boundary_check=(0, 1), padding_option="zero") * s, tl.advance(p, (0, BN))


@triton.jit
def _row_sums(x_ptr, out_ptr, M, N, s, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        v, x = _scaled_tile(x, s, BN)
        acc += v
    o = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BM,), (BM,), (0,))
    tl.store(o, tl.sum(acc, axis=1), boundary_check=(0,))


@pytest.mark.parametrize("M,N,BM,BN", [(21, 50, 8, 16), (64, 64, 16, 32), (5, 130, 4, 64)])
def test_block_pointers_through_a_noinline_call(rng, monkeypatch, M, N, BM, BN):
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = rng.standard_normal(M).astype(np.float32)
    got, want = _both_paths(monkeypatch, lambda: _row_sums[(triton.cdiv(M, BM),)](
        x, out, M, N, 0.5, BM=BM, BN=BN), [out])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[0], 0.5 * x.sum(axis=1), rtol=1e-4, atol=1e-4)


@triton.jit
def _desc_add(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    dst.store([i, j], src.load([i, j]) * 2 + 1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int8"])
@pytest.mark.parametrize("shape,block", [((37, 48), (16, 8)), ((8, 80), (8, 32)),
                                         ((3, 48), (4, 32))])
def test_host_tensor_descriptors(rng, monkeypatch, dtype, shape, block):
    if dtype.startswith("int"):
        x = _aligned(rng.integers(-30, 30, shape).astype(dtype))
    else:
        x = _aligned(rng.standard_normal(shape).astype(dtype))
    y = _aligned(rng.standard_normal(shape).astype(dtype))
    if shape[1] * x.itemsize % 16:
        pytest.skip("a descriptor's strides must be 16-byte multiples")
    grid = (triton.cdiv(shape[0], block[0]), triton.cdiv(shape[1], block[1]))
    got, want = _both_paths(monkeypatch, lambda: _desc_add[grid](
        TensorDescriptor.from_tensor(x, list(block)), TensorDescriptor.from_tensor(y, list(block)),
        BM=block[0], BN=block[1]), [y])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[0], (x * 2 + 1).astype(dtype))


@triton.jit
def _device_desc(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    i = tl.program_id(0) * BM
    for j in range(0, tl.cdiv(N, BN) + 1):       # one block past the end: reads pad,
        v = src.load([i, j * BN])                # writes are dropped
        dst.store([i, j * BN], tl.where(v != v, -7.0, v - 1))


@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("M,N", [(21, 40), (16, 64), (9, 12)])
def test_device_side_tensor_descriptors(rng, monkeypatch, pad, M, N):
    x = _aligned(rng.standard_normal((M, N)).astype(np.float32))
    y = _aligned(rng.standard_normal((M, N)).astype(np.float32))
    got, want = _both_paths(monkeypatch, lambda: _device_desc[(triton.cdiv(M, 8),)](
        x, y, M, N, BM=8, BN=16, PAD=pad), [y])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[0], x - 1)
