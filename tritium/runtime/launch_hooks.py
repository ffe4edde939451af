"""Hooks around compiling and launching, as upstream's knobs define them:
`knobs.runtime.launch_enter_hook` / `launch_exit_hook` get a `LazyDict` of the launch's
metadata before and after each launch (`CompiledKernel` passes them to the launcher), and
`knobs.runtime.jit_cache_hook` / `jit_post_compile_hook` run around the JIT's compiles
(`knobs.compilation.listener` is the compiler driver's to call). Launches test
`knobs.hooks_maybe_set` and stay on the fast path when no hook is set."""
from __future__ import annotations

import collections

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


JitFunctionInfo = collections.namedtuple("JitFunctionInfo", ["module", "name", "jit_function"])


def jit_hooks_set() -> bool:
    rt = knobs.runtime
    return rt.jit_cache_hook is not None or rt.jit_post_compile_hook is not None


def _call_jit_hook(hook, jit_fn, specialization, options, key, warmup, device=0,
                   specialization_data=None):
    """Upstream's protocol for `knobs.runtime.jit_cache_hook` / `jit_post_compile_hook`."""
    signature = dict(zip(jit_fn.arg_names, (ty for ty, _ in specialization)))
    constants = {n: v for n, (ty, v) in zip(jit_fn.arg_names, specialization) if ty == "constexpr"}
    opts = {k: getattr(options, k, None) for k in ("num_warps", "num_ctas", "num_stages",
                                                    "enable_fp_fusion", "launch_cooperative_grid",
                                                    "extern_libs")}
    shown = ", ".join(f"{n}: {ty}" for n, ty in signature.items())
    repr_ = (f"{jit_fn.__qualname__}[" + ", ".join(f"{k}={v}" for k, v in opts.items()
                                                    if k != "extern_libs") + f"]({shown})")
    compile_info = {"key": key, "signature": signature, "device": device,
                    "constants": constants, **opts, "configs": [],
                    "specialization_data": specialization_data, "is_warmup": warmup}
    info = JitFunctionInfo(jit_fn.module, jit_fn.__qualname__, jit_fn)  # upstream: qualname
    return hook(key=key, repr=repr_, fn=info,
                compile=compile_info, is_manual_warmup=warmup, already_compiled=False)


def compile_with_hooks(compile_fn, jit_fn, specialization, options, key="", warmup=False,
                       device=0, specialization_data=None):
    """`compile_fn()` with the JIT's hooks around it: `knobs.runtime.jit_cache_hook` first
    (returning True skips the compile: the launch does nothing and returns None), and
    `jit_post_compile_hook` after. `device` ("cpu" or a GPU index) keys
    `device_caches`; `specialization_data` is the JSON `JITFunction.preload` takes."""
    rt = knobs.runtime
    extra = dict(device=device, specialization_data=specialization_data)
    if rt.jit_cache_hook is not None and \
            _call_jit_hook(rt.jit_cache_hook, jit_fn, specialization, options, key, warmup,
                           **extra):
        return None
    kernel = compile_fn()
    if rt.jit_post_compile_hook is not None:
        _call_jit_hook(rt.jit_post_compile_hook, jit_fn, specialization, options, key, warmup,
                       **extra)
    return kernel

