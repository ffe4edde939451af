"""Which backend runs a launch: the GPU when one is present and the arguments live there,
the CPU backend otherwise (or always, with TRITON_INTERPRET=1)."""
from __future__ import annotations

from . import knobs

_CPU = None


def cpu_backend():
    global _CPU
    if _CPU is None:
        from ..backends.cpu.backend import CPUBackend
        _CPU = CPUBackend()
    return _CPU


def _is_on_gpu(arg) -> bool:
    dev = getattr(arg, "device", None)
    if dev is not None:
        return getattr(dev, "type", str(dev)) == "cuda"
    return hasattr(arg, "__cuda_array_interface__")


def active_backend(bound_args):
    if knobs.interpret():
        return cpu_backend()
    if any(_is_on_gpu(a) for a in bound_args):
        from ..backends.nvidia.backend import cuda_backend
        return cuda_backend()
    return cpu_backend()
