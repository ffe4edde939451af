"""`@autotune`, `Config` and `@heuristics` with upstream's signatures and behaviour.

What tritium adds on top of upstream's behaviour: results persist on disk by default
(TRITON_CACHE_AUTOTUNING=0 or `cache_results=False` turns that off; see
`autotune_cache.py`), a config that fails to compile is skipped like one that runs out of
resources, a clear `AutotunerError` when every config fails, and a progress line on
stderr while many configs are benchmarked (on a terminal, or with
TRITIUM_AUTOTUNE_PROGRESS=1).
"""
from __future__ import annotations

import builtins
import inspect
import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..errors import AutotunerError, OutOfResources, PTXASError
from ..runtime import autotune_cache, knobs
from ..runtime.interface import KernelInterface


class Config:
    """One candidate: meta-parameters plus launch options."""

    def __init__(self, kwargs: Dict[str, Any], num_warps: int = 4, num_stages: int = 3,
                 num_ctas: int = 1, maxnreg: Optional[int] = None, pre_hook=None,
                 ir_override=None):
        if not isinstance(kwargs, dict):
            raise TypeError(f"Config(kwargs=...) must be a dict of meta-parameters, "
                            f"got {type(kwargs).__name__}")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def __setstate__(self, state):
        # Pickles from older versions may lack the later fields.
        self.kwargs = state.get("kwargs", {})
        self.num_warps = state.get("num_warps", 4)
        self.num_stages = state.get("num_stages", 3)
        self.num_ctas = state.get("num_ctas", 1)
        self.maxnreg = state.get("maxnreg", None)
        self.pre_hook = state.get("pre_hook", None)
        self.ir_override = state.get("ir_override", None)

    def all_kwargs(self) -> Dict[str, Any]:
        extra = {k: v for k, v in (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                                   ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
                                   ("ir_override", self.ir_override))
                 if v is not None}
        return {**self.kwargs, **extra}

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}",
                  f"ir_override: {self.ir_override}"]
        return ", ".join(parts)

    __repr__ = __str__

    def _identity(self):
        return (*self.all_kwargs().items(), self.pre_hook)

    def __hash__(self):
        return hash(self._identity())

    def __eq__(self, other):
        return isinstance(other, Config) and self._identity() == other._identity()


def _config_failures() -> tuple:
    """Errors that make one config unusable (it is skipped) rather than the kernel."""
    from ..compiler.errors import StageError
    from .errors import CompilationError
    return (OutOfResources, PTXASError, CompilationError, StageError)


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names: List[str], configs: List[Config], key: List[str],
                 reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
                 prune_configs_by: Optional[Dict] = None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=None):
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn) and hasattr(self.base_fn, "fn"):
            self.base_fn = self.base_fn.fn
        self.__name__ = getattr(self.base_fn, "__name__", "autotuned")
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({}, num_warps=4, num_stages=3)]
        for i, c in enumerate(self.configs):
            if not isinstance(c, Config):
                raise TypeError(f"autotune(configs=...): configs[{i}] must be a triton.Config, "
                                f"got {type(c).__name__}")
        if isinstance(key, str) or not all(isinstance(k, str) for k in key):
            raise TypeError(f"autotune(key=...) must be a list of argument names, got {key!r}")
        self.keys = list(key)
        unknown = [k for k in self.keys if k not in self.arg_names]
        if unknown:
            warnings.warn(f"autotune key {unknown} of {self.__name__} names no argument "
                          f"(arguments: {', '.join(self.arg_names)}); it is ignored", stacklevel=3)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for param, names in (("reset_to_zero", self.reset_to_zero),
                             ("restore_value", self.restore_value)):
            bad = [n for n in names if n not in self.arg_names]
            if bad:
                raise ValueError(f"autotune({param}=...): {bad} not an argument of "
                                 f"{self.__name__} (arguments: {', '.join(self.arg_names)})")
        self.cache: Dict[Tuple, Config] = {}
        self.cache_results = knobs.autotuning_cache() if cache_results is None \
            else bool(cache_results)
        self._set_hooks(pre_hook, post_hook)
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self._do_bench = do_bench
        self.num_warmups = warmup
        self.num_reps = rep
        self.use_cuda_graph = use_cuda_graph
        if warmup is not None or rep is not None or use_cuda_graph:
            warnings.warn("warmup, rep, and use_cuda_graph parameters are deprecated. See "
                          "https://github.com/triton-lang/triton/pull/4496 for details.",
                          DeprecationWarning, stacklevel=3)
        self.configs_timings: Optional[Dict[Config, Any]] = None
        self.best_config: Optional[Config] = None
        self.bench_time: Optional[float] = None
        self.nargs: Optional[Dict[str, Any]] = None
        self._backend = None
        self._failures: Dict[Config, BaseException] = {}

    # ------------------------------------------------------------------ hooks
    def _set_hooks(self, pre_hook, post_hook):
        """Upstream's hook protocol: `pre_hook(kwargs, reset_only=False)` and
        `post_hook(kwargs, exception)`; a user hook replaces the built-in one that applies
        `reset_to_zero`/`restore_value`."""
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.restore_copies: Dict[str, Any] = {}
        if pre_hook is not None and (self.reset_to_zero or self.restore_value):
            warnings.warn("autotune: a user pre_hook replaces the reset_to_zero/restore_value "
                          "handling (as in Triton); do that work in the hook", stacklevel=4)
        if pre_hook is not None:
            self.pre_hook = pre_hook
            self._pre_hook_takes_reset_only = _accepts(pre_hook, "reset_only")
        else:
            self.pre_hook = self._default_pre_hook
            self._pre_hook_takes_reset_only = True
        self.post_hook = post_hook if post_hook is not None else self._default_post_hook

    def _default_pre_hook(self, kwargs, reset_only=False):
        for name in self.reset_to_zero:
            if kwargs.get(name) is not None:
                _zero(kwargs[name])
        if not reset_only:
            self.restore_copies = {name: _clone(kwargs[name]) for name in self.restore_value
                                   if kwargs.get(name) is not None}

    def _default_post_hook(self, kwargs, exception):
        for name, value in self.restore_copies.items():
            _copy_into(kwargs[name], value)
        self.restore_copies = {}

    def _reset_before_run(self, full_nargs):
        # A user hook written as `hook(kwargs)` (no reset_only) is still called: it is
        # how such hooks reset their outputs before the real launch.
        if self._pre_hook_takes_reset_only:
            self.pre_hook(full_nargs, reset_only=True)
        else:
            self.pre_hook(full_nargs)

    # ------------------------------------------------------------------ benchmarking
    @property
    def do_bench(self):
        return self._do_bench if self._do_bench is not None else self._default_bench

    @do_bench.setter
    def do_bench(self, fn):  # upstream's is a cached_property, which callers may replace
        self._do_bench = fn

    def _default_bench(self, kernel_call, quantiles):
        from .. import testing
        on_gpu = self._backend is not None and self._backend.target.backend == "cuda"
        rep = self.num_reps if self.num_reps is not None else 100
        if self.use_cuda_graph and on_gpu:
            return testing.do_bench_cudagraph(kernel_call, rep=rep, quantiles=quantiles)
        warmup = self.num_warmups if self.num_warmups is not None else 25
        # CPU-backend kernels are timed by the wall clock even on a host with a GPU.
        return testing.do_bench(kernel_call, warmup=warmup, rep=rep, quantiles=quantiles,
                                device=None if on_gpu else "cpu")

    def _bench(self, *args, config: Config, **meta):
        verbose = knobs.autotuning_print()
        if verbose:
            print(f"Autotuning kernel {self.base_fn.__name__} with config {config}")
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. "
                             "Make sure that you don't re-define auto-tuned symbols.")
        current = {**meta, **config.all_kwargs()}
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except _config_failures() as e:
            if verbose:
                print(f"Autotuning failed with {e}")
            self._failures[config] = e
            return [float("inf")] * 3

    def _benchmark(self, key, args, kwargs, configs: List[Config]) -> None:
        self._failures = {}
        progress = _Progress(self.base_fn.__name__, len(configs))
        start = time.time()
        timings = {}
        for config in configs:
            timings[config] = self._bench(*args, config=config, **kwargs)
            progress.step(timings)
        progress.done()
        self.bench_time = time.time() - start
        best = builtins.min(timings, key=lambda c: _order(timings[c]))
        if len(self._failures) == len(configs):
            self._raise_all_failed(timings)
        self.cache[key] = best
        self.configs_timings = timings
        self._reset_before_run({**self.nargs, **kwargs, **best.all_kwargs()})

    def _raise_all_failed(self, timings):
        lines = [f"  {c}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                 for c, e in self._failures.items()]
        first = next(iter(self._failures.values()))
        raise AutotunerError(f"every config of {self.base_fn.__name__} failed to compile or "
                             f"ran out of resources:\n" + "\n".join(lines)) from first

    def _check_disk_cache(self, key, args, kwargs, configs: List[Config]) -> bool:
        """Take the timings from disk (True), or benchmark and store them (False)."""
        # Hooks on configs cannot be named in the key, so such tunings are not kept.
        if not key or any(c.pre_hook for c in configs):
            self._benchmark(key, args, kwargs, configs)
            return False
        jit_fn = autotune_cache.jit_function_of(self.fn)
        disk_key = autotune_cache.disk_key(jit_fn, self._backend, key, configs)
        timings = autotune_cache.load(disk_key, jit_fn, configs)
        if timings is not None:
            best = builtins.min(timings, key=lambda c: _order(timings[c]))
            if _order(timings[best])[0] != float("inf"):
                self.cache[key] = best
                self.configs_timings = timings
                return True
        self._benchmark(key, args, kwargs, configs)
        autotune_cache.store(disk_key, jit_fn, key, self.configs_timings)
        return False

    # ------------------------------------------------------------------ running
    def _tuning_key(self, kwargs) -> tuple:
        args = {k: v for k, v in {**self.nargs, **kwargs}.items() if k in self.arg_names}
        key = [args[k] for k in self.keys if k in args]
        key += [str(v.dtype) for v in args.values() if hasattr(v, "dtype")]
        return tuple(key)

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        key = None
        if len(self.configs) > 1:
            key = self._tuning_key(kwargs)
            if key not in self.cache:
                used_cached_result = self._tune(key, args, kwargs)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if knobs.autotuning_print() and not used_cached_result:
            print(f"Triton autotuning for function {self.base_fn.__name__},\nwith key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\nbest config selected: {config};")
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def _tune(self, key, args, kwargs) -> bool:
        """Choose the config for `key`; True when no benchmark ran."""
        configs = self.prune_configs(kwargs)
        if len(configs) == 1:
            self.cache[key] = configs[0]
            return True
        jit_fn = autotune_cache.jit_function_of(self.fn)
        passed = {**self.nargs, **kwargs}
        self._backend = autotune_cache.backend_of(
            jit_fn, [v for k, v in passed.items() if k in self.arg_names])
        if self.cache_results:
            return self._check_disk_cache(key, args, kwargs, configs)
        self._benchmark(key, args, kwargs, configs)
        return False

    def prune_configs(self, kwargs: Dict) -> List[Config]:
        configs = self.configs
        if self.early_config_prune:
            configs = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not configs:
                raise AutotunerError("No valid autotuner configs after pruning. "
                                     "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            elif not isinstance(top_k, int) or isinstance(top_k, bool):
                raise TypeError("Error while pruning configs, top_k must be either 1) a float "
                                "<= 1.0 or 2) an int")
            if len(configs) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs())
                       for c in configs}
                configs = sorted(est, key=lambda c: est[c])[:top_k]
        return configs

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        ret = [self.fn.warmup(*args, **kwargs, **c.all_kwargs())
               for c in self.prune_configs(kwargs)]
        self.nargs = None
        return ret


def _order(t) -> tuple:
    """Sort key of a timing: a do_bench may return one number or quantiles."""
    return tuple(t) if isinstance(t, (list, tuple)) else (t,)


def _accepts(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


# Tensors of torch and arrays of numpy (the CPU backend's usual arguments) alike.
def _zero(t):
    if hasattr(t, "zero_"):
        t.zero_()
    else:
        t[...] = 0


def _clone(t):
    return t.clone() if hasattr(t, "clone") else t.copy()


def _copy_into(dst, src):
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


class _Progress:
    """`autotuning k: 3/12 configs, best 0.0123 ms` on stderr, redrawn in place on a tty."""

    def __init__(self, name: str, total: int):
        self.name, self.total = name, total
        stream = sys.stderr
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        forced = knobs.autotuning_progress()
        self.on = total > 1 and (self.tty if forced is None else forced)

    def step(self, timings: Dict[Config, Any]) -> None:
        if not self.on:
            return
        best = builtins.min(_order(t)[0] for t in timings.values())
        line = f"autotuning {self.name}: {len(timings)}/{self.total} configs, best {best:.4g} ms"
        sys.stderr.write(f"\r{line}\033[K" if self.tty else line + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.on and self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=None):
    """Benchmark `configs` the first time each value of the `key` arguments is seen and
    launch the fastest; `cache_results=None` follows TRITON_CACHE_AUTOTUNING (on)."""
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values: Dict[str, Callable]):
        if not isinstance(values, dict) or not all(callable(v) for v in values.values()):
            raise TypeError("heuristics(values=...) must map meta-parameter names to "
                            "functions of the arguments dict")
        self.fn = fn
        self.values = values
        self.arg_names = arg_names
        self.__name__ = getattr(fn, "__name__", "heuristics")

    def _with_values(self, args, kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._with_values(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._with_values(args, kwargs))


def heuristics(values: Dict[str, Callable]):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
