"""`triton.testing`'s GPU-peak helpers: `nvsmi`, `get_dram_gbps`, `get_max_tensorcore_tflops`,
`get_max_simd_tflops`, `set_gpu_clock`. They read the current NVIDIA device; on a machine
without an NVIDIA GPU they raise an error that says so (a peak for the CPU would mean
nothing)."""
from __future__ import annotations

import shutil
import subprocess
from contextlib import contextmanager


def _need_gpu(what: str) -> None:
    # The NVIDIA driver module, not `runtime.driver`: `testing` sits below the backends
    # (their drivers' `get_benchmarker` is `testing.do_bench`).
    from .backends.nvidia import driver as cuda
    if not cuda.is_available():
        raise RuntimeError(f"{what} needs an NVIDIA GPU; none is present (the CPU backend runs "
                           "kernels here)")


def nvsmi(attrs):
    """Values of `nvidia-smi --query-gpu=<attrs>` for GPU 0, as ints."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise RuntimeError("nvsmi: nvidia-smi is not installed")
    out = subprocess.check_output([exe, "-i", "0", "--query-gpu=" + ",".join(attrs),
                                   "--format=csv,noheader,nounits"]).decode()
    return [int(v) for v in out.strip().split(",")]


def _properties(device):
    from .backends.nvidia import driver as cuda
    return cuda.get_device_properties(device)


def get_dram_gbps(device=None) -> float:
    """Peak DRAM bandwidth in GB/s: memory clock (kHz) x bus width, double data rate."""
    _need_gpu("get_dram_gbps")
    props = _properties(device)
    return props["mem_clock_rate"] * 1e3 * props["mem_bus_width"] * 2 / 8 / 1e9


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


TENSORCORE_OPS = {  # per sub-core per clock, from compute capability 8.0 on
    "float32": 256, "int32": 256, "float16": 512, "bfloat16": 512, "int16": 512,
    "int8": 1024, "fp8e4nv": 1024, "fp8e4b15": 1024, "fp8e5": 1024,
}
SIMD_OPS = {"float32": 32, "int32": 32, "float16": 64, "bfloat16": 64}


def tensorcore_ops_per_subcore(dtype, capability) -> int:
    name = _dtype_name(dtype)
    if capability[0] < 8:
        if name != "float16":
            raise RuntimeError(f"tensor cores before sm_80 take float16 only, not {name}")
        return 256
    if name not in TENSORCORE_OPS:
        raise RuntimeError(f"dtype {name} not supported by tensor cores")
    return TENSORCORE_OPS[name]


def simd_ops_per_subcore(dtype, capability) -> int:
    name = _dtype_name(dtype)
    if name not in SIMD_OPS:
        raise RuntimeError(f"dtype {name} not supported")
    return SIMD_OPS[name]


def _peak_tflops(dtype, clock_rate, device, per_subcore, what) -> float:
    _need_gpu(what)
    from .backends.nvidia import driver as cuda
    subcores = _properties(device)["multiprocessor_count"] * 4
    return subcores * clock_rate * per_subcore(dtype, cuda.get_device_capability()) * 1e-9


def get_max_tensorcore_tflops(dtype, clock_rate, device=None) -> float:
    """Peak tensor-core TFLOPS at `clock_rate` (kHz)."""
    return _peak_tflops(dtype, clock_rate, device, tensorcore_ops_per_subcore,
                        "get_max_tensorcore_tflops")


def get_max_simd_tflops(dtype, clock_rate, device=None) -> float:
    """Peak CUDA-core TFLOPS at `clock_rate` (kHz)."""
    return _peak_tflops(dtype, clock_rate, device, simd_ops_per_subcore, "get_max_simd_tflops")


@contextmanager
def set_gpu_clock(ref_sm_clock=1350, ref_mem_clock=1215):
    """Lock GPU 0's clocks for stable timings (needs nvidia-smi and the right to set them);
    yields the (tensor-core TFLOPS, DRAM GB/s) peaks at those clocks; unlocks on exit."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise RuntimeError("set_gpu_clock: nvidia-smi is not installed")
    try:
        subprocess.check_output([exe, "-i", "0", "-pm", "1"])
        subprocess.check_output([exe, "-i", "0", f"--lock-gpu-clocks={ref_sm_clock},{ref_sm_clock}"])
        subprocess.check_output([exe, "-i", "0",
                                 f"--lock-memory-clocks={ref_mem_clock},{ref_mem_clock}"])
        sm_clock, mem_clock = nvsmi(["clocks.current.sm", "clocks.current.memory"])
        if abs(sm_clock - ref_sm_clock) > 10 or abs(mem_clock - ref_mem_clock) > 10:
            raise RuntimeError(f"set_gpu_clock: clocks stayed at {sm_clock}/{mem_clock} MHz")
        tflops = 1e-6 * 2 * 108 * 4 * 256 * ref_sm_clock
        gbps = 640 * 2 * ref_mem_clock * 1e-3
        yield tflops, gbps
    finally:
        subprocess.call([exe, "-i", "0", "-pm", "0"])
        subprocess.call([exe, "-i", "0", "-rgc"])
        subprocess.call([exe, "-i", "0", "-rmc"])
