"""Achieved throughput of kernels a script times with `tritium.testing.do_bench` (or
`do_bench_cudagraph`), beside the device's peak.

While a script runs under `tritium explain`, the benchmark helpers are wrapped: each timed
callable is counted, and every kernel launch inside it notes the bytes of its tensor
arguments. Bandwidth is those bytes per call over the measured time: the usual estimate
(each tensor argument read or written once), exact for streaming kernels like vector add,
a lower bound when a kernel rereads its inputs.
"""
from __future__ import annotations

import contextlib
import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple


@dataclass
class BenchResult:
    ms: float                 # per call of the timed callable
    bytes_per_call: float     # tensor-argument bytes of this kernel's launches per call
    launches_per_call: float
    kernels_in_call: int      # distinct kernels the callable launched
    peak_gbps: Optional[float] = None

    @property
    def gbps(self) -> float:
        return self.bytes_per_call / (self.ms * 1e-3) / 1e9 if self.ms > 0 else 0.0


def _nbytes(a) -> int:
    n = getattr(a, "nbytes", None)
    if isinstance(n, int) and hasattr(a, "shape"):
        return n
    numel, size = getattr(a, "numel", None), getattr(a, "element_size", None)
    if callable(numel) and callable(size):
        return int(numel()) * int(size())
    return 0


def peak_bandwidth_gbps() -> Optional[float]:
    """DRAM bandwidth of the current GPU from its memory clock and bus width; None on the
    CPU or when the driver does not report them."""
    try:
        from ...backends.nvidia import driver
        if not driver.is_available():
            return None
        p = driver.get_device_properties()
        clock_khz, bus_bits = p.get("mem_clock_rate"), p.get("mem_bus_width")
        if not clock_khz or not bus_bits:
            return None
        return clock_khz * 1e3 * 2 * bus_bits / 8 / 1e9   # double data rate
    except Exception:
        return None


def _typical(result) -> float:
    if isinstance(result, (list, tuple)):
        return float(statistics.median(result)) if result else 0.0
    return float(result)


@contextlib.contextmanager
def benchmarks():
    """Yields {(kernel name, str(specialisation)): BenchResult} filled as the block runs."""
    from ... import testing
    from ...compiler.kernel import CompiledKernel
    results: Dict[Tuple[str, str], BenchResult] = {}
    active: List[dict] = []
    saved = [(testing, name, getattr(testing, name)) for name in ("do_bench", "do_bench_cudagraph")]
    # Every `@jit` launch, on every backend, goes through `CompiledKernel._jit_run`.
    saved.append((CompiledKernel, "_jit_run", CompiledKernel.__dict__["_jit_run"]))

    def timed(original):
        def wrapper(fn, *args, **kwargs):
            state = {"calls": 0, "launches": {}}

            def counted():
                state["calls"] += 1
                return fn()

            active.append(state)
            try:
                result = original(counted, *args, **kwargs)
            finally:
                active.pop()
            calls = max(1, state["calls"])
            peak = peak_bandwidth_gbps()
            for key, (n, nbytes) in state["launches"].items():
                results[key] = BenchResult(_typical(result), nbytes / calls, n / calls,
                                           len(state["launches"]), peak)
            return result
        return wrapper

    def launching(original):
        def run(self, grid, bound_args):
            specialization = getattr(self.src, "specialization", None)
            if active and specialization is not None:
                key = (self.name, str(specialization()))
                n, nbytes = active[-1]["launches"].get(key, (0, 0))
                active[-1]["launches"][key] = (n + 1, nbytes + sum(_nbytes(a) for a in bound_args))
            return original(self, grid, bound_args)
        return run

    testing.do_bench = timed(testing.do_bench)
    testing.do_bench_cudagraph = timed(testing.do_bench_cudagraph)
    CompiledKernel._jit_run = launching(CompiledKernel.__dict__["_jit_run"])
    try:
        yield results
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
