"""`install()`: make `import triton` (and every `triton.X` submodule) resolve to tritium.

    import tritium.compat
    tritium.compat.install()
    import triton, triton.language as tl     # tritium underneath

Upstream's command-line modules run the same way:
    python -m tritium.compat triton.tools.compile kernel.py -n add -s "..." -g "..."

`triton` itself is a thin facade over the `tritium` package: attribute reads and writes go
through to tritium, except `__version__`, which reports the upstream Triton version whose API
tritium provides (libraries such as torch and Liger gate features on it). Every submodule
`triton.X.Y` is tritium's own module object: `ALIASES` names those that live elsewhere in
tritium, any other name maps to `tritium.X.Y` by an import hook, so new tritium modules
appear under their upstream name without being listed here.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

# The upstream release whose public API tritium follows; what `triton.__version__` says.
UPSTREAM_VERSION = "3.6.0"

# triton module name → tritium module name, where the two differ.
ALIASES = {
    "triton.runtime.jit": "tritium.frontend.jit",
    "triton.runtime.autotuner": "tritium.frontend.autotuner",
    "triton.runtime.interpreter": "tritium.frontend.interpreter",
}

# Loaded by install() right away, so `triton.language` etc. are attributes at once.
EAGER = ("triton.language", "triton.language.extra", "triton.language.extra.libdevice",
         "triton.language.extra.cuda", "triton.language.extra.cuda.libdevice",
         "triton.runtime", "triton.runtime.jit", "triton.runtime.autotuner",
         "triton.runtime.errors", "triton.compiler", "triton.compiler.errors", "triton.testing")


def target_name(alias: str) -> str:
    if alias in ALIASES:
        return ALIASES[alias]
    return "tritium" + alias[len("triton"):]


class _TritonFacade(types.ModuleType):
    """`triton`: tritium's namespace under upstream's name and version.

    A name read through the facade is kept in its own `__dict__`, so later reads are plain
    module lookups. Why: Inductor's launch path reads `triton.set_allocator` twice per kernel
    launch (`hasattr`, then the call), and a read that misses a module's `__dict__` raises
    and catches an AttributeError before `__getattr__` runs: 2.5 µs per launch against
    upstream's 0.2 (a tenth of a small model's whole step). The copies stay true because
    tritium's own module drops a name's copy whenever the name is bound or deleted there
    (`_TritiumModule`), and writes through the facade go to tritium.
    """

    def __init__(self, tritium_module):
        super().__init__("triton", tritium_module.__doc__)
        d = self.__dict__
        d["_tritium"] = tritium_module
        d["__version__"] = UPSTREAM_VERSION
        d["__path__"] = []          # a package, whose submodules only the hook finds
        d["__file__"] = tritium_module.__file__
        d["__tritium__"] = True
        # A real spec, so `importlib.util.find_spec("triton")` (how some libraries probe for
        # Triton) answers instead of raising on a module whose __spec__ is None.
        d["__spec__"] = importlib.machinery.ModuleSpec("triton", _AliasLoader(self),
                                                       is_package=True)
        d["__loader__"] = d["__spec__"].loader

    def __getattr__(self, name):
        value = getattr(self.__dict__["_tritium"], name)
        if not _is_dunder(name):  # (the facade's own dunders are set in __init__)
            self.__dict__[name] = value
        return value

    def __setattr__(self, name, value):
        if _is_dunder(name):
            self.__dict__[name] = value
        else:
            setattr(self.__dict__["_tritium"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_tritium"], name)

    def __dir__(self):
        return sorted(set(dir(self.__dict__["_tritium"])) | set(self.__dict__))


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


_facades: list = []  # the facade standing for tritium now (at most one)


class _TritiumModule(types.ModuleType):
    """The `tritium` package's class while a facade exists: binding or deleting one of its
    names (a submodule import, a monkeypatch) drops the facade's copy of that name."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        _drop_copies(name)

    def __delattr__(self, name):
        super().__delattr__(name)
        _drop_copies(name)


def _drop_copies(name: str) -> None:
    if not _is_dunder(name):
        for facade in _facades:
            facade.__dict__.pop(name, None)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # importlib stamped the alias spec onto tritium's module: give it its own back.
        if self.spec is not None:
            module.__spec__ = self.spec


class _TritonFinder(importlib.abc.MetaPathFinder):
    """Finds `triton.X.Y` as tritium's module (ahead of any installed upstream triton)."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("triton."):
            return None
        try:
            module = importlib.import_module(target_name(fullname))
        except ModuleNotFoundError as e:
            if e.name and target_name(fullname).startswith(e.name):
                return None  # no such tritium module: "No module named 'triton.X'"
            raise
        if not hasattr(module, "__path__") and any(a.startswith(fullname + ".") for a in ALIASES):
            # A plain tritium module standing for an upstream package (`triton.compiler`):
            # an empty search path lets the import system look up its aliased children.
            module.__path__ = []
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                              is_package=hasattr(module, "__path__"))


_FINDER = _TritonFinder()


def install(force: bool = False) -> None:
    """Make `triton.*` resolve to tritium. If the real triton is already imported, it is
    replaced only with `force=True` (modules that already hold it keep it)."""
    current = sys.modules.get("triton")
    if current is not None and not getattr(current, "__tritium__", False):
        if not force:
            warnings.warn("triton is already imported; call tritium.compat.install() before "
                          "`import triton` (or pass force=True)")
            return
        for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
            del sys.modules[name]
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    from . import compat_inductor
    compat_inductor.install()  # Inductor's compile workers see tritium too
    if not isinstance(sys.modules.get("triton"), _TritonFacade):
        import tritium
        if type(tritium) is types.ModuleType:
            tritium.__class__ = _TritiumModule
        _facades[:] = [_TritonFacade(tritium)]
        sys.modules["triton"] = _facades[0]
    for alias in EAGER:
        try:
            importlib.import_module(alias)
        except ImportError:
            continue  # optional parts (e.g. testing without its dependencies)
    # Modules tritium has loaded are registered under their triton names directly: importing
    # them through the hook would also set them as attributes of their parent package, and
    # `tritium.runtime.driver` (the driver object, as upstream) would become the module.
    for name, module in list(sys.modules.items()):
        if name.startswith("tritium.") and module is not None:
            sys.modules.setdefault("triton" + name[len("tritium"):], module)


def uninstall() -> None:
    from . import compat_inductor
    compat_inductor.uninstall()
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        mod = sys.modules[name]
        if isinstance(mod, _TritonFacade) or getattr(mod, "__name__", "").startswith("tritium"):
            del sys.modules[name]


def run_module(argv) -> None:
    """`python -m tritium.compat <triton module> [args]`: run an upstream module path (e.g.
    triton.tools.compile) as `python -m` would, with compat installed."""
    import runpy

    from . import compat_inductor
    if not argv:
        raise SystemExit("usage: python -m tritium.compat <module, e.g. triton.tools.compile> "
                         "[args]")
    install()
    sys.argv = list(argv)
    # The tritium module itself runs, fresh, as __main__ (an alias has no code of its own);
    # another module (Inductor's compile worker) runs as itself, seeing tritium as triton.
    target = target_name(argv[0]) if argv[0].split(".")[0] == "triton" else argv[0]
    if target == compat_inductor.WORKER_MODULE:
        compat_inductor.warm_up()  # (before Inductor's pool parent forks its workers)
    sys.modules.pop(target, None)
    runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run_module(sys.argv[1:])
