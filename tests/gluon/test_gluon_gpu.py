"""GPU: the Gluon test kernels launched on the device against torch (and the same kernels'
CPU results), in the layouts the tests name."""
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

pytestmark = pytest.mark.gpu



def _cuda(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


@pytest.mark.parametrize("n,block,spt", [(1000, 256, 1), (4096, 512, 4), (77, 128, 2)])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16])
def test_binary(rng, n, block, spt, out_dtype):
    x = _cuda(rng.standard_normal(n).astype(np.float32))
    y = _cuda(rng.standard_normal(n).astype(np.float32))
    out = torch.empty(n, dtype=out_dtype, device="cuda")
    binary_kernel[(-(-n // block),)](x, y, out, n, BLOCK=block, layout=blocked_1d(spt))
    z = torch.where(x > y, x * y - 1.5, torch.maximum(x, y) / (y.abs() + 1))
    z = z + torch.exp(torch.minimum(x, torch.zeros_like(x))) + torch.sqrt(x.abs())
    tol = 1e-5 if out_dtype == torch.float32 else 2e-3
    torch.testing.assert_close(out.float(), z, rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
@pytest.mark.parametrize("M,N,BM,BN", [(32, 16, 32, 16), (50, 13, 16, 16), (64, 32, 32, 32)])
def test_tile_2d(rng, layout, M, N, BM, BN):
    x = _cuda(rng.standard_normal((M, N)).astype(np.float32))
    out = torch.empty_like(x)
    grid = -(-M // BM)
    rows = torch.empty(M, device="cuda")
    cols = torch.empty(grid * BN, device="cuda")
    tile_2d_kernel[(grid,)](x, out, rows, cols, M, N, N, BM=BM, BN=BN, layout=layout)
    torch.testing.assert_close(rows, x.sum(1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out, 2 * x + x.sum(1)[:, None], rtol=1e-5, atol=1e-5)
    for p in range(grid):
        torch.testing.assert_close(cols[p * BN:p * BN + N], x[p * BM:(p + 1) * BM].max(0).values)


@pytest.mark.parametrize("src,dst", [(LAYOUTS_2D[0], LAYOUTS_2D[1]), (LAYOUTS_2D[1], LAYOUTS_2D[2]),
                                     (LAYOUTS_2D[2], LAYOUTS_2D[0])])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float16])
def test_convert_layout(rng, src, dst, dtype):
    x = _cuda(rng.integers(-1000, 1000, (32, 16)).astype(np.float32)).to(dtype)
    out = torch.empty(16, 32, dtype=dtype, device="cuda")
    convert_kernel[(1,)](x, out, 32, 16, src, dst)
    torch.testing.assert_close(out, x.T + 1)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_permute_reshape_join_split(rng, layout):
    x = _cuda(rng.standard_normal((32, 16)).astype(np.float32))
    t = torch.empty(16, 32, device="cuda")
    r = torch.empty(32, 16, device="cuda")
    permute_reshape_kernel[(1,)](x, t, r, 32, 16, layout)
    torch.testing.assert_close(t, x.T)
    torch.testing.assert_close(r, x.reshape(-1, 2).flip(1).reshape(32, 16))


@pytest.mark.parametrize("chunks,unroll", [(7, 2), (8, 4)])
def test_loop(rng, chunks, unroll):
    x = _cuda(rng.standard_normal((chunks, 128)).astype(np.float32))
    out = torch.empty(128, device="cuda")
    loop_kernel[(1,)](x, out, chunks, 128, unroll, blocked_1d())
    ref = sum(x[c] * (c % unroll + 1) for c in range(chunks))
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_atomic_histogram(rng):
    v = _cuda(rng.integers(0, 10_000, 3000).astype(np.int32))
    hist = torch.zeros(16, dtype=torch.int32, device="cuda")
    atomic_kernel[(-(-3000 // 256),)](v, hist, 3000, 256, 16, blocked_1d())
    torch.testing.assert_close(hist, torch.bincount((v % 16).long(), minlength=16).int())


def test_auto_layout_and_num_warps(rng):
    x = _cuda(rng.standard_normal(128).astype(np.float32))
    out = torch.empty(128, device="cuda")
    auto_layout_kernel[(1,)](x, out, 128, blocked_1d())
    torch.testing.assert_close(out, x * 3)
    o = torch.empty(256, dtype=torch.int32, device="cuda")
    num_warps_kernel[(1,)](o, 256, num_warps=8)
    torch.testing.assert_close(o, torch.arange(256, dtype=torch.int32, device="cuda") + 8)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_reductions(rng, layout):
    M, N = 32, 16
    x = np.floor(rng.random((M, N)) * 100).astype(np.float32)
    out = torch.empty(1 + M + N, device="cuda")
    reduce_all_kernel[(1,)](_cuda(x), out, M, N, layout)
    o = out.cpu().numpy()
    np.testing.assert_allclose(o[0], x.sum(), rtol=1e-6)
    np.testing.assert_array_equal(o[1:1 + M], x.min(1))
    np.testing.assert_array_equal(o[1 + M:].astype(np.int64),
                                  np.bitwise_xor.reduce(x.astype(np.int32), axis=0))




@pytest.mark.parametrize("smem", SMEM_2D)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_smem_roundtrip(rng, smem, dtype):
    M, N = 32, 16
    x = _cuda(rng.integers(-500, 500, (M, N)).astype(np.float32)).to(dtype)
    out = torch.empty(M, N, dtype=dtype, device="cuda")
    outt = torch.empty(N, M, dtype=dtype, device="cuda")
    smem_roundtrip_kernel[(1,)](x, out, outt, M, N, LAYOUTS_2D[0], LAYOUTS_2D[1],
                                LAYOUTS_2D[2], smem)
    torch.testing.assert_close(out, 3 * x)
    torch.testing.assert_close(outt, 2 * x.T)


def test_smem_roundtrip_nvmma_fp16(rng):
    M, N = 32, 64
    x = _cuda(rng.standard_normal((M, N)).astype(np.float16))
    out = torch.empty(M, N, dtype=torch.float16, device="cuda")
    outt = torch.empty(N, M, dtype=torch.float16, device="cuda")
    smem_roundtrip_kernel[(1,)](x, out, outt, M, N, LAYOUTS_2D[0], LAYOUTS_2D[1],
                                LAYOUTS_2D[2], gl.NVMMASharedLayout(128, 16, 2))
    torch.testing.assert_close(out, 3 * x)
    torch.testing.assert_close(outt, 2 * x.T)


@pytest.mark.parametrize("tiles,slots", [(5, 3), (4, 2)])
def test_smem_ring(rng, tiles, slots):
    B = 128
    x = _cuda(rng.standard_normal((tiles, B)).astype(np.float32))
    out = torch.empty(tiles, B, device="cuda")
    half = torch.empty(tiles, B // 2, device="cuda")
    smem_ring_kernel[(1,)](x, out, half, tiles, B, slots, blocked_1d(),
                           gl.SwizzledSharedLayout(1, 1, 1, [0]))
    torch.testing.assert_close(out, torch.cat([torch.zeros_like(x[:1]), x[:-1]]))
    torch.testing.assert_close(half, x[:, B // 2:])


def test_smem_views(rng):
    x = _cuda(rng.standard_normal((32, 16)).astype(np.float32))
    flat = torch.empty(512, device="cuda")
    bits = torch.empty(32, 16, dtype=torch.int32, device="cuda")
    smem_views_kernel[(1,)](x, flat, bits, 32, 16, LAYOUTS_2D[0], blocked_1d(2))
    torch.testing.assert_close(flat, x.flatten())
    torch.testing.assert_close(bits, x.view(torch.int32))




@pytest.mark.parametrize("layout", list(OTHER_LAYOUTS.values()), ids=list(OTHER_LAYOUTS))
def test_convert_to_other_layouts(rng, layout):
    x = _cuda(rng.standard_normal((32, 16)).astype(np.float32))
    out = torch.empty(16, 32, device="cuda")
    convert_kernel[(1,)](x, out, 32, 16, LAYOUTS_2D[0], layout)
    torch.testing.assert_close(out, x.T + 1)


def test_misc(rng):
    x = _cuda((rng.standard_normal((32, 16)) * 3).astype(np.float32))
    out = torch.empty(5, 16, device="cuda")
    misc_kernel[(1,)](x, out, 32, 16, LAYOUTS_2D[0])
    torch.testing.assert_close(out[0], x.abs().max(0).values)
    torch.testing.assert_close(out[1], torch.cumsum(x, 1)[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out[2], x[1].clamp(-0.5, 0.5))
    torch.testing.assert_close(out[3], x[2] * 3 + 1)
    torch.testing.assert_close(out[4], 1 + x[3].int().float())


def test_ops_given_layouts(rng):
    N = 128
    x = _cuda(rng.standard_normal(N).astype(np.float32))
    idx = _cuda(rng.integers(0, 16, N).astype(np.int32))
    out = torch.empty(3 * N, device="cuda")
    hist = torch.empty(16, dtype=torch.int32, device="cuda")
    layout_keeping_kernel[(1,)](x, idx, out, hist, N, blocked_1d(2))
    torch.testing.assert_close(out[:N], x[idx.long()])
    torch.testing.assert_close(out[N:2 * N], x * x + x)
    torch.testing.assert_close(out[2 * N:], x.abs() ** 1.5, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(hist, torch.bincount(idx.long(), minlength=16).int())


@pytest.mark.parametrize("mask", ["true", "none", "scalar_value"])
def test_atomic_scalar_mask_and_value(rng, mask):
    x = _cuda(rng.integers(-50, 50, 256).astype(np.int32))
    start = _cuda(rng.integers(-50, 50, 256).astype(np.int32))
    out = start.clone()
    atomic_scalar_kernel[(1,)](x, out, 256, mask, blocked_1d(2))
    ref = {"true": start + x, "none": torch.maximum(start, x),
           "scalar_value": start + torch.where(torch.arange(256, device="cuda") < 128, 3, 0).int()}[mask]
    torch.testing.assert_close(out, ref.int(), atol=0, rtol=0)


@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_arg_reductions(rng, layout):
    M, N = 32, 16
    x = _cuda(rng.permutation(M * N).reshape(M, N).astype(np.float32))
    out = torch.empty(2 * M + N, device="cuda")
    arg_reduce_kernel[(1,)](x, out, M, N, layout)
    torch.testing.assert_close(out[:M], x.argmax(1).float())
    torch.testing.assert_close(out[M:2 * M], x.amax(1))
    torch.testing.assert_close(out[2 * M:], x.argmin(0).float())
