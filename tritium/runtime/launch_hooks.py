"""Hooks around compiling and launching, as upstream's knobs define them:
`knobs.runtime.launch_enter_hook` / `launch_exit_hook` get a `LazyDict` of the launch's
metadata before and after each launch, and `knobs.compilation.listener` hears of every
compilation with its timings. Launches check `active()` once and stay on the fast path when
no hook is set."""
from __future__ import annotations

import time
import types

from .. import knobs


class LazyDict:
    """Launch metadata whose costly parts (the kernel's own `launch_metadata` function) are
    computed only if a hook calls `get()`."""

    def __init__(self, data):
        self.data = data
        self.extras = []

    def get(self):
        while self.extras:
            func, args = self.extras.pop(0)
            self.data.update(func(*args))
        return self.data

    def add(self, func, args):
        self.extras.append((func, args))


def _calls(hook) -> bool:
    if hook is None:
        return False
    calls = getattr(hook, "calls", None)
    return bool(calls) if calls is not None else callable(hook)


def active() -> bool:
    rt = knobs.runtime
    return _calls(rt.launch_enter_hook) or _calls(rt.launch_exit_hook)


def launch_metadata(jit_fn, kernel, grid, bound_args) -> LazyDict:
    md = getattr(kernel, "metadata", None) or {}
    data = LazyDict({"name": getattr(kernel, "name", jit_fn.__name__),
                     "function": getattr(kernel, "function", None), "stream": 0,
                     "grid": tuple(grid), "num_warps": md.get("num_warps")})
    user = getattr(jit_fn, "launch_metadata", None)
    if user is not None:
        data.add(user, (tuple(grid), md, dict(zip(jit_fn.arg_names, bound_args))))
    return data


def run_with_hooks(jit_fn, kernel, grid, bound_args, specialization) -> None:
    rt = knobs.runtime
    md = launch_metadata(jit_fn, kernel, grid, bound_args)
    if _calls(rt.launch_enter_hook):
        rt.launch_enter_hook(md)
    kernel.run(grid, bound_args, specialization)
    if _calls(rt.launch_exit_hook):
        rt.launch_exit_hook(md)


def compile_with_listener(backend, jit_fn, specialization, options):
    """`backend.compile`, telling `knobs.compilation.listener` (if set) what was built."""
    listener = knobs.compilation.listener
    if listener is None:
        return backend.compile(jit_fn, specialization, options)
    start = time.perf_counter()
    kernel = backend.compile(jit_fn, specialization, options)
    micros = int((time.perf_counter() - start) * 1e6)
    meta = dict(getattr(kernel, "metadata", None) or {})
    src = types.SimpleNamespace(fn=jit_fn, name=jit_fn.__name__,
                                signature=dict(zip(jit_fn.arg_names, specialization)),
                                options=options)
    times = knobs.CompileTimes(ir_initialization=0, lowering_stages=[(backend.name, micros)],
                               store_results=0)
    listener(src=src, metadata=meta, metadata_group={}, times=times, cache_hit=False)
    return kernel
