"""Loads of a dot-less loop with an explicit `num_stages` ride cp.async rings (the
pipeliner's pipeline_nodot.py, upstream's `pipelineWithoutDot`), compiled for sm_90a
without a GPU: the rings and waits in the TTGIR by FileCheck, the PTX assembled by ptxas,
the rule's limits (no explicit stage count, loads too narrow for cp.async, `other`), the
shared memory of too many stages refused at load as `OutOfResources`, and the CPU backend
running the same kernels unchanged. On the GPU: test_pipeline_nodot_gpu.py."""
import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia import driver, toolchain
from tritium.compiler import ASTSource, GPUTarget, compile
from tritium.runtime.errors import OutOfResources

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nodot_kernels import hooks_kernel, row_sum_kernel, row_sum_signature  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "tritium_nodot_lit", Path(__file__).parents[1] / "passes" / "lit.py")
lit = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = lit
_spec.loader.exec_module(lit)

needs_ptxas = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")
SM90 = GPUTarget("cuda", 90, 32)


def _row_sum(dtype="fp32", stages=3, aligned=True, BM=16, BN=64, warps=4):
    sig, attrs = row_sum_signature(dtype, aligned)
    consts = {"BLOCK_M": BM, "BLOCK_N": BN, "STAGES": stages}
    return compile(ASTSource(row_sum_kernel, sig, consts, attrs), target=SM90,
                   options=dict(num_warps=warps))


def _hooks(stages, block):
    sig = {"src": "*fp32", "N": "i32", "N_STAGES": "constexpr", "BLOCK_SIZE": "constexpr"}
    return compile(ASTSource(hooks_kernel, sig, {"N_STAGES": stages, "BLOCK_SIZE": block},
                             {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}),
                   target=SM90)


def _check(checks: str, text: str) -> None:
    failure = lit.filecheck("<checks>", checks, text)
    assert failure is None, failure


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_row_sum_ring_and_waits(stages):
    k = _row_sum(stages=stages)
    D = stages - 1
    copy = ("CHECK: ttg.async_copy_global_to_local\n"
            "CHECK-NEXT: ttg.async_commit_group\n")
    _check(f"""
CHECK: #shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
CHECK: ttg.local_alloc{{{{.*}}}} -> !ttg.memdesc<{stages}x16x64xf32, #shared, #smem, mutable>
{copy * D}CHECK-NOT: ttg.async_copy_global_to_local
CHECK: scf.for
CHECK-NOT: tt.load
CHECK: ttg.async_wait{{{{.*}}}}num = {D - 1} : i32
CHECK-NEXT: ttg.memdesc_index
CHECK-NEXT: ttg.local_load{{{{.*}}}}!ttg.memdesc<16x64xf32, #shared, #smem, mutable, {stages}x16x64>
{copy}CHECK: scf.yield
CHECK: tt.num_stages = {stages} : i32
CHECK-NEXT: ttg.async_wait{{{{.*}}}}num = 0 : i32
""", k.asm["ttgir"])
    assert k.metadata.shared >= stages * 16 * 64 * 4


@needs_ptxas
@pytest.mark.parametrize("dtype,stages", [("fp32", 3), ("fp16", 4), ("bf16", 2)])
def test_row_sum_ptx_assembles(dtype, stages):
    k = _row_sum(dtype, stages, BM=32, BN=128, warps=8)
    ptx = k.asm["ptx"]
    waits = [int(n) for n in re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx)]
    assert waits == [stages - 2, 0]
    # 16-byte copies: the rows are 16-byte aligned and the mask constant in 8-element runs
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16", ptx)
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_default_stage_count_leaves_the_loop_alone():
    """Upstream's rule: only a loop's own num_stages pipelines a loop without dots."""
    @tritium.jit
    def plain(X, Y, N, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in range(0, tl.cdiv(N, BLOCK)):
            acc += tl.load(X + k * BLOCK + tl.arange(0, BLOCK))
        tl.store(Y + tl.arange(0, BLOCK), acc)
    k = compile(ASTSource(plain, {"X": "*fp32", "Y": "*fp32", "N": "i32", "BLOCK": "constexpr"},
                          {"BLOCK": 256}, {(0,): [["tt.divisibility", 16]]}),
                target=SM90, options=dict(num_stages=4))
    assert "async_copy" not in k.asm["ttgir"] and "tt.load" in k.asm["ttgir"]


def test_narrow_loads_stay_plain_loads():
    """fp16 rows of unknown alignment: one element (2 bytes) per copy, below cp.async's 4."""
    k = _row_sum("fp16", 3, aligned=False)
    assert "async_copy" not in k.asm["ttgir"] and "local_alloc" not in k.asm["ttgir"]
    # fp32 at the same alignment moves 4 bytes: pipelined
    assert "ttg.async_copy_global_to_local" in _row_sum("fp32", 3, aligned=False).asm["ttgir"]


def test_load_with_other_stays():
    @tritium.jit
    def with_other(X, Y, N, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(N, BLOCK), num_stages=3):
            offs = k * BLOCK + tl.arange(0, BLOCK)
            acc += tl.load(X + offs, mask=offs < N, other=1.0)
        tl.store(Y + tl.arange(0, BLOCK), acc)
    k = compile(ASTSource(with_other, {"X": "*fp32", "Y": "*fp32", "N": "i32",
                                       "BLOCK": "constexpr"}, {"BLOCK": 256},
                          {(0,): [["tt.divisibility", 16]], (2,): [["tt.divisibility", 16]]}),
                target=SM90)
    assert "async_copy" not in k.asm["ttgir"]


def test_index_chain_stays():
    """A load whose address is read from a load of the loop: not this rule's case."""
    @tritium.jit
    def gather(X, I, Y, N, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(N, BLOCK), num_stages=3):
            idx = tl.load(I + k * BLOCK + tl.arange(0, BLOCK))
            acc += tl.load(X + idx)
        tl.store(Y + tl.arange(0, BLOCK), acc)
    sig = {"X": "*fp32", "I": "*i32", "Y": "*fp32", "N": "i32", "BLOCK": "constexpr"}
    k = compile(ASTSource(gather, sig, {"BLOCK": 256}, {(0,): [["tt.divisibility", 16]],
                                                        (1,): [["tt.divisibility", 16]]}),
                target=SM90)
    assert "async_copy" not in k.asm["ttgir"]


def test_dot_loops_keep_their_rings():
    """A loop with a dot goes the dot way: only the loads feeding the dot ride rings."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "gpu_dot"))
    import test_range_num_stages as rn
    ttgir = rn._compile(3).asm["ttgir"]
    assert "swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1" not in ttgir
    assert ttgir.count("ttg.async_copy_global_to_local") == 2 * 3  # A and B, 2 ahead + 1


class _FakeCuda:
    def cuModuleLoadData(self, image):  # pragma: no cover - must not be reached
        raise AssertionError("loaded a kernel whose shared memory cannot fit")


def test_too_many_stages_are_out_of_resources(monkeypatch):
    """upstream's test_hooks: 100 stages of a 4096-float block need 1.6 MB of shared
    memory; the kernel compiles, and loading it raises OutOfResources (what the
    autotuner skips). 100 stages of 32 floats fit."""
    big = _hooks(100, 4096)
    assert big.metadata.shared >= 100 * 4096 * 4
    assert big.asm["ttgir"].count("ttg.async_copy_global_to_local") == 100
    monkeypatch.setattr(driver, "cuda", lambda: _FakeCuda())
    monkeypatch.setattr(driver, "get_device_properties",
                        lambda device=None: {"max_shared_mem": 232448})
    monkeypatch.setattr(driver, "ensure_context", lambda device=None: None)
    with pytest.raises(OutOfResources, match="shared memory"):
        driver.load_binary("hooks_kernel", b"cubin", big.metadata.shared, 0, num_threads=128)
    small = _hooks(100, 32)
    assert 100 * 32 * 4 <= small.metadata.shared <= 232448


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("M,N", [(37, 300), (64, 64), (5, 1)])
def test_cpu_backend_unaffected(dtype, M, N):
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(M * 1000 + N)
    x = torch.randn((M, N), generator=g).to(getattr(torch, dtype))
    y = torch.empty(M, dtype=torch.float32)
    row_sum_kernel[(tritium.cdiv(M, 16),)](x, y, M, N, x.stride(0), BLOCK_M=16, BLOCK_N=64,
                                           STAGES=3)
    np.testing.assert_allclose(y.numpy(), x.float().sum(1).numpy(), rtol=1e-5, atol=1e-4)
    src = torch.randn(4096, generator=g)
    ref = src.clone()
    hooks_kernel[(1,)](src, 4096, N_STAGES=100, BLOCK_SIZE=32)
    assert torch.equal(src, ref)


@needs_ptxas
@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("cfg", [(16, 64, 4), (32, 128, 8)])
def test_gpu_test_configs_assemble(dtype, aligned, cfg):
    """What test_pipeline_nodot_gpu.py launches, assembled here: pipelined exactly when
    cp.async can move 4 bytes a thread (fp32 always, 16-bit types only aligned)."""
    BM, BN, warps = cfg
    k = _row_sum(dtype, 5, aligned, BM, BN, warps)
    assert ("ttg.async_copy_global_to_local" in k.asm["ttgir"]) == (aligned or dtype == "fp32")
    assert k.asm["cubin"][:4] == b"\x7fELF"
