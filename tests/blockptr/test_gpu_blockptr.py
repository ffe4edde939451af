"""On the GPU (skipped without one): block-pointer and tensor-descriptor kernels, lowered by
rewrite-tensor-pointer / rewrite-tensor-descriptor-to-pointer, give what numpy gives."""
import numpy as np
import pytest

import tritium as triton
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr import test_block_ptr_cpu as K
from tests.blockptr import test_tensor_descriptor_cpu as D

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

_TORCH = {"float32": torch.float32, "float16": torch.float16, "int32": torch.int32,
          "int16": torch.int16}


def _rand(rng, dtype, shape):
    if dtype.startswith("int"):
        a = rng.integers(-100, 100, shape).astype(dtype)
    else:
        a = rng.uniform(-4, 4, shape).astype(dtype)
    return torch.from_numpy(a).cuda()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("order", [(1, 0), (0, 1)])
def test_block_ptr_scale_2d(rng, dtype, order):
    M, N = 77, 45
    x = _rand(rng, dtype, (M, N))
    if order == (0, 1):
        x = x.t().contiguous().t()
    y = torch.zeros_like(x)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 16))
    K._scale_2d[grid](x, y, M, N, *x.stride(), *y.stride(), BM=32, BN=16, ORDER=order,
                      PAD="zero")
    torch.testing.assert_close(y.cpu(), (x + x).cpu(), rtol=0, atol=0)


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_block_ptr_padding_window(rng, pad):
    x = _rand(rng, "float32", (17, 19))
    out = torch.zeros(8, 16, device="cuda")
    K._load_at[(1,)](x, out, 17, 19, -3, 5, BM=8, BN=16, PAD=pad, CHECK=(0, 1))
    ref = K._window(x.cpu().numpy(), -3, 5, 8, 16, np.nan if pad == "nan" else 0.0)
    np.testing.assert_array_equal(out.cpu().numpy().astype(np.float64), ref)


def test_block_ptr_advance_loop_and_3d(rng):
    x = _rand(rng, "float32", (33, 70))
    out = torch.zeros(33, device="cuda")
    K._row_sums[(triton.cdiv(33, 8),)](x, out, 33, 70, BM=8, BN=16)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-4)
    z = _rand(rng, "int16", (5, 7, 11))
    w = torch.zeros_like(z)
    K._copy_3d[(3, 2, 2)](z, w, 5, 7, 11, *z.stride(), BA=2, BB=4, BC=8)
    assert torch.equal(w, z - 1)


@pytest.mark.parametrize("dtype,block", [("float32", (16, 8)), ("float16", (8, 16))])
def test_descriptor_copy(rng, dtype, block):
    x = _rand(rng, dtype, (37, 48))
    y = torch.zeros_like(x)
    grid = (triton.cdiv(37, block[0]), triton.cdiv(48, block[1]))
    D._copy_2d[grid](TensorDescriptor.from_tensor(x, block), TensorDescriptor.from_tensor(y, block),
                     BM=block[0], BN=block[1])
    assert torch.equal(y, x + 1)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_descriptor_out_of_bounds(rng, padding):
    x = _rand(rng, "float32", (9, 24))
    out = torch.zeros(8, 16, device="cuda")
    D._window[(1,)](TensorDescriptor.from_tensor(x, [8, 16], padding=padding), out, 5, 20,
                    BM=8, BN=16)
    ref = D._ref_window(x.cpu().numpy(), 5, 20, 8, 16, np.nan if padding == "nan" else 0.0)
    np.testing.assert_array_equal(out.cpu().numpy().astype(np.float64), ref)


def test_device_descriptor_and_atomics(rng):
    M, N = 21, 40
    x = _rand(rng, "float32", (M, N))
    y = torch.full((M + 1, N), 99.0, device="cuda")
    shape = torch.zeros(4, dtype=torch.int64, device="cuda")
    D._device_desc[(triton.cdiv(M, 8),)](x, y, shape, M, N, BM=8, BN=16, PAD="nan")
    assert torch.equal(y[:M], x) and bool((y[M] == -7.0).all())
    target = torch.zeros(6, 16, device="cuda")
    vals = _rand(rng, "float32", (3, 4, 8))
    D._reduce[(3,)](TensorDescriptor(target, [6, 9], [16, 1], [4, 8]), vals, WHICH="add",
                    BM=4, BN=8)
    ref = torch.zeros(6, 16)
    ref[1:5, 2:9] = vals.cpu().sum(0)[:, :7]
    torch.testing.assert_close(target.cpu(), ref, rtol=1e-5, atol=1e-5)
