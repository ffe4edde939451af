"""`triton.tools.ragged_tma`: ragged descriptors read and write exactly one subarray, with
everything outside it read as zero and left unwritten (CPU backend; GPU under `gpu`)."""
import pytest
import torch

import tritium
import tritium.language as tl
from tritium.tools.ragged_tma import create_ragged_descriptor, load_ragged, store_ragged

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@tritium.jit
def copy_ragged_2d(src, dst, off, size, BM: tl.constexpr):
    row = tl.program_id(0) * BM
    tile = load_ragged(src, off, size, [row, 0])
    store_ragged(dst, off, size, [row, 0], tile * 2 + 1)


@tritium.jit
def copy_ragged_3d(src, dst, off, size, BM: tl.constexpr):
    # ragged along dimension 1: coordinates (batch, row, column)
    row = tl.program_id(0) * BM
    tile = load_ragged(src, off, size, [tl.program_id(1), row, 0], ragged_dim=1)
    store_ragged(dst, off, size, [tl.program_id(1), row, 0], tile * 2 + 1, ragged_dim=1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("write_only", [False, True])
def test_ragged_2d(rng, device, write_only):
    torch.manual_seed(int(rng.integers(2**31)))
    rows = int(rng.integers(40, 120))
    off = int(rng.integers(0, rows // 2))
    size = int(rng.integers(1, rows - off + 1))
    src_t = torch.randn(rows, 32, device=device)
    dst_t = torch.zeros(rows, 32, device=device)
    src = create_ragged_descriptor(src_t, [16, 32])
    dst = create_ragged_descriptor(dst_t, [16, 32], write_only=write_only)
    copy_ragged_2d[(tritium.cdiv(size, 16), )](src, dst, off, size, 16)
    expect = torch.zeros_like(dst_t)
    expect[off:off + size] = src_t[off:off + size] * 2 + 1
    torch.testing.assert_close(dst_t, expect, atol=0, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_ragged_3d_inner_dim(rng, device):
    torch.manual_seed(int(rng.integers(2**31)))
    off, size = int(rng.integers(0, 20)), int(rng.integers(1, 30))
    src_t = torch.randn(3, 50, 16, device=device)
    dst_t = torch.zeros_like(src_t)
    src = create_ragged_descriptor(src_t, [1, 16, 16], ragged_dim=1)
    dst = create_ragged_descriptor(dst_t, [1, 16, 16], ragged_dim=1)
    copy_ragged_3d[(tritium.cdiv(size, 16), 3)](src, dst, off, size, 16)
    expect = torch.zeros_like(dst_t)
    expect[:, off:off + size] = src_t[:, off:off + size] * 2 + 1
    torch.testing.assert_close(dst_t, expect, atol=0, rtol=0)


def test_bad_ragged_descriptors():
    t = torch.zeros(8, 16)
    with pytest.raises(ValueError, match="the last cannot be ragged"):
        create_ragged_descriptor(t, [8, 16], ragged_dim=-1)
    with pytest.raises(ValueError, match="at most 3 dimensions, T has 4"):
        create_ragged_descriptor(torch.zeros(2, 2, 8, 16), [1, 1, 8, 16])
    with pytest.raises(ValueError, match="must have T's rank 2"):
        create_ragged_descriptor(t, [16])
