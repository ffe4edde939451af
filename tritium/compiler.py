"""`triton.compiler` names: `CompilationError` and friends, `triton_key`."""
from .frontend.errors import (CompilationError, CompileTimeAssertionFailure,  # noqa: F401
                              UnsupportedLanguageConstruct)
from .runtime.cache import triton_key  # noqa: F401


class CompiledKernel:
    """Placeholder for upstream's `CompiledKernel` (the compiler driver provides the real one),
    so code that imports the name (torch's Inductor) loads."""
