"""`triton.backends`: the backend registry, filled from the `triton.backends` entry points.

Each entry point names a package holding a `compiler` module (one concrete `BaseBackend`)
and a `driver` module (one concrete `DriverBase`), as upstream's plugins do. tritium's own
backends are added by module name (`BUILTIN`), not as entry points: upstream Triton, installed
beside tritium, loads that group as its own plugins and would fail on them. Upstream Triton's
own entries are skipped here. A plugin that fails to load is
reported by name (a warning, and `broken_backends[name]` holds the error) and the others
still load. Discovery runs on first use of `backends`, so `import tritium` stays quick.
"""
from __future__ import annotations

import importlib
import inspect
import warnings
from dataclasses import dataclass
from typing import Dict, Type

from .compiler import BaseBackend, GPUTarget, Language  # noqa: F401
from .driver import DriverBase  # noqa: F401

ENTRY_POINT_GROUP = "triton.backends"
# tritium's own backends: they keep their names over an entry point's of the same name.
BUILTIN = {"nvidia": "tritium.backends.nvidia", "cpu": "tritium.backends.cpu"}


@dataclass(frozen=True)
class Backend:
    compiler: Type[BaseBackend]
    driver: Type[DriverBase]


broken_backends: Dict[str, BaseException] = {}


def _find_concrete_subclass(module, base):
    found = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, base) and not inspect.isabstract(v)]
    found = list(dict.fromkeys(found))
    if len(found) != 1:
        raise RuntimeError(f"{module.__name__} must define exactly one concrete subclass of "
                           f"{base.__name__}; found {len(found)}: {[c.__name__ for c in found]}")
    return found[0]


def load_backend(package: str) -> Backend:
    """The `Backend` of a plugin package (`<package>.compiler` and `<package>.driver`)."""
    compiler = importlib.import_module(f"{package}.compiler")
    driver = importlib.import_module(f"{package}.driver")
    return Backend(_find_concrete_subclass(compiler, BaseBackend),
                   _find_concrete_subclass(driver, DriverBase))


def _entry_points():
    from importlib.metadata import entry_points
    eps = entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=ENTRY_POINT_GROUP))
    return list(eps.get(ENTRY_POINT_GROUP, ()))  # Python < 3.10


def discover_backends() -> Dict[str, Backend]:
    found: Dict[str, Backend] = {}
    broken_backends.clear()
    # Upstream Triton, when installed beside tritium, registers its own in-tree backends
    # (`triton.backends.nvidia`, `triton.backends.amd`) in the same group: those are built
    # for upstream's C++ core, not plugins, and tritium's own backends take their names.
    named = {ep.name: ep.value for ep in _entry_points()
             if not ep.value.startswith("triton.backends.")}
    named.update(BUILTIN)
    for name, package in named.items():
        try:
            found[name] = load_backend(package)
        except Exception as e:  # a plugin's bug must not take the others down
            broken_backends[name] = e
            warnings.warn(f"triton backend {name!r} ({package}) failed to load and is "
                          f"skipped: {type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)
    return found


_backends = None


def __getattr__(name):
    global _backends
    if name == "backends":
        if _backends is None:
            _backends = discover_backends()
        return _backends
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rediscover() -> Dict[str, Backend]:
    """Read the entry points again (after installing a plugin at run time)."""
    global _backends
    _backends = discover_backends()
    return _backends


def backend_for(target: GPUTarget) -> Type[BaseBackend]:
    """The compiler class of the registered backend that supports `target`."""
    for b in __getattr__("backends").values():
        if b.compiler.supports_target(target):
            return b.compiler
    raise RuntimeError(f"no registered backend supports {target}; registered: "
                       f"{sorted(__getattr__('backends'))}")
