"""Streaming (non-temporal) stores on the compiled path (native/stream.py): a launch that
stores more than TRITIUM_CPU_STREAM_BYTES through a full contiguous block writes it with
aligned non-temporal vector stores. The knob forces the choice either way here (1: every
eligible store streams, -1: none does); results must match numpy on random data, ragged
last blocks, misaligned rows and strided tiles alike."""
import platform

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

X86 = platform.machine() in ("x86_64", "AMD64")


@pytest.fixture
def native(monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, (x * a + y).to(out_ptr.dtype.element_ty), mask=m)


@pytest.mark.parametrize("dt", ["float32", "float16", "float64", "int8", "int64"])
@pytest.mark.parametrize("n,block", [(5000, 1024), (4096, 512), (77, 256), (70000, 4096)])
def test_elementwise_store_streams_or_not_same_result(rng, monkeypatch, native, dt, n, block):
    """The knob is read at launch: the same kernel runs both ways, bit for bit the same."""
    if dt.startswith("int"):
        x, y = (rng.integers(-50, 50, n).astype(dt) for _ in range(2))
        a, want, tol = 3, (x.astype(np.int64) * 3 + y).astype(dt), 0
    else:
        x, y = (rng.standard_normal(n).astype(dt) for _ in range(2))
        a, want = 1.5, x.astype(np.float64) * 1.5 + y
        tol = 2e-3 if dt == "float16" else 1e-6
    outs = []
    for stream in ("1", "-1"):
        monkeypatch.setenv("TRITIUM_CPU_STREAM_BYTES", stream)
        out = rng.standard_normal(n).astype(dt)           # stale contents, overwritten
        k = axpy_kernel[(triton.cdiv(n, block),)](x, y, out, n, a, BLOCK=block)
        assert k.function.native(k.metadata) is not None
        np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    if X86 and block * x.itemsize >= 1024:
        assert "movnt" in k.asm["asm"]                  # the streaming copy was compiled


@triton.jit
def tile_kernel(x_ptr, out_ptr, M, N, sx, so, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sx + rn[None, :], mask=m, other=0.0)
    tl.store(out_ptr + rm[:, None] * so + rn[None, :], tl.exp(x) - x, mask=m)


@pytest.mark.parametrize("stream", ["1", "-1"])
@pytest.mark.parametrize("M,N,pad,shift", [(128, 256, 0, 0), (100, 200, 16, 0),
                                           (64, 128, 3, 0), (96, 256, 0, 1)])
def test_tile_rows_stream_into_strided_and_misaligned_outputs(rng, monkeypatch, native,
                                                               stream, M, N, pad, shift):
    """Rows of a 2-D tile stream one by one; a row stride that breaks alignment (pad 3) or a
    base that is not vector-aligned (shift 1) takes the plain stores, same result."""
    monkeypatch.setenv("TRITIUM_CPU_STREAM_BYTES", stream)
    x = rng.standard_normal((M, N)).astype(np.float32)
    so = N + pad
    backing = np.full(M * so + shift + 16, -7.0, np.float32)
    out = backing[shift:shift + M * so].reshape(M, so)
    tile_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, out, M, N, N, so, BM=32, BN=64)
    want = np.exp(x) - x
    np.testing.assert_allclose(out[:, :N], want, rtol=1e-6, atol=1e-6)
    assert (out[:, N:] == -7.0).all() and (backing[:shift] == -7.0).all()
    assert (backing[shift + M * so:] == -7.0).all()


@triton.jit
def count_kernel(x_ptr, out_ptr, cnt_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)
    tl.atomic_add(cnt_ptr, 1)


def test_kernels_with_atomics_keep_ordered_stores(rng, monkeypatch, native):
    monkeypatch.setenv("TRITIUM_CPU_STREAM_BYTES", "1")
    x = rng.standard_normal(8 * 1024).astype(np.float32)
    out, cnt = np.zeros_like(x), np.zeros(1, np.int32)
    k = count_kernel[(8,)](x, out, cnt, BLOCK=1024)
    np.testing.assert_array_equal(out, x + 1)
    assert cnt[0] == 8
    assert "movnt" not in k.asm["asm"]
