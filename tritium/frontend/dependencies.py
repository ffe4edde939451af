"""`cache_key` of a `@jit` or constexpr function: a hash of its source and of what it uses.

Walks the function's AST as upstream's DependenciesFinder does:
- a name or attribute that resolves to another `@jit` or constexpr function adds that
  function's key (recursively, with its `noinline` flag), so editing a callee invalidates
  its callers;
- a constexpr global adds its value;
- every global it reads (not functions, modules or builtins) is recorded with a copy of its
  value in `used_global_vals` {(name, id(scope)): (value, scope)}. Merging a callee's record
  into the caller's checks they agree: a callee keeps the values it first saw, so a kernel
  that sees another value of the same global is refused (upstream's RuntimeError);
- a plain Python callable is refused ("Unsupported function referenced"): the key could not
  see a change to it.
"""
from __future__ import annotations

import ast
import copy
import hashlib
import itertools
from types import ModuleType

# Python builtins kernels may call; a global of that name is not a dependency.
_PYTHON_BUILTINS = {"float", "getattr", "int", "isinstance", "len", "list", "max", "min",
                    "print", "range"}
# Modules whose attributes are the language itself (or stdlib): never dependencies.
_LANGUAGE_MODULES = {"tritium.language", "triton.language", "triton.experimental.gluon.language",
                     "copy", "math"}


# Modules whose plain functions are the language's own helpers (what a constexpr function
# of the language, e.g. Gluon's `NVMMASharedLayout.get_default_for`, calls).
_LANGUAGE_HELPERS = ("tritium.experimental.gluon.language.",)


def _is_jit_callable(value) -> bool:
    from ..language.builtins import ConstexprFunction
    from .jit import JITFunction
    return isinstance(value, (JITFunction, ConstexprFunction))


class _Finder(ast.NodeVisitor):
    def __init__(self, fn, visiting):
        self.fn = fn
        self.name = getattr(fn, "_fn_name", fn.__name__)
        self.globals = fn.fn.__globals__
        code = getattr(fn.fn, "__code__", None)
        cells = zip(code.co_freevars, fn.fn.__closure__ or ()) if code is not None else ()
        self.nonlocals = {}
        for name, cell in cells:
            try:
                self.nonlocals[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
        self.hasher = hashlib.sha256(fn.src.encode())
        self.visiting = visiting
        self.used_global_vals = {}
        self.local_names = set()
        self.visiting_arg_default_value = False

    # ------------------------------------------------------------ references
    def _merge_callee(self, callee) -> None:
        if id(callee) in self.visiting:  # recursion: the source hash covers it
            return
        key = dependencies_key(callee, self.visiting) if callee.hash is None else callee.hash
        for k in self.used_global_vals.keys() & callee.used_global_vals.keys():
            mine, theirs = self.used_global_vals[k][0], callee.used_global_vals[k][0]
            if _differs(mine, theirs):
                raise RuntimeError(
                    f"Global variable {k[0]} has value {mine} when compiling {self.name}, but "
                    f"inner kernel {callee.__name__} has conflicting value {theirs} from when "
                    "it was first compiled.  This is not allowed.")
        self.used_global_vals.update(callee.used_global_vals)
        self.hasher.update(f"{key}{getattr(callee, 'noinline', False)}".encode())

    def record(self, value, scope=None, name=None) -> None:
        from ..language.core import constexpr
        if value is None or isinstance(value, ModuleType):
            return
        if _is_jit_callable(value):
            self._merge_callee(value)
            return
        if getattr(value, "__triton_aggregate__", False):
            for attr in getattr(value, "hash_attrs", ()):
                self.record(attr)
            return
        if getattr(value, "__triton_builtin__", False) or \
                "libdevice" in getattr(value, "__module__", "").split(".") or \
                getattr(value, "__module__", "").startswith(_LANGUAGE_HELPERS):
            return  # the language's own functions (libdevice's are stubs)
        if callable(value) and not isinstance(value, (type, constexpr)):
            raise RuntimeError(f"Unsupported function referenced: {value}")
        if isinstance(value, constexpr):  # (upstream hashes these too, after the walk)
            self.hasher.update(f"{name}={value.value!r}".encode())
        if self.visiting_arg_default_value or scope is None:
            return  # a default is read once, at `def` time; attributes are not globals
        try:
            snapshot = copy.deepcopy(value)
        except Exception:  # (locks, handles: compared as they are)
            snapshot = value
        self.used_global_vals[(name, id(scope))] = (snapshot, scope)

    # ------------------------------------------------------------ visiting
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            return node.id
        if node.id in self.local_names:
            return None  # a local hides the global
        for scope in (self.globals, self.nonlocals):
            value = scope.get(node.id)
            if value is not None:
                break
        else:
            return None
        if node.id not in _PYTHON_BUILTINS:
            self.record(value, scope, node.id)
        return value

    def visit_Tuple(self, node):
        return [self.visit(elt) for elt in node.elts]  # `a, b = ...` targets

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        if base is None or getattr(base, "__name__", "") in _LANGUAGE_MODULES:
            return None
        value = getattr(base, node.attr, None)
        self.record(value, None, ast.unparse(node))
        return value

    def visit_FunctionDef(self, node):
        self.local_names = {a.arg for a in node.args.args}
        self.generic_visit(node)

    def visit_arguments(self, node):
        for arg in itertools.chain(node.posonlyargs, node.args, [node.vararg] if node.vararg
                                   else [], node.kwonlyargs, [node.kwarg] if node.kwarg else []):
            self.visit(arg)
        self.visiting_arg_default_value = True
        try:
            for expr in itertools.chain(node.kw_defaults, node.defaults):
                if expr is not None:
                    self.visit(expr)
        finally:
            self.visiting_arg_default_value = False

    def _assign_target(self, node):
        target = self.visit(node)
        if isinstance(target, list):
            self.local_names |= {t for t in target if isinstance(t, str)}
        elif isinstance(target, str):
            self.local_names.add(target)

    def visit_Assign(self, node):
        for target in node.targets:
            self._assign_target(target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._assign_target(node.target)
        self.generic_visit(node)

    def visit_For(self, node):
        self._assign_target(node.target)
        self.generic_visit(node)


def _differs(a, b) -> bool:
    from ..language.core import _unwrap_if_constexpr
    try:
        return bool(_unwrap_if_constexpr(a) != _unwrap_if_constexpr(b))
    except Exception:
        return a is not b


def dependencies_key(fn, visiting=None) -> str:
    """The key of `fn` (a `JITFunction` or `ConstexprFunction`); also sets its `hash` and
    `used_global_vals`. Raises RuntimeError for an unsupported reference or a conflict."""
    visiting = set() if visiting is None else visiting
    visiting.add(id(fn))
    finder = _Finder(fn, visiting)
    finder.visit(fn.parse())
    from .._version import __version__
    finder.hasher.update(f"{fn.starting_line_number}:{__version__}".encode())
    fn.used_global_vals = dict(sorted(finder.used_global_vals.items(), key=lambda kv: kv[0]))
    fn.hash = finder.hasher.hexdigest()
    return fn.hash

