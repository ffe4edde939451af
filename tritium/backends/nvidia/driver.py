"""The CUDA driver, through NVIDIA's `cuda-bindings` (no C compiler, no C extension of ours).

Everything is imported lazily: `import tritium` must work on a machine with
no CUDA at all, and `is_available()` must answer False there without raising.

Handles (CUfunction, CUstream, device pointers) cross this module's boundary
as plain Python ints: that is what torch and `__cuda_array_interface__` give
us; the launcher turns them into cuda-bindings objects once per handle.

`raw_launch_kernel` offers cuLaunchKernel from libcuda through ctypes as an
alternative launch path; on an H100 host it measured slower than
cuda-bindings (see bench/bench_launch.py), so it is not the default.
"""
from __future__ import annotations

import ctypes
import sys
import threading
from typing import Dict, Optional

from tritium.errors import OutOfResources

from ..compiler import GPUTarget
from ..driver import DriverBase

__all__ = [
    "is_available", "cuda", "cuda_version", "device_count", "get_current_device", "set_current_device",
    "get_current_stream", "ensure_context", "get_device_properties", "get_device_capability",
    "get_device_arch", "load_binary", "unload_module", "device_pointer", "raw_launch_kernel",
    "synchronize", "check",
]

_bindings = None
_available: Optional[bool] = None
_lock = threading.Lock()
_contexts: Dict[int, object] = {}
_props: Dict[int, dict] = {}
_current_device = 0


def cuda():
    """The cuda-bindings driver module (13.x `cuda.bindings.driver`, or the
    pre-12.6 `cuda.cuda` layout)."""
    global _bindings
    if _bindings is None:
        try:
            from cuda.bindings import driver as mod
        except ImportError:
            try:
                from cuda import cuda as mod   # cuda-python <= 12.5
            except ImportError:
                raise ImportError("the NVIDIA backend needs cuda-bindings: pip install cuda-bindings") from None
        err = mod.cuInit(0)[0]
        if int(err) != 0:
            check(err, mod)
        _bindings = mod
    return _bindings


def check(result, mod=None):
    """Raise RuntimeError("Triton Error [CUDA]: NAME: text") unless `result` is CUDA_SUCCESS.

    Accepts a bare CUresult or the (CUresult, value...) tuple cuda-bindings
    returns; gives back the value(s)."""
    rest = ()
    if isinstance(result, tuple):
        result, rest = result[0], result[1:]
    if int(result) != 0:
        mod = mod or _bindings
        name, text = f"CUDA error {int(result)}", ""
        try:
            code = mod.CUresult(int(result))
            name = mod.cuGetErrorName(code)[1].decode()
            text = mod.cuGetErrorString(code)[1].decode()
        except Exception:
            pass
        raise RuntimeError(f"Triton Error [CUDA]: {name}: {text}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def is_available() -> bool:
    """True when cuda-bindings imports, the driver loads and a GPU is present. Never raises."""
    global _available
    if _available is None:
        try:
            mod = cuda()
            _available = check(mod.cuDeviceGetCount()) > 0
        except Exception:
            _available = False
    return _available


def cuda_version():
    """(major, minor) of the CUDA version the installed driver supports."""
    v = check(cuda().cuDriverGetVersion())
    return (v // 1000, (v % 1000) // 10)


def device_count() -> int:
    return check(cuda().cuDeviceGetCount())


def _torch_cuda():
    """torch.cuda if torch is already imported and initialised CUDA; we never import torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return torch.cuda if torch.cuda.is_available() else None
    except Exception:
        return None


def _torch_sees_nvidia_gpu() -> bool:
    torch = sys.modules.get("torch")
    return (_torch_cuda() is not None
            and getattr(getattr(torch, "version", None), "hip", None) is None)


def _torch_device_properties(device: int) -> Optional[dict]:
    """The limits get_device_properties gives, from torch's cached properties: the only
    source left in a process forked after CUDA was initialised (see should_activate)."""
    tc = _torch_cuda()
    if tc is None:
        return None
    p = tc.get_device_properties(device)
    return {"name": p.name, "capability": p.major * 10 + p.minor,
            "max_shared_mem": getattr(p, "shared_memory_per_block_optin", None),
            "max_num_regs": getattr(p, "regs_per_multiprocessor", None),
            "multiprocessor_count": p.multi_processor_count,
            "warpSize": getattr(p, "warp_size", 32),
            "sm_clock_rate": getattr(p, "clock_rate", None),
            "mem_clock_rate": getattr(p, "memory_clock_rate", None),
            "mem_bus_width": getattr(p, "memory_bus_width", None),
            "l2_cache_size": getattr(p, "L2_cache_size", None)}


def get_current_device() -> int:
    tc = _torch_cuda()
    if tc is not None:
        return tc.current_device()
    return _current_device


def set_current_device(device: int) -> None:
    global _current_device
    tc = _torch_cuda()
    if tc is not None:
        tc.set_device(device)
    _current_device = device
    ensure_context(device, make_current=True)


def get_current_stream(device: Optional[int] = None) -> int:
    """Raw CUstream handle: torch's current stream when torch is in use, else 0 (legacy default)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        try:
            if device is None:
                device = torch.cuda.current_device()
            if raw is not None:
                return raw(device)
            return torch.cuda.current_stream(device).cuda_stream
        except Exception:
            pass
    return 0


def ensure_context(device: Optional[int] = None, make_current: bool = False):
    """Make sure some context is current on this thread (retaining `device`'s primary
    context if none is), like upstream's launcher does before every launch."""
    mod = cuda()
    if device is None:
        device = get_current_device()
    if not make_current:
        ctx = check(mod.cuCtxGetCurrent())
        if ctx is not None and int(ctx) != 0:
            return ctx
    with _lock:
        ctx = _contexts.get(device)
        if ctx is None:
            dev = check(mod.cuDeviceGet(device))
            ctx = check(mod.cuDevicePrimaryCtxRetain(dev))
            _contexts[device] = ctx
    check(mod.cuCtxSetCurrent(ctx))
    return ctx


def get_device_properties(device: Optional[int] = None) -> dict:
    """Limits the compiler and launcher need, with upstream's key names."""
    if device is None:
        device = get_current_device()
    props = _props.get(device)
    if props is not None:
        return props
    try:
        mod = cuda()
        dev = check(mod.cuDeviceGet(device))
    except Exception:
        props = _torch_device_properties(device)
        if props is None:
            raise
        _props[device] = props
        return props
    A = mod.CUdevice_attribute

    def attr(name, default=None):
        a = getattr(A, "CU_DEVICE_ATTRIBUTE_" + name, None)
        if a is None:
            return default
        try:
            return check(mod.cuDeviceGetAttribute(a, dev))
        except RuntimeError:   # attributes retired in newer CUDA (e.g. clock rates)
            return default

    major, minor = attr("COMPUTE_CAPABILITY_MAJOR"), attr("COMPUTE_CAPABILITY_MINOR")
    name = check(mod.cuDeviceGetName(256, dev))
    props = {
        "name": name.split(b"\0", 1)[0].decode(errors="replace"),
        "capability": major * 10 + minor,
        "max_shared_mem": attr("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        "max_num_regs": attr("MAX_REGISTERS_PER_BLOCK"),
        "multiprocessor_count": attr("MULTIPROCESSOR_COUNT"),
        "warpSize": attr("WARP_SIZE"),
        "sm_clock_rate": attr("CLOCK_RATE"),
        "mem_clock_rate": attr("MEMORY_CLOCK_RATE"),
        "mem_bus_width": attr("GLOBAL_MEMORY_BUS_WIDTH"),
        "l2_cache_size": attr("L2_CACHE_SIZE"),
    }
    _props[device] = props
    return props


def get_device_capability(device: Optional[int] = None):
    c = get_device_properties(device)["capability"]
    return (c // 10, c % 10)


def get_device_arch(device: Optional[int] = None) -> str:
    """ptxas/LLVM arch name; 9.x and newer get the `a` (arch-specific features) suffix."""
    c = get_device_properties(device)["capability"]
    return f"sm_{c}a" if c >= 90 else f"sm_{c}"


def load_binary(name: str, kernel, shared: int = 0, device: Optional[int] = None,
                num_threads: Optional[int] = None):
    """Load a cubin (bytes) or PTX (str, JIT-compiled by the driver) and find kernel `name`.

    Returns (module, function handle as int, registers, spills). Raises
    OutOfResources before anything is loaded when `shared` bytes of shared
    memory exceed what one block may opt in to on this device, and after loading
    when the kernel's registers leave room for fewer than `num_threads` threads
    per block (the launch would fail with "too many resources requested").
    """
    mod = cuda()
    if device is None:
        device = get_current_device()
    limit = get_device_properties(device)["max_shared_mem"]
    if limit is not None and shared > limit:
        raise OutOfResources(shared, limit, "shared memory")
    ensure_context(device)
    image = kernel.encode() + b"\0" if isinstance(kernel, str) else bytes(kernel)
    module = check(mod.cuModuleLoadData(image))
    function = check(mod.cuModuleGetFunction(module, name.encode()))
    F = mod.CUfunction_attribute
    n_regs = check(mod.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, function))
    n_spills = check(mod.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function)) // 4
    if num_threads is not None:
        max_threads = check(mod.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                                   function))
        if num_threads > max_threads:
            check(mod.cuModuleUnload(module))
            raise OutOfResources(num_threads, max_threads, "threads")
    if shared > 49152 and limit is not None:
        # Blocks get 48 KB of dynamic shared memory unless the function opts
        # in to more; allow everything the device offers beside the static part.
        static = check(mod.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function))
        check(mod.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     limit - static))
    return module, int(function), n_regs, n_spills


def unload_module(module) -> None:
    check(cuda().cuModuleUnload(module))


def synchronize() -> None:
    check(cuda().cuCtxSynchronize())


def device_pointer(ptr: int) -> Optional[int]:
    """Device address for `ptr`, or None when the GPU cannot access it (plain host memory).

    Mapped pinned host memory is accepted and translated, as upstream does."""
    mod = cuda()
    attr = mod.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER
    res = mod.cuPointerGetAttribute(attr, ptr)
    err = int(res[0])
    if err == 201:   # CUDA_ERROR_INVALID_CONTEXT: first use on this thread
        ensure_context()
        res = mod.cuPointerGetAttribute(attr, ptr)
        err = int(res[0])
    if err == 1:     # CUDA_ERROR_INVALID_VALUE: not memory the driver knows about
        return None
    return int(check(res))


# ---------------------------------------------------------------------------
# The launch call itself.

_raw_launch = None


def raw_launch_kernel():
    """cuLaunchKernel from libcuda through ctypes, argument types fixed once.

    PyDLL rather than CDLL: the call keeps the GIL, saving its release and
    re-acquisition (cuLaunchKernel only enqueues). Returns None where libcuda
    cannot be opened by name.
    """
    global _raw_launch
    if _raw_launch is None:
        cuda()   # initialise the driver through the bindings first
        fn = None
        for lib in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
            try:
                fn = ctypes.PyDLL(lib).cuLaunchKernel
                break
            except (OSError, AttributeError):
                continue
        if fn is None:
            _raw_launch = False
            return None
        u = ctypes.c_uint
        fn.argtypes = [ctypes.c_void_p, u, u, u, u, u, u, u, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _raw_launch = fn
    return _raw_launch or None



# ---------------------------------------------------------------------------
# The current device and stream on the launch path: torch's raw getters when torch is
# loaded (~0.1 us each, a fraction of the Python-level torch.cuda calls), else ours.

_TORCH_C = None


def _torch_c():
    global _TORCH_C
    if _TORCH_C is None:
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch._C, "_cuda_getCurrentRawStream"):
            _TORCH_C = torch._C
    return _TORCH_C


def current_device() -> int:
    c = _torch_c()
    if c is not None:
        return c._cuda_getDevice()
    return get_current_device()


def current_stream() -> int:
    c = _torch_c()
    if c is not None:
        return c._cuda_getCurrentRawStream(c._cuda_getDevice())
    return get_current_stream()


# ---------------------------------------------------------------------------
# The driver object of the plugin interface (`triton.backends.driver.DriverBase`).

class _Utils:
    """`driver.active.utils`: load_binary and the device's properties."""

    def load_binary(self, name, kernel, shared=0, device=None):
        """(module, function, n_regs, n_spills, n_max_threads), as upstream's."""
        module, function, n_regs, n_spills = load_binary(name, kernel, shared, device)
        mod = cuda()
        F = mod.CUfunction_attribute
        handle = mod.CUfunction(int(function))  # as the launcher builds it from the int
        n_max = check(mod.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle))
        return module, function, n_regs, n_spills, n_max

    def get_device_properties(self, device=None):
        return get_device_properties(device)


class CudaDriver(DriverBase):
    def __init__(self):
        self.utils = _Utils()
        from .launcher import CudaLauncher
        self.launcher_cls = CudaLauncher

    @staticmethod
    def target_name() -> str:
        return "cuda"

    @classmethod
    def should_activate(cls) -> bool:
        # A process forked after its parent initialised CUDA (Inductor's compile workers)
        # cannot call the driver, but torch, already loaded there, still knows the GPU
        # from before the fork; upstream asks torch alone.
        return is_available() or _torch_sees_nvidia_gpu()

    def get_current_target(self) -> GPUTarget:
        major, minor = get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, 32)

    def get_current_device(self) -> int:
        return current_device()

    def set_current_device(self, device) -> None:
        set_current_device(device)

    def get_current_stream(self, device=None) -> int:
        return get_current_stream(device)

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        import torch
        return torch.cuda

    def is_cuda(self) -> bool:
        return True


# ---------------------------------------------------------------------------
# Upstream's names for building C code against CUDA (its AOT test imports them from here):
# `include_dirs` (directories holding cuda.h), `library_dirs()`, `libcuda_dirs()`,
# `libdevice_dir`, `libraries`. Found on first use (cuda_paths.py), not at import.

libraries = ["cuda"]
_CUDA_PATHS = {"include_dirs": "cuda_include_dirs", "library_dirs": None,
               "libcuda_dirs": None, "libdevice_dir": "libdevice_dir"}


def __getattr__(name):
    if name not in _CUDA_PATHS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import cuda_paths
    value = getattr(cuda_paths, _CUDA_PATHS[name] or name)
    return value() if _CUDA_PATHS[name] else value
