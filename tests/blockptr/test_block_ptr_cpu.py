"""`tl.make_block_ptr` / `tl.advance` / `tl.load` / `tl.store` on block pointers, run on the
CPU backend against numpy: ragged edges, both orders, 2-D and 3-D, padding options, loops."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.cpu.memory import OutOfBoundsError
from tritium.frontend.errors import CompilationError

from tests.language.e2e import random_array


@triton.jit
def _scale_2d(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr,
              ORDER: tl.constexpr, PAD: tl.constexpr):
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    x = tl.make_block_ptr(x_ptr, (M, N), (sxm, sxn), (om, on), (BM, BN), ORDER)
    y = tl.make_block_ptr(y_ptr, (M, N), (sym, syn), (om, on), (BM, BN), ORDER)
    v = tl.load(x, boundary_check=(0, 1), padding_option=PAD)
    tl.store(y, v + v, boundary_check=(1, 0))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int8", "int64"])
@pytest.mark.parametrize("shape,block", [((37, 29), (16, 8)), ((8, 64), (8, 64)), ((5, 3), (4, 4))])
@pytest.mark.parametrize("order", [(1, 0), (0, 1)])
def test_copy_2d_ragged(rng, dtype, shape, block, order):
    M, N = shape
    x = random_array(rng, dtype, M * N, -50, 50).reshape(M, N)
    if order == (0, 1):                 # column-major storage, as with a transposed tensor
        x = np.asfortranarray(x)
    y = np.zeros_like(x)
    isz = x.itemsize
    grid = (triton.cdiv(M, block[0]), triton.cdiv(N, block[1]))
    _scale_2d[grid](x, y, M, N, x.strides[0] // isz, x.strides[1] // isz,
                    y.strides[0] // isz, y.strides[1] // isz,
                    BM=block[0], BN=block[1], ORDER=order, PAD="zero")
    np.testing.assert_array_equal(y, (x + x).astype(x.dtype))


@triton.jit
def _load_at(x_ptr, out_ptr, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr,
             PAD: tl.constexpr, CHECK: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (om, on), (BM, BN), (1, 0))
    v = tl.load(x, boundary_check=CHECK, padding_option=PAD)
    o = tl.make_block_ptr(out_ptr, (BM, BN), (BN, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(o, v)


def _window(x, om, on, BM, BN, fill):
    M, N = x.shape
    out = np.full((BM, BN), fill, np.float64)
    for i in range(BM):
        for j in range(BN):
            if 0 <= om + i < M and 0 <= on + j < N:
                out[i, j] = x[om + i, on + j]
    return out


@pytest.mark.parametrize("pad,fill", [("zero", 0.0), ("nan", np.nan)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("om,on", [(-3, 5), (10, -2), (14, 13), (-20, 0)])
def test_padding_options_float(rng, pad, fill, dtype, om, on):
    M, N = 17, 19
    x = random_array(rng, dtype, M * N).reshape(M, N)
    out = np.zeros((8, 16), x.dtype)
    _load_at[(1,)](x, out, M, N, om, on, BM=8, BN=16, PAD=pad, CHECK=(0, 1))
    np.testing.assert_array_equal(out.astype(np.float64), _window(x, om, on, 8, 16, fill))


@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8"])
def test_zero_padding_int(rng, dtype):
    M, N = 9, 12
    x = random_array(rng, dtype, M * N, 1, 100).reshape(M, N)
    out = np.full((8, 8), 7, x.dtype)
    _load_at[(1,)](x, out, M, N, 5, 7, BM=8, BN=8, PAD="zero", CHECK=(0, 1))
    np.testing.assert_array_equal(out, _window(x, 5, 7, 8, 8, 0).astype(x.dtype))


def test_unspecified_padding_keeps_in_bounds_values(rng):
    x = random_array(rng, "float32", 6 * 6).reshape(6, 6)
    out = np.zeros((4, 8), np.float32)
    _load_at[(1,)](x, out, 6, 6, 3, 2, BM=4, BN=8, PAD="", CHECK=(0, 1))
    ref = _window(x, 3, 2, 4, 8, np.nan)
    inside = ~np.isnan(ref)
    np.testing.assert_array_equal(out[inside], ref[inside])


def test_unchecked_dim_out_of_bounds_is_reported(rng, monkeypatch):
    # Dim 1 leaves the buffer and is not checked: an out-of-bounds access, reported by the
    # evaluator (TRITON_INTERPRET=1's path; the compiled path checks nothing per access,
    # as on a GPU).
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")
    x = random_array(rng, "float32", 4 * 4).reshape(4, 4)
    out = np.zeros((4, 8), np.float32)
    with pytest.raises(OutOfBoundsError):
        _load_at[(1,)](x, out, 4, 4, 0, 4, BM=4, BN=8, PAD="zero", CHECK=(0,))


@triton.jit
def _store_rows_only(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Only dim 0 is checked on the store; dim 1 is exactly N wide.
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0,)) * 3, boundary_check=(0,))


def test_single_dim_boundary_check(rng):
    M, N = 13, 16
    x = random_array(rng, "int32", M * N).reshape(M, N)
    y = np.zeros_like(x)
    _store_rows_only[(triton.cdiv(M, 4),)](x, y, M, N, BM=4, BN=16)
    np.testing.assert_array_equal(y, x * 3)


@triton.jit
def _copy_3d(x_ptr, y_ptr, A, B, C, sa, sb, sc, BA: tl.constexpr, BB: tl.constexpr,
             BC: tl.constexpr):
    oa = tl.program_id(0) * BA
    ob = tl.program_id(1) * BB
    oc = tl.program_id(2) * BC
    x = tl.make_block_ptr(x_ptr, (A, B, C), (sa, sb, sc), (oa, ob, oc), (BA, BB, BC), (2, 1, 0))
    y = tl.make_block_ptr(y_ptr, (A, B, C), (B * C, C, 1), (oa, ob, oc), (BA, BB, BC), (2, 1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1, 2), padding_option="zero") - 1,
             boundary_check=(0, 1, 2))


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_3d_ragged_and_strided(rng, dtype):
    A, B, C = 5, 7, 11
    base = random_array(rng, dtype, A * B * C * 2).reshape(A, B, 2 * C)
    x = base[:, :, ::2]                 # a strided view: stride 2 along the last dim
    y = np.zeros((A, B, C), x.dtype)
    isz = x.itemsize
    grid = (triton.cdiv(A, 2), triton.cdiv(B, 4), triton.cdiv(C, 8))
    _copy_3d[grid](x, y, A, B, C, *(s // isz for s in x.strides), BA=2, BB=4, BC=8)
    np.testing.assert_array_equal(y, (x - 1).astype(x.dtype))


@triton.jit
def _row_sums(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.load(x, boundary_check=(0, 1), padding_option="zero")
        x = tl.advance(x, (0, BN))
    o = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BM,), (BM,), (0,))
    tl.store(o, tl.sum(acc, axis=1), boundary_check=(0,))


@pytest.mark.parametrize("M,N", [(33, 70), (16, 16), (1, 5)])
def test_advance_in_loop(rng, M, N):
    x = random_array(rng, "float32", M * N).reshape(M, N)
    out = np.zeros(M, np.float32)
    _row_sums[(triton.cdiv(M, 8),)](x, out, M, N, BM=8, BN=16)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    a = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (om, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (1, K), (0, on), (BK, BN), (0, 1))  # b column-major
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)), acc,
                     input_precision="ieee")
        a = tl.advance(a, [0, BK])
        b = tl.advance(b, [BK, 0])
    c = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (om, on), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


def test_matmul_with_advance(rng):
    M, N, K = 45, 38, 70
    a = random_array(rng, "float32", M * K).reshape(M, K)
    b = np.asfortranarray(random_array(rng, "float32", K * N).reshape(K, N))
    c = np.zeros((M, N), np.float32)
    _matmul[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K, BM=16, BN=16, BK=16)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@triton.jit
def _bool_copy(x_ptr, y_ptr, N, B: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (tl.program_id(0) * B,), (B,), (0,))
    y = tl.make_block_ptr(y_ptr, (N,), (1,), (tl.program_id(0) * B,), (B,), (0,))
    tl.store(y, tl.load(x, boundary_check=(0,)) == 0, boundary_check=(0,))


def test_bool_block_pointer_reads_bytes(rng):
    x = rng.integers(0, 2, 21).astype(np.bool_)
    y = np.zeros_like(x)
    _bool_copy[(3,)](x, y, 21, B=8)
    np.testing.assert_array_equal(y, ~x)


# ---------------------------------------------------------------- errors at the user's line
@triton.jit
def _bad(x_ptr, WHICH: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (4, 4), (1, 0))
    if WHICH == 0:
        tl.load(p, mask=tl.full((4, 4), True, tl.int1))
    elif WHICH == 1:
        tl.load(p, boundary_check=(0, 0))
    elif WHICH == 2:
        tl.load(p, boundary_check=(2,))
    elif WHICH == 3:
        tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (4, 4), (0, 0))
    elif WHICH == 4:
        tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0,), (4, 4), (1, 0))
    elif WHICH == 5:
        tl.advance(p, (1,))
    elif WHICH == 6:
        tl.advance(p, (tl.program_id(0).to(tl.int64), 0))
    elif WHICH == 7:
        tl.store(p, tl.zeros((4, 8), tl.int32))
    elif WHICH == 8:
        tl.load(p, boundary_check=(0,), padding_option="nan")
    elif WHICH == 9:
        tl.load(p, padding_option="inf")


@pytest.mark.parametrize("which,message", [
    (0, "`mask` and `other` arguments cannot be specified"),
    (1, "Duplicate dimension in `boundary_check`"),
    (2, "boundary_check dimension 2 is out of range"),
    (3, "Expected a permutation"),
    (4, "Expected shape/strides/offsets/block_shape to have the same length"),
    (5, "Expected 2 offsets"),
    (6, "Block pointers only support 32 bit `offsets/block_shape`"),
    (7, r"Block shape\(\[4, 4\]\) and value shape\(\[4, 8\]\) mismatch"),
    (8, "Padding option `nan` is not supported for integer block pointers"),
    (9, "Padding option inf not supported"),
])
def test_errors_name_the_problem(which, message):
    x = np.zeros(64, np.int32)
    with pytest.raises(CompilationError, match=message) as e:
        _bad[(1,)](x, WHICH=which)
    assert "tl." in str(e.value)      # the caret points at the offending call


@triton.jit(noinline=True)
def _load_and_step(p, BN: tl.constexpr):
    return tl.load(p, boundary_check=(0, 1), padding_option="zero"), tl.advance(p, (0, BN))


@triton.jit
def _row_sums_noinline(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A block pointer passed to and returned from a non-inlined function.
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        v, x = _load_and_step(x, BN)
        acc += v
    o = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BM,), (BM,), (0,))
    tl.store(o, tl.sum(acc, axis=1), boundary_check=(0,))


def test_block_pointer_through_noinline_call(rng):
    x = random_array(rng, "float32", 21 * 50).reshape(21, 50)
    out = np.zeros(21, np.float32)
    _row_sums_noinline[(3,)](x, out, 21, 50, BM=8, BN=16)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


@triton.jit
def _half_copy(a_ptr, b_ptr, N, B: tl.constexpr, PAD: tl.constexpr, OFFSET: tl.constexpr):
    # Upstream's block-copy test: only the first half of `a` is inside its block pointer.
    offset = tl.program_id(0) * B
    if OFFSET != 0:
        offset = OFFSET * N
    a = tl.make_block_ptr(base=a_ptr, shape=(N // 2,), strides=(1,), offsets=(offset,),
                          block_shape=(B,), order=(0,))
    b = tl.make_block_ptr(base=b_ptr, shape=(N,), strides=(1,), offsets=(offset,),
                          block_shape=(B,), order=(0,))
    if PAD is None:
        v = tl.load(a, boundary_check=(0,))
    else:
        v = tl.load(a, boundary_check=(0,), padding_option=PAD)
    tl.store(b, v, boundary_check=(0,))


@pytest.mark.parametrize("dtype", ["bool", "int16", "float16", "bfloat16"])
@pytest.mark.parametrize("pad", [None, "zero", "nan"])
@pytest.mark.parametrize("offset", [0, -1, 1])       # in place, all below, all above
def test_half_copy_torch(rng, dtype, pad, offset):
    torch = pytest.importorskip("torch")
    if dtype in ("bool", "int16") and pad == "nan":
        return
    n = 128
    src = rng.integers(0, 2, n) if dtype in ("bool", "int16") else rng.standard_normal(n)
    a = torch.from_numpy(src).to(getattr(torch, dtype))
    b = torch.zeros(n, dtype=a.dtype)
    _half_copy[(triton.cdiv(n, 32),)](a, b, n, B=32, PAD=pad, OFFSET=offset)
    if offset:
        assert not b.any()
        return
    assert torch.equal(a[:n // 2], b[:n // 2])
    rest = b[n // 2:].float()
    assert bool(rest.isnan().all()) if pad == "nan" else not rest.any()


@triton.jit
def _negative_advance(src_ptr, dst_ptr, N, B: tl.constexpr):
    p = tl.make_block_ptr(src_ptr, (N,), (1,), (0,), (B,), (0,))
    p = tl.advance(tl.advance(p, (2 * B,)), (-B,))     # net: one block forward
    v = tl.load(p, boundary_check=(0,), padding_option="zero").to(p.dtype.element_ty)
    tl.store(dst_ptr + tl.arange(0, B), v)


def test_negative_advance_and_element_ty(rng):
    x = random_array(rng, "float16", 24)
    out = np.zeros(16, np.float16)
    _negative_advance[(1,)](x, out, 24, B=16)
    np.testing.assert_array_equal(out, np.concatenate([x[16:], np.zeros(8, np.float16)]))
