"""Every Python process started with this folder on PYTHONPATH imports tritium for
`import triton` (`tritium.compat.install()` at interpreter start-up). The upstream-test runner
(`run_upstream_tests.py`) puts it there so that the scripts upstream's tests start in
subprocesses (`python no_torch_dispatch_example.py`, `python -m triton.tools.compile`) see
tritium too, not an upstream Triton installed beside it (torch's dependency). A
`sitecustomize` further along the path (a distribution's own) still runs after this one."""
import importlib.machinery
import importlib.util
import os
import sys
import warnings

_HERE = os.path.dirname(os.path.abspath(__file__))


def _install() -> None:
    try:
        import tritium.compat
        tritium.compat.install()
    except Exception as e:  # never stop the interpreter from starting
        warnings.warn(f"bench/compat_site: tritium.compat.install() failed: "
                      f"{type(e).__name__}: {e}")


def _chain() -> None:
    """Run the sitecustomize this one shadows, if any."""
    rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_install()
_chain()
