"""Tensor descriptors made on the device (`tl.make_tensor_descriptor`) through TMA on the GPU:
each program writes its 128-byte tensor maps into global scratch from `triton.set_allocator`,
then copies with `cp.async.bulk.tensor`. Copies of several element widths and wide blocks,
ragged edges (zero and NaN fill, clipped stores checked against a guard band), reductions,
a descriptor remade inside a loop, pipelined matmuls (tutorial 09's persistent kernel with
device descriptors), each against torch; the allocator's size and alignment; upstream's
error without an allocator. Compiled without a GPU in test_device_tma_compile.py."""
import pytest

import tritium as triton
import tritium.language as tl

# the same matmul loop as with host descriptors, and the same random inputs
from tests.blockptr.test_tma_gpu import _DT, _rand, _matmul as _desc_matmul

pytestmark = pytest.mark.gpu


@triton.jit
def _dcopy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PAD)
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    dst.store([i, j], src.load([i, j]) + 1)


@triton.jit
def _dcopy3d(x_ptr, y_ptr, A, B, C, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    dst = tl.make_tensor_descriptor(y_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    a = tl.program_id(0) * BA
    b = tl.program_id(1) * BB
    c = tl.program_id(2) * BC
    dst.store([a, b, c], src.load([a, b, c]) - 1)


@triton.jit
def _dwindow(x_ptr, out_ptr, M, N, ld, i, j, BM: tl.constexpr, BN: tl.constexpr,
             PAD: tl.constexpr):
    """A box at (i, j) of an (M, N) view with row stride `ld`, written out whole."""
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [ld, 1], [BM, BN], padding_option=PAD)
    v = src.load([i, j])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], v)


@triton.jit
def _dreduce(t_ptr, val_ptr, M, N, i, j, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(t_ptr, [M, N], [N, 1], [BM, BN])
    v = tl.load(val_ptr + tl.program_id(0) * BM * BN + tl.arange(0, BM)[:, None] * BN
                + tl.arange(0, BN)[None, :])
    desc.atomic_add([i, j], v)


@triton.jit
def _dremade(x_ptr, y_ptr, M, N, ROWS: tl.constexpr, BN: tl.constexpr):
    """A descriptor made anew every iteration (a different window each time): the map in
    the program's slot is rewritten while earlier stores through it may be in flight."""
    for r in range(0, M, ROWS):
        src = tl.make_tensor_descriptor(x_ptr + r * N, [ROWS, N], [N, 1], [ROWS, BN])
        dst = tl.make_tensor_descriptor(y_ptr + r * N, [ROWS, N], [N, 1], [ROWS, BN])
        j = tl.program_id(0) * BN
        dst.store([0, j], src.load([0, j]) * 2)


@triton.jit
def _dmatmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr, B_KMAJOR: tl.constexpr, STAGES: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BN, BK])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    _desc_matmul(a_desc, b_desc, c_desc, K, BM, BN, BK, B_KMAJOR, STAGES)


@triton.jit
def _dpersistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, NUM_SMS: tl.constexpr):
    """Tutorial 09's matmul_kernel_descriptor_persistent (without grouping or flattening)."""
    start_pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * num_pid_n
    k_tiles = tl.cdiv(K, BK)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):
        offs_am = (tile_id // num_pid_n) * BM
        offs_bn = (tile_id % num_pid_n) * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([offs_am, ki * BK])
            b = b_desc.load([offs_bn, ki * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([offs_am, offs_bn], acc.to(c_ptr.dtype.element_ty))


# ---------------------------------------------------------------------------- GPU tests
torch = pytest.importorskip("torch")


def install_torch_allocator() -> list:
    """torch's allocator as upstream's tutorials set it; the list records each request
    (bench/sanitize_dot.py calls the tests below with it)."""
    calls = []

    def alloc(size, align, stream):
        calls.append((size, align, stream))
        return torch.empty(size, dtype=torch.int8, device="cuda")
    triton.set_allocator(alloc)
    return calls


@pytest.fixture
def allocator():
    yield install_torch_allocator()
    triton.set_allocator(None)


@pytest.mark.parametrize("dtype,block", [
    ("float16", (64, 64)), ("float16", (16, 256)), ("float32", (16, 64)), ("float32", (8, 32)),
    ("bfloat16", (64, 32)), ("int8", (32, 64)), ("int32", (16, 16))])
@pytest.mark.parametrize("shape", [(100, 320), (7, 48)])
def test_device_tma_copy(allocator, dtype, block, shape):
    M, N = shape
    x = _rand((M, N), dtype)
    big = torch.full((M + 8, N), 77, dtype=_DT[dtype], device="cuda")
    y = big[:M]
    grid = (triton.cdiv(M, block[0]), triton.cdiv(N, block[1]))
    k = _dcopy[grid](x, y, M, N, BM=block[0], BN=block[1], PAD="zero")
    assert "tensormap.cp_fenceproxy" in k.asm["ptx"], "expected device-made TMA maps"
    assert torch.equal(y, x + 1)
    assert bool((big[M:] == 77).all()), "a TMA store wrote outside the tensor"
    assert allocator[-1][:2] == (2 * 128 * grid[0] * grid[1], 128)


def test_device_tma_copy_3d(allocator):
    A, B, C = 5, 19, 80
    x = _rand((A, B, C), "float16")
    y = torch.zeros_like(x)
    k = _dcopy3d[(3, 3, 3)](x, y, A, B, C, BA=2, BB=8, BC=32)
    assert "tensormap.replace.tile.rank.shared::cta.b1024.b32" in k.asm["ptx"]
    assert torch.equal(y, x - 1)


@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("i,j", [(5, 16), (-3, -16), (0, 0), (6, 32)])
def test_device_tma_out_of_bounds(allocator, pad, i, j):
    M, N, ld = 9, 44, 48       # ragged: 44 columns of 48-element rows
    base = torch.randn(M, ld, device="cuda")
    out = torch.zeros(8, 16, device="cuda")
    k = _dwindow[(1,)](base, out, M, N, ld, i, j, BM=8, BN=16, PAD=pad)
    assert "tensormap.replace" in k.asm["ptx"]
    ref = torch.full((8, 16), float("nan") if pad == "nan" else 0.0)
    xc = base.cpu()
    for a in range(8):
        for b in range(16):
            if 0 <= i + a < M and 0 <= j + b < N:
                ref[a, b] = xc[i + a, j + b]
    torch.testing.assert_close(out.cpu(), ref, equal_nan=True, rtol=0, atol=0)


def test_device_tma_reduce(allocator):
    P, BM, BN = 5, 8, 32
    target = torch.randn(20, 64, device="cuda")
    vals = torch.randn(P, BM, BN, device="cuda")
    ref = target.clone()
    ref[15:20, 16:48] += vals.sum(0)[:5]
    k = _dreduce[(P,)](target, vals, 20, 64, 15, 16, BM=BM, BN=BN)
    assert "cp.reduce.async.bulk.tensor" in k.asm["ptx"]
    torch.testing.assert_close(target, ref, rtol=1e-5, atol=1e-5)


def test_device_tma_remade_in_a_loop(allocator):
    M, N, ROWS, BN = 40, 96, 8, 32
    x = torch.randn(M, N, device="cuda")
    y = torch.zeros_like(x)
    k = _dremade[(N // BN,)](x, y, M, N, ROWS=ROWS, BN=BN)
    assert "tensormap.cp_fenceproxy" in k.asm["ptx"]
    assert torch.equal(y, x * 2)


@pytest.mark.parametrize("M,N,K", [(256, 256, 512), (200, 136, 80)])
@pytest.mark.parametrize("b_kmajor", [True, False])
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_device_tma_matmul(allocator, M, N, K, b_kmajor, stages, dtype):
    BM, BN, BK = 128, 128, 64
    a = _rand((M, K), dtype)
    b = _rand((N, K) if b_kmajor else (K, N), dtype)
    c = torch.empty(M, N, dtype=_DT[dtype], device="cuda")
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    k = _dmatmul[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, B_KMAJOR=b_kmajor,
                       STAGES=stages, num_warps=4)
    assert "tensormap.cp_fenceproxy" in k.asm["ptx"]
    ref = (a.float() @ (b.float().T if b_kmajor else b.float())).to(_DT[dtype])
    torch.testing.assert_close(c.float(), ref.float(), rtol=2e-2, atol=2e-2 * K ** 0.5)


@pytest.mark.parametrize("M,N,K", [(512, 384, 256), (328, 200, 144)])
def test_device_tma_persistent_matmul(allocator, M, N, K):
    num_sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    a = _rand((M, K), "float16")
    b = _rand((N, K), "float16")
    c = torch.empty(M, N, dtype=torch.float16, device="cuda")
    BM, BN, BK = 128, 128, 64
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    grid = (min(num_sms, tiles),)
    k = _dpersistent[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, NUM_SMS=grid[0],
                           num_warps=8, num_stages=3)
    assert "tensormap.cp_fenceproxy" in k.asm["ptx"]
    # C's row stride N is provably 16-byte aligned only when the launch specialises N as
    # a multiple of 16; otherwise its store stays on pointers and only A's and B's maps
    # take scratch
    maps = 3 if N % 16 == 0 else 2
    assert allocator[-1][:2] == (maps * 128 * grid[0], 128)
    ref = (a.float() @ b.float().T).half()
    torch.testing.assert_close(c.float(), ref.float(), rtol=2e-2, atol=2e-2 * K ** 0.5)


def test_device_tma_without_allocator_is_upstreams_error():
    triton.set_allocator(None)
    x = torch.randn(64, 64, device="cuda")
    with pytest.raises(RuntimeError, match="no allocator was set. Use triton.set_allocator"):
        _dcopy[(1, 1)](x, torch.empty_like(x), 64, 64, BM=64, BN=64, PAD="zero")


def test_unaligned_stride_falls_back_to_pointers(allocator):
    """Rows of 100 fp16 (200 bytes, not a multiple of 16): no map can describe them, so the
    descriptor is rewritten to pointers, and no scratch is asked for."""
    x = torch.randn(50, 100, device="cuda").half()
    y = torch.zeros_like(x)
    k = _dcopy[(triton.cdiv(50, 16), triton.cdiv(100, 32))](x, y, 50, 100, BM=16, BN=32,
                                                             PAD="zero")
    assert "tensormap" not in k.asm["ptx"] and not allocator
    assert torch.equal(y, x + 1)
