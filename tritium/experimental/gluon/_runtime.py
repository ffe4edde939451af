"""`gluon.jit`: a `@jit` whose code generator emits TTGIR in the kernel's own layouts.

A `GluonJITFunction` launches, caches and specialises exactly as a `triton.jit` function;
only its source differs: `ASTSource` sees `is_gluon()` and starts the backend at its Gluon
"ttgir" stage, and `make_ttgir_module` runs the code generator with `GluonSemantic` into a
module that already carries its `ttg.*` attributes (layouts are checked against them).
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from ...frontend.jit import JITFunction
from ...language.builtins import constexpr_function

__all__ = ["GluonJITFunction", "GluonASTSource", "jit", "constexpr_function"]


class GluonJITFunction(JITFunction):
    """A Gluon kernel (or device function called from one)."""

    def is_gluon(self) -> bool:
        return True

    def make_ttgir_module(self, specialization, options=None, target: str = "cuda:90"):
        """Code generation for one specialisation; returns (TTGIR module, globals read)."""
        from ...frontend.compiler import ast_to_ttir
        from ...ir import types as T
        from ...ir.attrs import IntegerAttr, StringAttr
        from ...ir.core import make_module
        from .language._semantic import GluonSemantic
        module = make_module()
        attrs = module.attributes
        attrs["ttg.num-ctas"] = IntegerAttr(int(getattr(options, "num_ctas", 1) or 1), T.i32)
        attrs["ttg.num-warps"] = IntegerAttr(int(getattr(options, "num_warps", 4) or 4), T.i32)
        attrs["ttg.target"] = StringAttr(target)
        attrs["ttg.threads-per-warp"] = IntegerAttr(32, T.i32)
        module, used = ast_to_ttir(self, specialization, options, semantic_cls=GluonSemantic,
                                   module=module)
        self._resolve_auto_layouts(module)
        return module, used

    def _resolve_auto_layouts(self, module) -> None:
        """AutoLayouts resolved right after code generation (the backend's pass then finds
        none), so a tensor left without a layout is a CompilationError at its line."""
        import ast
        from ...compiler.errors import CompilationError
        from ...gpu.passes.resolve_auto_layouts import AutoLayoutError, resolve_auto_layouts
        try:
            resolve_auto_layouts(module)
        except AutoLayoutError as e:
            node = None
            loc = e.loc
            while loc is not None and getattr(loc, "callsite", None) is not None:
                loc = loc.callsite
            if loc is not None and loc.file == self.file_name:
                node = ast.Pass()
                node.lineno = loc.line - (self.starting_line_number - 1)
                node.col_offset = loc.col
            raise CompilationError(self.src, node, f"{type(e).__name__}: {e}") from None

    def make_ttir_module(self, specialization, options=None):
        raise TypeError(f"{self.__name__} is a Gluon kernel: it compiles from TTGIR "
                        "(make_ttgir_module), not TTIR")


def _gluon_source_class():
    from ...compiler.source import ASTSource

    class GluonASTSource(ASTSource):
        """An `ASTSource` of a Gluon kernel (what `ASTSource` of a `gluon.jit` function is
        anyway; upstream's name for it)."""

    return GluonASTSource


def __getattr__(name):
    if name == "GluonASTSource":
        cls = _gluon_source_class()
        globals()[name] = cls
        return cls
    raise AttributeError(name)


def jit(fn: Optional[Callable] = None, *, version=None, repr: Optional[Callable] = None,
        launch_metadata: Optional[Callable] = None,
        do_not_specialize: Optional[Iterable] = None,
        do_not_specialize_on_alignment: Optional[Iterable] = None,
        debug: Optional[bool] = None, noinline: Optional[bool] = None):
    """Compile `fn` as a Gluon kernel: `triton.jit`'s options, layouts explicit inside."""

    def decorator(f):
        return GluonJITFunction(f, version=version, do_not_specialize=do_not_specialize,
                                do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                                debug=debug, noinline=noinline, repr=repr,
                                launch_metadata=launch_metadata)

    return decorator(fn) if fn is not None else decorator
