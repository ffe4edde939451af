"""Helpers of Triton-to-Gluon translated code: `convert_host_descriptor` for the host, and the
Gluon functions of `gluon_helpers.py` (`reset_to_default_layout`, `default_blocked_layout`,
`tl_arange`, `tl_full`, `tl_dot`, descriptor loads and stores, ...) for kernels.

The Gluon functions are loaded on first use, not on import: translating, and converting a
host descriptor, need no Gluon compiler, so importing this module must not either.
Translated files do not import this module: the translator copies what they use into them.
"""
from __future__ import annotations

from typing import Any


def convert_host_descriptor(desc):
    """The Gluon host descriptor (`gluon.nvidia.hopper.TensorDescriptor`) for a Triton one
    (`triton.tools.tensor_descriptor.TensorDescriptor`, ragged ones included): the same
    tensor, shape, strides, block and padding, with the block landing in shared memory in
    the default NVMMA layout for its dtype, which the translated kernel's loads assume.
    A Gluon descriptor comes back as it is."""
    import tritium.language as tl
    from tritium.experimental.gluon.language._layouts import NVMMASharedLayout
    from tritium.experimental.gluon.nvidia.hopper import TensorDescriptor as GluonTensorDescriptor
    from tritium.language.target_info import current_target
    from tritium.tools.tensor_descriptor import TensorDescriptor

    if isinstance(desc, GluonTensorDescriptor):
        return desc
    if not isinstance(desc, TensorDescriptor):
        raise TypeError(f"convert_host_descriptor: expected a triton.tools.tensor_descriptor.TensorDescriptor, "
                        f"got {type(desc).__name__}")
    target = current_target()
    if target is not None and target.backend == "hip":
        raise NotImplementedError("convert_host_descriptor: AMD descriptors (TDM) are not supported by tritium")
    # torch's dtype names are tl's, except the fp8 ones.
    name = str(desc.base.dtype).rsplit(".", 1)[-1]
    name = {"float8_e5m2": "float8e5", "float8_e4m3fn": "float8e4nv"}.get(name, name)
    dtype = getattr(tl, name, None)
    if not isinstance(dtype, tl.dtype):
        raise TypeError(f"convert_host_descriptor: no Triton dtype for the descriptor's {desc.base.dtype}")
    layout = NVMMASharedLayout.get_default_for(desc.block_shape, dtype)
    return GluonTensorDescriptor(desc.base, list(desc.shape), list(desc.strides), list(desc.block_shape), layout,
                                 padding=desc.padding)


def __getattr__(name: str) -> Any:
    # The Gluon helpers, imported the first time one is asked for (PEP 562).
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        from . import gluon_helpers
    except AttributeError as e:    # a decorator Gluon lacks (`gluon.jit`, `gluon.constexpr_function`)
        raise AttributeError(f"translator_helpers.{name} needs Gluon, which this tritium lacks in part: {e}") from e
    try:
        return getattr(gluon_helpers, name)
    except AttributeError:
        pass
    if any(part in name for part in _OTHER_TARGETS):
        raise AttributeError(f"translator_helpers.{name}: upstream's helper for Blackwell or AMD targets; tritium's "
                             f"translator provides the NVIDIA (Hopper and older) and CPU helpers only")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Words in the names of upstream's helpers for targets tritium's translator does not cover.
_OTHER_TARGETS = ("blackwell", "mmav5", "tcgen05", "tmem", "scaled", "amd", "wmma", "mfma", "tdm", "gfx", "cdna")
