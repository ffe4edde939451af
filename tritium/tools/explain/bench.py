"""Achieved throughput of kernels a script times with `tritium.testing.do_bench` (or
`do_bench_cudagraph`), beside the device's peak.

While a script runs under `tritium explain`, the benchmark helpers are wrapped: each timed
callable is counted, and every kernel launch inside it notes the bytes of its tensor
arguments, its grid and its scalar arguments. Bandwidth is those bytes per call over the
measured time: the usual estimate (each tensor argument read or written once), exact for
streaming kernels like vector add, a lower bound when a kernel rereads its inputs. For
kernels with `tl.dot`, the FLOPs of the dots (`flops.py`, from the TTIR and each launch's
grid and scalars) per call over the measured time give the achieved TFLOP/s, beside the
GPU's tensor-core peak for the dot's operand type (GFLOP/s on the CPU, where no peak is
quoted).
"""
from __future__ import annotations

import contextlib
import numbers
import statistics
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

MAX_LAUNCH_SHAPES = 256   # distinct (grid, scalars) noted per kernel; more: FLOPs unknown


@dataclass
class BenchResult:
    ms: float                 # per call of the timed callable
    bytes_per_call: float     # tensor-argument bytes of this kernel's launches per call
    launches_per_call: float
    kernels_in_call: int      # distinct kernels the callable launched
    peak_gbps: Optional[float] = None
    calls: int = 1            # calls of the timed callable
    # {(grid, runtime scalars): launches} over all the calls; None: too many to keep
    launches: Optional[Dict[tuple, int]] = field(default_factory=dict)
    flops: Any = None         # flops.FlopCount over `launches` (set when the page is made)
    peak_tflops: Optional[float] = None   # for the dot's operand type; None on the CPU

    @property
    def gbps(self) -> float:
        return self.bytes_per_call / (self.ms * 1e-3) / 1e9 if self.ms > 0 else 0.0

    @property
    def flops_per_call(self) -> Optional[float]:
        if self.flops is None or not self.flops.known:
            return None
        return self.flops.flops / max(1, self.calls)

    @property
    def tflops(self) -> Optional[float]:
        f = self.flops_per_call
        return f / (self.ms * 1e-3) / 1e12 if f is not None and self.ms > 0 else None

    def count_flops(self, module, name: str) -> None:
        """Count the dots' FLOPs of kernel `name` (its TTIR `module`) over the noted launches,
        and look up the peak for their operand type."""
        from . import flops
        if self.launches is None:
            self.flops = flops.count(module, name, {})
            if self.flops is not None:
                self.flops.known = False
                self.flops.why = (f"more than {MAX_LAUNCH_SHAPES} different grids or scalar "
                                  f"arguments in the timed calls")
            return
        self.flops = flops.count(module, name, self.launches)
        if self.flops is not None:
            self.peak_tflops = peak_tflops(self.flops.dtype, self.flops.precision)


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


# Dense FLOPs per SM per clock relative to `testing_gpu`'s tables (upstream's, which are
# sm_80's): Hopper's tensor cores do twice an A100's per SM and clock (989 dense fp16 TFLOP/s
# on an H100 SXM), Blackwell's four times; both have twice an A100's FP32 lanes per SM.
_TENSORCORE_SCALE = {9: 2, 10: 4}
_SIMD_SCALE = {9: 2, 10: 2}
_DTYPE_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "i8": "int8",
                "f8E4M3FN": "fp8e4nv", "f8E5M2": "fp8e5", "f8E4M3FNUZ": "fp8e4nv",
                "f8E5M2FNUZ": "fp8e5"}


def peak_tflops(dtype: str, precision: str = "") -> Optional[float]:
    """The current GPU's dense peak for a dot on `dtype` operands (TTIR element type): the
    tensor cores' (tf32 for f32 operands unless `precision` is 'ieee', which runs on the FP32
    lanes), at the GPU's maximum SM clock. None on the CPU or for an unknown type."""
    try:
        from ...backends.nvidia import driver
        from ... import testing_gpu
        if not driver.is_available() or dtype not in _DTYPE_NAMES:
            return None
        props = driver.get_device_properties()
        clock, major = props.get("sm_clock_rate"), props["capability"] // 10
        if not clock:
            return None
        name = _DTYPE_NAMES[dtype]
        if name == "float32" and precision == "ieee":
            return testing_gpu.get_max_simd_tflops(name, clock) * _SIMD_SCALE.get(major, 1)
        return testing_gpu.get_max_tensorcore_tflops(name, clock) * _TENSORCORE_SCALE.get(major, 1)
    except Exception:
        return None


def _runtime_scalars(src, args) -> tuple:
    """The launch's arguments as the TTIR function takes them (constexprs and arguments
    specialised to a constant are not passed), integers and floats kept, tensors None."""
    out = []
    for (ty, _), a in zip(src.specialization(), args):
        if ty == "constexpr":
            continue
        if isinstance(a, numbers.Integral):     # bool and numpy integers too
            out.append(int(a))
        elif isinstance(a, numbers.Real):
            out.append(float(a))
        else:
            out.append(None)
    return tuple(out)


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
            for key, (n, nbytes, shapes) in state["launches"].items():
                results[key] = BenchResult(_typical(result), nbytes / calls, n / calls,
                                           len(state["launches"]), peak, calls, shapes)
            return result
        return wrapper

    def launching(original):
        def run(self, grid, bound_args):
            specialization = getattr(self.src, "specialization", None)
            if active and specialization is not None:
                key = (self.name, str(specialization()))
                n, nbytes, shapes = active[-1]["launches"].get(key, (0, 0, {}))
                if shapes is not None:
                    shape = (tuple(grid), _runtime_scalars(self.src, bound_args))
                    shapes[shape] = shapes.get(shape, 0) + 1
                    if len(shapes) > MAX_LAUNCH_SHAPES:
                        shapes = None
                active[-1]["launches"][key] = (n + 1, nbytes + sum(_nbytes(a) for a in bound_args),
                                               shapes)
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
