"""Errors raised while compiling a kernel, formatted like upstream's:

    at 3:12:
    def kernel(x_ptr):
        y = tl.arange(0, 3)
                ^
    ValueError: arange's range must be a power of 2
"""
from __future__ import annotations

import ast
from typing import Optional

from ..errors import PTXASError, TritonError


class CompilationError(TritonError):
    """An error in a kernel's source: points at the line and column with a caret."""

    source_line_count_max_in_message = 12

    def __init__(self, src: Optional[str], node: Optional[ast.AST], error_message: Optional[str] = None):
        self.src = src
        self.node = node
        self.error_message = error_message
        self.message = self._format_message()
        super().__init__(self.message)

    def _format_message(self) -> str:
        node = self.node
        lineno = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", 0)
        if self.src is None:
            excerpt = " <source unavailable>"
        elif lineno is not None:
            lines = self.src.split("\n")[:lineno][-self.source_line_count_max_in_message:]
            excerpt = "\n".join(lines + [" " * col + "^"]) if lines else " <source empty>"
        else:
            excerpt = self.src
        where = f"at {lineno}:{col}:" if lineno is not None else "at unknown location:"
        message = f"{where}\n{excerpt}"
        if self.error_message:
            message += "\n" + self.error_message
        return message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        # Keep the error picklable across process pools: the AST node is replaced by
        # its position only.
        return (_rebuild, (type(self), self.src, getattr(self.node, "lineno", None),
                           getattr(self.node, "col_offset", 0), self.error_message))


def _rebuild(cls, src, lineno, col, message):
    node = None
    if lineno is not None:
        node = ast.Pass()
        node.lineno, node.col_offset = lineno, col
    return cls(src, node, message)


class CompileTimeAssertionFailure(CompilationError):
    """`tl.static_assert` failed."""


class UnsupportedLanguageConstruct(CompilationError):
    """Python syntax that kernels cannot use (break, lambda, nested def, ...)."""


def format_exception_message(e: BaseException) -> str:
    text = str(e)
    name = type(e).__name__
    return f"{name}: {text}" if text else name


class StageError(RuntimeError):
    """A compiler stage failed; the input of the failing stage is kept for a repro."""

    def __init__(self, stage: str, kernel: str, cause: BaseException, repro_path: Optional[str]):
        self.stage, self.kernel, self.repro_path = stage, kernel, repro_path
        where = f"; its input is kept at {repro_path}" if repro_path else ""
        super().__init__(f"stage '{stage}' failed for kernel {kernel}: "
                         f"{type(cause).__name__}: {cause}{where}")


class IRSourceError(ValueError):
    """An IR file given to `compile` cannot be read: names the file, line and column."""

    def __init__(self, path: str, message: str, line: int = 0, col: int = 0):
        self.path, self.line, self.col = path, line, col
        where = f"{path}:{line}:{col}" if line else path
        super().__init__(f"{where}: {message}")


class PTXSourceError(IRSourceError, PTXASError):
    """ptxas rejected a PTX file given to `compile`: names the file and ptxas's line (the
    file goes to ptxas as it is, so its lines are the file's); still a `PTXASError`, which
    autotuners and callers catch."""

    def __init__(self, path: str, message: str, line: int = 0, col: int = 0,
                 ptxas_output: str = ""):
        IRSourceError.__init__(self, path, message, line, col)
        self.error_message = str(self.args[0]) + (f"\n{ptxas_output}" if ptxas_output else "")
        self.ptxas_output = ptxas_output

    def __str__(self) -> str:
        return self.error_message

    def __reduce__(self):
        return (type(self), (self.path, str(self.args[0]).split(": ", 1)[-1], self.line,
                             self.col, self.ptxas_output))
