"""The CPU backend's driver: the CPU is a device like any other. Its binary is the TTIR
module with, when the kernel was compiled, its object code (`compiler.CPUBinary`). The
launcher calls the compiled kernel on a thread pool (`native/launcher.py`), or evaluates
the TTIR for every program of the grid (`launch.py`) when there is no object code or the
evaluator is asked for (TRITON_INTERPRET=1, TRITIUM_CPU_PATH=evaluator). Work on it is timed
with the wall clock."""
from __future__ import annotations

import os
import time

from ..compiler import GPUTarget
from ..driver import DriverBase
from .compiler import CPUBinary, NoUsage
from .launch_knobs import launch_knobs
from .native.launcher import OffHost
from .readonly import check_writable


class _Utils:
    def load_binary(self, name, kernel, shared=0, device=0):
        """(module, function, n_regs, n_spills, n_max_threads): a CPU program holds no GPU
        registers (`NoUsage`: 0, which grid-sizing code can divide by). `kernel` is a
        `CPUBinary` or TTIR (module or text); the function is a `CPUFunction`."""
        ttir, obj = kernel if isinstance(kernel, CPUBinary) else (kernel, b"")
        if isinstance(ttir, (str, bytes)):
            from ...ir.parser import parse_module
            ttir = parse_module(ttir.decode() if isinstance(ttir, bytes) else ttir)
        return ttir, CPUFunction(ttir, name, obj), NoUsage(), 0, 1 << 30

    def get_device_properties(self, device=None):
        return {"max_shared_mem": 0, "multiprocessor_count": os.cpu_count() or 1,
                "warpSize": 32, "max_num_regs": 65536, "sm_clock_rate": 0,
                "mem_clock_rate": 0, "mem_bus_width": 0}


class CPUFunction:
    """A loaded CPU kernel: its TTIR module and name (what the evaluator runs), the object
    code, loaded on first use into `native` (a `native.NativeKernel`, None when there is no
    object code), and which arguments it stores through (for the read-only check)."""

    def __init__(self, module, name, obj=b""):
        self.module, self.name, self.obj = module, name, obj
        self._native = None  # loaded (or found missing, False) on the first launch
        self._written = None

    def native(self, metadata):
        if self._native is None:
            from .native import load
            self._native = load(self.obj, self.name, metadata) or False
        return self._native or None

    def written(self):
        if self._written is None:
            from .evaluator import module_plan
            from .readonly import written_args
            self._written = written_args(module_plan(self.module).funcs[self.name])
        return self._written


class CPULauncher:
    """Launches a kernel on the CPU: compiled when it has object code (and the evaluator is
    not asked for), else on the evaluator. Constexpr arguments are dropped by position (the
    source's signature), so `k[grid](*all_args)` works as on a GPU."""

    def __init__(self, src, metadata):
        from ..params import has_tuples, runtime_params
        sig = getattr(src, "signature", None) or {}
        types = list(sig.values())
        consts = getattr(src, "constants", {}) or {}
        params = runtime_params(sig, consts)
        # Tuple arguments are flattened through their leaves' paths (backends/params.py).
        self.paths = [p.path for p in params] if has_tuples(sig) else None
        self.keep = [p.path[0] for p in params]
        self.descs = {i for i, p in enumerate(params) if p.type.startswith("tensordesc")}
        self.all_runtime = self.paths is None and len(self.keep) == len(types)
        self.min_args = self.keep[-1] + 1 if self.keep else 0   # through the last runtime one
        self.names = [p.name for p in params]
        self.metadata = metadata
        self._hot = None   # (function, native kernel, written args) once seen plain

    def __getstate__(self):
        # (Inductor pickles kernels, launchers included: the short path is remade on use)
        return dict(self.__dict__, _hot=None)

    def launch(self, grid, args, function) -> None:
        if 0 in grid:
            return
        hot = self._hot
        if hot is not None and hot[0] is function and len(args) >= self.min_args:
            # The common launch (Inductor's, the JIT's) without the general path's checks:
            # compiled code, no prints or asserts, plain arguments. ~1 us of ~7 on a VM.
            rt = args if self.all_runtime else [args[i] for i in self.keep]
            if hot[2]:
                check_writable(function.name, hot[2], rt, self.names)
            kn = launch_knobs()
            if kn.compiled:
                try:
                    hot[1].run(grid, rt, kn)
                    return
                except OffHost:   # (raised before anything ran) through the general path
                    pass
        self._launch(grid, args, function)

    def _launch(self, grid, args, function) -> None:
        if not isinstance(function, CPUFunction):  # (module, name) from a caller of its own
            function = CPUFunction(function[0], function[1])
        if self.paths is not None:
            from ..params import arg_at
            args = [arg_at(args, p) for p in self.paths]
        elif not self.all_runtime:
            if len(args) < self.min_args:
                raise TypeError(f"kernel '{function.name}' needs at least {self.min_args} "
                                f"arguments (through '{self.names[-1]}'), got {len(args)}")
            args = [args[i] for i in self.keep]
        names = self.names
        if self.descs:
            is_desc = [i in self.descs for i in range(len(args))]
            if names is not None:  # a descriptor's name stands for its shape and strides too
                names = [m for n, d, a in zip(names, is_desc, args)
                         for m in [n] * (1 + (2 * len(a.shape) if d else 0))]
            args = _expand_descriptors(args, is_desc)
        written = function.written()
        if written:
            check_writable(function.name, written, args, names)
        kn = launch_knobs()
        nk = function.native(self.metadata) if kn.compiled else None
        if nk is not None and self.paths is None and not self.descs and not nk.sites:
            self._hot = (function, nk, written)
        if nk is not None and not self.descs:
            try:
                nk.run(grid, args, kn)
                return
            except OffHost:  # (raised before anything ran) GPU tensors: on host copies
                pass
        with _host_copies(args) as host_args:
            if nk is not None:
                if self.descs:
                    from .native.prepare import descriptor_args
                    host_args = descriptor_args(host_args)
                nk.run(grid, host_args, kn)
            else:
                from .launch import launch
                launch(function.module, function.name, grid, host_args)

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata,
                 enter_hook, exit_hook, *args):
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        self.launch((gridX, gridY, gridZ), args, function)
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)


def _expand_descriptors(args, is_desc):
    """A tensor descriptor argument is followed by its shape (i32s) and strides (i64s), as
    the kernel's TTIR signature has them."""
    out = []
    for a, d in zip(args, is_desc):
        out.append(a)
        if d:
            out.extend(list(a.shape) + list(a.strides))
    return out


class _host_copies:
    """TRITON_INTERPRET=1 with GPU tensors: run on host copies and write results back."""

    def __init__(self, args):
        self.args = args
        self.pairs = []

    def __enter__(self):
        return [self._host(a) for a in self.args]

    def _host(self, a):
        if type(a).__name__ == "TensorDescriptor":     # the same descriptor over a host copy
            base = self._host(a.base)
            if base is a.base:
                return a
            import dataclasses
            return dataclasses.replace(a, base=base)
        dev = getattr(a, "device", None)
        if dev is not None and getattr(dev, "type", "cpu") != "cpu":
            host = a.detach().cpu()
            self.pairs.append((a, host))
            return host
        return a

    def __exit__(self, *exc):
        for dev_t, host in self.pairs:
            dev_t.copy_(host)
        return False


class _WallClockEvent:
    def __init__(self, enable_timing=True):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end) -> float:
        return (end.t - self.t) * 1e3

    def synchronize(self):
        pass


class _CPUDeviceInterface:
    """What benchmarking code asks of `torch.cuda`, answered for the CPU."""
    Event = _WallClockEvent

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def is_available():
        return True


class CPUDriver(DriverBase):
    def __init__(self):
        self.utils = _Utils()
        self.launcher_cls = _Launcher

    @staticmethod
    def target_name() -> str:
        return "cpu"

    @classmethod
    def should_activate(cls) -> bool:
        return True  # the fallback: chosen when no other driver is active

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", 0, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device) -> None:
        pass

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_device_interface(self):
        return _CPUDeviceInterface

    def get_empty_cache_for_benchmark(self):
        import numpy as np
        return np.empty(0, np.int8)

    def clear_cache(self, cache) -> None:
        pass

    def get_benchmarker(self):
        from functools import partial
        from ...testing import do_bench
        return partial(do_bench, device="cpu")

    def is_cuda(self) -> bool:
        return False


def _Launcher(src, metadata):
    return CPULauncher(src, metadata)
