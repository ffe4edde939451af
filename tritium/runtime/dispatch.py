"""Which backend runs a launch: the GPU when one is present and the arguments live there,
the CPU backend otherwise (or always, with TRITON_INTERPRET=1)."""
from __future__ import annotations

_CPU = None
_CUDA = None


def _load_cuda():
    global _CUDA
    from ..backends.nvidia.backend import cuda_backend
    _CUDA = cuda_backend()
    return _CUDA


def cpu_backend():
    global _CPU
    if _CPU is None:
        from ..backends.cpu.backend import CPUBackend
        _CPU = CPUBackend()
    return _CPU


_SCALARS = (int, float, bool, type(None), str)


def _is_on_gpu(arg) -> bool:
    is_cuda = getattr(arg, "is_cuda", None)  # torch: a cheap property
    if is_cuda is not None:
        return bool(is_cuda)
    dev = getattr(arg, "device", None)
    if dev is not None:
        return getattr(dev, "type", str(dev)) == "cuda"
    return hasattr(arg, "__cuda_array_interface__")


def active_backend(bound_args):
    """The first tensor-like argument decides: on a GPU, the GPU backend; else the CPU."""
    for a in bound_args:
        if type(a) in _SCALARS:
            continue
        if type(a).__name__ == "TensorDescriptor":
            a = a.base                    # a descriptor lives where its tensor does
        if getattr(a, "ndim", 1) == 0 and not hasattr(a, "data_ptr"):
            continue  # a numpy scalar: it has __array_interface__ but is not a buffer
        if _is_on_gpu(a):
            return _CUDA or _load_cuda()
        if hasattr(a, "data_ptr") or hasattr(a, "__array_interface__"):
            return cpu_backend()
    return cpu_backend()
