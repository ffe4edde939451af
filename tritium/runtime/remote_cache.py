"""The kernel cache's remote tier: with TRITON_REMOTE_CACHE_BACKEND=MODULE:CLASS (a
`RemoteCacheBackend`, e.g. `triton.runtime.cache:RedisRemoteCacheBackend`), a local miss asks
the remote store for the entry's files, checks them against their recorded hashes and keeps
them locally; a compiled entry is pushed there. The remote store is an optimisation only: one
that is down or returns damaged files costs a warning and a local compile, never a failure."""
from __future__ import annotations

import warnings
from typing import Dict, Optional

from .cache_managers import remote_backend, warn_remote


def fetch(cache, name: str, stages) -> Optional[Dict]:
    """The verified entry holding `stages` from the remote store (also written to the local
    cache), or None."""
    from .cache import dir_name
    backend = remote_backend(dir_name(cache.key))
    if backend is None:
        return None
    try:
        files = backend.get(cache.file_names(name, stages))
    except Exception as e:  # connection refused, timeouts, protocol errors: all non-fatal
        warn_remote("reading", e)
        return None
    if not files:
        return None
    try:
        hit = cache.verify(name, lambda f: files[f], stages)
    except (ValueError, KeyError, TypeError) as e:
        warnings.warn(f"remote compilation cache: entry {dir_name(cache.key)}/{name} is damaged "
                      f"({type(e).__name__}: {e}); compiling it again", RuntimeWarning,
                      stacklevel=2)
        return None
    meta = {k: v for k, v in hit["metadata"].items() if k not in ("hash", "file_hashes")}
    cache.store(name, hit["asm"], meta)
    return hit


def push(cache, name: str, asm: Dict, metadata: Dict) -> None:
    """Send a freshly stored entry to the remote store (best effort)."""
    from .cache import dir_name
    backend = remote_backend(dir_name(cache.key))
    if backend is None:
        return
    meta = {k: v for k, v in metadata.items() if k not in ("hash", "file_hashes")}
    _, files = cache.entry_files(name, asm, meta)
    try:
        for fname, data in files.items():
            backend.put(fname, data)
    except Exception as e:
        warn_remote("writing", e)
