"""Python's name scoping, as slice_kernel and the translator follow it: nested scopes of
names (`Scopes`, with `LOCAL` for names a function binds), what an import binds, and what a
name or `module.attr` expression read in a module refers to (`get_reference`)."""
from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any


class Scopes:
    """Name → value lookups through nested scopes: the module's globals at the bottom (never
    written), one dict per function, lambda, comprehension or class body above it."""

    def __init__(self, globals_: dict[str, Any] | None = None) -> None:
        self.stack: list[dict[str, Any]] = [globals_ if globals_ is not None else {}, {}]

    def __contains__(self, name: object) -> bool:
        return any(name in d for d in self.stack)

    def __getitem__(self, name: str) -> Any:
        for d in reversed(self.stack):
            if name in d:
                return d[name]
        raise KeyError(name)

    def __setitem__(self, name: str, value: Any) -> None:
        self.stack[-1][name] = value

    @contextlib.contextmanager
    def scope(self, names: dict[str, Any] | None = None) -> Iterator[None]:
        self.stack.append(dict(names or {}))
        try:
            yield
        finally:
            self.stack.pop()


class _Local:
    """What a local name is bound to: not a reference to anything global."""

    def __repr__(self) -> str:
        return "<local>"


LOCAL = _Local()


def assign_target(stmt: ast.AST) -> str | None:
    """The one plain name a top-level `x = ...` / `x: T = ...` assigns, else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign):
        target = stmt.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _import_module(stmt: ast.ImportFrom, cur_module: ModuleType) -> ModuleType:
    if stmt.level:
        package = cur_module.__package__
        if not package:
            raise ValueError(f"slice_kernel: relative import in {cur_module.__name__}, which is not in a package")
        name = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package)
    else:
        name = stmt.module
    return sys.modules.get(name) or importlib.import_module(name)


def bind_import(scopes: Scopes, cur_module: ModuleType, stmt: ast.Import | ast.ImportFrom) -> bool:
    """Bind what an import statement binds, in the innermost scope. False for `import *`."""
    bindings: dict[str, Any] = {}
    if isinstance(stmt, ast.ImportFrom):
        module = _import_module(stmt, cur_module)
        for alias in stmt.names:
            if alias.name == "*":
                return False
            try:
                value = getattr(module, alias.name)
            except AttributeError:
                value = importlib.import_module(f"{module.__name__}.{alias.name}")
            bindings[alias.asname or alias.name] = value
    else:
        for alias in stmt.names:
            module = importlib.import_module(alias.name)
            if alias.asname is None:       # `import a.b` binds `a`
                top = alias.name.split(".")[0]
                bindings[top] = sys.modules[top]
            else:
                bindings[alias.asname] = module
    for name, value in bindings.items():
        scopes[name] = value
    return True


def find_module(scopes: Scopes, node: ast.AST) -> ModuleType | None:
    """The module an expression like `a` or `a.b.c` names, if it names one."""
    if isinstance(node, ast.Name):
        value = scopes[node.id] if node.id in scopes else None
    elif isinstance(node, ast.Attribute):
        base = find_module(scopes, node.value)
        value = getattr(base, node.attr, None) if base is not None else None
    else:
        return None
    return value if isinstance(value, ModuleType) else None


def get_reference(context: Scopes, cur_module: ModuleType, node: ast.AST) -> tuple[Any, ModuleType, str] | None:
    """What a name or `module.attr` expression read in `cur_module` refers to:
    (value, the module it was looked up in, the name), or None for locals and anything else."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        if node.id not in context or context[node.id] is LOCAL:
            return None
        return context[node.id], cur_module, node.id
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        module = find_module(context, node.value)
        if module is None or not hasattr(module, node.attr):
            return None
        return getattr(module, node.attr), module, node.attr
    return None


_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
                ast.DictComp, ast.GeneratorExp)


def local_names(body: list[ast.AST]) -> dict[str, Any]:
    """Names a function body binds (so they are local throughout it), without looking into
    nested scopes; imports are bound to their values when visited, and `global`/`nonlocal`
    names are not local."""
    names: set[str] = set()
    declared: set[str] = set()
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo.extend(node.decorator_list)   # evaluated here, unlike the nested body
            continue
        if isinstance(node, _SCOPE_NODES):
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        todo.extend(ast.iter_child_nodes(node))
    return dict.fromkeys(names - declared, LOCAL)


def _arg_names(args: ast.arguments) -> list[str]:
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return [a.arg for a in every if a is not None]
