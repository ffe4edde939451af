"""Where a launch runs. With TRITON_INTERPRET=1, on the CPU. When user code chose a driver
(`driver.set_active`), on that driver's device. Otherwise the arguments decide: the first
tensor-like on a GPU sends the launch to the GPU driver ("cuda"), host tensors to the CPU;
without either (scalars only, or bare `data_ptr()` holders) the active driver's device, as
upstream always does.

What comes back is a `Device`: the key of the JIT's per-device caches and the target the
compiler makes code for. Drivers are looked up by name in the backend registry, so this
module knows no backend's code."""
from __future__ import annotations

from ..backends.compiler import GPUTarget
from .driver import driver as _config, driver_for_target, generation


class Device:
    """A device launches can run on: `device_key()` keys the JIT's caches, `target` is
    what code is compiled for."""
    __slots__ = ("key", "target", "driver")

    def __init__(self, key, target: GPUTarget, driver):
        self.key, self.target, self.driver = key, target, driver

    def device_key(self):
        return self.key


class _GPUDevices:
    """The GPU driver's devices, one `Device` per device index."""

    def __init__(self, name: str):
        self.name = name
        self.driver = None
        self.by_index = {}

    def current(self) -> Device:
        if self.driver is None:
            self.driver = driver_for_target(GPUTarget(self.name, 0, 32))
        index = self.driver.get_current_device()
        dev = self.by_index.get(index)
        if dev is None:
            target = self.driver.get_current_target()
            dev = self.by_index[index] = Device((self.name, index), target, self.driver)
        return dev


_CPU = None
_GPU = _GPUDevices("cuda")
_USER = [None, -1]  # (Device, driver generation it was made for)


def cpu_backend() -> Device:
    global _CPU
    if _CPU is None:
        target = GPUTarget("cpu", 0, 32)
        _CPU = Device("cpu", target, driver_for_target(target))
    return _CPU


def _user_device():
    if _USER[1] != generation[0]:
        drv = _config._active if _config.is_user_set() else None
        dev = None
        if drv is not None:
            target = drv.get_current_target()
            dev = Device(("active", target.backend, id(drv)), target, drv)
        _USER[0], _USER[1] = dev, generation[0]
    return _USER[0]


_SCALARS = (int, float, bool, type(None), str)
_GPU_SIDE, _CPU_SIDE, _NOWHERE = "gpu", "cpu", "active"


def _place(arg):
    """Where a tensor-like argument lives: _GPU_SIDE, _CPU_SIDE, _NOWHERE (a pointer that
    says nothing of its device: upstream's convention, the active driver's), or None (no
    memory: a scalar, a constexpr, an empty tuple). Tuple arguments are looked into."""
    if type(arg) in _SCALARS:
        return None
    if isinstance(arg, (tuple, list)):
        for a in arg:
            where = _place(a)
            if where is not None:
                return where
        return None
    if type(arg).__name__ == "TensorDescriptor":
        arg = arg.base                    # a descriptor lives where its tensor does
    if getattr(arg, "ndim", 1) == 0 and not hasattr(arg, "data_ptr"):
        return None  # a numpy scalar: it has __array_interface__ but is not a buffer
    if type(arg).__name__ == "_MockTensor":  # warmup's dtype: no place of its own
        return _NOWHERE
    is_cuda = getattr(arg, "is_cuda", None)  # torch: a cheap property
    if is_cuda is not None:
        return _GPU_SIDE if is_cuda else _CPU_SIDE
    dev = getattr(arg, "device", None)
    if dev is not None:
        return _GPU_SIDE if getattr(dev, "type", str(dev)) == "cuda" else _CPU_SIDE
    if hasattr(arg, "__cuda_array_interface__"):
        return _GPU_SIDE
    if hasattr(arg, "__array_interface__"):  # numpy: host memory
        return _CPU_SIDE
    if hasattr(arg, "data_ptr"):  # a bare address holder (no torch, no device attribute)
        return _NOWHERE
    return None


def active_backend(bound_args) -> Device:
    """The device this launch runs on (see the module docstring): the first argument that
    lives somewhere decides; a kernel given only scalars, or pointers that do not say where
    they live, runs where upstream's would, on the active driver's device."""
    user = _user_device() if generation[0] else None
    if user is not None:
        return user
    for a in bound_args:
        if type(a) in _SCALARS:
            continue
        is_cuda = getattr(a, "is_cuda", None)  # a torch tensor, decided inline (hot path)
        if is_cuda is not None:
            return _GPU.current() if is_cuda else cpu_backend()
        where = _place(a)
        if where is _GPU_SIDE:
            return _GPU.current()
        if where is _CPU_SIDE:
            return cpu_backend()
        if where is _NOWHERE:
            return _active_driver_device()
    return _active_driver_device()


def _active_driver_device() -> Device:
    """The active driver's device, as upstream's warmup compiles for: the current GPU
    where the GPU driver is the active one, else the CPU."""
    if _config.active.get_current_target().backend == _GPU.name:
        return _GPU.current()
    return cpu_backend()
