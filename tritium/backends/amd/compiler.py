"""`triton.backends.amd.compiler`: the part of upstream's AMD backend that classifies launch
arguments, and nothing else.

tritium generates no AMD code: `HIPBackend` keeps its compile hooks (`hash`,
`parse_options`, `add_stages`) abstract, so it cannot be instantiated and is not in the
backend registry. What it does have is upstream's specialisation behaviour, which
`native_specialize_impl(HIPBackend, ...)` (and code written against upstream's interface)
asks for: besides the 16-byte-alignment mark `"D"`, a tensor whose storage fits in 2 GiB
gets the mark `"S"` while buffer operations are on (`knobs.amd.use_buffer_ops`,
`AMDGCN_USE_BUFFER_OPS`), and `parse_attr` turns that mark into `tt.pointer_range = 32`.
"""
from __future__ import annotations

from ..compiler import BaseBackend, GPUTarget

# A buffer operation's offset is a signed 32-bit number of bytes.
_MAX_BUFFER_BYTES = 2 ** 31 - 1


class HIPBackend(BaseBackend):
    """Upstream's AMD backend, reduced to its argument specialisation (no code generation)."""
    binary_ext = "hsaco"
    # Tensors' keys come from `get_tensor_specialization` below, not from the shared
    # alignment-only rule.
    supports_native_tensor_specialization = False

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "hip"

    @staticmethod
    def is_within_2gb(arg) -> bool:
        """Whether every byte `arg` can reach lies within 2 GiB of its base: `ptr_range()`
        where the argument has one (a `MockTensor`), else a torch tensor's storage size."""
        if hasattr(arg, "ptr_range"):
            return arg.ptr_range() <= _MAX_BUFFER_BYTES
        storage = getattr(arg, "untyped_storage", None)
        if storage is not None and type(arg).__module__.startswith("torch"):
            return storage().size() <= _MAX_BUFFER_BYTES
        return False

    @staticmethod
    def parse_attr(desc: str) -> list:
        attrs = BaseBackend.parse_attr(desc)
        if "S" in desc:
            attrs.append(["tt.pointer_range", 32])
        return attrs

    @staticmethod
    def get_tensor_specialization(arg, **kwargs) -> str:
        from ... import knobs  # the knob may change between launches: read it each time
        key = BaseBackend.get_tensor_specialization(arg, **kwargs)
        if knobs.amd.use_buffer_ops and HIPBackend.is_within_2gb(arg):
            key += "S"
        return key
