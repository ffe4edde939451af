"""A stand-in for cuda-bindings' driver module, for running tritium's NVIDIA runtime path end
to end on a machine without a GPU: device memory is host memory (so copies and a kernel
model can read it), modules and functions are counters, and `cuLaunchKernel` records its
arguments and calls `kernel_model[name](params address, launch)` when one is registered.
Enum and handle types come from the real cuda-bindings (they need no driver).

`install(kernel_model)` puts it under `tritium.backends.nvidia.driver` (device 0, sm_90,
232 KiB of shared memory per block) and returns it. Nothing here imports torch."""
from __future__ import annotations

import ctypes
from typing import Callable, Dict, List

CUDA_ERROR_INVALID_VALUE = 1


class FakeCuda:
    def __init__(self, kernel_model: Dict[str, Callable] = None):
        from cuda.bindings import driver as real
        self._real = real
        self.allocations: Dict[int, ctypes.Array] = {}
        self.freed: List[int] = []
        self.functions: Dict[int, str] = {}
        self.launches: List[dict] = []
        self.kernel_model = dict(kernel_model or {})
        self.synchronized = 0

    def __getattr__(self, name):  # enums, CUfunction, CUstream, cuuint64_t, ...
        return getattr(self._real, name)

    # -- memory: host buffers at their own addresses
    def cuMemAlloc(self, size):
        buf = ctypes.create_string_buffer(int(size))
        addr = ctypes.addressof(buf)
        self.allocations[addr] = buf
        return (0, addr)

    def cuMemFree(self, ptr):
        if int(ptr) not in self.allocations:
            return (CUDA_ERROR_INVALID_VALUE,)
        self.freed.append(int(ptr))
        del self.allocations[int(ptr)]
        return (0,)

    def _check_range(self, ptr, n):
        for base, buf in self.allocations.items():
            if base <= ptr and ptr + n <= base + len(buf):
                return True
        raise AssertionError(f"device range {ptr:#x}+{n} is not allocated")

    def cuMemcpyHtoD(self, dst, src, n):
        self._check_range(int(dst), n)
        ctypes.memmove(int(dst), src, n)
        return (0,)

    def cuMemcpyDtoH(self, dst, src, n):
        self._check_range(int(src), n)
        ctypes.memmove(dst, int(src), n)
        return (0,)

    def cuCtxSynchronize(self):
        self.synchronized += 1
        return (0,)

    def cuPointerGetAttribute(self, attr, ptr):
        for base, buf in self.allocations.items():
            if base <= int(ptr) < base + len(buf):
                return (0, int(ptr))
        return (CUDA_ERROR_INVALID_VALUE,)

    # -- modules, functions, launches
    def cuModuleLoadData(self, image):
        return (0, len(self.functions) + 1)

    def cuModuleGetFunction(self, module, name):
        handle = 0x1000 + len(self.functions)
        self.functions[handle] = name.decode()
        return (0, handle)

    def cuModuleUnload(self, module):
        return (0,)

    def cuFuncGetAttribute(self, attr, function):
        return (0, 1024 if "MAX_THREADS" in str(attr) else 0)

    def cuFuncSetAttribute(self, function, attr, value):
        return (0,)

    def cuTensorMapEncodeTiled(self, data_type, rank, address, dims, strides, box, elem_strides,
                               interleave, swizzle, l2, fill):
        # A recognisable 128-byte map: address, rank, dims (what a kernel model reads back).
        words = [int(address), int(rank)] + [int(d) for d in dims]
        raw = (ctypes.c_uint64 * 16)(*words)
        self.last_map = dict(data_type=data_type, dims=[int(d) for d in dims],
                             box=[int(b) for b in box])
        return (0, _Map(raw))

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        name = self.functions.get(int(f), "?")
        launch = dict(name=name, grid=(gx, gy, gz), block=(bx, by, bz), shared=shared,
                      params=int(params))
        self.launches.append(launch)
        model = self.kernel_model.get(name)
        if model is not None:
            model(int(params), launch)
        return (0,)


class _Map:
    def __init__(self, raw):
        self.raw = raw

    def getPtr(self):
        return ctypes.addressof(self.raw)


def param_address(params: int, i: int) -> int:
    """Where kernel parameter `i` is, in a kernelParams array at `params`."""
    return ctypes.c_void_p.from_address(params + 8 * i).value


def install(kernel_model: Dict[str, Callable] = None) -> FakeCuda:
    from tritium.backends.nvidia import driver
    fake = FakeCuda(kernel_model)
    props = {"name": "fake sm_90", "capability": 90, "max_shared_mem": 232448,
             "max_num_regs": 65536, "multiprocessor_count": 132, "warpSize": 32}
    driver._bindings = fake
    driver._available = True
    driver.cuda = lambda: fake
    driver.get_device_properties = lambda device=None: props
    driver.ensure_context = lambda device=None, make_current=False: None
    return fake
