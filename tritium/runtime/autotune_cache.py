"""Autotuning results kept on disk, so a later process starts with the best config at once.

The key is built like upstream's `cache_results=True` key: a sha256 over tritium's own
source hash, the backend and what it targets (device, tool versions), the kernel's
`cache_key` (its source and everything it depends on), the environment variables that
change generated code, the tuning-key values and every config tried. An entry is
`<cache dir>/<key>/<kernel name>.autotune.json` holding the timing of each config in the
order they were tried; an entry that is damaged or does not list exactly these configs is
ignored and the configs are benchmarked again.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Dict, List, Optional

from . import cache as disk


def jit_function_of(fn):
    """The `@jit` function under any stack of `@autotune`/`@heuristics` wrappers."""
    while not hasattr(fn, "cache_key") and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def backend_of(jit_fn, args):
    """The backend a launch with `args` would run on (as the JIT decides it)."""
    from .dispatch import active_backend, cpu_backend
    return cpu_backend() if getattr(jit_fn, "interpret", False) else active_backend(args)


def disk_key(jit_fn, backend, tuning_key: tuple, configs: List) -> str:
    env = sorted((k, os.environ.get(k, "")) for k in disk.CACHE_INVALIDATING_ENV)
    t = backend.target  # the launch's Device: what the code is compiled for
    parts = [disk.tritium_key(), f"{t.backend}:{t.arch}:{t.warp_size}",
             jit_fn.cache_key, str(env), str(tuning_key)] + [str(c) for c in configs]
    return hashlib.sha256("-".join(parts).encode("utf-8")).hexdigest()


def _file_name(jit_fn) -> str:
    return f"{jit_fn.__name__[:disk.MAX_FILE_NAME]}.autotune.json"


def load(key: str, jit_fn, configs: List) -> Optional[Dict[Any, Any]]:
    """{config: timing} for `configs` as stored under `key`, or None on a miss."""
    path = disk.get_file(key, _file_name(jit_fn))
    if path is None:
        return None
    try:
        with open(path, "r") as f:
            stored = json.load(f)["configs_timings"]
        if len(stored) != len(configs) or any(s != str(c) for (s, _), c in zip(stored, configs)):
            return None
        return {c: _timing(t) for (_, t), c in zip(stored, configs)}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _timing(t):
    if isinstance(t, list):
        return [float(v) for v in t]
    return float(t)


def store(key: str, jit_fn, tuning_key: tuple, timings: Dict[Any, Any]) -> None:
    # Configs are stored as their text and matched by position on load: their kwargs may
    # hold values JSON cannot carry (dtypes), and the key already names each of them.
    data = {"key": [str(k) for k in tuning_key],
            "configs_timings": [[str(c), t] for c, t in timings.items()]}
    disk.put_file(key, _file_name(jit_fn), json.dumps(data))
