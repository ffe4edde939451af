"""`JITFunction.cache_key`: a hash of the kernel's source and of what it depends on.

Walks the AST for names that resolve to other `@jit` functions (their keys, recursively,
and their `noinline` flag) and to constexpr globals (their values) and constexpr functions (their source), like upstream's
DependenciesFinder, so editing a callee or a constexpr global invalidates the kernel.
"""
from __future__ import annotations

import ast
import hashlib


class _Finder(ast.NodeVisitor):
    def __init__(self, fn, visiting):
        self.fn = fn
        self.scope = fn.get_global_scope()
        self.hasher = hashlib.sha256(fn.src.encode())
        self.hasher.update(str(fn.starting_line_number).encode())
        self.visiting = visiting

    def _resolve(self, node):
        if isinstance(node, ast.Name):
            return self.scope.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None

    def _record(self, name, value):
        from ..language.builtins import ConstexprFunction
        from ..language.core import constexpr
        from .jit import JITFunction
        if isinstance(value, JITFunction):
            if value in self.visiting:  # recursion: the source hash covers it
                return
            self.hasher.update(f"{name}:{dependencies_key(value, self.visiting)}"
                               f":{value.noinline}".encode())
        elif isinstance(value, constexpr):
            self.hasher.update(f"{name}={value.value!r}".encode())
        elif isinstance(value, ConstexprFunction):
            self.hasher.update(f"{name}:{value.cache_key}".encode())

    def visit_Name(self, node):
        if node.id in self.scope:
            self._record(node.id, self.scope[node.id])

    def visit_Attribute(self, node):
        self._record(ast.unparse(node), self._resolve(node))
        self.generic_visit(node)


def dependencies_key(fn, visiting=None) -> str:
    visiting = set() if visiting is None else visiting
    visiting.add(fn)
    finder = _Finder(fn, visiting)
    finder.visit(fn.parse())
    from .._version import __version__
    finder.hasher.update(__version__.encode())
    return finder.hasher.hexdigest()
