"""`triton.backends.compiler`: what a backend is, as upstream defines it.

`GPUTarget` names a compilation target; `BaseBackend` is the interface a backend plugin
implements (options, stages, hash). Kept minimal and import-light: torch's Inductor imports
this module while it is itself being imported, and the compiler driver builds on it.
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import Dict, Union


@dataclass(frozen=True)
class GPUTarget:
    backend: str              # "cuda", "hip", "cpu"
    arch: Union[int, str]     # 90 for sm_90, "gfx942" for AMD, 0 for the CPU
    warp_size: int


class Language(Enum):
    """The source language a backend compiles."""
    TRITON = 0
    GLUON = 1


class BaseBackend(metaclass=ABCMeta):
    supports_native_tensor_specialization = True
    supports_native_tensordesc_specialization = True

    def __init__(self, target: GPUTarget) -> None:
        if not self.supports_target(target):
            raise ValueError(f"{type(self).__name__} cannot compile for {target}")
        self.target = target

    @staticmethod
    @abstractmethod
    def supports_target(target: GPUTarget) -> bool:
        ...

    @abstractmethod
    def hash(self) -> str:
        """Identifies the backend and its tools, for cache keys."""

    @abstractmethod
    def parse_options(self, options: dict) -> object:
        """The options object for `options`, with the backend's defaults and checks."""

    @abstractmethod
    def add_stages(self, stages: dict, options: object, language: Language = Language.TRITON) -> None:
        """Fill `stages` with `ir name -> fn(src, metadata)`, run in insertion order."""

    @abstractmethod
    def load_dialects(self, context) -> None:
        ...

    @abstractmethod
    def get_module_map(self) -> Dict[str, object]:
        """Interface module name -> this backend's implementation of it."""

    @staticmethod
    def parse_attr(desc: str):
        if not isinstance(desc, str):
            raise TypeError(f"specialisation descriptor must be a str, got {type(desc).__name__}")
        return [["tt.divisibility", 16]] if "D" in desc else []

    @staticmethod
    def get_int_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg % 16 == 0 else ""

    @staticmethod
    def get_tensor_specialization(arg, **kwargs) -> str:
        return "D" if kwargs.get("align", False) and arg.data_ptr() % 16 == 0 else ""

    @staticmethod
    def get_tensordesc_specialization(arg, **kwargs) -> str:
        return ""
