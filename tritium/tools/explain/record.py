"""Run a user's script with tritium and note every specialisation it compiles.

The compiler driver's listener (`knobs.compilation.listener`) is set for the duration of
the run, so whatever path a launch takes (binder, autotuner, warmup) is seen. When the target is an NVIDIA arch and there is no
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
    """The options the page shows, from a backend's options object or a kernel's metadata."""
    from .capture import OPTION_NAMES
    if isinstance(options, dict):
        return {k: options[k] for k in OPTION_NAMES if k in options}
    return {k: getattr(options, k) for k in OPTION_NAMES if hasattr(options, k)}


@contextlib.contextmanager
def recording(kernel: Optional[str] = None, stop_at_first: bool = False):
    """Within the block, every compile of a `@jit` function is noted in the yielded
    Recording (through the compiler driver's `knobs.compilation.listener`, which runs
    after each compile). With `stop_at_first`, the first compile of `kernel` (any kernel
    when None) stops the run before that kernel is launched."""
    from ...runtime import knobs
    rec = Recording()
    seen = set()
    previous = knobs.compilation.listener

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        if previous is not None:
            previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                     cache_hit=cache_hit)
        fn = getattr(src, "fn", None)
        if fn is None:  # an IR file compiled by the script: no Python source to show
            return
        spec, options = src.specialization(), _option_dict(metadata)
        key = (id(fn), str(spec), str(options))
        wanted = kernel is None or fn.__name__ == kernel
        if key not in seen and (wanted or not stop_at_first):
            seen.add(key)
            rec.compiled.append(Compiled(fn, spec, options))
            if stop_at_first and wanted:
                rec.stopped = True
                raise _Stop()

    knobs.compilation.listener = listener
    try:
        yield rec
    finally:
        knobs.compilation.listener = previous


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
