"""Loading and launching a hand-written kernel on a real GPU (skipped without one)."""
import threading
import time

import pytest

from tritium.backends.nvidia import driver, launcher, toolchain
from tritium.runtime.errors import OutOfResources

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not driver.is_available(), reason="no CUDA GPU / cuda-bindings")]

from llir_kernels import ADD_KERNEL  # noqa: E402

# What llir_to_ptx gives for ADD_KERNEL at PTX 8.0; used only where the local
# llvmlite cannot compile (too old), so the driver/launcher tests still run.
ADD_PTX_FALLBACK = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry add_kernel(
	.param .u64 .ptr .global .align 1 add_kernel_param_0,
	.param .u64 .ptr .global .align 1 add_kernel_param_1,
	.param .u64 .ptr .global .align 1 add_kernel_param_2,
	.param .u32 add_kernel_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ctaid.x;
	shl.b32 	%r3, %r2, 7;
	ld.param.b32 	%r4, [add_kernel_param_3];
	add.s32 	%r5, %r3, %r1;
	setp.ge.s32 	%p1, %r5, %r4;
	@%p1 bra 	$L__BB0_2;
	ld.param.b64 	%rd4, [add_kernel_param_0];
	ld.param.b64 	%rd5, [add_kernel_param_1];
	ld.param.b64 	%rd6, [add_kernel_param_2];
	mul.wide.s32 	%rd7, %r5, 4;
	add.s64 	%rd1, %rd6, %rd7;
	add.s64 	%rd2, %rd5, %rd7;
	add.s64 	%rd3, %rd4, %rd7;
	ld.global.b32 	%r6, [%rd3];
	ld.global.b32 	%r7, [%rd2];
	add.f32 	%r8, %r6, %r7;
	st.global.b32 	[%rd1], %r8;
$L__BB0_2:
	ret;
}
"""

SIG = {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32"}
BLOCK = 128


def compile_add(arch):
    """(kernel image, how it was built): cubin via ptxas when found, else PTX for the driver."""
    try:
        from tritium.backends.nvidia.llvm import llir_to_ptx
        ptx, how = llir_to_ptx(ADD_KERNEL, arch=arch), "llvmlite"
    except Exception as e:   # e.g. an llvmlite without NVPTX or ptx_kernel support
        print(f"\nllir_to_ptx unavailable here ({type(e).__name__}: {e}); using the stored PTX")
        ptx, how = ADD_PTX_FALLBACK.replace("sm_90a", arch), "stored PTX"
    if toolchain.find_ptxas():
        cubin, info = toolchain.make_cubin(ptx, arch=arch)
        return cubin, f"{how} + ptxas {toolchain.ptxas_version()} ({info.registers} registers)"
    return ptx, f"{how} + driver JIT"


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def kernel(torch):
    torch.cuda.init()
    dev = torch.cuda.current_device()
    arch = driver.get_device_arch(dev)
    image, how = compile_add(arch)
    module, function, n_regs, n_spills = driver.load_binary("add_kernel", image, 0, dev)
    print(f"\nadd_kernel for {arch}: {how}; driver says {n_regs} registers, {n_spills} spills")
    return function, image


def run_add(launch, function, x, y, out, n, stream=None):
    if stream is None:
        stream = driver.get_current_stream()
    launch((n + BLOCK - 1) // BLOCK, 1, 1, stream, function, BLOCK // 32, 0, x, y, out, n)


def test_device_properties(torch):
    props = driver.get_device_properties(torch.cuda.current_device())
    print("\n", props)
    assert props["warpSize"] == 32
    assert props["multiprocessor_count"] == torch.cuda.get_device_properties(0).multi_processor_count
    assert props["capability"] == 10 * torch.cuda.get_device_capability()[0] + torch.cuda.get_device_capability()[1]
    assert props["max_shared_mem"] >= 48 * 1024


def test_add_torch_tensors(torch, kernel):
    function, _ = kernel
    n = 1000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    run_add(launcher.make_launcher(SIG), function, x, y, out, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("mode,flavor", [("extra", "bindings"), ("params", "ctypes"), ("extra", "ctypes")])
def test_add_other_launch_forms(torch, kernel, mode, flavor):
    function, _ = kernel
    n = 4097
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    run_add(launcher.make_launcher(SIG, mode=mode, flavor=flavor), function, x, y, out, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)


class CudaArray:
    """Only `__cuda_array_interface__`, as numba / CuPy arrays offer."""

    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DLPackOnly:
    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__()

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_add_cuda_array_interface_and_dlpack(torch, kernel):
    function, _ = kernel
    n = 300
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    run_add(launcher.make_launcher(SIG), function, CudaArray(x), DLPackOnly(y), CudaArray(out), n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)
    out2 = torch.zeros_like(x)
    run_add(launcher.make_launcher(SIG), function, x.data_ptr(), y, out2.data_ptr(), n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out2, x + y)


def test_cpu_tensor_is_refused(torch, kernel):
    function, _ = kernel
    x = torch.randn(16, device="cuda")
    with pytest.raises(ValueError, match=r"pointer argument 'y' \(parameter 1\).*host memory"):
        run_add(launcher.make_launcher(SIG), function, x, torch.randn(16), x, 16)


def test_launch_from_new_thread(torch, kernel):
    # A fresh thread has no current CUDA context; the launcher must cope.
    function, _ = kernel
    n = 512
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    torch.cuda.synchronize()
    errors = []

    def work():
        try:
            run_add(launcher.make_launcher(SIG), function, x, y, out, n, stream=0)
            driver.synchronize()
        except Exception as e:   # surfaced below
            errors.append(e)
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors, errors
    torch.testing.assert_close(out, x + y)


def test_cuda_error_is_reported(torch, kernel):
    function, _ = kernel
    x = torch.randn(16, device="cuda")
    with pytest.raises(RuntimeError, match=r"Triton Error \[CUDA\]: CUDA_ERROR_INVALID_VALUE"):
        # 64 warps = 2048 threads per block: more than any GPU allows.
        launcher.make_launcher(SIG)(1, 1, 1, 0, function, 64, 0, x, x, x, 16)


def test_out_of_resources_and_large_shared(torch, kernel):
    function, image = kernel
    limit = driver.get_device_properties()["max_shared_mem"]
    with pytest.raises(OutOfResources, match="out of resource: shared memory"):
        driver.load_binary("add_kernel", image, limit + 1)
    # Above 48 KB the function must opt in; then a launch with that much dynamic shared memory works.
    _, big_fn, _, _ = driver.load_binary("add_kernel", image, limit)
    n = 256
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.zeros_like(x)
    launcher.make_launcher(SIG)(2, 1, 1, driver.get_current_stream(), big_fn, 4, limit, x, y, out, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)


def test_launch_overhead(torch, kernel):
    function, _ = kernel
    x = torch.zeros(128, device="cuda")
    stream = driver.get_current_stream()
    for mode, flavor in [("params", "bindings"), ("extra", "bindings"), ("params", "ctypes"), ("extra", "ctypes")]:
        name, launch = f"{mode}/{flavor}", launcher.make_launcher(SIG, mode=mode, flavor=flavor)
        for _ in range(100):
            launch(1, 1, 1, stream, function, 4, 0, x, x, x, 128)
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(5):
            n = 2000
            t0 = time.perf_counter()
            for _ in range(n):
                launch(1, 1, 1, stream, function, 4, 0, x, x, x, 128)
            best = min(best, (time.perf_counter() - t0) / n)
            torch.cuda.synchronize()
        print(f"\nlaunch overhead {name}: {1e6 * best:.2f} us/launch (best of 5 x 2000)")


@pytest.mark.parametrize("backend", ["torch", "cuda"])
def test_do_bench_on_gpu(torch, kernel, backend):
    from tritium.testing import do_bench
    function, _ = kernel
    n = 1 << 20
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    launch = launcher.make_launcher(SIG)
    ms = do_bench(lambda: run_add(launch, function, x, y, out, n), warmup=5, rep=20, device=backend)
    q = do_bench(lambda: run_add(launch, function, x, y, out, n), warmup=1, rep=10,
                 quantiles=[0.5, 0.2, 0.8], device=backend)
    gbps = 3 * 4 * n / (ms * 1e-3) / 1e9
    print(f"\ndo_bench[{backend}] add 1M fp32: {1e3 * ms:.1f} us ({gbps:.0f} GB/s), quantiles {q}")
    assert 0 < ms < 10 and len(q) == 3
    torch.testing.assert_close(out, x + y)
