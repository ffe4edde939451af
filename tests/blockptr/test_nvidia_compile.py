"""Block-pointer kernels compile for the H100 without a GPU: the NVIDIA backend's make_ttir
lowers them (rewrite-tensor-pointer), and the PTX assembles with ptxas for sm_90a."""
import pytest

from tritium.backends.nvidia import toolchain
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions
from tritium.frontend.compiler import make_ttir

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
    ("noinline_call", K._row_sums_noinline, _spec("*fp32", "*fp32", "i32", "i32", BM=8,
                                                  BN=32)),
    ("copy_3d", K._copy_3d, _spec("*i16", "*i16", "i32", "i32", "i32", "i32", "i32", "i32",
                                  BA=2, BB=4, BC=16)),
]


@pytest.mark.parametrize("name,fn,spec", CASES, ids=[c[0] for c in CASES])
def test_block_pointer_kernel_to_cubin(name, fn, spec):
    backend = CUDABackend(GPUTarget("cuda", 90, 32))  # an H100's; no GPU is needed
    opts = CUDAOptions(num_warps=4)
    ttir, _ = make_ttir(fn, spec, opts, lower_block_pointers=True)
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


# ---------------------------------------------------------------- tensor descriptors (no TMA yet)
from tests.blockptr import test_tensor_descriptor_cpu as D  # noqa: E402


def _desc(dtype, block):
    return (f"tensordesc<{dtype}{list(block)}>", None)


DESC_CASES = [
    ("copy_2d", D._copy_2d, (_desc("fp16", (32, 64)), _desc("fp16", (32, 64)),
                             ("constexpr", 32), ("constexpr", 64))),
    ("window_fp32", D._window, (_desc("fp32", (8, 16)), ("*fp32", "D"), ("i32", ""),
                                ("i32", ""), ("constexpr", 8), ("constexpr", 16))),
    ("device_desc_loop", D._device_desc, (("*fp32", "D"), ("*fp32", "D"), ("*i64", "D"),
                                          ("i32", ""), ("i32", ""), ("constexpr", 8),
                                          ("constexpr", 16), ("constexpr", "nan"))),
    ("reduce_add", D._reduce, (_desc("fp32", (4, 8)), ("*fp32", "D"), ("constexpr", "add"),
                               ("constexpr", 4), ("constexpr", 8))),
    ("reduce_xor", D._reduce, (_desc("i32", (4, 8)), ("*i32", "D"), ("constexpr", "xor"),
                               ("constexpr", 4), ("constexpr", 8))),
    ("loop_carried", D._loop_carried_descriptor, (("*fp32", "D"), ("i32", ""), ("i32", ""),
                                                  ("constexpr", 8), ("constexpr", 32))),
    ("noinline_calls", D._noinline_descriptors, (("*fp32", "D"), ("*fp32", "D"), ("i32", ""),
                                                 ("i32", ""), ("constexpr", 8),
                                                 ("constexpr", 32))),
    ("gather_scatter", D._gather_scatter, (_desc("fp32", (1, 16)), _desc("fp32", (1, 16)),
                                           ("*i32", "D"), ("*fp32", "D"), ("i32", ""),
                                           ("constexpr", 8), ("constexpr", 16))),
]


@pytest.mark.parametrize("name,fn,spec", DESC_CASES, ids=[c[0] for c in DESC_CASES])
def test_descriptor_kernel_to_cubin(name, fn, spec):
    """The kernel's parameters after lowering are exactly what the launcher packs."""
    from tritium.backends.nvidia.launcher import _param_fields
    from tritium.ir.printer import print_module
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    opts = CUDAOptions(num_warps=4)
    ttir, _ = make_ttir(fn, spec, opts, lower_block_pointers=True)
    text = print_module(ttir)
    assert "tensordesc" not in text and "tt.descriptor_" not in text
    func = next(op for op in ttir.regions[0].entry if op.name == "tt.func")
    signature = {f"a{i}": ty for i, (ty, _) in enumerate(spec)}
    packed = [f[3] for f in _param_fields(signature, 0)]
    params = [str(t) for t in func.attr("function_type").inputs]
    assert [p.startswith("!tt.ptr<") or p for p in params] == \
        [ty.startswith("*") or ty for ty in packed]
    ttgir = backend.make_ttgir(ttir, opts)
    llir, _ = backend.make_llir(ttgir, opts)
    from tritium.backends.nvidia.llvm import llir_to_ptx
    ptx = llir_to_ptx(llir, arch="sm_90a")
    assert ".entry" in ptx
    if toolchain.find_ptxas():
        toolchain.make_cubin(ptx, arch="sm_90a")


def test_launcher_packs_descriptor_parameters():
    """A TensorDescriptor argument is packed as tensordesc_abi lists it: base address,
    padding flag, i32 shape, i64 strides (no GPU: a fake cuLaunchKernel)."""
    import ctypes
    import struct

    import torch

    from tritium.backends.nvidia import launcher
    from tritium.tools.tensor_descriptor import TensorDescriptor
    calls = []
    launch = launcher.make_launcher({"d": "tensordesc<fp16[64, 32]>", "n": "i32"},
                                    launch_fn=lambda *a: calls.append(a) or 0,
                                    device_pointer=lambda p: p, cache=False)
    x = torch.zeros(100, 48, dtype=torch.float16)
    desc = TensorDescriptor(x, [100, 40], [48, 1], [64, 32], padding="nan")
    launch(2, 1, 1, 0, 0xF00, 4, 0, desc, 7)
    assert struct.unpack("<QB3xii4xqqi", bytes(launch.params)[:44]) == \
        (x.data_ptr(), 1, 100, 40, 48, 1, 7)
    ptrs = (ctypes.c_void_p * 7).from_address(calls[-1][9])
    assert ctypes.c_int32.from_address(ptrs[3]).value == 40       # kernel parameter 3 = shape[1]
    with pytest.raises(Exception, match=r"d\.shape\[0\]"):
        launch(2, 1, 1, 0, 0xF00, 4, 0, TensorDescriptor(x, [2 ** 31, 40], [48, 1], [64, 32]), 7)
