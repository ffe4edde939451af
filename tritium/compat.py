"""`install()`: make `import triton` (and its usual submodules) resolve to tritium.

    import tritium.compat
    tritium.compat.install()
    import triton, triton.language as tl     # both are tritium now

Upstream's command-line modules run the same way:
    python -m tritium.compat triton.tools.compile kernel.py -n add -s "..." -g "..."
"""
from __future__ import annotations

import importlib
import sys
import warnings

# triton module name → tritium module name
ALIASES = {
    "triton": "tritium",
    "triton.language": "tritium.language",
    "triton.language.core": "tritium.language.core",
    "triton.language.math": "tritium.language.math",
    "triton.language.standard": "tritium.language.standard",
    "triton.language.random": "tritium.language.random",
    "triton.language.semantic": "tritium.language.semantic",
    "triton.language.extra": "tritium.language.extra",
    "triton.language.extra.libdevice": "tritium.language.extra.libdevice",
    "triton.language.extra.cuda": "tritium.language.extra.cuda",
    "triton.language.extra.cuda.libdevice": "tritium.language.extra.cuda.libdevice",
    "triton.testing": "tritium.testing",
    "triton.runtime": "tritium.runtime",
    "triton.runtime.jit": "tritium.frontend.jit",
    "triton.runtime.autotuner": "tritium.frontend.autotuner",
    "triton.runtime.driver": "tritium.runtime.driver",
    "triton.runtime.cache": "tritium.runtime.cache",
    "triton.runtime.errors": "tritium.runtime.errors",
    "triton.compiler": "tritium.compiler",
    "triton.compiler.compiler": "tritium.compiler.compiler",
    "triton.compiler.errors": "tritium.compiler.errors",
    "triton.backends": "tritium.backends",
    "triton.backends.compiler": "tritium.backends.compiler",
    "triton.backends.driver": "tritium.backends.driver",
    "triton.backends.nvidia": "tritium.backends.nvidia",
    "triton.backends.nvidia.compiler": "tritium.backends.nvidia.compiler",
    "triton.backends.nvidia.driver": "tritium.backends.nvidia.driver",
    "triton.tools": "tritium.tools",
    "triton.tools.compile": "tritium.tools.compile",
    "triton.tools.link": "tritium.tools.link",
    "triton.tools.disasm": "tritium.tools.disasm",
    "triton.tools.tensor_descriptor": "tritium.tools.tensor_descriptor",
    "triton.runtime._allocation": "tritium.runtime.allocation",
}


def install(force: bool = False) -> None:
    """Alias the triton module names to tritium's. If the real triton is already imported,
    it is replaced only with `force=True` (modules that already hold it keep it)."""
    if "triton" in sys.modules and not getattr(sys.modules["triton"], "__tritium__", False):
        if not force:
            warnings.warn("triton is already imported; call tritium.compat.install() before "
                          "`import triton` (or pass force=True)")
            return
    for alias, target in ALIASES.items():
        try:
            module = importlib.import_module(target)
        except ImportError:
            continue  # optional parts (e.g. testing without its dependencies)
        sys.modules[alias] = module
    sys.modules["triton"].__tritium__ = True


def uninstall() -> None:
    for alias in ALIASES:
        mod = sys.modules.get(alias)
        if mod is not None and mod.__name__.startswith("tritium"):
            del sys.modules[alias]


def run_module(argv) -> None:
    """`python -m tritium.compat <triton module> [args]`: run an upstream module path
    (e.g. triton.tools.compile) as `python -m` would, with the aliases installed."""
    import runpy
    if not argv:
        raise SystemExit("usage: python -m tritium.compat <module, e.g. triton.tools.compile> [args]")
    install()
    name = argv[0]
    sys.modules.pop(name, None)  # run fresh as __main__, not the alias already imported
    sys.argv = list(argv)
    runpy.run_module(name, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run_module(sys.argv[1:])
