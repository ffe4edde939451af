"""Upstream's cache-manager API (`triton.runtime.cache`): `CacheManager` and the managers
that implement it over files and over a remote store (`RemoteCacheBackend`, e.g. redis).

tritium's own kernel cache (`cache.py`) stores whole entries atomically; these classes give
code written against upstream's per-file interface (torch's Inductor, custom managers named
by TRITON_CACHE_MANAGER) the same directories, and `remote_backend()` is how the kernel cache
finds the remote store named by TRITON_REMOTE_CACHE_BACKEND."""
from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
import warnings
from abc import ABC, abstractmethod
from typing import Dict, List, Optional

import tritium.knobs as knobs  # the module: its groups may be replaced at run time


def _base32(key: str) -> str:
    import base64
    return base64.b32encode(bytes.fromhex(key)).decode("utf-8").rstrip("=")


class CacheManager(ABC):
    def __init__(self, key, override=False, dump=False):
        pass

    @abstractmethod
    def get_file(self, filename) -> Optional[str]:
        ...

    @abstractmethod
    def put(self, data, filename, binary=True) -> str:
        ...

    @abstractmethod
    def get_group(self, filename: str) -> Optional[Dict[str, str]]:
        ...

    @abstractmethod
    def put_group(self, filename: str, group: Dict[str, str]):
        ...


class FileCacheManager(CacheManager):
    """Files under `<cache dir>/<key>/`, written through a private temporary file and an
    atomic rename so readers never see half a file."""

    def __init__(self, key, override=False, dump=False):
        self.key = key
        root = knobs.cache.dump_dir if dump else knobs.cache.override_dir if override \
            else knobs.cache.dir
        self.cache_dir = os.path.join(root, key)
        if not override:
            os.makedirs(self.cache_dir, exist_ok=True)

    def _make_path(self, filename) -> str:
        return os.path.join(self.cache_dir, filename)

    def has_file(self, filename) -> bool:
        return os.path.exists(self._make_path(filename))

    def get_file(self, filename) -> Optional[str]:
        return self._make_path(filename) if self.has_file(filename) else None

    def get_group(self, filename: str) -> Optional[Dict[str, str]]:
        path = self.get_file(f"__grp__{filename}")
        if path is None:
            return None
        try:
            with open(path) as f:
                children = json.load(f).get("child_paths")
        except (OSError, ValueError):
            return None
        if children is None:
            return None
        return {c: p for c, p in children.items() if os.path.exists(p)}

    def put_group(self, filename: str, group: Dict[str, str]) -> str:
        return self.put(json.dumps({"child_paths": group}), f"__grp__{filename}", binary=False)

    def put(self, data, filename, binary=True) -> str:
        if not isinstance(data, bytes):
            data = str(data).encode("utf-8")
        os.makedirs(self.cache_dir, exist_ok=True)
        path = self._make_path(filename)
        tmp = os.path.join(self.cache_dir, f"tmp.pid_{os.getpid()}_{uuid.uuid4().hex}")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path


class RemoteCacheBackend:
    """A remote key-value store for cache files; `key` names the cache entry."""

    def __init__(self, key: str):
        self.key = key

    @abstractmethod
    def get(self, filenames: List[str]) -> Dict[str, bytes]:
        """The files found, by name (missing ones left out)."""

    @abstractmethod
    def put(self, filename: str, data: bytes) -> None:
        ...


class RedisRemoteCacheBackend(RemoteCacheBackend):
    """Files as redis strings under `knobs.redis.key_format` (TRITON_REDIS_KEY_FORMAT,
    `triton:{key}:{filename}`), at TRITON_REDIS_HOST:TRITON_REDIS_PORT."""

    def __init__(self, key: str):
        super().__init__(key)
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        self._key_format = knobs.redis.key_format
        # No retries: a cache that is down must cost the compile as little as possible.
        self._redis = redis.Redis(host=knobs.redis.host, port=knobs.redis.port,
                                  socket_connect_timeout=2, socket_timeout=5,
                                  retry=Retry(NoBackoff(), 0))

    def _name(self, filename: str) -> str:
        return self._key_format.format(key=self.key, filename=filename)

    def get(self, filenames: List[str]) -> Dict[str, bytes]:
        values = self._redis.mget([self._name(f) for f in filenames])
        return {f: v for f, v in zip(filenames, values) if v is not None}

    def put(self, filename: str, data: bytes) -> None:
        self._redis.set(self._name(filename), data)


class RemoteCacheManager(CacheManager):
    """Files kept in the remote backend, materialised locally through a FileCacheManager."""

    def __init__(self, key, override=False, dump=False):
        cls = knobs.cache.remote_manager_class
        if cls is None:
            raise ValueError("RemoteCacheManager needs TRITON_REMOTE_CACHE_BACKEND=MODULE:CLASS")
        self._backend = cls(key)
        self._local_only = override or dump
        self._files = FileCacheManager(key, override=override, dump=dump)

    def get_file(self, filename: str) -> Optional[str]:
        if self._local_only:
            return self._files.get_file(filename)
        found = self._backend.get([filename])
        if not found:
            return None
        return self._files.put(found[filename], filename)

    def put(self, data, filename: str, binary=True) -> str:
        if self._local_only:
            return self._files.put(data, filename, binary=binary)
        if not isinstance(data, bytes):
            data = str(data).encode("utf-8")
        self._backend.put(filename, data)
        return self._files.put(data, filename)

    def get_group(self, filename: str) -> Optional[Dict[str, str]]:
        if self._local_only:
            return self._files.get_group(filename)
        path = self.get_file(f"__grp__{filename}")
        if path is None:
            return None
        with open(path) as f:
            children = json.load(f).get("child_paths")
        if children is None:
            return None
        return {c: self._files.put(d, c) for c, d in self._backend.get(list(children)).items()}

    def put_group(self, filename: str, group: Dict[str, str]):
        if self._local_only:
            return self._files.put_group(filename, group)
        return self.put(json.dumps({"child_paths": sorted(group)}), f"__grp__{filename}")


def get_cache_manager(key) -> CacheManager:
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key))


def get_override_manager(key) -> CacheManager:
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key), override=True)


def get_dump_manager(key) -> CacheManager:
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key), dump=True)


def make_so_cache_key(version_hash, signature, constants, ids, **kwargs) -> str:
    sig = "".join("ptr" if str(v).startswith("*") else str(v) for v in signature.values())
    text = "-".join([str(version_hash), sig, str(constants), str(ids)]
                    + [str(v) for v in kwargs.values()])
    return _base32(hashlib.sha256(text.encode("utf-8")).hexdigest())


_warned = set()
# After a failure the remote store is left alone for a while, so a server that is down (or a
# host that drops packets) costs one timeout, not one per compile.
RETRY_AFTER_S = 60.0
_down_until = [0.0]


def warn_remote(what: str, err: BaseException) -> None:
    """A remote cache that fails is no reason to fail a compile: say so once per kind."""
    _down_until[0] = time.monotonic() + RETRY_AFTER_S
    kind = (what, type(err).__name__)
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(f"remote compilation cache: {what} failed ({type(err).__name__}: {err}); "
                      f"kernels are compiled and cached locally (retrying in {RETRY_AFTER_S:.0f} s)",
                      RuntimeWarning, stacklevel=3)


def remote_backend(key: str) -> Optional[RemoteCacheBackend]:
    """The store named by TRITON_REMOTE_CACHE_BACKEND for this entry, or None (also while
    it is resting after a failure)."""
    if time.monotonic() < _down_until[0]:
        return None
    try:
        cls = knobs.cache.remote_manager_class
        return cls(key) if cls is not None else None
    except Exception as e:  # a bad class name is a ValueError from the knob; connect errors
        warn_remote("connecting", e)
        return None
