"""Block-pointer kernels compile for the H100 without a GPU: the NVIDIA backend's make_ttir
lowers them (rewrite-tensor-pointer), and the PTX assembles with ptxas for sm_90a."""
import pytest

from tritium.backends.nvidia import toolchain
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions

from tests.blockptr import test_block_ptr_cpu as K


def _spec(*types, **constexprs):
    return tuple((t, "D" if t.startswith("*") else "") for t in types) + \
        tuple(("constexpr", v) for v in constexprs.values())


CASES = [
    ("scale_2d_zero", K._scale_2d, _spec("*fp16", "*fp16", "i32", "i32", "i32", "i32", "i32",
                                         "i32", BM=32, BN=64, ORDER=(1, 0), PAD="zero")),
    ("scale_2d_colmajor", K._scale_2d, _spec("*fp32", "*fp32", "i32", "i32", "i32", "i32",
                                             "i32", "i32", BM=16, BN=16, ORDER=(0, 1),
                                             PAD="nan")),
    ("padding_nan", K._load_at, _spec("*fp32", "*fp32", "i32", "i32", "i32", "i32", BM=8,
                                      BN=16, PAD="nan", CHECK=(0, 1))),
    ("row_sums_advance", K._row_sums, _spec("*fp32", "*fp32", "i32", "i32", BM=8, BN=32)),
    ("copy_3d", K._copy_3d, _spec("*i16", "*i16", "i32", "i32", "i32", "i32", "i32", "i32",
                                  BA=2, BB=4, BC=16)),
]


@pytest.mark.parametrize("name,fn,spec", CASES, ids=[c[0] for c in CASES])
def test_block_pointer_kernel_to_cubin(name, fn, spec):
    backend = CUDABackend()
    backend._capability = 90          # an H100's; no GPU is needed to compile
    opts = CUDAOptions(num_warps=4)
    ttir, _ = backend.make_ttir(fn, spec, opts)
    from tritium.ir.printer import print_module
    text = print_module(ttir)
    assert "!tt.ptr<tensor<" not in text and "tt.advance" not in text
    ttgir = backend.make_ttgir(ttir, opts)
    llir, _ = backend.make_llir(ttgir, opts)
    from tritium.backends.nvidia.llvm import llir_to_ptx
    ptx = llir_to_ptx(llir, arch="sm_90a")
    assert ".entry" in ptx
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx, arch="sm_90a")
        assert info.kernel.spill_stores == 0
