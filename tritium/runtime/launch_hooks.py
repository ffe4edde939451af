"""Hooks around compiling and launching, as upstream's knobs define them:
`knobs.runtime.launch_enter_hook` / `launch_exit_hook` get a `LazyDict` of the launch's
metadata before and after each launch, and `knobs.compilation.listener` hears of every
compilation with its timings. Launches check `active()` once and stay on the fast path when
no hook is set."""
from __future__ import annotations

import collections
import time
import types

import tritium.knobs as knobs  # the module: its groups may be replaced at run time


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


_calls = knobs._hook_set
active = knobs.launch_hooks_set


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


JitFunctionInfo = collections.namedtuple("JitFunctionInfo", ["module", "name", "jit_function"])


def _call_jit_hook(hook, jit_fn, specialization, options, key, warmup):
    """Upstream's protocol for `knobs.runtime.jit_cache_hook` / `jit_post_compile_hook`."""
    signature = dict(zip(jit_fn.arg_names, (ty for ty, _ in specialization)))
    constants = {n: v for n, (ty, v) in zip(jit_fn.arg_names, specialization) if ty == "constexpr"}
    opts = {k: getattr(options, k, None) for k in ("num_warps", "num_ctas", "num_stages",
                                                    "enable_fp_fusion", "launch_cooperative_grid",
                                                    "extern_libs")}
    shown = ", ".join(f"{n}: {ty}" for n, ty in signature.items())
    repr_ = (f"{jit_fn.__qualname__}[" + ", ".join(f"{k}={v}" for k, v in opts.items()
                                                    if k != "extern_libs") + f"]({shown})")
    compile_info = {"key": key, "signature": signature, "device": 0, "constants": constants,
                    **opts, "configs": [], "specialization_data": key, "is_warmup": warmup}
    return hook(key=key, repr=repr_, fn=JitFunctionInfo(jit_fn.module, jit_fn.__name__, jit_fn),
                compile=compile_info, is_manual_warmup=warmup, already_compiled=False)


def compile_with_hooks(backend, jit_fn, specialization, options, key="", warmup=False):
    """`backend.compile`, with upstream's hooks around it: `knobs.runtime.jit_cache_hook`
    first (returning True skips the compile: the launch does nothing and returns None),
    `jit_post_compile_hook` after, and `knobs.compilation.listener` told what was built."""
    rt = knobs.runtime
    if rt.jit_cache_hook is not None and \
            _call_jit_hook(rt.jit_cache_hook, jit_fn, specialization, options, key, warmup):
        return None
    listener = knobs.compilation.listener
    start = time.perf_counter()
    kernel = backend.compile(jit_fn, specialization, options)
    micros = int((time.perf_counter() - start) * 1e6)
    if rt.jit_post_compile_hook is not None:
        _call_jit_hook(rt.jit_post_compile_hook, jit_fn, specialization, options, key, warmup)
    if listener is not None:
        meta = dict(getattr(kernel, "metadata", None) or {})
        src = types.SimpleNamespace(fn=jit_fn, name=jit_fn.__name__,
                                    signature=dict(zip(jit_fn.arg_names, specialization)),
                                    options=options)
        times = knobs.CompileTimes(ir_initialization=0,
                                   lowering_stages=[(backend.name, micros)], store_results=0)
        listener(src=src, metadata=meta, metadata_group={}, times=times, cache_hit=False)
    return kernel
