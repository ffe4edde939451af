"""`slice_kernel`: one kernel and every definition it depends on, as one standalone file.

    slice_kernel(["pkg.mod:kernel"], leaf_modules=["triton", "torch"]) -> source text

Starting from the roots (`module.path:name`), each definition's source is parsed and every
global name it reads is resolved through the definition's own module globals: functions and
classes are taken whole, other globals as `name = <the expression assigned in its module>`.
Names from *leaf* modules (the standard library, `leaf_modules` and their submodules unless
under `include_below`, and the objects named by `leaf_paths`) are not copied but imported
(`tl.x`, `triton.x`, `import math` + `math.prod`). Definitions come out dependencies first
(`stable_toposort`, so mutually recursive ones keep their source order); a name used by two
modules for different objects is prefixed with its module's name parts (`lib_foo_some_util`).

Python's scoping is followed: parameters, names assigned anywhere in a function (`x = ...`,
`x: T = ...`, loop targets, `with ... as x`), comprehension and lambda variables are locals,
never globals of the same name; an import inside a function binds what it imports and is
dropped from the output (what it imported is copied or imported at the top instead).

`ignored_decorator_matchers` (or a `RewriteSpec`) name decorators to drop: a matching
decorator and every one above it (applied after it) are left out, and not scanned.
`translate_to_gluon=True` slices through `translator.GluonSlicer`: `@jit` functions come out
translated to Gluon, host code's descriptors wrapped for Gluon (see translator.py).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import re
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

from .ordered_set import ordered_set
# (get_reference, bind_import: upstream's names, imported from here.)
from .scopes import (LOCAL, Scopes, _arg_names, _import_module, assign_target, bind_import,  # noqa: F401
                     get_reference, local_names)
from .stable_toposort import stable_toposort


DecoratorMatcher = Callable[[Scopes, ModuleType, ast.expr], bool]
AnnotationRewriter = Callable[[Scopes, ModuleType, ast.Subscript], "ast.expr | None"]


@dataclass
class RewriteSpec:
    """Source rewrites a caller injects: decorators to drop; subscripts (annotations such as
    `Foo[T]`) to replace by another expression (None: keep)."""
    ignored_decorator_matchers: Sequence[DecoratorMatcher] = ()
    annotation_rewriters: Sequence[AnnotationRewriter] = ()


def _jit_function_types() -> tuple[type, ...]:
    """Wrappers copied as the function they wrap (its `def` keeps the decorators): `@jit`,
    `@constexpr_function`, and `@autotune`/`@heuristics` around a `@jit`."""
    from ...frontend.autotuner import Autotuner, Heuristics
    from ...frontend.jit import JITFunction
    from ...language.builtins import ConstexprFunction
    return (JITFunction, ConstexprFunction, Autotuner, Heuristics)


def innermost_function(value: Any) -> Any:
    """The function under a stack of `_jit_function_types` wrappers (`value` if none)."""
    while isinstance(value, _jit_function_types()) and getattr(value, "fn", None) is not None:
        value = value.fn
    return value


@dataclass
class GlobalValue:
    """A global the slice refers to. `value` is what gets copied (a function, class, or for a
    variable its name and module); `original` is the object the program sees (a `@jit`
    function for its Python function), whose identity keys the reference."""
    value: Any
    original: Any
    name: str
    module: ModuleType
    is_variable: bool = False

    @property
    def id(self) -> int:
        return id(self.original)

    @staticmethod
    def wrap(value: Any, name: str, find_module: Callable[[], ModuleType]) -> GlobalValue:
        original = value
        if isinstance(innermost_function(value), FunctionType):
            value = innermost_function(value)
        # A closure's source cannot stand alone: copy the module-level assignment that made it.
        closure = isinstance(value, FunctionType) and value.__closure__ is not None
        if isinstance(value, (FunctionType, BuiltinFunctionType, type)) and not closure:
            module = inspect.getmodule(value)
            if module is None:
                raise ValueError(f"slice_kernel: cannot find the module defining {value!r}")
            return GlobalValue(value, original, value.__name__, module)
        return GlobalValue(value, original, name, find_module(), is_variable=True)

    def globals(self) -> dict[str, Any]:
        if self.is_variable or isinstance(self.value, type):
            return self.module.__dict__
        fn = inspect.unwrap(self.value)    # a wrapper's globals are not the function's own
        return fn.__globals__

    def parse(self) -> ast.AST:
        """The definition's AST: a module holding the def/class, or the assigned expression."""
        if not self.is_variable:
            return ast.parse(inspect.getsource(self.value))
        for stmt in ast.parse(inspect.getsource(self.module)).body:
            target = assign_target(stmt)
            if target == self.name and stmt.value is not None:
                return stmt.value
        raise ValueError(f"slice_kernel: no assignment to {self.name!r} at the top level of "
                         f"{self.module.__name__}")

    def emit(self, tree: ast.AST, new_name: str) -> str:
        """The rewritten definition's source under the name the slice gives it."""
        if self.is_variable:
            return ast.unparse(ast.Assign(targets=[ast.Name(new_name, ast.Store())], value=tree, lineno=0))
        for stmt in tree.body:                     # the def/class statement itself
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stmt.name = new_name
                break
        return ast.unparse(tree)


def kept_decorators(scopes: Scopes, module: ModuleType, decorators: list[ast.expr],
                    spec: RewriteSpec) -> list[ast.expr]:
    """Decorators apply bottom to top: one the spec ignores goes, with all those above it."""
    kept: list[ast.expr] = []
    for deco in decorators:
        if any(match(scopes, module, deco) for match in spec.ignored_decorator_matchers):
            kept = []
        else:
            kept.append(deco)
    return kept


class _ScopedVisitor(ast.NodeTransformer):
    """Walks a definition keeping `scopes` true to Python's scoping, and hands every global
    read (a name, or an attribute of a module) to `reference`, whose result replaces it."""

    def __init__(self, module: ModuleType, scopes: Scopes, spec: RewriteSpec) -> None:
        self.module, self.scopes, self.spec = module, scopes, spec

    def reference(self, node: ast.expr, value: Any, rel_module: ModuleType, name: str) -> ast.AST:
        raise NotImplementedError

    def _visit_expr(self, node: ast.expr) -> ast.AST:
        ref = get_reference(self.scopes, self.module, node)
        if ref is None or isinstance(ref[0], ModuleType):
            return self.generic_visit(node)
        return self.reference(node, *ref)

    visit_Name = visit_Attribute = _visit_expr

    def visit_Import(self, node: ast.Import) -> ast.AST | None:
        return None if bind_import(self.scopes, self.module, node) else node

    visit_ImportFrom = visit_Import

    def _visit_each(self, nodes: list) -> list:
        out = [self.visit(n) for n in nodes]
        return [n for n in out if n is not None]

    def _visit_signature(self, args: ast.arguments) -> None:
        # Defaults and annotations are evaluated in the enclosing scope.
        args.defaults = self._visit_each(args.defaults)
        args.kw_defaults = [None if d is None else self.visit(d) for d in args.kw_defaults]
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None and a.annotation is not None:
                a.annotation = self.visit(a.annotation)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.decorator_list = self._visit_each(
            kept_decorators(self.scopes, self.module, node.decorator_list, self.spec))
        self._visit_signature(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        with self.scopes.scope({**local_names(node.body), **dict.fromkeys(_arg_names(node.args), LOCAL)}):
            node.body = self._visit_each(node.body) or [ast.Pass()]   # its imports may all be gone
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self._visit_signature(node.args)
        with self.scopes.scope(dict.fromkeys(_arg_names(node.args), LOCAL)):
            node.body = self.visit(node.body)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = self._visit_each(
            kept_decorators(self.scopes, self.module, node.decorator_list, self.spec))
        node.bases = self._visit_each(node.bases)
        node.keywords = self._visit_each(node.keywords)
        # Methods do not see the class body's names; its other statements do.
        names = local_names(node.body)
        body = []
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                body.append(self.visit(stmt))
            else:
                with self.scopes.scope(names):
                    body.append(self.visit(stmt))
        node.body = [s for s in body if s is not None] or [ast.Pass()]
        return node

    def _visit_comprehension(self, node: ast.AST) -> ast.AST:
        # The first iterable is evaluated outside; targets are the comprehension's locals.
        gens = node.generators
        gens[0].iter = self.visit(gens[0].iter)
        targets = {n.id: LOCAL for g in gens for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        with self.scopes.scope(targets):
            for i, g in enumerate(gens):
                if i:
                    g.iter = self.visit(g.iter)
                g.ifs = self._visit_each(g.ifs)
            for name in ("elt", "key", "value"):
                if hasattr(node, name):
                    setattr(node, name, self.visit(getattr(node, name)))
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension


def module_of_name(name: str, module: ModuleType, is_leaf: Callable[[Any], bool]) -> ModuleType:
    """Where a global variable `name` seen in `module` is defined: following `from m import
    name` chains until an assignment, or a leaf module (which is imported, not read)."""
    seen = set()
    while not is_leaf(module) and module.__name__ not in seen:
        seen.add(module.__name__)
        for stmt in ast.parse(inspect.getsource(module)).body:
            if isinstance(stmt, ast.ImportFrom) and any((a.asname or a.name) == name for a in stmt.names):
                alias = next(a for a in stmt.names if (a.asname or a.name) == name)
                module, name = _import_module(stmt, module), alias.name
                break
            if assign_target(stmt) == name:
                return module
        else:
            raise ValueError(f"slice_kernel: cannot find where {name!r} used in {module.__name__} is defined")
    return module


@dataclass
class Reference:
    value: GlobalValue
    new_name: str | None = None


class _Scanner(_ScopedVisitor):
    """Collects the globals one definition reads; new ones join the work queue."""

    def __init__(self, module, scopes, spec, slicer: _Slicer) -> None:
        super().__init__(module, scopes, spec)
        self.slicer = slicer
        self.edges: ordered_set[int] = ordered_set()

    def reference(self, node, value, rel_module, name):
        self.edges.add(self.slicer.add(value, name, rel_module).id)
        return self.generic_visit(node)


class _Rewriter(_ScopedVisitor):
    """Renames references to copied definitions and spells leaf ones as imports."""

    def __init__(self, module, scopes, spec, slicer: _Slicer) -> None:
        super().__init__(module, scopes, spec)
        self.slicer = slicer

    def reference(self, node, value, rel_module, name):
        gv = self.slicer.lookup(value, name, rel_module)
        if gv is None:
            return self.generic_visit(node)
        if not self.slicer.is_leaf(gv):
            return ast.copy_location(ast.Name(self.slicer.references[gv.id].new_name, node.ctx), node)
        return ast.copy_location(self.slicer.leaf_expr(gv, rel_module), node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        for rewrite in self.spec.annotation_rewriters:
            replacement = rewrite(self.scopes, self.module, node)
            if replacement is not None:
                return ast.copy_location(self.visit(replacement), node)
        return self.generic_visit(node)


def is_stdlib_module(module: ModuleType) -> bool:
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if spec is None or origin in (None, "built-in", "frozen"):
        return True   # native and namespace-less modules: nothing to copy from them
    return Path(origin).is_relative_to(sysconfig.get_paths()["stdlib"])


def _public_module_name(name: str) -> str:
    """tritium's module under the `triton.*` name a sliced file should import, when
    tritium.compat is installed (the file is then for upstream-style code). An upstream
    Triton imported beside tritium is not tritium: the file then keeps `tritium.*`."""
    from ... import compat
    if not name.startswith("tritium") or not getattr(sys.modules.get("triton"), "__tritium__", False):
        return name
    for alias, target in compat.ALIASES.items():
        if name == target:
            return alias
    return "triton" + name[len("tritium"):]


_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")

# Leaf objects spelled through the short names Triton code uses.
_SUGAR = (("triton.language", "tl"), ("triton", "triton"), ("tritium.language", "tl"), ("tritium", "tritium"))


class _Slicer:

    def __init__(self, leaf_modules, include_below, leaf_ids, spec: RewriteSpec) -> None:
        self.leaf_modules = _with_tritium(leaf_modules)
        self.include_below = _with_tritium(include_below)
        self.leaf_ids = leaf_ids
        self.spec = spec
        self.references: dict[int, Reference] = {}
        self.queue: list[GlobalValue] = []
        self.imports: ordered_set[str] = ordered_set()

    def is_leaf(self, x: ModuleType | GlobalValue) -> bool:
        if isinstance(x, GlobalValue):
            return x.id in self.leaf_ids or self.is_leaf(x.module)
        if is_stdlib_module(x):
            return True
        return _under(x.__name__, self.leaf_modules) and not _under(x.__name__, self.include_below)

    def _wrap(self, value, name, rel_module) -> GlobalValue:
        return GlobalValue.wrap(value, name, lambda: module_of_name(name, rel_module, self.is_leaf))

    def add(self, value, name, rel_module) -> GlobalValue:
        ref = self.references.get(id(value))
        if ref is not None:
            return ref.value
        gv = self._wrap(value, name, rel_module)
        self.references[gv.id] = Reference(gv)
        self.queue.append(gv)
        return gv

    def lookup(self, value, name, rel_module) -> GlobalValue | None:
        ref = self.references.get(id(value))
        return ref.value if ref is not None else None

    def scan(self) -> dict[int, ordered_set[int]]:
        graph: dict[int, ordered_set[int]] = {}
        while self.queue:
            gv = self.queue.pop(0)
            if self.is_leaf(gv):
                graph[gv.id] = ordered_set()
                continue
            scanner = _Scanner(gv.module, Scopes(gv.globals()), self.spec, self)
            scanner.visit(gv.parse())
            graph[gv.id] = scanner.edges
        return graph

    def name_all(self) -> None:
        taken: set[str] = set(self.reserved_names())
        for ref in self.references.values():
            gv = ref.value
            if self.is_leaf(gv):
                ref.new_name = f"{gv.module.__name__}.{gv.name}"
            else:
                ref.new_name = _unique_name(gv.name, gv.module, taken)
            taken.add(ref.new_name)

    def leaf_expr(self, gv: GlobalValue, rel_module: ModuleType) -> ast.expr:
        for module_name, alias in _SUGAR:
            module = sys.modules.get(module_name)
            if module is not None and getattr(module, gv.name, None) is gv.original:
                self.imports.add(f"import {module_name}" if alias == module_name
                                 else f"import {module_name} as {alias}")
                return ast.Attribute(ast.Name(alias, ast.Load()), gv.name, ast.Load())
        tools_td = sys.modules.get("tritium.tools.tensor_descriptor")
        if tools_td is not None and gv.original is tools_td.TensorDescriptor:
            self.imports.add(f"from {_public_module_name(tools_td.__name__)} import TensorDescriptor")
            return ast.Name("TensorDescriptor", ast.Load())
        module = gv.module
        if module.__name__ == "builtins" and rel_module.__name__ != "builtins":
            module = rel_module     # `math.prod`-like aliases of builtins: keep the spelling seen
        public = _public_module_name(module.__name__)
        self.imports.add(f"import {public}")
        expr: ast.expr = ast.Name(public.split(".")[0], ast.Load())
        for part in public.split(".")[1:]:
            expr = ast.Attribute(expr, part, ast.Load())
        return ast.Attribute(expr, gv.name, ast.Load())

    def emit(self, order: list[int]) -> str:
        chunks = []
        for ref_id in reversed(order):          # dependencies first
            ref = self.references[ref_id]
            gv = ref.value
            if self.is_leaf(gv):
                continue
            tree = self.rewriter(gv).visit(gv.parse())
            chunks.append(gv.emit(tree, ref.new_name) + "\n\n\n")
        tail = self.epilogue()     # before the imports are joined: it may add some
        return "\n".join(self.imports) + "\n\n" + "".join(chunks) + tail

    # Hooks for the Gluon translator's slicer.
    def reserved_names(self) -> set[str]:
        """Names the output defines besides the copied definitions."""
        return set()

    def rewriter(self, gv: GlobalValue) -> _Rewriter:
        return _Rewriter(gv.module, Scopes(gv.globals()), self.spec, self)

    def epilogue(self) -> str:
        """Text appended after the copied definitions."""
        return ""


def _with_tritium(modules: Sequence[str] | None) -> list[str]:
    """Under compat, `triton`'s modules are tritium's: a leaf `triton...` covers those too."""
    out = list(modules or [])
    out += ["tritium" + m[len("triton"):] for m in out if m == "triton" or m.startswith("triton.")]
    return out


def _under(name: str, roots: Sequence[str]) -> bool:
    return any(name == root or name.startswith(root + ".") for root in roots)


def _unique_name(name: str, module: ModuleType, taken: set[str]) -> str:
    candidate = name
    for part in [""] + list(reversed(module.__name__.split("."))):
        if part:
            candidate = f"{part}_{candidate}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"slice_kernel: no unique name for {name!r} from {module.__name__}")


def get_base_value(path: str, parameter: str = "root_paths") -> GlobalValue:
    """The object `module.path:name` names."""
    if not isinstance(path, str) or not _PATH.match(path):
        raise ValueError(f"slice_kernel: {parameter} entry {path!r} is not of the form 'module.path:name'")
    module_name, name = path.split(":")
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        raise ValueError(f"slice_kernel: {parameter} entry {path!r}: module {module_name} has no {name!r}")
    return GlobalValue.wrap(getattr(module, name), name, lambda: module)


def slice_kernel(
    root_paths: list[str],
    leaf_modules: list[str],
    include_below: list[str] | None = None,
    leaf_paths: list[str] | None = None,
    translate_to_gluon: bool = False,
    rewrite_spec: RewriteSpec | None = None,
    target: Any = None,
    *,
    ignored_decorator_matchers: Sequence[DecoratorMatcher] = (),
    annotation_rewriters: Sequence[AnnotationRewriter] = (),
) -> str:
    """The source of the `root_paths` objects (`module.path:name`) and all they depend on,
    leaf modules' names imported instead of copied. See the module docstring."""
    if isinstance(root_paths, str) or isinstance(leaf_modules, str):
        raise TypeError("slice_kernel: root_paths and leaf_modules are lists of strings, not a string")
    spec = rewrite_spec or RewriteSpec()
    spec = RewriteSpec(tuple(spec.ignored_decorator_matchers) + tuple(ignored_decorator_matchers),
                       tuple(spec.annotation_rewriters) + tuple(annotation_rewriters))
    roots = [get_base_value(p) for p in root_paths]
    leaf_ids = {get_base_value(p, "leaf_paths").id for p in leaf_paths or []}
    if translate_to_gluon:
        from .translator import GluonSlicer     # (it imports this module)
        slicer: _Slicer = GluonSlicer(leaf_modules, include_below, leaf_ids, spec, target=target)
    else:
        slicer = _Slicer(leaf_modules, include_below, leaf_ids, spec)
    for gv in roots:
        if gv.id not in slicer.references:
            slicer.references[gv.id] = Reference(gv)
            slicer.queue.append(gv)
    graph = slicer.scan()
    slicer.name_all()
    # Stable, so definitions of one module that refer to each other in a cycle keep the
    # order their source had (the one known to work).
    return slicer.emit(stable_toposort(graph))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a kernel and everything it uses as one Python file.")
    parser.add_argument("root_paths", nargs="+", help="objects to keep, as module.path:name")
    parser.add_argument("--leaf-module", dest="leaf_modules", action="append", default=[],
                        help="a module (with its submodules) imported, not copied; repeatable")
    parser.add_argument("--include-below", action="append", default=[],
                        help="a submodule of a leaf module to copy from after all; repeatable")
    parser.add_argument("--leaf-path", dest="leaf_paths", action="append", default=[],
                        help="one object (module.path:name) imported, not copied; repeatable")
    parser.add_argument("--translate-to-gluon", action="store_true", help="translate @jit functions to Gluon")
    parser.add_argument("--output-path", default="-", help="file to write ('-': standard output)")
    args = parser.parse_args(argv)
    write_output(slice_kernel(args.root_paths, args.leaf_modules, args.include_below, args.leaf_paths,
                              translate_to_gluon=args.translate_to_gluon), args.output_path)


def write_output(text: str, path: str) -> None:
    """A command's file: `path`, or standard output for '-'."""
    if path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text)


if __name__ == "__main__":
    main()
