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
    ("bfloat16", "float32", "bfloat16", "tf32", 128, 64, 32, 8, False, "wgmma"),
    ("float32", "float32", "float32", "tf32", 64, 128, 32, 4, False, "wgmma"),
    ("float32", "float32", "float32", "ieee", 32, 32, 16, 4, False, "fma"),
    ("int8", "int32", "int32", "tf32", 64, 64, 64, 4, False, "wgmma"),
    ("float8_e4m3fn", "float32", "float16", "tf32", 64, 64, 64, 4, True, "wgmma"),
    ("float8_e5m2", "float32", "float32", "tf32", 128, 128, 64, 8, True, "wgmma"),
    ("float64", "float64", "float64", "ieee", 16, 16, 16, 4, False, "fma"),
    ("float16", "float32", "float16", "tf32", 16, 16, 16, 4, False, "fma"),
    ("float16", "float16", "float16", "tf32", 32, 32, 32, 2, False, "fma"),
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
    llir, meta, ptx = compile_module(mod)
    assert ("wgmma.mma_async" in ptx) == (engine == "wgmma")
    cubin = toolchain.make_cubin(ptx, arch="sm_90a")
    assert cubin
