"""`triton._C.libtriton.nvidia`: `cublas.CublasLt`, upstream's thin cuBLASLt binding, here
through torch (whose matmuls are cuBLAS/cuBLASLt on NVIDIA GPUs), with upstream's calling
convention: `matmul(A, B, C)` writes C = A @ B.T (B given [N, K], as cuBLASLt's TN layout)."""
from __future__ import annotations

from types import SimpleNamespace

__all__ = ["cublas"]


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
