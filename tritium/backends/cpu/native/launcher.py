"""Launching a compiled kernel: pack the arguments once, split the grid's programs into one
contiguous range per core, and call the kernel through ctypes on a thread pool (ctypes drops
the GIL for the call, so the ranges run in parallel). `TRITON_CPU_MAX_THREADS` caps the pool.
"""
from __future__ import annotations

import ctypes
import os
import struct
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import List, Optional, Sequence

import numpy as np

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32)
_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def max_threads() -> int:
    import tritium.knobs as knobs
    n = max(0, knobs.cpu.max_threads)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(n, cores) if n else cores)


def _get_pool(n: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="tritium-cpu")
    return _pool


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


def pack(kinds: Sequence[str], grid, args: Sequence, table: int = 0) -> ctypes.Array:
    buf = (ctypes.c_uint64 * (4 + len(kinds)))()
    buf[0], buf[1], buf[2] = grid
    buf[3 + len(kinds)] = table
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
        bounds = [total * i // n for i in range(n + 1)]
        pool = _get_pool(n - 1)
        futs: List = [pool.submit(self.fn, ptr, bounds[i], bounds[i + 1])
                      for i in range(1, n)]
        self.fn(ptr, bounds[0], bounds[1])
        for f in futs:
            f.result()
