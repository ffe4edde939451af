"""Tiles addressed through an index table read in the loop (block-sparse matmul, flex
attention's block walk): compiled for sm_90a without a GPU, the pipeliner turns them into
cp.async rings with the table reads running ahead (predicated), and ptxas assembles the
result; the same kernels on the CPU against torch, so the GPU test's kernels and references
are known good. The H100 runs are in test_indirect_pipeline_gpu.py."""
import os
import re
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from indirect_kernels import (block_attn, bsr_matmul, rel_err, run_attn, run_bsr,  # noqa: E402
                              matmul_bt, run_matmul_bt, run_tma_bsr, run_walk,
                              tma_bsr_matmul, walk_matmul)
import tritium as triton  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.backends.nvidia import toolchain  # noqa: E402
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions  # noqa: E402
from tritium.backends.nvidia.llvm import llir_to_ptx  # noqa: E402
from tritium.frontend.compiler import make_ttir  # noqa: E402
from tritium.ir.printer import print_module  # noqa: E402

D, ONE = ("i32", "D"), ("constexpr", 1)
# N and K divisible by 16, as the launcher specialises them for 1024: masks of a ragged N or K
# cut each copy below cp.async's 4 bytes (such loads stay unpipelined, as upstream's do).
BSR_SPEC = (("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("*i32", "D"), ("*i32", "D"),
            ("i32", ""), D, D, D, ONE, D, ONE, D, ONE, ("i32", ""),
            ("constexpr", 128), ("constexpr", 128), ("constexpr", 64))
ATTN_SPEC = (("*fp16", "D"),) * 4 + (("*i32", "D"), ("*i32", "D"), ("i32", ""), D, D,
                                      ("fp32", ""), ("i32", ""),
                                      ("constexpr", 128), ("constexpr", 64), ("constexpr", 64))


def _compile(fn, spec, stages):
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    opts = CUDAOptions(num_warps=4, num_stages=stages)
    ttir, _ = make_ttir(fn, spec, opts)
    ttgir = backend.make_ttgir(backend.make_ttir(ttir, {}, opts), opts)
    text = print_module(ttgir)
    llir, _ = backend.make_llir(ttgir, opts)
    return text, llir_to_ptx(llir, arch="sm_90a")


def _loop(text):
    start = text.index("scf.for")
    return text[start:text.index("scf.yield", start)]


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("kernel", ["bsr", "bsr_walk", "attn"])
def test_indirect_tiles_are_pipelined(kernel, stages):
    fn, spec = (block_attn, ATTN_SPEC) if kernel == "attn" else (
        bsr_matmul, BSR_SPEC + (("constexpr", kernel == "bsr_walk"),))
    text, ptx = _compile(fn, spec, stages)
    loop = _loop(text)
    tile_loads = [line for line in loop.splitlines() if "tt.load" in line and "tensor<" in line]
    if stages == 1:
        assert "async_copy_global_to_local" not in text and len(tile_loads) == 2
        assert "cp.async" not in ptx
    else:
        # both tiles ride rings of `stages` slots; inside the loop no tile is loaded to
        # registers, the table reads there are predicated on their iteration existing
        assert not tile_loads, tile_loads
        assert len(re.findall(rf'"ttg.local_alloc"\(\).*-> !ttg.memdesc<{stages}x', text)) == 2
        assert loop.count("async_copy_global_to_local") == 2
        table = [line for line in loop.splitlines() if "tt.load" in line and "!tt.ptr<i32>" in line]
        ahead = [line for line in table if ", %" in line.split(":")[0]]
        # bsr: only the next iteration's index read is left in the loop; attention also keeps
        # its own offset update (the score mask reads the current block's offset)
        if kernel != "attn":
            assert len(table) == len(ahead) == 1, table
        else:
            assert len(table) == 4 and len(ahead) >= 2, table
        assert "cp.async.cg.shared.global" in ptx
    if kernel == "attn" and stages > 1:
        assert '"ttg.memdesc_trans"' in loop  # K read through a transposed view of its slot
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx, arch="sm_90a")
        assert info.kernel.registers > 0


@pytest.mark.parametrize("stages", [2, 4])
def test_indirect_tma_tiles_are_pipelined(stages):
    """Through tensor descriptors the table names the TMA copies' coordinates: both tiles get
    TMA rings, the copies of iteration i+D are issued from the index read one iteration
    earlier, and the index read of i+D+1 is predicated."""
    spec = (("tensordesc<fp16[128, 64]>", None), ("tensordesc<fp16[64, 128]>", None),
            ("tensordesc<fp32[128, 128]>", None), ("*i32", "D"), ("*i32", "D"), ("i32", ""),
            ("constexpr", 128), ("constexpr", 128), ("constexpr", 64))
    text, ptx = _compile(tma_bsr_matmul, spec, stages)
    loop = _loop(text)
    assert loop.count("async_tma_copy_global_to_local") == 2 and "tt.descriptor_load" not in loop
    table = [line for line in loop.splitlines() if "tt.load" in line]
    assert len(table) == 1 and ", %" in table[0].split(":")[0], table
    assert "cp.async.bulk.tensor" in ptx
    if toolchain.find_ptxas():
        toolchain.make_cubin(ptx, arch="sm_90a")


def test_flex_like_loop_with_a_store_is_left_alone():
    """A global store in the loop: the table might be written, so nothing runs ahead."""
    import tritium.language as tl

    @triton.jit
    def kernel(A, B, C, IDX, NNZ, BM: tl.constexpr, BK: tl.constexpr):
        rm, rk = tl.arange(0, BM), tl.arange(0, BK)
        acc = tl.zeros((BM, BM), dtype=tl.float32)
        for j in range(tl.load(NNZ)):
            kb = tl.load(IDX + j)
            tl.store(IDX + j + 1, kb + 1)
            a = tl.load(A + rm[:, None] * 1024 + (kb * BK + rk)[None, :])
            b = tl.load(B + (kb * BK + rk)[:, None] * BM + rm[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(C + rm[:, None] * BM + rm[None, :], acc)

    spec = (("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("*i32", "D"), ("*i32", "D"),
            ("constexpr", 64), ("constexpr", 64))
    text, _ = _compile(kernel, spec, 3)
    assert "async_copy_global_to_local" not in text


@pytest.mark.parametrize("walk_ptr", [False, True])
@pytest.mark.parametrize("max_nnz", [0, 1, 5])
def test_bsr_matmul_cpu(max_nnz, walk_ptr):
    c, ref = run_bsr(torch, "cpu", 70, 40, 200, 32, 32, 32, max_nnz, torch.float16, max_nnz,
                     walk_ptr=walk_ptr)
    assert not torch.isnan(c).any()
    assert rel_err(torch, c, ref) < 1e-5


def test_block_attn_cpu():
    o, ref, num = run_attn(torch, "cpu", 2, 100, 32, 32, 16, 4, torch.float16, 1)
    assert (num == 0).any() and (num == 4).any()  # rows with no blocks and with the most
    assert not torch.isnan(o).any()
    assert rel_err(torch, o, ref) < 2e-3


@pytest.mark.parametrize("read_after", [False, True])
def test_carried_pointers_read_after_the_loop_keep_their_own_values(read_after):
    """Pointers advanced by a constant step run D iterations ahead in place, unless the loop's
    result is read after it: then ahead copies are carried beside the originals."""
    spec = (("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("*fp16", "D"), ("i32", ""),
            ("i32", "D"), ("constexpr", 64), ("constexpr", 64), ("constexpr", read_after))
    text, _ = _compile(walk_matmul, spec, 3)
    header = next(line for line in text.splitlines() if "scf.for" in line)
    results = header[header.index("->"):]
    assert "async_copy_global_to_local" in text
    assert results.count("!tt.ptr<f16>") == (3 if read_after else 2), results


def test_walk_matmul_cpu():
    out, last, ref, ref_last = run_walk(torch, "cpu", 5, 32, 16, 0)
    assert rel_err(torch, out, ref) < 1e-5 and torch.equal(last, ref_last)


def test_tma_bsr_matmul_cpu():
    c, ref = run_tma_bsr(torch, "cpu", 64, 48, 96, 32, 16, 16, 4, 3)
    assert rel_err(torch, c, ref) < 1e-5


@pytest.mark.parametrize("stages", [1, 3])
def test_transposed_operand_rides_a_ring_as_loaded(stages):
    """B loaded [N, K] and transposed into the dot: a ring of [N, K] slots (the loaded
    layout) and a ttg.memdesc_trans view per iteration."""
    spec = (("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("i32", ""), ("i32", ""), D, D, D, D,
            ("constexpr", 128), ("constexpr", 128), ("constexpr", 64))
    text, ptx = _compile(matmul_bt, spec, stages)
    if stages == 1:
        assert "async_copy_global_to_local" not in text
        return
    # A [128, 64] and B as loaded [128, 64]: two rings of that shape
    assert len(re.findall(r'"ttg.local_alloc"\(\).*-> !ttg.memdesc<3x128x64xf16, ', text)) == 2
    loop = _loop(text)
    assert "memdesc_trans" in loop and "tt.trans" not in loop
    assert "cp.async.cg.shared.global" in ptx
    if toolchain.find_ptxas():
        toolchain.make_cubin(ptx, arch="sm_90a")


def test_matmul_bt_cpu():
    c, ref = run_matmul_bt(torch, "cpu", 50, 40, 72, 32, 32, 32, torch.float16, 0)
    assert rel_err(torch, c, ref) < 1e-5
