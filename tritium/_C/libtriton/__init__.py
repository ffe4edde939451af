"""`triton._C.libtriton`: only what user code (not the compiler) imports from upstream's
extension — `nvidia.cublas.CublasLt`, which upstream's tutorial 09 uses as its cuBLAS
baseline. Tritium's compiler never goes through here."""
from . import nvidia  # noqa: F401

__all__ = ["nvidia"]
