"""Shape builtins and the sorting/flipping standard library on the CPU backend vs NumPy."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import random_array


@triton.jit
def shape_kernel(x_ptr, o_ptr, OP: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if OP == "trans":
        r = tl.trans(x)
    elif OP == "T":
        r = x.T
    elif OP == "permute":
        r = x.permute(1, 0)
    elif OP == "reshape":
        r = tl.reshape(x, (N, M))
    elif OP == "ravel":
        r = tl.ravel(x).reshape(N, M)
    elif OP == "flip0":
        r = tl.flip(x, 0).reshape(N, M)
    elif OP == "flip":
        r = x.flip().reshape(N, M)
    elif OP == "sort":
        r = tl.sort(x).reshape(N, M)
    elif OP == "sort_desc":
        r = tl.sort(x, descending=True).reshape(N, M)
    else:
        r = tl.trans(tl.broadcast_to(tl.expand_dims(tl.sum(x, 1), 1), (M, N)))
    tl.store(o_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], r)


@pytest.mark.parametrize("op,ref", [
    ("trans", lambda x: x.T), ("T", lambda x: x.T), ("permute", lambda x: x.T),
    ("reshape", lambda x: x.reshape(8, 4)), ("ravel", lambda x: x.reshape(8, 4)),
    ("flip0", lambda x: x[::-1].reshape(8, 4)), ("flip", lambda x: x[:, ::-1].reshape(8, 4)),
    ("sort", lambda x: np.sort(x, 1).reshape(8, 4)),
    ("sort_desc", lambda x: np.sort(x, 1)[:, ::-1].reshape(8, 4)),
    # The sum's reference is exact (float64): a float32 sum with cancellation is not.
    ("bcast", lambda x: np.broadcast_to(x.astype(np.float64).sum(1, keepdims=True), (4, 8)).T),
])
@pytest.mark.parametrize("dt", [np.float32, np.int32, np.float16])
def test_shape_ops(rng, op, ref, dt):
    x = random_array(rng, dt, (4, 8))
    out = np.zeros((8, 4), dt)
    shape_kernel[(1,)](x, out, OP=op, M=4, N=8)
    expected = ref(x)
    if op == "bcast" and dt != np.int32:
        # Rounding each sum once to `dt` leaves half an ulp of the sum's magnitude.
        scale = np.abs(x.astype(np.float64)).sum(1).max()
        atol = scale * (2e-3 if dt == np.float16 else 2e-7)
        np.testing.assert_allclose(out.astype(np.float64), expected, rtol=0, atol=atol)
        return
    np.testing.assert_allclose(out, expected.astype(dt), rtol=1e-3 if dt == np.float16 else 1e-6)


@triton.jit
def join_split_kernel(a_ptr, b_ptr, o_ptr, s_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    j = tl.join(a, b)  # [N, 2]
    tl.store(o_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :], j)
    lo, hi = tl.split(j)
    tl.store(s_ptr + offs, hi - lo)
    tl.store(s_ptr + N + tl.arange(0, 2 * N), tl.interleave(a, b))
    x, y = tl.split(tl.join(tl.load(a_ptr), tl.load(b_ptr)))  # scalars through [2]
    tl.store(s_ptr + 3 * N, x * 10 + y)


def test_join_split_interleave(rng):
    a = rng.integers(0, 9, 8).astype(np.int32)
    b = rng.integers(0, 9, 8).astype(np.int32)
    out = np.zeros((8, 2), np.int32)
    s = np.zeros(3 * 8 + 1, np.int32)
    join_split_kernel[(1,)](a, b, out, s, N=8)
    np.testing.assert_array_equal(out, np.stack([a, b], 1))
    np.testing.assert_array_equal(s[:8], b - a)
    np.testing.assert_array_equal(s[8:24], np.stack([a, b], 1).ravel())
    assert s[24] == a[0] * 10 + b[0]


@triton.jit
def cat_kernel(a_ptr, b_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    c = tl.cat(tl.load(a_ptr + offs), tl.load(b_ptr + offs), can_reorder=True)
    tl.store(o_ptr, tl.sum(c))


def test_cat():
    a = np.arange(8, dtype=np.int32)
    b = np.arange(8, dtype=np.int32) * 100
    out = np.zeros(1, np.int32)
    cat_kernel[(1,)](a, b, out, N=8)
    assert out[0] == a.sum() + b.sum()


@triton.jit
def topk_kernel(x_ptr, o_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, K), tl.topk(x[None, :], K).reshape(K))


def test_topk(rng):
    x = rng.permutation(32).astype(np.float32)
    out = np.zeros(4, np.float32)
    topk_kernel[(1,)](x, out, N=32, K=4)
    np.testing.assert_array_equal(out, np.sort(x)[::-1][:4])


@triton.jit
def topk_rows_kernel(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                     DESC: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(o_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :],
             tl.topk(x, K, descending=DESC))


@pytest.mark.parametrize("desc", [True, False])
@pytest.mark.parametrize("m,n,k", [(1, 64, 8), (8, 64, 8), (4, 16, 16)])
def test_topk_both_directions(rng, desc, m, n, k):
    x = (rng.standard_normal((m, n)) * 100).astype(np.float32)
    out = np.zeros((m, k), np.float32)
    topk_rows_kernel[(1,)](x, out, M=m, N=n, K=k, DESC=desc)
    want = np.sort(x, 1)[:, ::-1][:, :k] if desc else np.sort(x, 1)[:, :k]
    np.testing.assert_array_equal(out, want)


@triton.jit
def item_kernel(x_ptr, o_ptr):
    v = tl.load(x_ptr + tl.arange(0, 1))
    tl.store(o_ptr, v.item() + 1)


def test_item():
    out = np.zeros(1, np.int32)
    item_kernel[(1,)](np.array([41], np.int32), out)
    assert out[0] == 42


@triton.jit
def swizzle_kernel(o_ptr, M: tl.constexpr, N: tl.constexpr, G: tl.constexpr):
    i = tl.arange(0, M)[:, None]
    j = tl.arange(0, N)[None, :]
    ni, nj = tl.swizzle2d(i, j, M, N, G)
    tl.store(o_ptr + i * N + j, ni * N + nj)


def test_swizzle2d():
    out = np.zeros((4, 4), np.int32)
    swizzle_kernel[(1,)](out, M=4, N=4, G=2)
    # The example in Triton's docstring: the index each position maps to.
    ref = np.zeros((4, 4), np.int32)
    want = np.array([[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]])
    for i in range(4):
        for j in range(4):
            ref.flat[want[i, j]] = i * 4 + j
    np.testing.assert_array_equal(out, ref)


@triton.jit
def squeeze_kernel(x_ptr, o_ptr, DIM: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    u = tl.unsqueeze(x, DIM)                    # [1, M, N], [M, 1, N] or [M, N, 1]
    r = tl.sum(u, DIM) if DIM != 2 else tl.squeeze(u, 2) * 1
    back = tl.squeeze(tl.unsqueeze(r, -1), -1)  # negative dims, as upstream
    tl.store(o_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], back)


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("dt", [np.float32, np.int32])
def test_squeeze_unsqueeze(rng, dim, dt):
    x = random_array(rng, dt, (4, 8))
    out = np.zeros((4, 8), dt)
    squeeze_kernel[(1,)](x, out, DIM=dim, M=4, N=8)
    np.testing.assert_array_equal(out, x)


def test_squeeze_rejects_a_dimension_not_of_size_one():
    @triton.jit
    def bad(o_ptr):
        tl.store(o_ptr + tl.arange(0, 4), tl.squeeze(tl.arange(0, 4), 0))

    with pytest.raises(triton.CompilationError, match="has size 4, not 1"):
        bad[(1,)](np.zeros(4, np.int32))
