"""`tl.range(..., num_stages=N)` on upstream's test_core `matmul_kernel` (fp16 64x64x64
tiles, the loop's own stage count passed as a constexpr, the kernel's default 3): the loop
gets N-slot rings, copies issued N-1 iterations ahead, and waits that leave N-2
iterations of copies in flight.

Upstream's test_tl_range_num_stages greps its PTX for `cp.async.wait_group 6` at N = 5:
upstream commits one cp.async group per load (A and B: two a iteration), so 3 iterations
in flight are 6 groups. tritium commits one group per dot (A and B together), so the same
3 iterations are `cp.async.wait_group 3` — the same depth, counted in groups twice as
large; splitting them would only add a commit per iteration (the dot needs both tiles).
No GPU needed: compiled for sm_90a."""
import re

import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile

pytestmark = [pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed"),
              pytest.mark.usefixtures("private_cache")]


@tritium.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, low_precision_acc: tl.constexpr,
                  num_stages: tl.constexpr = 3):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), num_stages=num_stages):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        accumulator = tl.dot(a, b, acc=accumulator, max_num_imprecise_acc=low_precision_acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, accumulator)


def _compile(stages):
    """As the JIT specialises the test's call: 64x512 @ 512x64 contiguous fp16."""
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    sig.update({k: "i32" for k in ["M", "N", "K", "stride_am", "stride_bk", "stride_cm"]})
    consts = dict(stride_ak=1, stride_bn=1, stride_cn=1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                  BLOCK_SIZE_K=64, low_precision_acc=0, num_stages=stages)
    sig.update({k: "constexpr" for k in consts})
    aligned = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]
    return compile(ASTSource(matmul_kernel, sig, consts,
                             {k: [["tt.divisibility", 16]] for k in aligned}),
                   target=GPUTarget("cuda", 90, 32))


@pytest.mark.parametrize("stages", [2, 3, 4, 5])
def test_loop_stage_count_sets_rings_and_waits(stages):
    k = _compile(stages)
    assert f"tt.num_stages = {stages}" in k.asm["ttir"]
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    # two rings (A and B) of `stages` slots
    assert len(set(re.findall(rf"memdesc<{stages}x64x64xf16", ttgir))) == 1
    assert ttgir.count(f"!ttg.memdesc<{stages}x64x64xf16, #shared, #smem, mutable>") >= 2
    # stages-1 groups issued before the loop, one in it; in the loop, at the wait, the
    # stages-2 later iterations stay in flight; the epilogue drains everything
    waits = [int(n) for n in re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx)]
    assert waits == [stages - 2, 0]
    assert len(re.findall(r"cp\.async\.commit_group", ptx)) == stages
    # one group holds both tiles: 64x64 fp16 = 4 16-byte copies a thread per tile
    loop = ptx[ptx.index("cp.async.wait_group"):]
    loop = loop[:loop.index("cp.async.commit_group")]
    assert len(re.findall(r"cp\.async\.cg\.shared\.global", loop)) == 8
    assert k.n_spills == 0
