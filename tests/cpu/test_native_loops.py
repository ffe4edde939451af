"""Pointer tensors carried by `scf.for` on the compiled path (native/control.py `Strided`):
a pointer tile the loop advances by one uniform step (`p += BK * stride`, a constant or a
scalar that changes per iteration) is carried as its first value plus an offset. Checked
against numpy on random data: a matmul with ragged edges, steps that vary per iteration,
the advanced pointer read in the same iteration and used after the loop, and a swap (which
keeps the plain tensor slots)."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@pytest.fixture(autouse=True)
def native(monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")


def _compiled(k):
    assert k.function.native(k.metadata) is not None, k.metadata.get("cpu_fallback")


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (70, 50, 45), (16, 128, 100), (1, 3, 200)])
@pytest.mark.parametrize("trans_b", [False, True])
def test_matmul_with_loop_carried_pointer_tiles(rng, M, N, K, trans_b):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((N, K)).astype(np.float32).T if trans_b else \
        rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    BM, BN, BK = 32, 32, 16
    k = _matmul[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a, b, c, M, N, K, a.strides[0] // 4, a.strides[1] // 4, b.strides[0] // 4,
        b.strides[1] // 4, c.strides[0] // 4, c.strides[1] // 4, BM=BM, BN=BN, BK=BK)
    _compiled(k)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@triton.jit
def _walk(x_ptr, out_ptr, last_ptr, n_iter, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for it in range(n_iter):
        acc += tl.load(p)
        p += (it + 1) * s                  # a different step every iteration
        acc += tl.load(p) * 0.5            # the advanced pointer, read in the same iteration
    tl.store(out_ptr + offs, acc)
    tl.store(last_ptr + offs, tl.load(p))  # the carried pointer after the loop


@pytest.mark.parametrize("n_iter,s", [(1, 8), (5, 16), (7, 3)])
def test_pointer_steps_varying_per_iteration(rng, n_iter, s):
    B = 16
    end = B + s * n_iter * (n_iter + 1) // 2
    x = rng.standard_normal(end + 1).astype(np.float32)
    out, last = np.zeros(B, np.float32), np.zeros(B, np.float32)
    k = _walk[(1,)](x, out, last, n_iter, s, BLOCK=B)
    _compiled(k)
    want, pos = np.zeros(B), 0
    for it in range(n_iter):
        want += x[pos:pos + B]
        pos += (it + 1) * s
        want += 0.5 * x[pos:pos + B]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(last, x[pos:pos + B])


@triton.jit
def _swap(x_ptr, y_ptr, out_ptr, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p, q = x_ptr + offs, y_ptr + offs
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for it in range(n_iter):
        acc = acc * 2 + tl.load(p)
        p, q = q + BLOCK, p                # not a uniform step of its own: plain slots
    tl.store(out_ptr + offs, acc)


def test_swapped_pointer_tiles(rng):
    B, n_iter = 8, 5
    x = rng.standard_normal(B * 8).astype(np.float32)
    y = rng.standard_normal(B * 8).astype(np.float32)
    out = np.zeros(B, np.float32)
    k = _swap[(1,)](x, y, out, n_iter, BLOCK=B)
    _compiled(k)
    want = np.zeros(B)
    p, q = (x, 0), (y, 0)
    for _ in range(n_iter):
        buf, off = p
        want = want * 2 + buf[off:off + B]
        p, q = (q[0], q[1] + B), p
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
