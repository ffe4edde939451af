"""Tensor descriptors on the CPU backend vs numpy: host `TensorDescriptor` arguments and
`tl.make_tensor_descriptor`, loads/stores with upstream's out-of-bounds rules (reads give the
padding, writes are dropped), reductions, gather/scatter, descriptors through calls and
branches, and the errors of bad uses."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.frontend.errors import CompilationError
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr.test_tensor_descriptor_host import _aligned
from tests.language.e2e import random_array


def _arr(rng, dtype, shape, low=None, high=None):
    n = int(np.prod(shape))
    return _aligned(random_array(rng, dtype, n, low, high).reshape(shape))


@triton.jit
def _copy_2d(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    dst.store([i, j], src.load([i, j]) + 1)


@pytest.mark.parametrize("dtype,block", [("float32", (16, 8)), ("float16", (8, 16)),
                                         ("int32", (4, 8)), ("int8", (8, 16))])
@pytest.mark.parametrize("shape", [(37, 48), (8, 80), (3, 16)])
def test_host_descriptor_copy_ragged(rng, dtype, block, shape):
    x = _arr(rng, dtype, shape, -50, 50)
    y = _aligned(np.zeros(shape, x.dtype))
    grid = (triton.cdiv(shape[0], block[0]), triton.cdiv(shape[1], block[1]))
    _copy_2d[grid](TensorDescriptor.from_tensor(x, block), TensorDescriptor.from_tensor(y, block),
                   BM=block[0], BN=block[1])
    np.testing.assert_array_equal(y, (x + 1).astype(x.dtype))


@triton.jit
def _window(src, out_ptr, i, j, BM: tl.constexpr, BN: tl.constexpr):
    v = src.load([i, j])
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rm * BN + rn, v)


def _ref_window(x, i, j, BM, BN, fill):
    out = np.full((BM, BN), fill, np.float64)
    for a in range(BM):
        for b in range(BN):
            if 0 <= i + a < x.shape[0] and 0 <= j + b < x.shape[1]:
                out[a, b] = x[i + a, j + b]
    return out


@pytest.mark.parametrize("padding,fill", [("zero", 0.0), ("nan", np.nan)])
@pytest.mark.parametrize("i,j", [(-2, 3), (5, 20), (-8, -16), (30, 0)])
def test_out_of_bounds_reads_give_padding(rng, padding, fill, i, j):
    x = _arr(rng, "float32", (9, 24))
    out = np.zeros((8, 16), np.float32)
    _window[(1,)](TensorDescriptor.from_tensor(x, [8, 16], padding=padding), out, i, j,
                  BM=8, BN=16)
    np.testing.assert_array_equal(out.astype(np.float64), _ref_window(x, i, j, 8, 16, fill))


@triton.jit
def _scale_3d(src, dst, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    a, b, c = tl.program_id(0) * BA, tl.program_id(1) * BB, tl.program_id(2) * BC
    dst.store([a, b, c], src.load([a, b, c]) * 3)


def test_3d_descriptor(rng):
    x = _arr(rng, "int32", (5, 6, 12))
    y = _aligned(np.zeros_like(x))
    _scale_3d[(3, 2, 2)](TensorDescriptor.from_tensor(x, [2, 4, 8]),
                         TensorDescriptor.from_tensor(y, [2, 4, 8]), BA=2, BB=4, BC=8)
    np.testing.assert_array_equal(y, x * 3)


@triton.jit
def _device_desc(x_ptr, y_ptr, shape_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr,
                 PAD: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    dst = tl.make_tensor_descriptor(y_ptr, [M + 1, N], [N, 1], [BM, BN])
    i = tl.program_id(0) * BM
    for j in range(0, tl.cdiv(N, BN) + 1):          # one block past the end: reads pad,
        v = src.load([i, j * BN])                   # writes are dropped
        dst.store([i, j * BN], tl.where(v != v, -7.0, v))
    tl.store(shape_ptr + tl.arange(0, 4),
             tl.join(tl.join(src.shape[0], src.shape[1]).to(tl.int64),
                     tl.join(src.strides[0], src.strides[1])).reshape(4))


@pytest.mark.parametrize("pad,fill", [("zero", 0.0), ("nan", -7.0)])
def test_device_side_descriptor_in_loop(rng, pad, fill):
    M, N = 21, 40
    x = _arr(rng, "float32", (M, N))
    y = np.full((M + 1, N), 99.0, np.float32)       # row M is inside dst but outside src
    shape = np.zeros(4, np.int64)
    _device_desc[(triton.cdiv(M, 8),)](x, y, shape, M, N, BM=8, BN=16, PAD=pad)
    np.testing.assert_array_equal(y[:M], x)
    np.testing.assert_array_equal(y[M], np.full(N, fill, np.float32))
    np.testing.assert_array_equal(shape, [M, N, N, 1])


@triton.jit
def _reduce(desc, val_ptr, WHICH: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # Every program reduces its block into the same place: overlapping atomics.
    v = tl.load(val_ptr + tl.program_id(0) * BM * BN + tl.arange(0, BM)[:, None] * BN
                + tl.arange(0, BN)[None, :])
    if WHICH == "add":
        desc.atomic_add([1, 2], v)
    elif WHICH == "min":
        desc.atomic_min([1, 2], v)
    elif WHICH == "max":
        desc.atomic_max([1, 2], v)
    elif WHICH == "and":
        desc.atomic_and([1, 2], v)
    elif WHICH == "or":
        desc.atomic_or([1, 2], v)
    else:
        desc.atomic_xor([1, 2], v)


_NP_REDUCE = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.mark.parametrize("which,dtype", [("add", "float32"), ("add", "int32"),
                                         ("min", "int32"), ("max", "int64"), ("and", "int32"),
                                         ("or", "int64"), ("xor", "int32")])
def test_descriptor_reductions(rng, which, dtype):
    P, BM, BN = 3, 4, 8
    # A 6x9 window of 6x16 storage: the block at [1, 2] overhangs the window's dim 1, and
    # the columns past 9 (inside the storage) must stay untouched.
    target = _arr(rng, dtype, (6, 16), -1000, 1000)
    vals = _arr(rng, dtype, (P, BM, BN), -1000, 1000)
    ref = target.copy()
    for p in range(P):
        sub = ref[1:1 + BM, 2:9]
        sub[...] = _NP_REDUCE[which](sub, vals[p][:, :sub.shape[1]])
    _reduce[(P,)](TensorDescriptor(target, [6, 9], [16, 1], [BM, BN]), vals, WHICH=which,
                  BM=BM, BN=BN)
    if dtype == "float32":
        np.testing.assert_allclose(target, ref, rtol=1e-5)
    else:
        np.testing.assert_array_equal(target, ref)


@triton.jit
def _gather_scatter(src, dst, idx_ptr, out_ptr, y, N: tl.constexpr, BY: tl.constexpr):
    rows = tl.load(idx_ptr + tl.arange(0, N))
    g = src.gather(rows, y)
    tl.store(out_ptr + tl.arange(0, N)[:, None] * BY + tl.arange(0, BY)[None, :], g)
    dst.scatter(g + 1, rows, y)


def test_gather_and_scatter(rng):
    M, C, N, BY = 10, 40, 8, 16
    x = _arr(rng, "float32", (M, C))
    rows = rng.permutation(np.arange(-2, M + 3))[:N].astype(np.int32)   # some out of bounds
    y0 = 30                                                             # columns overhang
    out = np.zeros((N, BY), np.float32)
    dst = _aligned(np.zeros((M, C), np.float32))
    _gather_scatter[(1,)](TensorDescriptor.from_tensor(x, [1, BY]),
                          TensorDescriptor.from_tensor(dst, [1, BY]), rows, out, y0, N=N, BY=BY)
    ref = np.zeros((N, BY), np.float32)
    ref_dst = np.zeros((M, C), np.float32)
    for a, r in enumerate(rows):
        for b in range(BY):
            if 0 <= r < M and y0 + b < C:
                ref[a, b] = x[r, y0 + b]
                ref_dst[r, y0 + b] = x[r, y0 + b] + 1
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(dst, ref_dst)


@triton.jit
def _helper_load(desc, i):
    return desc.load([i, 0])


@triton.jit
def _through_calls_and_branches(a, b, out, FLAG, B: tl.constexpr):
    d = a
    if FLAG > 0:
        d = b
    v = _helper_load(d, tl.program_id(0) * B)
    tl.store_tensor_descriptor(out, [tl.program_id(0) * B, 0], v)
    w = tl.load_tensor_descriptor(out, [0, 0])
    out.store([0, 0], w)


@pytest.mark.parametrize("flag", [0, 3])
def test_descriptor_through_call_and_if(rng, flag):
    a, b = _arr(rng, "float32", (16, 8)), _arr(rng, "float32", (16, 8))
    out = _aligned(np.zeros((16, 8), np.float32))
    d = [TensorDescriptor.from_tensor(t, [8, 8]) for t in (a, b, out)]
    _through_calls_and_branches[(2,)](*d, flag, B=8)
    np.testing.assert_array_equal(out, b if flag else a)


# ---------------------------------------------------------------- errors at the user's line
@triton.jit
def _bad(x_ptr, WHICH: tl.constexpr):
    if WHICH == 0:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 2])
    elif WHICH == 1:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 2], [8, 8])
    elif WHICH == 2:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8], padding_option="nan")
    elif WHICH == 3:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8]).load([0])
    elif WHICH == 4:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [2, 8]).gather(tl.arange(0, 8), 0)
    elif WHICH == 5:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [1, 8]).gather(tl.arange(0, 4), 0)
    elif WHICH == 6:
        tl.make_tensor_descriptor(x_ptr.to(tl.pointer_type(tl.int8)), [8, 8], [8, 1],
                                  [8, 16]).atomic_add([0, 0], tl.zeros((8, 16), tl.int8))
    elif WHICH == 7:
        tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [8, 8]).store([0, 0], tl.zeros((8, 4), tl.int32))
    elif WHICH == 8:
        tl.make_tensor_descriptor(x_ptr, [8], [1], [8, 8])
    elif WHICH == 9:
        tl.make_tensor_descriptor(x_ptr.to(tl.pointer_type(tl.float16)), [8, 8], [8, 1],
                                  [8, 8]).atomic_max([0, 0], tl.zeros((8, 8), tl.float16))
    elif WHICH == 10:
        tl.make_tensor_descriptor(x_ptr.to(tl.pointer_type(tl.uint32)), [8, 8], [8, 1],
                                  [8, 8]).atomic_min([0, 0], tl.zeros((8, 8), tl.uint32))


@pytest.mark.parametrize("which,message", [
    (0, "at least 16 bytes in the last dimension, but got 2 \\* 4 = 8 bytes"),
    (1, "last dim must be 1 but got 2"),
    (2, "Padding option `nan` is not supported for integer blocks"),
    (3, "expected 2 offsets, but got 1"),
    (4, "descriptor block must have 1 row"),
    (5, "descriptor gather must have at least 8 rows"),
    (6, "Unsupported dtype int8 for descriptor atomic_add"),
    (7, r"value shape \[8, 4\] does not match the descriptor's block shape \[8, 8\]"),
    (8, "Expected block_shape to have 1 dimensions but got 2"),
    (9, "16-bit float types require native tma support"),
    (10, "atomic_min on unsigned integers"),
])
def test_descriptor_errors(which, message):
    with pytest.raises(CompilationError, match=message):
        _bad[(1,)](np.zeros(64, np.int32), WHICH=which)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_torch_descriptors_16bit(rng, dtype):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    x = torch.from_numpy(rng.uniform(-4, 4, (19, 64)).astype(np.float32)).to(tdt)
    y = torch.zeros_like(x)
    _copy_2d[(3, 4)](TensorDescriptor.from_tensor(x, [8, 16]),
                     TensorDescriptor.from_tensor(y, [8, 16]), BM=8, BN=16)
    assert torch.equal(y, x + 1)


# ---------------------------------------------------------------- descriptors across functions
@triton.jit(noinline=True)
def _make_desc_helper(ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])


@triton.jit(noinline=True)
def _abs_copy_helper(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    i, j = tl.program_id(0) * BM, tl.program_id(1) * BN
    out_desc.store([i, j], tl.abs(in_desc.load([i, j])))


@triton.jit
def _noinline_descriptors(out_ptr, a_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A descriptor returned by one non-inlined function and passed to another.
    _abs_copy_helper(_make_desc_helper(a_ptr, M, N, BM, BN),
                     _make_desc_helper(out_ptr, M, N, BM, BN), BM, BN)


@triton.jit
def _loop_carried_descriptor(a_ptr, M, N, MB: tl.constexpr, NB: tl.constexpr):
    # Reassigned inside for and while loops (upstream's loop-carried descriptor test).
    moffset = MB * tl.program_id(0)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[MB, NB])
    for i in range(0, N, NB):
        if i % (3 * NB) == 0:
            a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1],
                                               block_shape=[MB, NB])
        a_desc.store([moffset, i], a_desc.load([moffset, i]) + 10)
    n = 0
    while n < N:
        if n % (3 * NB) == 0:
            a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1],
                                               block_shape=[MB, NB])
        a_desc.store([moffset, n], a_desc.load([moffset, n]) + 5)
        n += NB


def test_descriptors_across_noinline_functions_and_loops(rng):
    x = _arr(rng, "float32", (32, 128))
    out = np.zeros_like(x)
    _noinline_descriptors[(4, 4)](out, x, 32, 128, BM=8, BN=32)
    np.testing.assert_array_equal(out, np.abs(x))
    ref = x + 15
    _loop_carried_descriptor[(4,)](x, 32, 128, MB=8, NB=32)
    np.testing.assert_allclose(x, ref, rtol=1e-6)
