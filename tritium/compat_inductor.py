"""What torch's Inductor needs from compat beyond the `triton` facade: its compile workers.

Inductor compiles Triton kernels in a pool of worker processes. The pool is a fresh Python
process (`python .../compile_worker/__main__.py ...`, forking the workers itself), which
imports `triton` on its own: without help it would find no Triton (or upstream's, where both
are installed) while the parent runs tritium. Inductor lets the pool's program be replaced
(`torch._utils_internal.find_compile_subproc_binary`, read by name in
`torch._inductor.compile_worker.subproc_pool`); when compat is installed, that module gets a
program which installs compat and then runs Inductor's worker unchanged.

The patch is applied when the pool's module is imported (an import hook; torch need not be
imported, nor importable, when compat is installed), or at once if it already was.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import os
import shlex
import sys
import tempfile

POOL_MODULE = "torch._inductor.compile_worker.subproc_pool"
WORKER_MODULE = "torch._inductor.compile_worker.__main__"


def worker_program() -> str:
    """An executable that runs Inductor's compile worker in this interpreter with compat
    installed (written once per interpreter; Inductor passes the module path, PYTHONPATH)."""
    import hashlib
    text = (f"#!/bin/sh\n"
            f"exec {shlex.quote(sys.executable)} -m tritium.compat {WORKER_MODULE} \"$@\"\n")
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"tritium-inductor-worker-{os.getuid()}-{digest}")
    if not os.access(path, os.X_OK):
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)  # atomic: concurrent processes write the same text
    return path


def warm_up() -> None:
    """Inductor's compile-pool parent forks every worker from itself: the compiler imported
    and started there once, the frontend included (each worker builds TTIR from Inductor's
    `ASTSource`), instead of in each worker at its first kernel."""
    from .compiler.warm import warm_up as warm_compiler
    from .frontend import codegen, compiler, dependencies  # noqa: F401  (TTIR, cache keys)
    from .passes import make_ttir_pipeline  # noqa: F401
    warm_compiler()


def _patch(module) -> None:
    original = module.find_compile_subproc_binary

    def find_compile_subproc_binary():
        # A program torch's own configuration names wins; else the worker with compat.
        return original() or worker_program()

    find_compile_subproc_binary.__wrapped__ = original
    module.find_compile_subproc_binary = find_compile_subproc_binary


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):  # get_source, get_code, ... as the real loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module)


class _PoolFinder(importlib.abc.MetaPathFinder):
    """Finds the pool's module as the other finders do, and patches it once loaded."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != POOL_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


_FINDER = _PoolFinder()


def install() -> None:
    module = sys.modules.get(POOL_MODULE)
    if module is not None:
        if not hasattr(module.find_compile_subproc_binary, "__wrapped__"):
            _patch(module)
    elif _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
