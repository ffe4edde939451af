"""Host tensor descriptors through TMA on the GPU (cp.async.bulk.tensor, mbarriers): copies
of every element width, blocks wider than the swizzle (several boxes), 1-D and 3-D blocks,
ragged edges (zero or NaN fill on loads, clipped stores checked against a guard band),
negative coordinates, TMA reductions and matmuls fed by descriptors, each against torch."""
import pytest

import tritium as triton
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")


@triton.jit
def _copy_2d(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    dst.store([i, j], src.load([i, j]) + 1)


@triton.jit
def _copy_1d(src, dst, B: tl.constexpr):
    i = tl.program_id(0) * B
    dst.store([i], src.load([i]) * 3)


@triton.jit
def _copy_3d(src, dst, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    a = tl.program_id(0) * BA
    b = tl.program_id(1) * BB
    c = tl.program_id(2) * BC
    dst.store([a, b, c], src.load([a, b, c]) - 1)


@triton.jit
def _window(src, out_ptr, i, j, BM: tl.constexpr, BN: tl.constexpr):
    v = src.load([i, j])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], v)


@triton.jit
def _reduce(desc, val_ptr, i, j, XOR: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    v = tl.load(val_ptr + tl.program_id(0) * BM * BN + tl.arange(0, BM)[:, None] * BN
                + tl.arange(0, BN)[None, :])
    if XOR:
        desc.atomic_xor([i, j], v)
    else:
        desc.atomic_add([i, j], v)


@triton.jit
def _matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
            B_KMAJOR: tl.constexpr, STAGES: tl.constexpr):
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        a = a_desc.load([pm, k * BK])
        if B_KMAJOR:
            b = b_desc.load([pn, k * BK]).T
        else:
            b = b_desc.load([k * BK, pn])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm, pn], acc.to(c_desc.dtype))


_DT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
       "int8": torch.int8, "int32": torch.int32}


def _rand(shape, dtype):
    if dtype in ("int8", "int32"):
        return torch.randint(-50, 50, shape, dtype=_DT[dtype], device="cuda")
    return torch.randn(shape, device="cuda").to(_DT[dtype])


def _guarded(shape, dtype, row_elems):
    """A (shape) view inside a larger buffer filled with a sentinel: writes outside the
    view show up in the guard band."""
    big = torch.full((shape[0] + 8, row_elems), 77, dtype=_DT[dtype], device="cuda")
    return big, big[:shape[0], :shape[1]]


@pytest.mark.parametrize("dtype,block", [
    ("float16", (8, 16)), ("float32", (16, 64)), ("float16", (64, 64)), ("float16", (32, 128)), ("float16", (16, 256)),
    ("bfloat16", (64, 32)), ("float32", (128, 32)), ("float32", (8, 64)), ("int8", (32, 64)),
    ("int32", (16, 16))])
@pytest.mark.parametrize("shape", [(100, 320), (64, 256), (7, 48)])
def test_tma_copy_2d(dtype, block, shape):
    x = _rand((shape[0], 384), dtype)[:, :shape[1]]   # rows 16-byte aligned for every width
    big, y = _guarded(shape, dtype, 384)
    grid = (triton.cdiv(shape[0], block[0]), triton.cdiv(shape[1], block[1]))
    k = _copy_2d[grid](TensorDescriptor.from_tensor(x, list(block)),
                       TensorDescriptor.from_tensor(y, list(block)), BM=block[0], BN=block[1])
    assert "cp.async.bulk.tensor.2d" in k.asm["ptx"], "expected a TMA kernel"
    assert torch.equal(y, x + 1)
    guard = big.clone()
    guard[:shape[0], :shape[1]] = 77
    assert bool((guard == 77).all()), "a TMA store wrote outside the tensor"


@pytest.mark.parametrize("n,block,dtype", [(1000, 256, "float32"), (777, 512, "float16"),
                                           (64, 64, "int32")])
def test_descriptor_copy_1d(n, block, dtype):
    """Rank-1 descriptors stay on pointer loads (the driver refuses rank-1 maps)."""
    x = _rand((n,), dtype)
    y = torch.zeros_like(x)
    _copy_1d[(triton.cdiv(n, block),)](TensorDescriptor.from_tensor(x, [block]),
                                      TensorDescriptor.from_tensor(y, [block]), B=block)
    assert torch.equal(y, x * 3)


def test_tma_copy_3d():
    x = _rand((5, 19, 72), "float16")
    y = torch.zeros_like(x)
    blk = [2, 8, 32]
    grid = (3, 3, 3)
    _copy_3d[grid](TensorDescriptor.from_tensor(x, blk), TensorDescriptor.from_tensor(y, blk),
                   BA=2, BB=8, BC=32)
    assert torch.equal(y, x - 1)


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("i,j", [(5, 20), (-3, -9), (0, 0), (-5, -16), (6, 32)])
def test_tma_out_of_bounds(padding, i, j):
    """j divisible by 16 is specialised as such: those kernels use TMA, the others pointers
    (a TMA box must start 16-byte aligned)."""
    x = torch.randn(9, 48, device="cuda")
    out = torch.zeros(8, 16, device="cuda")
    _window[(1,)](TensorDescriptor.from_tensor(x, [8, 16], padding=padding), out, i, j,
                  BM=8, BN=16)
    ref = torch.full((8, 16), float("nan") if padding == "nan" else 0.0)
    xc = x.cpu()
    for a in range(8):
        for b in range(16):
            if 0 <= i + a < 9 and 0 <= j + b < 48:
                ref[a, b] = xc[i + a, j + b]
    torch.testing.assert_close(out.cpu(), ref, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("xor", [False, True])
def test_tma_reduce(xor):
    P, BM, BN = 5, 8, 32
    if xor:
        target = torch.randint(0, 1 << 20, (20, 64), dtype=torch.int32, device="cuda")
        vals = torch.randint(0, 1 << 20, (P, BM, BN), dtype=torch.int32, device="cuda")
    else:
        target = torch.randn(20, 64, device="cuda")
        vals = torch.randn(P, BM, BN, device="cuda")
    ref = target.clone()
    # rows 15..22 of a 20-row tensor: the last 3 rows of the block fall outside and are dropped
    i, j = 15, 16
    upd = vals[0].clone()
    for p in range(1, P):
        upd = upd ^ vals[p] if xor else upd + vals[p]
    if xor:
        ref[i:20, j:j + BN] ^= upd[:20 - i]
    else:
        ref[i:20, j:j + BN] += upd[:20 - i]
    _reduce[(P,)](TensorDescriptor.from_tensor(target, [BM, BN]), vals, i, j, XOR=xor, BM=BM, BN=BN)
    if xor:
        assert torch.equal(target, ref)
    else:
        torch.testing.assert_close(target, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M,N,K", [(256, 256, 512), (200, 136, 72)])
@pytest.mark.parametrize("b_kmajor", [True, False])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_tma_matmul(M, N, K, b_kmajor, stages, dtype):
    BM, BN, BK = 128, 128, 64
    a = _rand((M, K), dtype)
    b = _rand((N, K) if b_kmajor else (K, N), dtype)
    Npad = triton.cdiv(N, 8) * 8
    c = torch.empty(M, Npad, dtype=_DT[dtype], device="cuda")[:, :N]
    a_d = TensorDescriptor.from_tensor(a, [BM, BK])
    b_d = TensorDescriptor.from_tensor(b, [BN, BK] if b_kmajor else [BK, BN])
    c_d = TensorDescriptor.from_tensor(c, [BM, BN])
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    _matmul[grid](a_d, b_d, c_d, K, BM=BM, BN=BN, BK=BK, B_KMAJOR=b_kmajor, STAGES=stages,
                  num_warps=4)
    ref = (a.float() @ (b.float().T if b_kmajor else b.float())).to(_DT[dtype])
    torch.testing.assert_close(c.float(), ref.float(), rtol=2e-2, atol=2e-2 * K ** 0.5)


def test_tma_store_of_partial_granule_refused():
    """A view whose rows end mid 16-byte piece cannot be stored through with TMA (the H100
    writes whole pieces): the launch names the argument instead of writing past the rows."""
    big = torch.zeros(64, 128, device="cuda")
    x = torch.randn(64, 128, device="cuda")[:, :98]
    with pytest.raises(ValueError, match="'dst'"):
        _copy_2d[(4, 7)](TensorDescriptor.from_tensor(x, [16, 16]),
                         TensorDescriptor.from_tensor(big[:, :98], [16, 16]), BM=16, BN=16)
    assert bool((big == 0).all())


def test_tma_new_tensor_each_launch():
    """The tensor-map cache is keyed by address and shape: a new tensor is a new map."""
    for n in (48, 48, 80):
        x = torch.randn(16, n, device="cuda")
        y = torch.zeros_like(x)
        _copy_2d[(1, triton.cdiv(n, 16))](TensorDescriptor.from_tensor(x, [16, 16]),
                                          TensorDescriptor.from_tensor(y, [16, 16]), BM=16, BN=16)
        assert torch.equal(y, x + 1)
