"""Triton -> Gluon source translation.

    convert_triton_to_gluon([kernel])            # @jit function objects -> source text
    translate_paths(["pkg.mod:kernel"])          # the same, from module.path:name
    slice_kernel([...], leaf_modules, translate_to_gluon=True)    # with the host code

The output is one standalone Python file, as `slice_kernel` writes (it is slice_kernel's
slicer with other rewriters): the kernels and every definition they use, where

* each Triton `@jit` function becomes a `@gluon.jit` one (`triton.language` library
  functions such as `tl.softmax` included: their bodies are translated too);
* `tl.X` becomes `gl.X` where Gluon has X with Triton's meaning, else a helper of
  `gluon_helpers.py` that supplies the layout Gluon wants (`tl.arange` -> `tl_arange`),
  see gluon_names.py; a Triton construct with no Gluon form here raises TranslationError
  naming it and its file and line;
* results whose layout Gluon derives from their input (reshape, permute, split, join,
  reductions, `.T`) are put back into the default layout, and operands of expand_dims
  (`x[:, None]` included) and split are first put into the layout those ops need;
* `desc.load/store/gather/scatter` go through helpers that handle Gluon TMA descriptors;
* in host code, every Triton descriptor made (`TensorDescriptor(...)`, `.from_tensor`,
  `create_ragged_descriptor`) is wrapped in `convert_host_descriptor`, unless it is already
  the argument of a call of that name;
* the helpers used are copied in at the end, with what they use.
"""
from __future__ import annotations

import argparse
import ast
import functools
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from .gluon_names import (OBJECT_METHODS, RESET_AFTER, TENSOR_METHODS, classify, is_constexpr_function,
                          is_triton_jit)
from .ordered_set import ordered_set
from .scopes import LOCAL, Scopes, find_module, get_reference
from .slice_kernel import (GlobalValue, Reference, RewriteSpec, _public_module_name, _Rewriter, _Slicer, get_base_value,
                           innermost_function, write_output)
from .stable_toposort import stable_toposort


class TranslationError(ValueError):
    """A kernel uses a construct the translator cannot put into Gluon (the message says
    which, and where)."""


_AMD_TARGETS = ("amd", "hip", "gfx", "cdna", "rdna")


def check_target(target: Any) -> str:
    """The target the output is for: "nvidia" (sm_80+, TMA from sm_90; the default) or
    "cpu" (tritium's CPU backend), which share one set of helpers. AMD targets raise."""
    name = str(getattr(target, "value", target) or "nvidia").lower()
    if name.startswith(_AMD_TARGETS):
        raise NotImplementedError(f"Triton-to-Gluon translation for AMD target {name!r}: tritium provides "
                                  f"the NVIDIA (Hopper) and CPU helpers only")
    if name not in ("nvidia", "cuda", "hopper", "sm90", "sm90a", "ampere", "blackwell", "cpu"):
        raise ValueError(f"unknown translation target {name!r} (expected 'nvidia' or 'cpu')")
    return "cpu" if name == "cpu" else "nvidia"


def _parse_expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _call(func: ast.expr, args: list[ast.expr], keywords: list[ast.keyword] | None = None) -> ast.Call:
    return ast.Call(func=func, args=args, keywords=keywords or [])


def _name(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


class _Translating:
    """What both translating rewriters share: where a definition came from (for messages)
    and the helpers it asked for."""
    slicer: GluonSlicer
    origin: tuple[str, int]

    def where(self, node: ast.AST) -> str:
        path, first = self.origin
        return f"{path}:{first + getattr(node, 'lineno', 1) - 1}"

    def fail(self, node: ast.AST, what: str) -> None:
        snippet = ast.unparse(node)
        raise TranslationError(f"{self.where(node)}: cannot translate `{snippet}` to Gluon: {what}")

    def helper(self, name: str) -> ast.Name:
        self.slicer.helpers_used.add(name)
        return _name(name)


class _GluonRewriter(_Translating, _Rewriter):
    """Rewrites one `@jit` function (or a module-level value it reads) into Gluon."""

    def __init__(self, module, scopes, spec, slicer: GluonSlicer, origin: tuple[str, int]) -> None:
        super().__init__(module, scopes, spec, slicer)
        self.origin = origin

    def reference(self, node, value, rel_module, name):
        t = classify(value)
        if t is None or t.kind == "copy":
            return super().reference(node, value, rel_module, name)
        if t.kind == "unsupported":
            self.fail(node, f"tl.{t.name}: {t.target}")
        if t.kind == "method":
            self.fail(node, f"tl.{t.name} is translated only where it is called")
        if t.kind == "helper":
            return ast.copy_location(self.helper(t.target), node)
        prefix = {"gl": "gl.", "gluon": "gluon.", "python": ""}[t.kind]
        return ast.copy_location(_parse_expr(prefix + t.target), node)

    def _is_module(self, node: ast.AST) -> bool:
        return find_module(self.scopes, node) is not None

    def _tl_name(self, func: ast.expr) -> str | None:
        ref = get_reference(self.scopes, self.module, func)
        if ref is None:
            return None
        t = classify(ref[0])
        return t.name if t is not None else None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        name = self._tl_name(func)
        receiver = None
        if name is None and isinstance(func, ast.Attribute) and not self._is_module(func.value) \
                and get_reference(self.scopes, self.module, func) is None:
            if func.attr in OBJECT_METHODS:
                # `desc.load(offsets)`: a Gluon TMA descriptor has no such method.
                call = _call(self.helper(f"tl_obj_{func.attr}"), [self.visit(func.value)] + self._visit_each(node.args),
                             self._visit_each(node.keywords))
                return ast.copy_location(call, node)
            if func.attr in TENSOR_METHODS:
                name, receiver = func.attr, func.value
        if name is None:
            return self.generic_visit(node)
        return ast.copy_location(self._translate_call(node, name, receiver), node)

    def _translate_call(self, node: ast.Call, name: str, receiver: ast.expr | None) -> ast.expr:
        operands = ([self.visit(receiver)] if receiver is not None else []) + self._visit_each(node.args)
        keywords = self._visit_each(node.keywords)
        if name == "cuda.num_threads":
            # In place, not a helper call: the count must stay a constexpr (arange's bound).
            return ast.BinOp(_call(_parse_expr("gl.num_warps"), []), ast.Mult(),
                             _call(self.helper("get_num_threads_per_warp"), []))
        if name == "range":
            # Gluon loops are plain `range`; the software-pipelining hints have no meaning there.
            step = [k.value for k in keywords if k.arg == "step"]
            return _call(_name("range"), operands + step)
        if name in ("reshape", "ravel"):
            keywords = [k for k in keywords if k.arg != "can_reorder"]   # layouts make that choice in Gluon
        if name == "split" and operands:
            operands[0] = _call(self.helper("set_split_src_layout"), [operands[0]])
        if name == "expand_dims" and operands:
            axis = operands[1] if len(operands) > 1 else next((k.value for k in keywords if k.arg == "axis"), None)
            if axis is None:
                self.fail(node, "tl.expand_dims without an axis")
            axes = ast.List(list(axis.elts), ast.Load()) if isinstance(axis, (ast.Tuple, ast.List)) else \
                ast.List([axis], ast.Load())
            operands[0] = _call(self.helper("convert_to_expand_dims_layout"), [operands[0], axes])
        if receiver is not None or name in ("trans", "broadcast_to"):
            # As a tensor method: Gluon tensors have these with Triton's arguments.
            if not operands:
                self.fail(node, f"tl.{name} without a tensor")
            call = _call(ast.Attribute(operands[0], name, ast.Load()), operands[1:], keywords)
        else:
            call = _call(self.visit(node.func), operands, keywords)
        if name in RESET_AFTER:
            return _call(self.helper("reset_to_default_layout"), [call])
        return call

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        # `x[:, None]` is Gluon's expand_dims too: its operand needs the slice layout.
        index = node.slice
        elts = index.elts if isinstance(index, ast.Tuple) else [index]
        new_axes = []
        for i, e in enumerate(elts):
            if isinstance(e, ast.Constant) and e.value is None:
                new_axes.append(i)
            elif not (isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None):
                return super().visit_Subscript(node)
        if not new_axes or not isinstance(node.ctx, ast.Load):
            return super().visit_Subscript(node)
        value = _call(self.helper("convert_to_expand_dims_layout"),
                      [self.visit(node.value), ast.List([ast.Constant(a) for a in new_axes], ast.Load())])
        return ast.copy_location(ast.Subscript(value, index, ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        is_transpose = node.attr == "T" and isinstance(node.ctx, ast.Load) and \
            get_reference(self.scopes, self.module, node) is None
        new = super().visit_Attribute(node)
        if is_transpose:
            return ast.copy_location(_call(self.helper("reset_to_default_layout"), [new]), node)
        return new


def _descriptor_makers() -> tuple[Any, ...]:
    from ..ragged_tma import create_ragged_descriptor
    from ..tensor_descriptor import TensorDescriptor
    return (TensorDescriptor, TensorDescriptor.from_tensor, create_ragged_descriptor)


class _HostRewriter(_Translating, _Rewriter):
    """Host code: Triton descriptors it makes are converted for the Gluon kernels."""

    def __init__(self, module, scopes, spec, slicer: GluonSlicer, origin: tuple[str, int]) -> None:
        super().__init__(module, scopes, spec, slicer)
        self.origin = origin
        self.in_conversion = [False]    # per enclosing call: is it `convert_host_descriptor(...)`?

    def static_value(self, node: ast.AST) -> Any:
        """What a name or attribute chain evaluates to from the globals, or None."""
        if isinstance(node, ast.Name):
            if node.id not in self.scopes or self.scopes[node.id] is LOCAL:
                return None
            return self.scopes[node.id]
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            try:
                return getattr(base, node.attr, None) if base is not None else None
            except Exception:    # a property that needs a device, say: not a descriptor maker
                return None
        return None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        callee = self.static_value(node.func)
        self.in_conversion.append(isinstance(node.func, ast.Name) and node.func.id == "convert_host_descriptor")
        new = self.generic_visit(node)
        self.in_conversion.pop()
        makes_descriptor = callee is not None and any(callee is m for m in _descriptor_makers())
        if makes_descriptor and not self.in_conversion[-1]:
            return ast.copy_location(_call(self.helper("convert_host_descriptor"), [new]), node)
        return new


class _HelperLibrary:
    """The definitions of gluon_helpers.py and translator_helpers.py, read as source (never
    imported: that would need a working Gluon), to be copied into outputs as written."""

    def __init__(self) -> None:
        here = Path(__file__).parent
        self.defs: dict[str, tuple[str, set[str], bool]] = {}    # name -> (text, uses, is device code)
        self.imports: list[str] = []
        for file in ("gluon_helpers.py", "translator_helpers.py"):
            text = (here / file).read_text()
            lines = text.splitlines()
            tree = ast.parse(text)
            for stmt in tree.body:
                if isinstance(stmt, ast.FunctionDef) and not stmt.name.startswith("__"):
                    first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
                    source = "\n".join(lines[first - 1:stmt.end_lineno])
                    uses = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
                    self.defs[stmt.name] = (source, uses, bool(stmt.decorator_list))
                elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and file == "gluon_helpers.py":
                    self.imports.append(ast.unparse(stmt))
        for name, (_, uses, _) in self.defs.items():
            uses.intersection_update(self.defs)
            uses.discard(name)

    def names(self) -> set[str]:
        """Every name an output's helpers may bind."""
        bound = {alias.asname or alias.name.split(".")[0]
                 for line in self.imports for alias in ast.parse(line).body[0].names}
        return set(self.defs) | bound

    def closure(self, wanted: ordered_set[str]) -> list[str]:
        """`wanted` and what they use, in the helper files' order."""
        seen: set[str] = set()
        todo = list(wanted)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.defs[name][1])
        return [name for name in self.defs if name in seen]

    def emit(self, names: list[str], imports: ordered_set[str]) -> str:
        if any(self.defs[n][2] for n in names):     # Gluon code: it needs the Gluon imports
            for line in self.imports:
                imports.add(_public_imports(line))
        return "".join(_public_imports(self.defs[n][0]) + "\n\n\n" for n in names)


_TRITIUM_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)(tritium(?:\.\w+)*)", re.MULTILINE)


def _public_imports(text: str) -> str:
    """`text` with its imports naming modules as the output's reader does (`triton.*` under
    tritium.compat)."""
    return _TRITIUM_IMPORT.sub(lambda m: m.group(1) + _public_module_name(m.group(2)), text)


@functools.lru_cache(maxsize=1)
def _helper_library() -> _HelperLibrary:
    return _HelperLibrary()


def _jit_inside(value: Any) -> Any:
    """The `@jit` function under `@autotune`/`@heuristics` wrappers, else `value`."""
    from ...frontend.autotuner import Autotuner, Heuristics
    while isinstance(value, (Autotuner, Heuristics)):
        value = value.fn
    return value


def _origin(gv: GlobalValue) -> tuple[str, int]:
    """The file and first line of the source `gv.parse()` reads, for messages."""
    if gv.is_variable:
        return inspect.getsourcefile(gv.module) or gv.module.__name__, 1
    fn = inspect.unwrap(gv.value)
    try:
        return inspect.getsourcefile(fn) or "<unknown>", inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return "<unknown>", 1


class GluonSlicer(_Slicer):
    """slice_kernel's slicer, translating: Triton `@jit` functions (wherever defined) are
    copied and translated, the `tl` names Gluon or a helper covers are not copied."""

    def __init__(self, leaf_modules, include_below, leaf_ids, spec: RewriteSpec, target: Any = None) -> None:
        super().__init__(leaf_modules, include_below, leaf_ids, spec)
        self.target = check_target(target)
        self.helpers_used: ordered_set[str] = ordered_set()
        self.imports.add(f"import {_public_module_name('tritium.experimental.gluon')} as gluon")
        self.imports.add(f"import {_public_module_name('tritium.experimental.gluon.language')} as gl")

    def _wrap(self, value, name, rel_module) -> GlobalValue:
        t = classify(value)
        if t is not None and t.kind != "copy":
            # Rewritten where it is used: never copied, so never looked up in its module.
            return GlobalValue(value, value, name, rel_module, is_variable=True)
        return super()._wrap(value, name, rel_module)

    def is_leaf(self, x: ModuleType | GlobalValue) -> bool:
        if isinstance(x, GlobalValue) and x.id not in self.leaf_ids:
            t = classify(x.original)
            if t is not None:
                return t.kind != "copy"
            if is_triton_jit(_jit_inside(x.original)):
                return False
        return super().is_leaf(x)

    def reserved_names(self) -> set[str]:
        return _helper_library().names() | {"gluon", "gl"}

    def rewriter(self, gv: GlobalValue) -> _Rewriter:
        jit = _jit_inside(gv.original)
        device = gv.is_variable or is_triton_jit(jit) or is_constexpr_function(jit)
        cls = _GluonRewriter if device else _HostRewriter
        return cls(gv.module, Scopes(gv.globals()), self.spec, self, _origin(gv))

    def epilogue(self) -> str:
        library = _helper_library()
        return library.emit(library.closure(self.helpers_used), self.imports)


def translate_kernels(kernels: list[GlobalValue], target: Any = None,
                      leaf_modules: list[str] | None = None) -> str:
    """The Gluon translation of `kernels` and what they use, as one source file."""
    slicer = GluonSlicer(leaf_modules if leaf_modules is not None else ["triton", "torch"], [], set(),
                         RewriteSpec(), target=target)
    for gv in kernels:
        if gv.id not in slicer.references:
            slicer.references[gv.id] = Reference(gv)
            slicer.queue.append(gv)
    graph = slicer.scan()
    slicer.name_all()
    return slicer.emit(stable_toposort(graph))


def translate_paths(kernel_paths: list[str], target: Any = None) -> str:
    """`convert_triton_to_gluon` for kernels named `module.path:name`."""
    return translate_kernels([get_base_value(path, "kernel_paths") for path in kernel_paths], target=target)


def convert_triton_to_gluon(src: list[Any], target: Any = None) -> str:
    """The Gluon translation of the `@jit` functions `src` (and all they use) as source text."""
    kernels = []
    for kernel in src:
        fn = innermost_function(kernel)
        module = inspect.getmodule(fn)
        if module is None:
            raise ValueError(f"convert_triton_to_gluon: cannot find the module defining {kernel!r}")
        kernels.append(GlobalValue.wrap(kernel, getattr(fn, "__name__", ""), lambda module=module: module))
    return translate_kernels(kernels, target=target)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Translate Triton kernels to Gluon source.")
    parser.add_argument("kernels", nargs="+", help="kernels as module.path:name")
    parser.add_argument("--output-path", default="-", help="file to write ('-': standard output)")
    parser.add_argument("--target", default="nvidia", help="nvidia (default) or cpu")
    args = parser.parse_args(argv)
    write_output(translate_paths(args.kernels, target=args.target), args.output_path)


if __name__ == "__main__":
    main()
