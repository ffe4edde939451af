"""Every dot form through the real TTGIR pipeline and the lowering to a cubin for sm_90a
(ptxas; no GPU needed): wgmma where tensor cores take the types and shapes, FMA for the
rest, and the layouts accelerate-matmul chooses."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
sys.path.insert(0, os.path.dirname(__file__))

from dot_kernels import matmul_kernel  # noqa: E402
from nvl_util import compile_module, ttgir_for  # noqa: E402
from tritium.backends.nvidia import toolchain  # noqa: E402
import tritium.language as tl  # noqa: E402

HAVE_PTXAS = toolchain.ptxas_available() if hasattr(toolchain, "ptxas_available") else True

CASES = [
    # (in dtype, acc, out, precision, BM, BN, BK, warps, trans_b, engine)
    ("float16", "float32", "float16", "tf32", 128, 128, 64, 4, False, "wgmma"),
    ("float16", "float32", "float32", "tf32", 64, 64, 32, 4, True, "wgmma"),
    ("float16", "float32", "float32", "tf32", 64, 8, 32, 4, False, "wgmma"),  # B K-major
    ("bfloat16", "float32", "bfloat16", "tf32", 128, 64, 32, 8, False, "wgmma"),
    ("float32", "float32", "float32", "tf32", 64, 128, 32, 4, False, "wgmma"),
    ("float32", "float32", "float32", "ieee", 32, 32, 16, 4, False, "fma"),
    ("int8", "int32", "int32", "tf32", 64, 64, 64, 4, False, "wgmma"),
    ("float8_e4m3fn", "float32", "float16", "tf32", 64, 64, 64, 4, True, "wgmma"),
    ("float8_e5m2", "float32", "float32", "tf32", 128, 128, 64, 8, True, "wgmma"),
    ("float64", "float64", "float64", "ieee", 16, 16, 16, 4, False, "fma"),
    ("float16", "float32", "float16", "tf32", 16, 16, 16, 4, False, "mma"),
    ("float16", "float16", "float16", "tf32", 32, 32, 32, 2, False, "mma"),
    ("float16", "float16", "float16", "tf32", 128, 64, 32, 4, True, "wgmma"),
    ("float16", "float32", "float32", "tf32", 32, 64, 32, 2, True, "mma"),
    ("bfloat16", "float32", "float32", "tf32", 32, 32, 16, 4, False, "mma"),
    ("float32", "float32", "float32", "tf32", 32, 32, 16, 1, False, "mma"),
    ("int8", "int32", "int32", "tf32", 32, 16, 64, 2, True, "mma"),
    ("float8_e4m3fn", "float32", "float32", "tf32", 16, 32, 32, 2, True, "mma"),
]

TL = {"float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32, "int32": tl.int32,
      "float64": tl.float64}


def _args(dt, acc, out, BM, BN, BK, trans_b):
    M, N, K = 2 * BM + 3, 2 * BN - 5, 3 * BK + 1
    t = getattr(torch, dt)
    a = torch.zeros((M, K), dtype=torch.float32).to(t)
    b = torch.zeros((N, K) if trans_b else (K, N), dtype=torch.float32).to(t)
    b = b.T if trans_b else b
    c = torch.zeros((M, N), dtype=getattr(torch, acc))
    d = torch.zeros((M, N), dtype=getattr(torch, out))
    return (a, b, c, d, M, N, K, *a.stride(), *b.stride(), *c.stride(), *d.stride())


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_dot_compiles_for_sm90a(case):
    dt, acc, out, prec, BM, BN, BK, warps, trans_b, engine = case
    args = _args(dt, acc, out, BM, BN, BK, trans_b)
    kw = dict(BM=BM, BN=BN, BK=BK, PRECISION=prec, HAS_C=True, OUT=TL[out], ACC=TL[acc],
              ZERO=0 if dt == "int8" else 0.0, num_warps=warps)
    mod = ttgir_for(matmul_kernel, args, kw, pipeline="real")
    text = str(mod)
    if engine == "wgmma":
        assert "ttng.warp_group_dot" in text and "versionMajor = 3" in text
        assert "#ttg.nvmma_shared" in text
    else:
        assert "ttng.warp_group_dot" not in text and "#ttg.dot_op<{opIdx = 0" in text
        assert ("versionMajor = 2" in text) == (engine == "mma")
    llir, meta, ptx = compile_module(mod)
    assert ("wgmma.mma_async" in ptx) == (engine == "wgmma")
    assert ("mma.sync.aligned" in ptx) == (engine == "mma")
    cubin = toolchain.make_cubin(ptx, arch="sm_90a")
    assert cubin


@pytest.mark.parametrize("D", [64, 128])
def test_attention_compiles_with_p_from_registers(D):
    """Q is staged in shared memory once, before the loop; P goes to the second wgmma in
    registers (a register-only conversion from the first dot's accumulator); K and V are
    pipelined with cp.async."""
    from attn_kernels import attn_fwd
    from tritium.frontend.compiler import make_ttir
    from tritium.gpu.pipeline import make_ttgir
    q = torch.zeros((2, 256, D), dtype=torch.float16)
    _, spec, _ = attn_fwd.bind(q, q, q, q, 0.5, 256, q.stride(0), q.stride(1), HEAD_DIM=D,
                               BLOCK_M=128, BLOCK_N=64, CAUSAL=True)
    mod, _ = make_ttir(attn_fwd, spec, None)
    mod = make_ttgir(mod, num_warps=4, num_stages=3)
    loop = next(op for op in mod.walk() if op.name == "scf.for")
    inside = [op.name for op in loop.walk()]
    assert inside.count("ttng.warp_group_dot") == 2
    assert "ttg.local_alloc" not in inside            # Q hoisted, P in registers
    assert inside.count("ttg.async_copy_global_to_local") == 2
    cvt = [op for op in loop.walk() if op.name == "ttg.convert_layout"
           and "dot_op" in str(op.results[0].type)]
    assert cvt and all(op.attr("allocation.offset") is None for op in cvt)  # no shared trip
    llir, meta, ptx = compile_module(mod)
    assert ptx.count("wgmma.mma_async") == (128 // 64) * (D // 16) + (128 // 64) * (64 // 16)
    assert toolchain.make_cubin(ptx, arch="sm_90a")


@pytest.mark.parametrize("dt,acc,engine", [("float16", "float32", "mma"),
                                           ("float64", "float64", "fma")])
def test_batched_dot_compiles(dt, acc, engine):
    from dot_kernels import batched_dot_kernel
    B, M, N, K = 4, 32, 16, 32
    a = torch.zeros((B, M, K), dtype=getattr(torch, dt))
    b = torch.zeros((B, K, N), dtype=getattr(torch, dt))
    d = torch.zeros((B, M, N), dtype=getattr(torch, acc))
    mod = ttgir_for(batched_dot_kernel, (a, b, d, B, M, N, K),
                    dict(ACC=TL[acc], num_warps=4), pipeline="real")
    assert ("versionMajor = 2" in str(mod)) == (engine == "mma")
    llir, meta, ptx = compile_module(mod)
    assert ("mma.sync.aligned" in ptx) == (engine == "mma")
    assert toolchain.make_cubin(ptx, arch="sm_90a")


@pytest.mark.parametrize("limit,expect_waits", [(None, 1), (64, 4 + 1), (32, 8 + 1)])
def test_fp8_partial_accumulation_compiles(limit, expect_waits):
    """max_num_imprecise_acc splits the wgmma K chain: one commit and wait per partial sum
    of `limit` elements (K = 256, 32 per instruction), then the fp32 adds; without it the
    whole chain stays in the tensor cores (Hopper's default, as upstream)."""
    from dot_kernels import fp8_imprecise_kernel
    a = torch.zeros((64, 256)).to(torch.float8_e4m3fn)
    b = torch.zeros((64, 256)).to(torch.float8_e4m3fn).T
    d = torch.zeros((64, 64))
    from tritium.backends.nvidia.backend import CUDAOptions
    from tritium.frontend.compiler import make_ttir
    from tritium.gpu.pipeline import make_ttgir
    _, spec, _ = fp8_imprecise_kernel.bind(a, b, d, *a.stride(), *b.stride(), M=64, N=64,
                                           K=256, LIMIT=limit)
    mod, _ = make_ttir(fp8_imprecise_kernel, spec, CUDAOptions(num_warps=4))
    mod = make_ttgir(mod, num_warps=4)
    llir, meta, ptx = compile_module(mod)
    assert ptx.count("wgmma.wait_group.sync.aligned 0") == expect_waits
    assert toolchain.make_cubin(ptx, arch="sm_90a")
