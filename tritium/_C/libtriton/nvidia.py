"""`triton._C.libtriton.nvidia`: `cublas.CublasLt`, upstream's thin cuBLASLt binding, here
through torch (whose matmuls are cuBLAS/cuBLASLt on NVIDIA GPUs), with upstream's calling
convention: `matmul(A, B, C)` writes C = A @ B.T (B given [N, K], as cuBLASLt's TN layout).

Also upstream's device-memory helpers for programs that run kernels without torch
(`device_malloc`, `device_free`, `copy_host_to_device`, `copy_device_to_host`,
`synchronize`): raw addresses as ints, over the CUDA driver API (cuda-bindings) in the
current device's primary context. None of them imports torch."""
from __future__ import annotations

import ctypes
from types import SimpleNamespace

__all__ = ["cublas", "device_malloc", "device_free", "copy_host_to_device",
           "copy_device_to_host", "synchronize"]


class CublasLt:
    def __init__(self, workspace):
        # The workspace is cuBLASLt's scratch; torch manages its own, so it is only kept.
        self.workspace = workspace

    def matmul(self, A, B, C):
        import torch
        if A.dim() != 2 or B.dim() != 2 or A.shape[1] != B.shape[1]:
            raise ValueError(f"CublasLt.matmul: A [M, K] and B [N, K] expected, got "
                             f"{tuple(A.shape)} and {tuple(B.shape)}")
        if A.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            one = torch.ones((), device=A.device, dtype=torch.float32)
            C.copy_(torch._scaled_mm(A, B.T, one, one, out_dtype=C.dtype))
        else:
            torch.matmul(A, B.T, out=C)
        return C


cublas = SimpleNamespace(CublasLt=CublasLt)


def _driver():
    from ...backends.nvidia import driver
    driver.ensure_context()  # the current device's primary context, as a launch uses
    return driver, driver.cuda()


def device_malloc(size: int) -> int:
    """`size` bytes of global memory on the current device; its address."""
    if int(size) < 0:
        raise ValueError(f"device_malloc: size must be >= 0, got {size}")
    drv, cu = _driver()
    return int(drv.check(cu.cuMemAlloc(max(int(size), 1))))


def device_free(ptr: int) -> None:
    drv, cu = _driver()
    drv.check(cu.cuMemFree(int(ptr)))


def copy_host_to_device(dst: int, src: bytes) -> None:
    """Copy the bytes `src` to device address `dst` (synchronous)."""
    drv, cu = _driver()
    data = bytes(src)
    buf = ctypes.create_string_buffer(data, len(data))  # host memory by address (int)
    drv.check(cu.cuMemcpyHtoD(int(dst), ctypes.addressof(buf), len(data)))


def copy_device_to_host(src: int, size: int) -> bytes:
    """`size` bytes read from device address `src` (synchronous)."""
    drv, cu = _driver()
    n = int(size)
    buf = ctypes.create_string_buffer(max(n, 1))
    drv.check(cu.cuMemcpyDtoH(ctypes.addressof(buf), int(src), n))
    return buf.raw[:n]


def synchronize() -> None:
    """Wait for all work on the current context (what a launch queued)."""
    drv, cu = _driver()
    drv.check(cu.cuCtxSynchronize())
