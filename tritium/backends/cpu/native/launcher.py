"""Launching a compiled kernel: pack the arguments once, split the grid's programs into one
contiguous range per core, and call the kernel through ctypes on a thread pool (ctypes drops
the GIL for the call, so the ranges run in parallel). `TRITON_CPU_MAX_THREADS` caps the pool.

The pool is a few parked threads, each woken through a lock of its own: handing a range to
`concurrent.futures` (a queue, a future, a condition to wait on) cost ~80 us per launch, this
~10 us on an idle many-core machine, but ~100 us on a 2-core VM (each wake-up ~20 us there).
A launch whose programs would finish sooner on the calling thread alone than through the
pool runs there (`Launcher`).

Inductor launches small kernels back to back, so the Python around the ctypes call counts:
each kernel packs its arguments through a `Packer` made once for its argument kinds, and
the knobs a launch reads are cached (`launch_knobs.py`): an Inductor-style launch of a
one-program kernel went from ~18.6 to ~5.6 us on this 2-core VM.
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...._ndarray import address as ndarray_address
from ..launch_knobs import launch_knobs

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


_affinity = threading.local()   # per thread: .cores, and .until (time.monotonic())
CORES_TTL = 0.01
_clock = time.monotonic


def _cores() -> int:
    """How many cores the calling thread may run on, read again at most every CORES_TTL
    seconds: `sched_getaffinity` is a system call whose set CPython builds bit by bit, ~1.5
    us on a VM, a fifth of a small launch, and a thread's affinity seldom changes (a launch
    that reads a count a few ms stale runs on more or fewer threads, nothing worse)."""
    now = _clock()
    a = _affinity
    if now < getattr(a, "until", 0.0):
        return a.cores
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    a.cores, a.until = cores, now + CORES_TTL
    return cores


def max_threads(kn=None) -> int:
    """Threads a launch may use: the knob's cap (`kn`: the launch's `LaunchKnobs`, read
    once per launch by the caller, else here) within the cores this thread may run on."""
    n = max(0, (kn or launch_knobs()).max_threads)
    cores = _cores()
    return max(1, min(n, cores) if n else cores)


_llc: list = []


def stream_bytes(kn=None) -> int:
    """From how many bytes stored by one launch through one store op the compiled code
    streams past the caches (native/stream.py): `TRITIUM_CPU_STREAM_BYTES`, else the
    last-level cache's size (a launch that stores less may leave its output in cache for
    whoever reads it next)."""
    n = (kn or launch_knobs()).stream_bytes
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
        return ndarray_address(a)
    dp = getattr(a, "data_ptr", None)
    if dp is not None:
        dev = getattr(a, "device", None)
        if dev is not None and getattr(dev, "type", "cpu") != "cpu":
            raise OffHost(f"CPU backend: argument {i} is on device {dev}; pass CPU tensors")
        return dp()
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        return int(a)
    if hasattr(a, "__array_interface__"):
        return a.__array_interface__["data"][0]
    raise TypeError(f"CPU backend: argument {i} ({type(a).__name__}) is not a buffer")


class OffHost(ValueError):
    """A tensor argument on another device (the caller may run on host copies)."""


_U64 = 0xFFFFFFFFFFFFFFFF


def _torch_address(a, i: int) -> int:
    if a.is_cpu:
        return a.data_ptr()
    raise OffHost(f"CPU backend: argument {i} is on device {a.device}; pass CPU tensors")


_BY_TYPE: dict = {}   # argument type -> how to get a pointer argument's address


def _ptr(a, i: int) -> int:
    f = _BY_TYPE.get(type(a))
    if f is None:
        torch = sys.modules.get("torch")
        f = _torch_address if torch is not None and issubclass(type(a), torch.Tensor) \
            else _address
        _BY_TYPE[type(a)] = f
    return f(a, i)


def _int(a, i: int) -> int:
    return (a if type(a) is int else int(a.item() if hasattr(a, "item") and
                                         getattr(a, "ndim", 0) == 0 else a)) & _U64


class _NoTensor:
    """Stands for torch.Tensor in a packer made before torch was imported."""


class Packer:
    """Packs one kernel's launch arguments (module.py's layout: grid, the arguments, the
    launch id, the streaming threshold, then the pool's counter address and chunk, left 0
    here) with `pack(grid, args, launch=0, kn=None)`: straight-line code made for the
    kernel's argument kinds, a call per argument and one `struct` pack into a buffer taken
    from the kernel's spares (making a ctypes array from ten ints cost ~0.7 us), which
    `release` gives back once its launch has returned."""

    def __init__(self, kinds: Sequence[str]):
        self.kinds = list(kinds)
        self.buf = ctypes.c_uint64 * (7 + len(kinds))
        convs = tuple(_ptr if k == "ptr" else _int if k[0] == "i" else
                      (lambda a, i, k=k: _scalar(k, a)) for k in kinds)
        self.spares: List[ctypes.Array] = []   # list.pop/append: atomic under the GIL
        names = [f"a{i}" for i in range(len(kinds))]
        # The common cases inline (a CPU torch.Tensor, a Python int): a call each saved,
        # ~0.3 us a pointer on a VM; anything else through its kind's converter.
        vals = "".join((f"({n}.data_ptr() if _type({n}) is _Tensor and {n}.is_cpu "
                        f"else c{i}({n}, {i})), " if k == "ptr" else
                        f"({n} & _U64 if _type({n}) is int else c{i}({n}, {i})), "
                        if k[0] == "i" else f"c{i}({n}, {i}), ")
                       for i, (n, k) in enumerate(zip(names, kinds))) + \
            "launch, stream_bytes(kn)"
        src = ("def pack(grid, args, launch=0, kn=None):\n"
               + (f"    {', '.join(names)}, = args\n" if names else "") +
               "    buf = spares.pop() if spares else new()\n"
               "    try:\n"
               f"        fmt.pack_into(buf, 0, grid[0], grid[1], grid[2], {vals}, 0, 0)\n"
               "    except struct_error:  # a value past 64 bits: ctypes' wrapping, as before\n"
               f"        return new(grid[0], grid[1], grid[2], {vals})\n"
               "    return buf\n")
        scope = {f"c{i}": c for i, c in enumerate(convs)}
        torch = sys.modules.get("torch")   # (imported later: its tensors take _ptr)
        scope.update(spares=self.spares, new=self.buf, stream_bytes=stream_bytes,
                     _type=type, _U64=_U64, _Tensor=torch.Tensor if torch else _NoTensor,
                     fmt=struct.Struct(f"<{7 + len(kinds)}Q"), struct_error=struct.error)
        exec(compile(src, f"<tritium cpu packer {','.join(kinds)}>", "exec"), scope)
        self.pack = scope["pack"]

    def release(self, buf: ctypes.Array) -> None:
        """`buf`'s launch has returned: a later one may reuse it."""
        if len(self.spares) < 4:
            self.spares.append(buf)


def _scalar(k: str, a) -> int:
    """The 8-byte slot of a float argument of kind `k`, in its low bytes (integers: `_int`)."""
    if hasattr(a, "item") and getattr(a, "ndim", 0) == 0:
        a = a.item()
    if k == "f32":
        v = struct.unpack("<I", struct.pack("<f", float(a)))[0]
    elif k == "f64":
        v = struct.unpack("<Q", struct.pack("<d", float(a)))[0]
    elif k == "f16":
        v = int(np.array(float(a), np.float16).view(np.uint16))
    else:                                   # bf16
        from ..dtypes import f32_to_bf16_bits
        v = int(f32_to_bf16_bits(np.array([a], np.float32))[0])
    return v & _U64


_handoff: Dict[int, float] = {}  # threads -> seconds one hand-off to the pool costs


def _measure_handoff(n: int) -> float:
    """The median of a few rounds of waking n - 1 parked workers on a C call that does
    nothing and waiting for them (called with the pool lock held)."""
    noop = ctypes.CDLL(None).getpid
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for i in range(1, n):
            _workers[i - 1].start(noop)
        for i in range(1, n):
            _workers[i - 1].join()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


class Launcher:
    """Calls one kernel over a grid. A launch whose programs cost less, run on one thread,
    than handing ranges to the pool costs (`_handoff`: waking parked threads and waiting
    for them, ~40-100 us on a small VM) runs on this thread alone: Inductor's CPU kernels
    of a small model are mostly such launches. The cost of a program is learnt from the
    kernel's own launches (wall time, less the hand-off when the pool ran it).

    Once a grid size has run both ways, the measured walls decide, not the model: on a VM
    whose other cores are busy the pool's threads start late, and a launch the model sends
    to two threads ran 44 us there against 25 alone (Inductor's layer norm, 256 rows)."""

    def __init__(self, address: int, always_pooled: bool = False):
        self.fn = _ENTRY(address)
        self.always_pooled = always_pooled          # its programs wait for one another
        self.per_program: Optional[float] = None   # seconds of one program on one thread
        self.measured_alone = False                # (else inferred from a pooled launch)
        self.pooled: Dict[int, Tuple[int, float]] = {}  # programs -> (threads, wall s)
        self.launches = 0

    def __call__(self, grid, argbuf, threads: Optional[int] = None, kn=None) -> None:
        total = grid[0] * grid[1] * grid[2]
        if total == 0:
            return
        if total >= 1 << 31:
            raise ValueError(f"grid {grid} has more than 2**31 programs")
        n = 1 if total == 1 else min(threads or max_threads(kn), total)
        if n > 1 and threads is None and self.per_program is not None and n in _handoff \
                and not self.always_pooled and self._alone(n, total):
            n = 1
        calibrated = n in _handoff
        t0 = time.perf_counter()
        if n == 1 or not self._on_pool(n, argbuf, total):
            self.fn(ctypes.addressof(argbuf), 0, total)
            n = 1
        wall = time.perf_counter() - t0
        if n == 1:  # exact: replaces what pooled launches inferred
            one = wall / total
            self.per_program = (self.per_program + one) / 2 if self.measured_alone else one
            self.measured_alone = True
            return
        seen = self.pooled.get(total)
        self.pooled[total] = (n, wall if seen is None or seen[0] != n
                              else 0.75 * seen[1] + 0.25 * wall)
        if calibrated and not self.measured_alone:
            one = max(0.0, wall - _handoff[n]) * n / total
            self.per_program = one if self.per_program is None else (self.per_program + one) / 2

    def _alone(self, n: int, total: int) -> bool:
        """Whether a launch of `total` programs that could use n threads runs alone."""
        alone = self.per_program * total
        seen = self.pooled.get(total)
        if seen is not None and seen[0] == n and not self.measured_alone:
            # Pooled, never alone: once alone, unless hand-offs cannot matter at its length
            # (an estimate inferred from pooled walls grows with the workers' late starts).
            return seen[1] < 0.02
        if seen is not None and seen[0] == n:
            # Both measured: the faster, the other tried again now and then to follow the
            # machine's load (rarely where it lost by far: a retry costs the difference).
            self.launches += 1
            pooled = seen[1]
            if alone <= pooled:
                return self.launches % (64 if pooled < 1.5 * alone else 1024) != 0
            return self.launches % (64 if alone < 1.5 * pooled else 1024) == 0
        # Alone when T < T/n + hand-off; a pooled launch's estimate of T is rough, so
        # one within a few hand-offs of the line is checked by one launch alone.
        pooled_floor = _handoff[n] * n / (n - 1)
        return alone < pooled_floor or (not self.measured_alone and alone < 4 * pooled_floor)

    def _on_pool(self, n: int, argbuf, total: int) -> bool:
        """Run the programs on this thread and n - 1 workers; False if another thread's
        launch holds the pool (nothing ran)."""
        lock = _pool_lock
        if not lock.acquire(blocking=False):
            return False
        try:
            while len(_workers) < n - 1:
                _workers.append(_Worker(len(_workers)))
            if n not in _handoff:  # (once: the first pooled launch's time includes it)
                _handoff[n] = _measure_handoff(n)
            # Every thread claims chunks of programs from one counter (module.py) rather
            # than a fixed share: on a core busy with other work a thread takes fewer, and
            # programs of uneven cost (causal attention) even out. ~8 chunks per thread.
            counter = ctypes.c_int32(0)
            argbuf[len(argbuf) - 2] = ctypes.addressof(counter)
            argbuf[len(argbuf) - 1] = max(1, total // (8 * n))
            ptr = ctypes.addressof(argbuf)
            for i in range(1, n):
                _workers[i - 1].start(self.fn, ptr, 0, total)
            self.fn(ptr, 0, total)
            for i in range(1, n):
                _workers[i - 1].join()
        finally:
            lock.release()
        return True
