"""`triton.backends.compiler`: what a compiler backend is (upstream's interface).

A backend turns a kernel's IR into something its driver can launch. The compiler driver
(`tritium.compiler.compile`) asks it for its options (`parse_options`) and its stages
(`add_stages`), runs the stages in order and keeps every stage's text under the stage's
name in `CompiledKernel.asm`. A backend imports neither the frontend nor the runtime:
what it needs from them comes in through its arguments.
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import Dict, Union


@dataclass(frozen=True)
class GPUTarget:
    """What code is made for: `backend` ("cuda", "cpu", ...), `arch` (e.g. 90 for sm_90)
    and `warp_size`."""
    backend: str
    arch: Union[int, str]
    warp_size: int


class Language(Enum):
    """The language a source is written in."""
    TRITON = 0
    GLUON = 1


class BaseBackend(metaclass=ABCMeta):
    """Upstream's backend interface. `binary_ext` names the stage whose product the driver
    loads (e.g. "cubin")."""
    binary_ext = "bin"
    supports_native_tensor_specialization = True

    def __init__(self, target: GPUTarget) -> None:
        self.target = target
        if not self.supports_target(target):
            raise ValueError(f"{type(self).__name__} does not support target {target}")

    @staticmethod
    @abstractmethod
    def supports_target(target: GPUTarget) -> bool:
        raise NotImplementedError

    @abstractmethod
    def hash(self) -> str:
        """What decides the code besides the kernel and its options (device, tool versions)."""
        raise NotImplementedError

    @abstractmethod
    def parse_options(self, options: dict) -> object:
        """The backend's options object from a dict of user options; rejects bad values."""
        raise NotImplementedError

    @abstractmethod
    def add_stages(self, stages: dict, options: object, language=Language.TRITON) -> None:
        """Fill `stages` with `name -> fn(product, metadata)`, in the order they run. The
        first stage receives the TTIR module; a stage may add to `metadata`."""
        raise NotImplementedError

    def binary(self, asm: dict, products: dict):
        """What the driver loads (`CompiledKernel.kernel`): the `binary_ext` stage's
        product, else its text. A backend whose binary spans stages overrides this."""
        return products.get(self.binary_ext, asm.get(self.binary_ext))

    def load_dialects(self, context) -> None:
        """tritium's IR knows every dialect it parses; nothing to load."""

    def get_module_map(self) -> Dict[str, object]:
        return {}

    def pack_metadata(self, metadata):
        """What the launcher receives besides the grid and the arguments."""
        return (getattr(metadata, "num_warps", 4), getattr(metadata, "num_ctas", 1),
                getattr(metadata, "shared", 0))

    def get_codegen_implementation(self, options) -> dict:
        return {}

    @staticmethod
    def parse_attr(desc: str) -> list:
        return [["tt.divisibility", 16]] if "D" in desc else []

    @staticmethod
    def get_int_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg % 16 == 0 else ""

    @staticmethod
    def get_tensor_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg.data_ptr() % 16 == 0 else ""


class NumWarpsError(ValueError, AssertionError):
    """A bad `num_warps`: a ValueError naming the option, and the AssertionError upstream's
    backends raise for it (its tests catch that)."""


def check_num_warps(options: dict) -> None:
    """num_warps must be a positive power of two (every backend's rule)."""
    nw = options.get("num_warps", 4)
    if not isinstance(nw, int) or isinstance(nw, bool) or nw <= 0 or nw & (nw - 1):
        raise NumWarpsError(f"num_warps must be a power of 2, got {nw!r}")


def inspect_stages(backend, stages: dict, options, language, capability=None) -> None:
    """Upstream's `knobs.runtime.add_stages_inspection_hook`: once a backend has filled its
    stages, the hook may read or replace them (a custom pass pipeline). Each backend's
    `add_stages` ends with this call, as upstream's do."""
    import tritium.knobs as knobs
    hook = knobs.runtime.add_stages_inspection_hook
    if hook is not None:
        hook(backend, stages, options, language, capability)
