"""Run a user's script with tritium and note every specialisation it compiles.

The backends' `compile` is wrapped for the duration of the run, so whatever path a launch
takes (binder, autotuner, warmup) is seen. When the target is an NVIDIA arch and there is no
GPU, launches run on the CPU backend until the wanted kernel is first compiled; that
specialisation is recorded and the script is stopped there, so nothing of it runs.
"""
from __future__ import annotations

import contextlib
import os
import runpy
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class Compiled:
    fn: Any
    specialization: tuple
    options: Dict[str, Any]


class _Stop(BaseException):
    """Raised through the script once the one wanted specialisation is recorded."""


@dataclass
class Recording:
    compiled: List[Compiled] = field(default_factory=list)
    stopped: bool = False          # the script was stopped at the wanted kernel
    script_error: Optional[str] = None
    bench: Dict[tuple, Any] = field(default_factory=dict)   # bench.BenchResult per kernel

    def bench_of(self, c: "Compiled"):
        return self.bench.get((c.fn.__name__, str(c.specialization)))

    def names(self) -> List[str]:
        return sorted({c.fn.__name__ for c in self.compiled})


def _option_dict(options) -> Dict[str, Any]:
    from .capture import OPTION_NAMES
    return {k: getattr(options, k) for k in OPTION_NAMES if hasattr(options, k)}


def _backend_classes():
    from ...backends.cpu.backend import CPUBackend
    classes = [CPUBackend]
    try:
        from ...backends.nvidia.backend import CUDABackend
        classes.append(CUDABackend)
    except ImportError:
        pass
    return classes


@contextlib.contextmanager
def recording(kernel: Optional[str] = None, stop_at_first: bool = False):
    """Within the block, every backend compile is noted in the yielded Recording. With
    `stop_at_first`, the first compile of `kernel` (any kernel when None) stops the run."""
    rec = Recording()
    seen = set()
    saved = []
    for cls in _backend_classes():
        original = cls.__dict__["compile"]
        saved.append((cls, original))

        def wrapped(self, fn, specialization, options, _original=original):
            key = (id(fn), str(specialization), str(options))
            wanted = kernel is None or fn.__name__ == kernel
            if key not in seen and (wanted or not stop_at_first):
                seen.add(key)
                rec.compiled.append(Compiled(fn, specialization, _option_dict(options)))
                if stop_at_first and wanted:
                    rec.stopped = True
                    raise _Stop()
            return _original(self, fn, specialization, options)

        cls.compile = wrapped
    try:
        yield rec
    finally:
        for cls, original in saved:
            cls.compile = original


@contextlib.contextmanager
def _script_environment(path: str, argv: List[str], force_cpu: bool):
    old_argv, old_path = sys.argv[:], sys.path[:]
    old_env = os.environ.get("TRITON_INTERPRET")
    sys.argv = [path] + list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    if force_cpu:
        os.environ["TRITON_INTERPRET"] = "1"   # read when each @jit is decorated
    try:
        yield
    finally:
        sys.argv[:], sys.path[:] = old_argv, old_path
        if force_cpu:
            if old_env is None:
                os.environ.pop("TRITON_INTERPRET", None)
            else:
                os.environ["TRITON_INTERPRET"] = old_env


def run_script(path: str, argv=(), kernel: Optional[str] = None, force_cpu: bool = False,
               stop_at_first: bool = False) -> Recording:
    """Run `path` as `__main__` and return what it compiled. An exception in the script
    after something was compiled is kept in `script_error` (the pages are still useful);
    one before anything was compiled propagates."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"SCRIPT: no such file: {path}")
    from .bench import benchmarks
    with _script_environment(path, list(argv), force_cpu), \
            recording(kernel, stop_at_first) as rec, benchmarks() as bench:
        rec.bench = bench
        try:
            runpy.run_path(path, run_name="__main__")
        except _Stop:
            pass
        except SystemExit as e:
            if e.code not in (None, 0):
                rec.script_error = f"the script exited with status {e.code}"
        except Exception as e:
            if not rec.compiled:
                raise
            rec.script_error = f"the script raised {type(e).__name__}: {e}"
    return rec
