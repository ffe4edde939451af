"""`@autotune`, `Config` and `@heuristics` with upstream's signatures and behaviour."""
from __future__ import annotations

import builtins
import time
from typing import Any, Callable, Dict, List, Optional

from .errors import OutOfResources  # noqa: F401  (upstream imports it from here)
from .interface import KernelInterface


class Config:
    """One candidate: meta-parameters plus launch options."""

    def __init__(self, kwargs: Dict[str, Any], num_warps: int = 4, num_stages: int = 3,
                 num_ctas: int = 1, maxnreg: Optional[int] = None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self) -> Dict[str, Any]:
        extra = {k: v for k, v in (("num_warps", self.num_warps), ("num_stages", self.num_stages),
                                   ("num_ctas", self.num_ctas), ("maxnreg", self.maxnreg))
                 if v is not None}
        return {**self.kwargs, **extra}

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    __repr__ = __str__


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names: List[str], configs: List[Config], key: List[str],
                 reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
                 prune_configs_by: Optional[Dict] = None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.fn = fn
        self.arg_names = arg_names
        self.configs = configs or [Config({}, num_warps=4, num_stages=3)]
        self.keys = key
        self.reset_to_zero = reset_to_zero or []
        self.restore_value = restore_value or []
        self.user_pre_hook = pre_hook
        self.post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.num_warmups = warmup if warmup is not None else 25
        self.num_reps = rep if rep is not None else 100
        self.user_do_bench = do_bench
        self.cache: Dict[tuple, Config] = {}
        self.configs_timings: Optional[Dict[Config, Any]] = None
        self.best_config: Optional[Config] = None
        self.__name__ = getattr(fn, "__name__", "autotuned")

    def _key(self, nargs: Dict[str, Any]) -> tuple:
        key = [nargs[k] for k in self.keys if k in nargs]
        for v in nargs.values():
            if hasattr(v, "dtype"):
                key.append(str(v.dtype))
        return tuple(key)

    def prune_configs(self, kwargs: Dict[str, Any]) -> List[Config]:
        configs = self.configs
        if self.early_config_prune:
            configs = self.early_config_prune(configs, self.nargs, **kwargs)
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = max(1, top_k)
            if len(configs) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(est, key=est.get)[:top_k]
        return configs

    def _bench(self, *args, config: Config, **meta) -> float:
        from ..frontend.errors import CompileTimeAssertionFailure
        from .errors import OutOfResources, PTXASError
        conflicts = set(meta) & set(config.kwargs)
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. "
                             "Make sure that you don't re-define auto-tuned symbols.")
        current = {**meta, **config.all_kwargs()}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook({**self.nargs, **current})
            self._pre_hook(args)
            self.fn.run(*args, **current)
            self._post_hook(args)

        try:
            if self.user_do_bench is not None:
                return self.user_do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
            from ..testing import do_bench
            return do_bench(kernel_call, warmup=self.num_warmups, rep=self.num_reps,
                            quantiles=(0.5, 0.2, 0.8))
        except (OutOfResources, CompileTimeAssertionFailure, PTXASError):
            return [float("inf")] * 3

    def _pre_hook(self, args):
        nargs = dict(zip(self.arg_names, args))
        for name in self.reset_to_zero:
            nargs[name].zero_()
        self._restore = {name: nargs[name].clone() for name in self.restore_value}
        if self.user_pre_hook:
            self.user_pre_hook(nargs)

    def _post_hook(self, args):
        nargs = dict(zip(self.arg_names, args))
        for name, saved in getattr(self, "_restore", {}).items():
            nargs[name].copy_(saved)
        self._restore = {}
        if self.post_hook:
            self.post_hook(nargs, None)

    def run(self, *args, grid=None, warmup=False, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            key = self._key(all_args)
            if key not in self.cache:
                pruned = self.prune_configs(kwargs)
                start = time.perf_counter()
                timings = {c: self._bench(*args, config=c, grid=grid, **kwargs) for c in pruned}
                self.bench_time = time.perf_counter() - start
                self.cache[key] = builtins.min(timings, key=lambda c: _first(timings[c]))
                self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def warmup(self, *args, **kwargs):
        return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in self.configs]


def _first(t):
    return t[0] if isinstance(t, (list, tuple)) else t


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values: Dict[str, Callable]):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names
        self.__name__ = getattr(fn, "__name__", "heuristics")

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.warmup(*args, **kwargs)


def heuristics(values: Dict[str, Callable]):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
