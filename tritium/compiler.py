"""`triton.compiler` names: `CompilationError` and friends, `triton_key`."""
from .frontend.errors import (CompilationError, CompileTimeAssertionFailure,  # noqa: F401
                              UnsupportedLanguageConstruct)
from .runtime.cache import triton_key  # noqa: F401


class CompiledKernel:
    """Placeholder for upstream's `CompiledKernel` (the compiler driver provides the real one),
    so code that imports the name (torch's Inductor) loads."""


class _TargetBackend:
    """What `make_backend` gives until the compiler driver provides backends per upstream's
    `BaseBackend`: the target, a `hash()` for cache keys and `parse_options(dict)`, the parts
    torch's Inductor calls while building its cache keys."""

    def __init__(self, target):
        self.target = target

    def hash(self) -> str:
        import hashlib
        return hashlib.sha256(f"{self.target}-{triton_key()}".encode()).hexdigest()

    def parse_options(self, options: dict):
        import types
        return types.SimpleNamespace(**{"extern_libs": None, **dict(options)})


def make_backend(target):
    from .backends.compiler import GPUTarget
    if not isinstance(target, GPUTarget):
        raise TypeError(f"make_backend: expected a GPUTarget, got {target!r}")
    if target.backend not in ("cpu", "cuda"):
        raise RuntimeError(f"No backend for target {target} (tritium has cpu and cuda)")
    return _TargetBackend(target)
