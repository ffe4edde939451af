"""Launching a compiled kernel: pack the arguments once, split the grid's programs into one
contiguous range per core, and call the kernel through ctypes on a thread pool (ctypes drops
the GIL for the call, so the ranges run in parallel). `TRITON_CPU_MAX_THREADS` caps the pool.

The pool is a few parked threads, each woken through a lock of its own: handing a range to
`concurrent.futures` (a queue, a future, a condition to wait on) cost ~80 us per launch,
this ~10 us.
"""
from __future__ import annotations

import ctypes
import os
import struct
import threading
from typing import List, Optional, Sequence

import numpy as np

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32)
_workers: List["_Worker"] = []
_pool_lock = threading.Lock()       # held by the launch using the workers


class _Worker:
    """A parked thread that runs one range of programs each time `go` is released."""

    def __init__(self, i: int):
        self.go, self.done = threading.Lock(), threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job = None
        threading.Thread(target=self._run, name=f"tritium-cpu-{i}", daemon=True).start()

    def _run(self) -> None:
        while True:
            self.go.acquire()
            fn, *args = self.job
            fn(*args)                       # a ctypes call: returns, never raises
            self.done.release()

    def start(self, *job) -> None:
        self.job = job
        self.go.release()

    def join(self) -> None:
        self.done.acquire()


def _reset_workers() -> None:
    """A forked child has none of its parent's threads."""
    global _pool_lock
    _workers.clear()
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_workers)


def max_threads() -> int:
    import tritium.knobs as knobs
    n = max(0, knobs.cpu.max_threads)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(n, cores) if n else cores)


_llc: list = []


def stream_bytes() -> int:
    """From how many bytes stored by one launch through one store op the compiled code
    streams past the caches (native/stream.py): `TRITIUM_CPU_STREAM_BYTES`, else the
    last-level cache's size (a launch that stores less may leave its output in cache for
    whoever reads it next)."""
    import tritium.knobs as knobs
    n = knobs.cpu.stream_bytes
    if n:
        return n if n > 0 else (1 << 63) - 1
    if not _llc:
        size = 32 << 20
        for index in (3, 2):
            try:
                with open(f"/sys/devices/system/cpu/cpu0/cache/index{index}/size") as f:
                    text = f.read().strip()
                size = int(text[:-1]) << {"K": 10, "M": 20}[text[-1]] if text[-1] in "KM" \
                    else int(text)
                break
            except (OSError, ValueError, KeyError):
                continue
        _llc.append(size)
    return _llc[0]


def _address(a, i: int) -> int:
    if a is None:
        return 0
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    dp = getattr(a, "data_ptr", None)
    if dp is not None:
        dev = getattr(a, "device", None)
        if dev is not None and getattr(dev, "type", "cpu") != "cpu":
            raise ValueError(f"CPU backend: argument {i} is on device {dev}; pass CPU tensors")
        return dp()
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        return int(a)
    if hasattr(a, "__array_interface__"):
        return a.__array_interface__["data"][0]
    raise TypeError(f"CPU backend: argument {i} ({type(a).__name__}) is not a buffer")


def pack(kinds: Sequence[str], grid, args: Sequence, launch: int = 0) -> ctypes.Array:
    buf = (ctypes.c_uint64 * (7 + len(kinds)))()        # last two: counter, chunk
    buf[0], buf[1], buf[2] = grid
    buf[3 + len(kinds)] = launch
    buf[4 + len(kinds)] = stream_bytes()
    for i, (k, a) in enumerate(zip(kinds, args)):
        if k == "ptr":
            v = _address(a, i)
        else:
            if hasattr(a, "item") and getattr(a, "ndim", 0) == 0:
                a = a.item()
            if k[0] == "i":
                v = int(a)
            elif k == "f32":
                v = struct.unpack("<I", struct.pack("<f", float(a)))[0]
            elif k == "f64":
                v = struct.unpack("<Q", struct.pack("<d", float(a)))[0]
            elif k == "f16":
                v = int(np.array(float(a), np.float16).view(np.uint16))
            else:                                   # bf16
                from ..dtypes import f32_to_bf16_bits
                v = int(f32_to_bf16_bits(np.array([a], np.float32))[0])
        buf[3 + i] = v & 0xFFFFFFFFFFFFFFFF
    return buf


class Launcher:
    def __init__(self, address: int):
        self.fn = _ENTRY(address)

    def __call__(self, grid, argbuf, threads: Optional[int] = None) -> None:
        total = grid[0] * grid[1] * grid[2]
        if total == 0:
            return
        if total >= 1 << 31:
            raise ValueError(f"grid {grid} has more than 2**31 programs")
        n = min(threads or max_threads(), total)
        ptr = ctypes.addressof(argbuf)
        if n == 1:
            self.fn(ptr, 0, total)
            return
        lock = _pool_lock
        if not lock.acquire(blocking=False):    # another thread's launch has the workers
            self.fn(ptr, 0, total)
            return
        try:
            while len(_workers) < n - 1:
                _workers.append(_Worker(len(_workers)))
            # Every thread claims chunks of programs from one counter (module.py) rather
            # than a fixed share: on a core busy with other work a thread takes fewer, and
            # programs of uneven cost (causal attention) even out. ~8 chunks per thread.
            counter = ctypes.c_int32(0)
            argbuf[len(argbuf) - 2] = ctypes.addressof(counter)
            argbuf[len(argbuf) - 1] = max(1, total // (8 * n))
            for i in range(1, n):
                _workers[i - 1].start(self.fn, ptr, 0, total)
            self.fn(ptr, 0, total)
            for i in range(1, n):
                _workers[i - 1].join()
        finally:
            lock.release()
