"""Backends. `backends` is upstream's registry, name -> Backend(compiler, driver).

Until backends are discovered as plugins, the registry lists the two built in; the
`compiler` field holds the backend class (the driver field is filled in by plugin loading).
"""
from collections import namedtuple

Backend = namedtuple("Backend", ["compiler", "driver"])


def _builtin_backends():
    from .cpu.backend import CPUBackend
    from .nvidia.backend import CUDABackend
    return {"cpu": Backend(CPUBackend, None), "nvidia": Backend(CUDABackend, None)}


def __getattr__(name):
    if name == "backends":
        globals()["backends"] = _builtin_backends()
        return globals()["backends"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
