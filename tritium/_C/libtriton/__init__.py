"""`triton._C.libtriton`: what code outside the compiler reaches for in upstream's extension:
`ir` (the read side of the MLIR bindings, over tritium's own IR: torch's mutation analysis
of user-defined kernels walks a kernel's TTIR through it) and `nvidia.cublas.CublasLt`
(upstream's tutorial 09 uses it as its cuBLAS baseline). Tritium's compiler never goes
through here."""
from . import ir, nvidia  # noqa: F401

__all__ = ["ir", "nvidia", "native_specialize_impl"]


def __getattr__(name):
    # Upstream's argument classifier lives in the frontend; loaded on first use so that
    # `triton._C` stays importable below every layer.
    if name == "native_specialize_impl":
        from ...frontend.specialize import native_specialize_impl
        return native_specialize_impl
    raise AttributeError(f"module 'triton._C.libtriton' has no attribute {name!r}")
