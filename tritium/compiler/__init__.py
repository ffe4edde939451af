"""`triton.compiler`: the compiler driver and its names.

`compile(src, target, options)` → `CompiledKernel`; `ASTSource` / `IRSource` say what is
compiled; `CompilationError` and friends are what a bad kernel raises. The data flows one
way: frontend (`@jit`) → this driver → a backend's stages → the runtime's driver (load,
launch). This package imports the backends and the runtime, never the frontend: an
`ASTSource` reaches the code generator through its `@jit` function.
"""
from ..backends.compiler import GPUTarget  # noqa: F401
from .compiler import LazyDict, compile, make_backend, triton_key  # noqa: F401
from .errors import (CompilationError, CompileTimeAssertionFailure, IRSourceError,  # noqa: F401
                     StageError, UnsupportedLanguageConstruct)
from .kernel import AsmDict, CompiledKernel, KernelMetadata  # noqa: F401
from .source import ASTSource, IRSource  # noqa: F401

__all__ = ["compile", "make_backend", "ASTSource", "IRSource", "CompiledKernel",
           "KernelMetadata", "LazyDict", "GPUTarget", "CompilationError",
           "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct", "StageError",
           "IRSourceError"]
