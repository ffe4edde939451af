"""A B tile too narrow to swizzle along N (N = 8, N-contiguous in memory) is staged K-major;
the pipeliner must not turn its load into cp.async (a copy would move one 2-byte element),
while A is still pipelined. The exact specialisation of the GPU test that found it (strides
of 1 as constants, the rest divisible by 16), compiled for sm_90a without a GPU."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dot_kernels import matmul_kernel  # noqa: E402
import tritium.language as tl  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions  # noqa: E402
from tritium.backends.nvidia.llvm import llir_to_ptx  # noqa: E402
from tritium.frontend.compiler import make_ttir  # noqa: E402
from tritium.ir.printer import print_module  # noqa: E402


@pytest.mark.parametrize("stages", [2, 3])
def test_narrow_n_major_b_is_not_a_cp_async_candidate(stages):
    one, d = ("constexpr", 1), ("i32", "D")
    spec = (("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("*fp32", "D"), d, d, d,
            d, one, d, one, d, one, d, one) + tuple(
        ("constexpr", v) for v in (64, 8, 32, "tf32", False, tl.float32, tl.float32, 0.0))
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    opts = CUDAOptions(num_warps=4, num_stages=stages)
    ttir, _ = make_ttir(matmul_kernel, spec, opts)
    ttgir = backend.make_ttgir(backend.make_ttir(ttir, {}, opts), opts)
    text = print_module(ttgir)
    copies = [l for l in text.splitlines() if "async_copy_global_to_local" in l]
    assert copies and all("64x32xf16" in l for l in copies), "only A's tile is copied"
    llir, _ = backend.make_llir(ttgir, opts)
    assert "cp.async.cg.shared.global" in llir_to_ptx(llir, arch="sm_90a")
