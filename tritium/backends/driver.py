"""`triton.backends.driver`: what a driver is (upstream's interface).

A driver speaks to one kind of device: which target the current device is, how a binary
is loaded (`utils.load_binary`), how a kernel is launched (`launcher_cls`) and how work on
it is timed (`get_benchmarker`, `get_device_interface`).
"""
from __future__ import annotations

import os
from abc import ABCMeta, abstractmethod

from .tensordesc_args import expand_signature, wrap_handle_tensordesc_impl  # noqa: F401 (upstream's names here)


class DriverBase(metaclass=ABCMeta):

    @classmethod
    def is_active(cls) -> bool:
        """Whether this driver should run kernels here. TRITON_ACTIVE_DRIVER=<name> picks
        one by its `target_name()`; otherwise `should_activate()` decides."""
        wanted = os.environ.get("TRITON_ACTIVE_DRIVER")
        if wanted:
            return wanted == cls.target_name()
        return cls.should_activate()

    @staticmethod
    def target_name() -> str:
        return ""

    @classmethod
    def should_activate(cls) -> bool:
        return False

    @abstractmethod
    def get_current_target(self):
        """The `GPUTarget` of the current device."""

    @abstractmethod
    def get_active_torch_device(self):
        """The torch device kernels run on."""

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32,
                           device=self.get_active_torch_device())

    def clear_cache(self, cache) -> None:
        cache.zero_()

    def map_python_to_cpp_type(self, ty: str) -> str:
        return _CPP_TYPES.get(ty, "void*") if not ty.startswith("*") else "void*"

    def __init__(self) -> None:
        pass


class GPUDriver(DriverBase):
    """A driver over torch's device calls, as upstream's GPU drivers are."""

    def __init__(self):
        import torch
        self.get_device_capability = torch.cuda.get_device_capability
        self.get_current_device = torch.cuda.current_device
        self.set_current_device = torch.cuda.set_device
        self.get_current_stream = lambda idx=None: torch.cuda.current_stream(idx).cuda_stream


_CPP_TYPES = {"i1": "int8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t",
              "i64": "int64_t", "u1": "uint8_t", "u8": "uint8_t", "u16": "uint16_t",
              "u32": "uint32_t", "u64": "uint64_t", "fp16": "double", "bf16": "double",
              "fp32": "double", "f32": "double", "fp64": "double"}
