"""Gluon kernels on the CPU backend (layouts dropped) against numpy, on both CPU paths:
elementwise math in several layouts and dtypes, 2-D tiles built from SliceLayout aranges,
reductions into slice layouts, layout conversions, permute/reshape/join/split, loops,
atomics, AutoLayout and `num_warps()`; shared memory (buffers become values on the CPU):
allocation from a tensor, stores, loads in other layouts, permuted/reshaped/reinterpreted
views, rings of indexed slots carried through loops, slices."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from gluon_kernels import (LAYOUTS_2D, OTHER_LAYOUTS, SMEM_2D, arg_reduce_kernel, atomic_kernel,  # noqa: E402
                           atomic_scalar_kernel, auto_layout_kernel, binary_kernel, blocked_1d,
                           convert_kernel, loop_kernel, num_warps_kernel, misc_kernel,
                           permute_reshape_kernel, reduce_all_kernel, smem_ring_kernel,
                           smem_roundtrip_kernel, smem_views_kernel, tile_2d_kernel)
from gluon_kernels import layout_keeping_kernel  # noqa: E402
from tritium.experimental.gluon import language as gl  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")



def _binary_ref(x, y):
    x, y = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        z = np.where(x > y, x * y - 1.5, np.maximum(x, y) / (np.abs(y) + 1))
        return z + np.exp(np.minimum(x, 0)) + np.sqrt(np.abs(x))


@pytest.mark.parametrize("n,block,spt", [(1000, 256, 1), (4096, 512, 4), (77, 128, 2)])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16])
def test_binary(cpu_path, rng, n, block, spt, out_dtype):
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    out = torch.empty(n, dtype=out_dtype)
    binary_kernel[(-(-n // block),)](x, y, out, n, BLOCK=block, layout=blocked_1d(spt))
    ref = _binary_ref(x.numpy(), y.numpy())
    tol = 1e-5 if out_dtype == torch.float32 else 2e-3
    np.testing.assert_allclose(out.float().numpy(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
@pytest.mark.parametrize("M,N,BM,BN", [(32, 16, 32, 16), (50, 13, 16, 16), (64, 32, 32, 32)])
def test_tile_2d(cpu_path, rng, layout, M, N, BM, BN):
    x = torch.from_numpy(rng.standard_normal((M, N)).astype(np.float32))
    out = torch.empty_like(x)
    grid = -(-M // BM)
    rows, cols = torch.empty(M), torch.empty(grid * BN)
    tile_2d_kernel[(grid,)](x, out, rows, cols, M, N, N, BM=BM, BN=BN, layout=layout)
    xn = x.numpy()
    row_sum = xn.sum(1)
    np.testing.assert_allclose(rows.numpy(), row_sum, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.numpy(), 2 * xn + row_sum[:, None], rtol=1e-5, atol=1e-5)
    for p in range(grid):
        part = xn[p * BM:(p + 1) * BM]
        np.testing.assert_array_equal(cols.numpy()[p * BN:p * BN + N], part.max(0))


@pytest.mark.parametrize("src,dst", [(LAYOUTS_2D[0], LAYOUTS_2D[1]), (LAYOUTS_2D[1], LAYOUTS_2D[2]),
                                     (LAYOUTS_2D[2], LAYOUTS_2D[2])])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_convert_layout(cpu_path, rng, src, dst, dtype):
    x = torch.from_numpy(rng.integers(-1000, 1000, (32, 16)).astype(np.float32)).to(dtype)
    out = torch.empty(16, 32, dtype=dtype)
    convert_kernel[(1,)](x, out, 32, 16, src, dst)
    np.testing.assert_array_equal(out.numpy(), x.numpy().T + 1)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_permute_reshape_join_split(cpu_path, rng, layout):
    x = torch.from_numpy(rng.standard_normal((32, 16)).astype(np.float32))
    t, r = torch.empty(16, 32), torch.empty(32, 16)
    permute_reshape_kernel[(1,)](x, t, r, 32, 16, layout)
    np.testing.assert_array_equal(t.numpy(), x.numpy().T)
    np.testing.assert_array_equal(r.numpy(), x.numpy().reshape(-1, 2)[:, ::-1].reshape(32, 16))


@pytest.mark.parametrize("chunks,unroll", [(7, 2), (8, 4), (1, 1)])
def test_loop(cpu_path, rng, chunks, unroll):
    x = torch.from_numpy(rng.standard_normal((chunks, 128)).astype(np.float32))
    out = torch.empty(128)
    loop_kernel[(1,)](x, out, chunks, 128, unroll, blocked_1d())
    ref = sum(x.numpy()[c] * (c % unroll + 1) for c in range(chunks))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,bins", [(1000, 8), (3000, 16)])
def test_atomic_histogram(cpu_path, rng, n, bins):
    v = torch.from_numpy(rng.integers(0, 10_000, n).astype(np.int32))
    hist = torch.zeros(bins, dtype=torch.int32)
    atomic_kernel[(-(-n // 256),)](v, hist, n, 256, bins, blocked_1d())
    np.testing.assert_array_equal(hist.numpy(), np.bincount(v.numpy() % bins, minlength=bins))


def test_auto_layout(cpu_path, rng):
    x = torch.from_numpy(rng.standard_normal(128).astype(np.float32))
    out = torch.empty(128)
    auto_layout_kernel[(1,)](x, out, 128, blocked_1d())
    np.testing.assert_allclose(out.numpy(), x.numpy() * 3, rtol=1e-6)


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_num_warps(cpu_path, num_warps):
    out = torch.empty(256, dtype=torch.int32)
    num_warps_kernel[(1,)](out, 256, num_warps=num_warps)
    np.testing.assert_array_equal(out.numpy(), np.arange(256) + num_warps)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_reductions(cpu_path, rng, layout):
    M, N = 32, 16
    x = np.floor(rng.random((M, N)) * 100).astype(np.float32)
    out = torch.empty(1 + M + N)
    reduce_all_kernel[(1,)](torch.from_numpy(x), out, M, N, layout)
    o = out.numpy()
    np.testing.assert_allclose(o[0], x.sum(), rtol=1e-6)
    np.testing.assert_array_equal(o[1:1 + M], x.min(1))
    np.testing.assert_array_equal(o[1 + M:].astype(np.int64),
                                  np.bitwise_xor.reduce(x.astype(np.int32), axis=0))




@pytest.mark.parametrize("smem", SMEM_2D)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_smem_roundtrip(cpu_path, rng, smem, dtype):
    M, N = 32, 16
    x = torch.from_numpy(rng.integers(-500, 500, (M, N)).astype(np.float32)).to(dtype)
    out, outt = torch.empty(M, N, dtype=dtype), torch.empty(N, M, dtype=dtype)
    smem_roundtrip_kernel[(1,)](x, out, outt, M, N, LAYOUTS_2D[0], LAYOUTS_2D[1],
                                LAYOUTS_2D[2], smem)
    np.testing.assert_array_equal(out.numpy(), 3 * x.numpy())
    np.testing.assert_array_equal(outt.numpy(), 2 * x.numpy().T)


@pytest.mark.parametrize("tiles,slots", [(5, 3), (4, 2), (1, 3)])
def test_smem_ring(cpu_path, rng, tiles, slots):
    B = 128
    x = rng.standard_normal((tiles, B)).astype(np.float32)
    out, half = torch.empty(tiles, B), torch.empty(tiles, B // 2)
    smem_ring_kernel[(1,)](torch.from_numpy(x), out, half, tiles, B, slots, blocked_1d(),
                           gl.SwizzledSharedLayout(1, 1, 1, [0]))
    np.testing.assert_array_equal(out.numpy(), np.concatenate([np.zeros((1, B), np.float32),
                                                               x[:-1]]))
    np.testing.assert_array_equal(half.numpy(), x[:, B // 2:])


def test_smem_views(cpu_path, rng):
    x = rng.standard_normal((32, 16)).astype(np.float32)
    flat, bits = torch.empty(512), torch.empty(32, 16, dtype=torch.int32)
    smem_views_kernel[(1,)](torch.from_numpy(x), flat, bits, 32, 16, LAYOUTS_2D[0], blocked_1d(2))
    np.testing.assert_array_equal(flat.numpy(), x.reshape(-1))
    np.testing.assert_array_equal(bits.numpy(), x.view(np.int32))




@pytest.mark.parametrize("name", sorted(OTHER_LAYOUTS))
def test_convert_to_other_layouts(cpu_path, rng, name):
    x = torch.from_numpy(rng.standard_normal((32, 16)).astype(np.float32))
    out = torch.empty(16, 32)
    convert_kernel[(1,)](x, out, 32, 16, LAYOUTS_2D[0], OTHER_LAYOUTS[name])
    np.testing.assert_array_equal(out.numpy(), x.numpy().T + 1)


@pytest.mark.parametrize("layout", LAYOUTS_2D[:2])
def test_misc(cpu_path, rng, layout):
    x = (rng.standard_normal((32, 16)) * 3).astype(np.float32)
    out = torch.empty(5, 16)
    misc_kernel[(1,)](torch.from_numpy(x), out, 32, 16, layout)
    o = out.numpy()
    np.testing.assert_array_equal(o[0], np.abs(x).max(0))
    np.testing.assert_allclose(o[1], np.cumsum(x, 1)[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(o[2], np.clip(x[1], -0.5, 0.5))
    np.testing.assert_allclose(o[3], x[2] * 3 + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(o[4], 1 + x[3].astype(np.int32))


@pytest.mark.parametrize("spt", [1, 2, 4])
def test_ops_given_layouts(cpu_path, rng, spt):
    """gather, histogram, map_elementwise, libdevice and to_linear_layout in Gluon."""
    N = 128
    x = rng.standard_normal(N).astype(np.float32)
    idx = rng.integers(0, 16, N).astype(np.int32)
    out, hist = torch.empty(3 * N), torch.empty(16, dtype=torch.int32)
    layout_keeping_kernel[(1,)](torch.from_numpy(x), torch.from_numpy(idx), out, hist, N,
                                blocked_1d(spt))
    o = out.numpy()
    np.testing.assert_array_equal(o[:N], x[idx])
    np.testing.assert_allclose(o[N:2 * N], x * x + x, rtol=1e-6)
    np.testing.assert_allclose(o[2 * N:], np.abs(x) ** 1.5, rtol=1e-5)
    np.testing.assert_array_equal(hist.numpy(), np.bincount(idx, minlength=16))


@pytest.mark.parametrize("mask", ["true", "none", "scalar_value"])
def test_atomic_scalar_mask_and_value(cpu_path, rng, mask):
    x = torch.from_numpy(rng.integers(-50, 50, 256).astype(np.int32))
    start = rng.integers(-50, 50, 256).astype(np.int32)
    out = torch.from_numpy(start.copy())
    atomic_scalar_kernel[(1,)](x, out, 256, mask, blocked_1d(2))
    ref = {"true": start + x.numpy(), "none": np.maximum(start, x.numpy()),
           "scalar_value": start + np.where(np.arange(256) < 128, 3, 0)}[mask]
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_arg_reductions(cpu_path, rng, layout):
    M, N = 32, 16
    x = rng.permutation(M * N).reshape(M, N).astype(np.float32)   # distinct: one argmax
    out = torch.empty(2 * M + N)
    arg_reduce_kernel[(1,)](torch.from_numpy(x), out, M, N, layout)
    o = out.numpy()
    np.testing.assert_array_equal(o[:M], x.argmax(1))
    np.testing.assert_array_equal(o[M:2 * M], x.max(1))
    np.testing.assert_array_equal(o[2 * M:], x.argmin(0))
