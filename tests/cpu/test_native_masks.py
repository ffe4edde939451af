"""The compiled path tests a block's mask once to take unmasked SIMD code for full blocks
(native/memory.py `all_true`): through broadcasts and `&`, and `offs < n` by its last
element when AxisInfo proves `offs` consecutive. Ragged, negative, unsigned and
data-dependent masks on random data must still give numpy's results."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@pytest.fixture(autouse=True)
def native(monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")


@triton.jit
def _shifted(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) - shift
    m = (offs >= 0) & (offs < n)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m, other=0.0) * 3, mask=m)


@pytest.mark.parametrize("n,shift", [(1000, 0), (1000, 7), (256, 0), (255, 100), (3, 1)])
def test_consecutive_offsets_with_negative_and_ragged_ends(rng, n, shift):
    G = 128                                         # guard elements on both sides
    x = rng.standard_normal(n).astype(np.float32)
    backing = np.full(n + 2 * G, -5.0, np.float32)
    out = backing[G:G + n]
    k = _shifted[(triton.cdiv(n + shift, 64),)](x, out, n, shift, BLOCK=64)
    assert k.function.native(k.metadata) is not None
    np.testing.assert_array_equal(out, x * 3)
    assert (backing[:G] == -5.0).all() and (backing[G + n:] == -5.0).all()


@triton.jit
def _unsigned(x_ptr, out_ptr, n, base, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) + base                  # may start negative
    m = offs.to(tl.uint32) < n                         # negative: huge unsigned, masked off
    safe = tl.where(m, offs, 0)
    tl.store(out_ptr + safe, tl.load(x_ptr + safe, mask=m) + 1, mask=m)


@pytest.mark.parametrize("base", [-3, 0, 5])
def test_unsigned_mask_is_checked_element_by_element(rng, base):
    n = 40
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    _unsigned[(1,)](x, out, n, base, BLOCK=64)
    idx = np.arange(64) + base
    keep = (idx >= 0) & (idx < n)
    want = np.zeros(n, np.float32)
    want[idx[keep]] = x[idx[keep]] + 1
    np.testing.assert_array_equal(out, want)


@triton.jit
def _tile(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m, other=-1.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.where(x > 0, x, 0.0), mask=m)


@pytest.mark.parametrize("M,N", [(64, 64), (65, 64), (64, 33), (7, 5)])
def test_broadcast_and_mask_on_ragged_tiles(rng, M, N):
    x = rng.standard_normal((M, N)).astype(np.float32)
    backing = np.full(M * N + 64 * 64, -5.0, np.float32)
    out = backing[:M * N].reshape(M, N)
    _tile[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, out, M, N, BM=32, BN=32)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    assert (backing[M * N:] == -5.0).all()


@triton.jit
def _by_data(x_ptr, keep_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = tl.load(keep_ptr + offs) != 0                  # a mask read from memory
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m, other=5.0), mask=m)


def test_mask_read_from_memory(rng):
    x = rng.standard_normal(128).astype(np.float32)
    keep = (rng.random(128) < 0.5).astype(np.int32)
    out = np.full(128, 9.0, np.float32)
    _by_data[(1,)](x, keep, out, BLOCK=128)
    np.testing.assert_array_equal(out, np.where(keep != 0, x, 9.0))
