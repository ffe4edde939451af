"""The compile errors the frontend raises; defined in `tritium.compiler.errors` (upstream's
`triton.compiler.errors`)."""
from ..compiler.errors import (CompilationError, CompileTimeAssertionFailure,  # noqa: F401
                               UnsupportedLanguageConstruct, format_exception_message)
