"""`triton.compiler` names: `CompilationError` and friends."""
from .frontend.errors import (CompilationError, CompileTimeAssertionFailure,  # noqa: F401
                              UnsupportedLanguageConstruct)
