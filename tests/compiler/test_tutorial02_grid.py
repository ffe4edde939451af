"""Upstream tutorial 02 sizes a persistent grid from the compiled kernel: `warmup(...,
grid=(1,))`, `_init_handles()`, `n_regs`, `metadata.shared`, then `kernel[(n, 1, 1)](...)`.
The same code runs on the CPU backend (a CPU program uses no registers or shared memory:
both read 0 and divide without error), compiles for the H100 without a GPU, and launches
on one (gpu-marked)."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, CompiledKernel, GPUTarget

torch = pytest.importorskip("torch")


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(first, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(input_ptr + row * input_row_stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(output_ptr + row * output_row_stride + cols, e / tl.sum(e, axis=0), mask=mask)


def grid_sized_softmax(x):
    """Tutorial 02's host code, as a user writes it against upstream's API."""
    driver = triton.runtime.driver
    device = driver.active.get_active_torch_device()
    props = driver.active.utils.get_device_properties(device.index)
    n_sm, n_regs_dev = props["multiprocessor_count"], props["max_num_regs"]
    smem_dev, warp = props["max_shared_mem"], props["warpSize"]
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    num_warps, num_stages = 8, 4 if smem_dev > 200000 else 2
    y = torch.empty_like(x)
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                   BLOCK_SIZE=block, num_stages=num_stages,
                                   num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    occupancy = n_regs_dev // (kernel.n_regs * warp * num_warps)
    occupancy = min(occupancy, smem_dev // kernel.metadata.shared)
    num_programs = min(n_sm * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, block,
                                 num_stages)
    return y, kernel, num_programs


@pytest.mark.parametrize("shape", [(37, 100), (5, 256), (64, 1)])
def test_tutorial02_on_the_cpu(shape):
    x = torch.randn(*shape)
    y, kernel, num_programs = grid_sized_softmax(x)
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    assert type(kernel) is CompiledKernel
    assert kernel.metadata.shared == 0 and kernel.n_regs == 0 and kernel.n_spills == 0
    assert kernel.metadata.num_warps == 8
    assert num_programs == shape[0]  # nothing limits a CPU program's occupancy
    assert triton.runtime.driver.active.get_active_torch_device() == torch.device("cpu")


def test_fewer_programs_than_rows_still_cover_every_row():
    x = torch.randn(50, 33)
    kernel = softmax_kernel.warmup(torch.empty_like(x), x, 33, 33, 50, 33, BLOCK_SIZE=64,
                                   num_stages=2, grid=(1,))
    y = torch.full_like(x, float("nan"))
    kernel[(3, 1, 1)](y, x, 33, 33, 50, 33, 64, 2)  # a persistent grid: 3 programs
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_tutorial02_numbers_for_the_h100_without_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    sig = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
           "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32",
           "BLOCK_SIZE": "constexpr", "num_stages": "constexpr"}
    kernel = triton.compile(ASTSource(softmax_kernel, sig, {"BLOCK_SIZE": 1024, "num_stages": 4}),
                            target=GPUTarget("cuda", 90, 32), options={"num_warps": 8})
    assert type(kernel) is CompiledKernel  # the same class the CPU's warmup returns
    shared, n_regs = kernel.metadata.shared, kernel.n_regs
    assert isinstance(shared, int) and 0 < shared <= 232448  # reductions go through smem
    assert 0 < n_regs <= 255 and kernel.n_spills == 0
    occupancy = min(65536 // (n_regs * 32 * 8), 232448 // shared)  # the H100's limits
    assert occupancy >= 1
    assert kernel.metadata.num_warps == 8 and kernel.packed_metadata[0] == 8


@pytest.mark.gpu
def test_tutorial02_on_the_gpu():
    x = torch.randn(1823, 781, device="cuda")
    y, kernel, num_programs = grid_sized_softmax(x)
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    assert type(kernel) is CompiledKernel and kernel.n_regs > 0 and num_programs <= 1823
    assert kernel.metadata.target.backend == "cuda"


def test_compiled_kernel_metadata_attribute_errors_name_the_field():
    x = np.zeros((2, 2), np.float32)
    k = softmax_kernel.warmup(x, x, 2, 2, 2, 2, BLOCK_SIZE=2, num_stages=1, grid=(1,))
    with pytest.raises(AttributeError, match="no field 'tmem_size'"):
        k.metadata.tmem_size
