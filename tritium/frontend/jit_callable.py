"""`JITCallable`: upstream's base class of `@jit` functions — what a Python function whose
source tritium compiles has, independent of launching it: the source text and where it came
from, its parsed tree, the globals it sees, and `cache_key` (a hash of the source and of
everything it uses).

`JITFunction` (jit.py) adds parameters, specialisation and launching. Argument
specialisation treats any `JITCallable` passed to a kernel as a compile-time constant keyed
by its `cache_key`, as upstream does (`native_specialize_impl`).
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Callable, Dict, Optional


class JITCallable:
    """A Python function compiled from its source (upstream's `triton.runtime.jit.JITCallable`)."""

    def __init__(self, fn: Callable):
        self.fn = fn
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__
        self._fn_name = f"{fn.__module__}.{self.__qualname__}"
        self.signature = inspect.signature(fn)  # upstream's attribute
        try:
            src = textwrap.dedent(inspect.getsource(fn))
            self.file_name = inspect.getsourcefile(fn) or "<unknown>"
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise ValueError(f"@jit needs the source of {fn.__name__}: {e}") from None
        # The source starts at the `def` line: decorators are not part of the kernel.
        src = src[src.find("def"):] if not src.lstrip().startswith("def") else src.lstrip()
        self.src = src
        self.starting_line_number = start + next(
            (i for i, line in enumerate(lines) if line.lstrip().startswith("def")), 0)
        self.hash: Optional[str] = None
        self.used_global_vals: Dict[tuple, Any] = {}

    def parse(self) -> ast.Module:
        # Parsed once per source text: every compile of the kernel and of each kernel that
        # calls it asks again (Inductor's flex attention: 14 parses a compile). Nothing
        # writes into the tree (loop_jumps rewrites a copy), so one tree serves all.
        src = self.src
        cached = getattr(self, "_parsed", None)
        if cached is not None and cached[0] is src:
            return cached[1]
        tree = ast.parse(src)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
            raise ValueError("a @jit function's source must be a single function definition")
        self._parsed = (src, tree)
        return tree

    def __getstate__(self):
        # The parsed tree is a cache of `src`, and most of what a copy would carry: Inductor
        # deep-copies every kernel's autotuner (its JITFunction included) for its graph
        # cache, ~900 objects of tree for a layer norm, ~2 ms of each first call.
        state = dict(self.__dict__)
        state.pop("_parsed", None)
        return state

    def get_global_scope(self) -> Dict[str, Any]:
        scope = dict(self.fn.__globals__)
        closure = self.fn.__closure__
        if closure:
            for name, cell in zip(self.fn.__code__.co_freevars, closure):
                try:
                    scope[name] = cell.cell_contents
                except ValueError:
                    pass
        return scope

    @property
    def cache_key(self) -> str:
        """Hash of the source and of everything it depends on (callees, constexpr globals)."""
        if self.hash is None:
            from .dependencies import dependencies_key
            self.hash = dependencies_key(self)
        return self.hash

    def __hash__(self):
        # As upstream: a kernel taking this function as a constexpr argument keys its fast
        # cache by it, so a changed source (`_unsafe_update_src`) misses.
        return hash(self.cache_key)

    def _unsafe_update_src(self, new_src: str) -> None:
        """Upstream's one way to change a kernel's source (tools, tests): later compiles and
        `cache_key` use it. As upstream, callers' `hash` is the caller's to reset, and
        kernels already compiled stay in the in-memory cache."""
        self.src = new_src
        self.hash = None
