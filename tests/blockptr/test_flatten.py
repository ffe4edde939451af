"""`tl.range(..., flatten=True)` without a GPU: tritongpu-fuse-nested-loops is written on
scf/arith only, so the fused TTIR runs on the CPU backend (both paths; the pass is added
after the "ttir" stage through `knobs.runtime.add_stages_inspection_hook`) against numpy,
for ragged shapes, zero-trip inner loops (K = 0), K below BLOCK_K and more programs than
tiles; and the persistent matmuls compiled for sm_90a (ptxas accepts them; the TTGIR has
one pipelined loop: TMA rings or cp.async rings, the accumulator reset as wgmma's useC,
the wgmma wait inside the epilogue branch)."""
import re

import numpy as np
import pytest

import tritium.knobs as knobs
import tritium.language as tl
from tritium import jit
from tritium.passes import PassManager
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr.flatten_kernels import matmul_ptr_persistent, matmul_tma_persistent
from tests.blockptr.test_tensor_descriptor_host import _aligned
from tests.blockptr.test_tma_compile import _c, _d, compile_sm90


class _FuseHook:
    """Runs tritongpu-fuse-nested-loops on every kernel's TTIR (a kernel's `asm["ttir"]`
    is then the fused one; its cache key says so)."""

    def __call__(self, backend=None, stages=None, options=None, language=None,
                 capability=None):
        if stages is None:
            return "fuse-nested-loops", "1"
        inner = stages["ttir"]

        def ttir(src, metadata):
            mod = inner(src, metadata)
            import tritium.gpu.passes  # noqa: F401  (registers the pass)
            PassManager("tritongpu-fuse-nested-loops", verify_each=True).run(mod)
            return mod
        stages["ttir"] = ttir


@pytest.fixture
def fused(monkeypatch):
    hook = _FuseHook()
    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", hook)
    return hook


def _one_fused_loop(kernel):
    """The fused kernel: the tile loop and its K loop are one loop, beside the fallback."""
    text = kernel.asm["ttir"]
    assert "tt.flatten" not in text, text
    assert text.count("scf.for") == 2, text   # fused + the K == 0 fallback (no inner loop)


@jit
def _rowsum(x, o, M, K, NP: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    for t in tl.range(tl.program_id(0), tl.cdiv(M, BM), NP, flatten=True):
        rows = t * BM + tl.arange(0, BM)
        row_ptrs = x + rows[:, None] * K      # a pointer tile the prologue hands the K loop
        acc = tl.zeros((BM,), tl.float32)
        for k in range(0, K, BK):
            cols = k + tl.arange(0, BK)
            acc += tl.sum(tl.load(row_ptrs + cols[None, :],
                                  mask=(rows[:, None] < M) & (cols[None, :] < K), other=0.0), 1)
        tl.store(o + rows, acc + 1, mask=rows < M)


@pytest.mark.parametrize("M,K,NP", [(100, 70, 3), (37, 0, 2), (5, 33, 8), (64, 16, 1)])
def test_rowsum_fused_on_cpu(cpu_path, fused, rng, M, K, NP):
    x = rng.standard_normal((M, K)).astype(np.float32)
    o = np.full(M, np.nan, np.float32)
    k = _rowsum[(NP,)](x, o, M, K, NP=NP, BM=16, BK=16)
    _one_fused_loop(k)
    assert re.search(r"ub.poison.*tensor<16x1x!tt.ptr<f32>>", k.asm["ttir"])
    np.testing.assert_allclose(o, x.sum(1) + 1, rtol=1e-5, atol=1e-5)


# (M, N, K, programs): ragged edges, K below BLOCK_K, K = 0 (every tile's inner loop runs
# no iteration: C is zeros), more programs than tiles, one program for all tiles.
SHAPES = [(80, 48, 72, 3), (33, 17, 8, 4), (40, 40, 0, 2), (16, 16, 48, 9), (70, 90, 40, 1)]


@pytest.mark.parametrize("M,N,K,P", SHAPES)
def test_pointer_persistent_matmul_fused_on_cpu(cpu_path, fused, rng, M, N, K, P):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    strides = [s // 4 for x in (a, b, c) for s in x.strides]
    _one_fused_loop(matmul_ptr_persistent[(P,)](a, b, c, M, N, K, *strides, BM=16, BN=16,
                                                BK=16, GROUP=2, NUM_PROGS=P))
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


# rows 16-byte aligned, as TMA needs (K = 8 is below BLOCK_K)
TMA_SHAPES = [(80, 48, 72, 3), (40, 24, 8, 4), (16, 16, 48, 9), (72, 88, 40, 1)]


@pytest.mark.parametrize("M,N,K,P", TMA_SHAPES)
def test_tma_persistent_matmul_fused_on_cpu(cpu_path, fused, rng, M, N, K, P):
    """Tutorial 09's kernel itself: descriptors run directly on the CPU."""
    a = _aligned(rng.standard_normal((M, K)).astype(np.float16))
    b = _aligned(rng.standard_normal((N, K)).astype(np.float16))
    c = _aligned(np.full((M, N), np.nan, np.float16))
    BM, BN, BK = 16, 16, 16
    k = matmul_tma_persistent[(P,)](TensorDescriptor.from_tensor(a, [BM, BK]),
                                    TensorDescriptor.from_tensor(b, [BN, BK]),
                                    TensorDescriptor.from_tensor(c, [BM, BN]), M, N, K,
                                    BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                                    GROUP_SIZE_M=2, NUM_SMS=P)
    _one_fused_loop(k)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


# ------------------------------------------------------------------ sm_90a, no GPU

def _tma_spec(BM, BN, BK):
    return (_d("fp16", (BM, BK)), _d("fp16", (BN, BK)), _d("fp16", (BM, BN)), ("i32", ""),
            ("i32", ""), ("i32", ""), _c(BM), _c(BN), _c(BK), _c(8), _c(132))


def _fused_loop(ttgir):
    """The text of the fused loop (the first top-level scf.for inside the version's then)."""
    start = ttgir.index("scf.for")
    depth, end = 0, start
    for m in re.finditer(r"\{\s*$|^\s*\}", ttgir[start:], flags=re.M):
        depth += 1 if m.group(0).strip() == "{" else -1
        if depth == 0:
            end = start + m.end()
            break
    return ttgir[start:end]


@pytest.mark.parametrize("BM,BN,BK,warps,stages", [(128, 128, 64, 4, 4), (128, 256, 64, 8, 3),
                                                   (64, 64, 32, 4, 2)])
def test_tma_persistent_compiles_to_one_pipelined_loop(BM, BN, BK, warps, stages):
    out = compile_sm90(matmul_tma_persistent, _tma_spec(BM, BN, BK), num_warps=warps,
                       num_stages=stages)
    ttgir = out["ttgir"]
    assert "tt.flatten" not in ttgir
    ring = f"!ttg.memdesc<{stages}x{BM}x{BK}xf16"
    assert ring in ttgir and f"!ttg.memdesc<{stages}x{BN}x{BK}xf16" in ttgir
    loop = _fused_loop(ttgir)
    assert loop.count("scf.for") == 1, "the tile loop and the K loop should be one loop"
    assert "tt.descriptor_load" not in loop
    # the next loads are issued from the ahead copy of the tile state, predicated on the
    # fused index, into the slot the ring's producer counter names
    assert loop.count("ttng.async_tma_copy_global_to_local") == 2
    assert loop.count("ttng.wait_barrier") == 2
    # the accumulator restarts through wgmma's useC, and chains with one group in flight
    dot = re.search(r'"ttng.warp_group_dot"\(([^)]*)\)[^\n]*isAsync = true', loop)
    assert dot and len(dot.group(1).split(",")) == 4, loop
    assert "pendings = 1" in loop
    assert not re.search(r"arith.select [^\n]*xf32, #mma>", loop), "the reset is useC"
    # the epilogue branch waits for every wgmma before it reads the accumulator, then stores
    epi = loop[loop.rindex("scf.if"):]
    w0 = epi.index('"ttng.warp_group_dot_wait"')
    assert "pendings = 0" in epi[w0:w0 + 200]
    assert w0 < epi.index("arith.truncf") < epi.index("ttng.async_tma_copy_local_to_global")
    # one store buffer for every tile, outside the loop: the wait for the unit to have read
    # the last tile comes right before it is rewritten, and once more after the loop
    assert "ttg.local_alloc" not in loop
    assert epi.index("ttng.async_tma_store_wait") < epi.index('"ttg.local_store"') \
        < epi.index("ttng.fence_async_shared") < epi.index("ttng.async_tma_copy_local_to_global")
    assert "ttng.async_tma_store_wait" in ttgir[ttgir.index(loop) + len(loop):][:300]
    # issued before the epilogue: the next tile's loads run under this tile's store
    assert loop.rindex("ttng.async_tma_copy_global_to_local") < loop.rindex("scf.if")
    if out["kernel"] is not None:
        assert out["kernel"].spill_stores == 0


def test_pointer_persistent_compiles_to_one_pipelined_loop():
    a = np.zeros((256, 256), np.float16)
    _, spec, _ = matmul_ptr_persistent.bind(a, a, a, 256, 256, 256, 256, 1, 256, 1, 256, 1,
                                            BM=128, BN=128, BK=64, GROUP=8, NUM_PROGS=132)
    out = compile_sm90(matmul_ptr_persistent, spec, num_warps=4, num_stages=3)
    loop = _fused_loop(out["ttgir"])
    assert loop.count("scf.for") == 1
    # both tiles ride cp.async rings, issued from the ahead copies of the tile's offsets
    assert loop.count('"ttg.async_copy_global_to_local"') == 2 and "ttg.async_wait" in loop
    assert re.search(r'"ttng.warp_group_dot"\([^)]*,[^)]*,[^)]*,[^)]*\)[^\n]*isAsync = true',
                     loop)
    assert "cp.async" in out["ptx"] and "wgmma.mma_async" in out["ptx"]
    if out["kernel"] is not None:
        assert out["kernel"].spill_stores == 0


def test_fused_rings_shrink_to_leave_room_for_the_epilogue():
    """128x256x64 with 4 stages: 4 rings of 48 KB and the epilogue's 64 KB store tile do not
    fit in 227 KB beside each other (nested, the store reused the rings' bytes), so the
    fused loop gets 3 slots instead of a kernel that cannot launch."""
    out = compile_sm90(matmul_tma_persistent, _tma_spec(128, 256, 64), num_warps=8,
                       num_stages=4)
    assert "!ttg.memdesc<3x128x64xf16" in out["ttgir"] and "memdesc<4x" not in out["ttgir"]
    assert int(re.search(r"ttg.shared = (\d+)", out["ttgir"]).group(1)) <= 227 * 1024


# ------------------------------------------------ inner bounds computed from the outer index
@jit
def _dependent(ub, out_i, out_j):
    """upstream's test_tl_range_fuse_dependent kernel: inner bounds from i, and
    tl.assume(ub > lb), so every inner loop runs (no guard in the fused loop)."""
    k = 0
    for i in tl.range(0, ub, flatten=True):
        lower_bound = i * 2
        upper_bound = lower_bound + i + 1
        tl.assume(upper_bound > lower_bound)
        for j in tl.range(lower_bound, upper_bound):
            tl.store(out_i + k, i)
            tl.store(out_j + k, j)
            k += 1


@jit
def _triangle(o, cnt, n, lo, S: tl.constexpr, SJ: tl.constexpr):
    """No assume: inner loops of i - 3 down to zero trips (and negative lengths) for the
    first i, a prologue value (the row's base), a per-row sum stored by the epilogue, and
    outer/inner steps other than 1."""
    total = 0
    for i in tl.range(lo, n, S, flatten=True):
        base = i * 100
        acc = 0
        for j in tl.range(3, i, SJ):
            acc += base + j
            total += 1
        tl.store(o + i, acc)
    tl.store(cnt, total)


def _fused_dependent(text):
    """The nest is one loop, after the loop that counts its iterations."""
    assert "tt.flatten" not in text, text
    assert text.count("scf.for") == 2, text
    first = text[text.index("scf.for"):]
    assert first[:first.index("}")].count("scf.for") == 1   # the counting loop
    assert first[first.index("}"):].count("scf.for") == 1   # the fused loop


@pytest.mark.parametrize("ub", [0, 2, 10])  # (1 would be a constant)
def test_dependent_bounds_fused_on_cpu(cpu_path, fused, ub):
    out_i, out_j = np.full(1024, -7, np.int32), np.full(1024, -7, np.int32)
    k = _dependent[(1,)](ub, out_i, out_j)
    _fused_dependent(k.asm["ttir"])
    assert "arith.cmpi slt" not in k.asm["ttir"]  # tl.assume(ub > lb): no body guard
    ref = [(i, j) for i in range(ub) for j in range(2 * i, 3 * i + 1)]
    n = len(ref)
    np.testing.assert_array_equal(out_i[:n], [r[0] for r in ref])
    np.testing.assert_array_equal(out_j[:n], [r[1] for r in ref])
    assert (out_i[n:] == -7).all() and (out_j[n:] == -7).all()


@pytest.mark.parametrize("lo,n,S,SJ", [(0, 12, 1, 1), (1, 20, 3, 2), (5, 5, 1, 1), (0, 4, 1, 3)])
def test_dependent_bounds_with_empty_inner_loops_on_cpu(cpu_path, fused, lo, n, S, SJ):
    o, cnt = np.full(32, -1, np.int32), np.full(1, -1, np.int32)
    k = _triangle[(1,)](o, cnt, n, lo, S=S, SJ=SJ)
    _fused_dependent(k.asm["ttir"])
    want = np.full(32, -1, np.int32)
    total = 0
    for i in range(lo, n, S):
        want[i] = sum(i * 100 + j for j in range(3, i, SJ))
        total += len(range(3, i, SJ))
    np.testing.assert_array_equal(o, want)
    assert cnt[0] == total


def test_dependent_nest_compiles_for_sm90_as_upstream_checks():
    """upstream's test_tl_range_fuse_dependent reads the TTGIR: the counting loop, then one
    fused loop; ptxas takes the kernel."""
    z = np.zeros(4, np.int32)
    _, spec, _ = _dependent.bind(10, z, z)
    out = compile_sm90(_dependent, spec, num_warps=4, num_stages=3)
    assert "tt.flatten" in out["ttir"]
    _fused_dependent(out["ttgir"])
    assert ".entry" in out["ptx"]
