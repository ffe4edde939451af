"""`triton.runtime.driver.active`: the device-facing helpers user code reaches for, e.g.
`driver.active.get_current_target()` and `driver.active.utils.get_device_properties(0)`."""
from __future__ import annotations

from ..backends.compiler import GPUTarget


class _Utils:
    def __init__(self, owner):
        self.owner = owner

    def get_device_properties(self, device=None):
        if self.owner.is_cuda():
            from ..backends.nvidia import driver
            return driver.get_device_properties(device)
        import os
        return {"max_shared_mem": 0, "multiprocessor_count": os.cpu_count() or 1,
                "warpSize": 32, "max_num_regs": 65536}


class ActiveDriver:
    """The GPU when tritium can use one, else the CPU backend."""

    def __init__(self):
        self.utils = _Utils(self)
        self._cuda = None

    def is_cuda(self) -> bool:
        if self._cuda is None:
            try:
                from ..backends.nvidia import driver
                self._cuda = driver.is_available()
            except Exception:
                self._cuda = False
        return self._cuda

    def get_current_device(self):
        if self.is_cuda():
            from ..backends.nvidia import driver
            return driver.get_current_device()
        return 0

    def set_current_device(self, device):
        if self.is_cuda():
            from ..backends.nvidia import driver
            driver.set_current_device(device)

    def get_current_stream(self, device=None):
        if self.is_cuda():
            from ..backends.nvidia import driver
            return driver.get_current_stream(device)
        return 0

    def get_current_target(self) -> GPUTarget:
        if self.is_cuda():
            from ..backends.nvidia import driver
            major, minor = driver.get_device_capability()
            return GPUTarget("cuda", major * 10 + minor, 32)
        return GPUTarget("cpu", 0, 32)

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda" if self.is_cuda() else "cpu", self.get_current_device())


class _DriverConfig:
    def __init__(self):
        self.default = ActiveDriver()
        self._active = None

    @property
    def active(self):
        return self._active or self.default

    def set_active(self, drv):
        self._active = drv

    def reset_active(self):
        self._active = None


driver = _DriverConfig()
