"""fp32 dots with input_precision tf32x3 / bf16x3 / bf16x6 through the real TTGIR pipeline and
the lowering to a cubin for sm_90a (no GPU needed): split into 3 / 3 / 6 tensor-core dots
(wgmma with 4+ warps, mma.sync below), the tf32 rounding as `cvt.rna.tf32.f32`."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
sys.path.insert(0, os.path.dirname(__file__))

from dot_kernels import matmul_kernel  # noqa: E402
from nvl_util import compile_module, ttgir_for  # noqa: E402
from tritium.backends.nvidia import toolchain  # noqa: E402
import tritium.language as tl  # noqa: E402

DOTS = {"tf32x3": 3, "bf16x3": 3, "bf16x6": 6, "tf32": 1}


@pytest.mark.parametrize("precision", ["tf32x3", "bf16x3", "bf16x6", "tf32"])
@pytest.mark.parametrize("BM,BN,BK,warps,engine", [(128, 128, 32, 4, "wgmma"),
                                                   (32, 32, 16, 2, "mma")])
def test_split_dots_compile_for_sm90a(precision, BM, BN, BK, warps, engine):
    M, N, K = 2 * BM + 3, 2 * BN - 5, 3 * BK + 1
    a = np.zeros((M, K), np.float32)
    b = np.zeros((K, N), np.float32)
    c = np.zeros((M, N), np.float32)
    mod = ttgir_for(matmul_kernel, (a, b, c, c, M, N, K, K, 1, N, 1, N, 1, N, 1),
                    dict(BM=BM, BN=BN, BK=BK, PRECISION=precision, HAS_C=True, OUT=tl.float32,
                         ACC=tl.float32, num_warps=warps), pipeline="real")
    text = str(mod)
    n = DOTS[precision]
    if engine == "wgmma":
        assert text.count("\"ttng.warp_group_dot\"(") == n and "tt.dot " not in text
    else:
        assert text.count("tt.dot ") == n and "versionMajor = 2" in text
    assert "tf32x3" not in text and "bf16x" not in text
    llir, meta, ptx = compile_module(mod)
    assert ("cvt.rna.tf32.f32" in ptx) == (precision == "tf32x3")
    operand = "bf16" if precision.startswith("bf16") else "tf32"
    if engine == "wgmma":
        assert "wgmma.mma_async.sync.aligned" in ptx and f".{operand}.{operand}" in ptx
    else:
        assert "mma.sync.aligned" in ptx and f".{operand}.{operand}" in ptx
    assert toolchain.make_cubin(ptx, arch="sm_90a")
