"""The knobs every CPU launch reads, cached until they can have changed.

Reading a knob goes through `os.environ` (~0.7 us a key on a small VM) and its parsing;
a launch needs four (whether kernels run compiled, the thread cap, the streaming-store
threshold), which cost ~5 us of a ~20 us launch. Here they are read once and reused while
neither their environment variables (looked up in CPython's own dict behind `os.environ`,
~40 ns a key) nor the knob objects' overrides (`knobs.cpu.max_threads = 2`) changed.
"""
from __future__ import annotations

import os
from typing import NamedTuple

import tritium.knobs as knobs

_KEYS = ("TRITON_INTERPRET", "TRITIUM_CPU_PATH", "TRITON_CPU_MAX_THREADS",
         "TRITIUM_CPU_STREAM_BYTES")
_DATA = getattr(os.environ, "_data", None)
# CPython on POSIX keeps the environment as bytes -> bytes; elsewhere read it plainly
_RAW = tuple(k.encode() for k in _KEYS) if isinstance(_DATA, dict) and \
    all(isinstance(k, bytes) for k in list(_DATA)[:1]) else None


class LaunchKnobs(NamedTuple):
    compiled: bool      # kernels run compiled (else on the evaluator)
    max_threads: int    # knobs.cpu.max_threads (0: every core)
    stream_bytes: int   # knobs.cpu.stream_bytes (0: the LLC's size, -1: never)


_cache: list = [None, None]


def _signature():
    if _RAW is None:
        env = tuple(os.environ.get(k) for k in _KEYS)
    else:
        d = _DATA
        env = (d.get(_RAW[0]), d.get(_RAW[1]), d.get(_RAW[2]), d.get(_RAW[3]))
    over = knobs.cpu.__dict__
    return env, knobs.runtime.__dict__.get("interpret"), over.get("path"), \
        over.get("max_threads"), over.get("stream_bytes")


def launch_knobs() -> LaunchKnobs:
    sig = _signature()
    if sig == _cache[0]:
        return _cache[1]
    got = LaunchKnobs(knobs.cpu.compiled(), knobs.cpu.max_threads, knobs.cpu.stream_bytes)
    _cache[0], _cache[1] = sig, got
    return got
