"""The CPU backend as the JIT sees it: options, compile (TTIR only) and launch."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Dict, Optional


@dataclass(frozen=True)
class CPUOptions:
    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    debug: bool = False
    enable_fp_fusion: bool = True
    sanitize_overflow: bool = True  # only takes effect with debug, as upstream
    maxnreg: Optional[int] = None
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    backend_name: str = "cpu"

    def __str__(self) -> str:
        return str(tuple(sorted(self.__dict__.items())))

    def hash_items(self):
        return sorted(self.__dict__.items())


class CPUKernel:
    """A compiled specialisation: the TTIR module and how to launch it."""

    def __init__(self, name, module, used_global_vals, options, arg_names=None):
        self.name = name
        self.module = module
        self.used_global_vals = used_global_vals
        self.options = options
        self.metadata = {"name": name, "num_warps": options.num_warps,
                         "num_stages": options.num_stages, "shared": 0, "backend": "cpu"}
        self._asm = None
        self.arg_names = arg_names          # of the runtime (non-constexpr) arguments
        self._written = None
        self._native = None                 # NativeKernel, False when unsupported

    @property
    def asm(self) -> Dict[str, str]:
        if self._asm is None:
            from ...ir.printer import print_module
            self._asm = {"ttir": print_module(self.module)}
            nk = self.native()
            if nk:
                self._asm["llir"] = nk.llir
                self._asm["asm"] = nk.host_asm
        return self._asm

    def native(self):
        """The compiled kernel for this machine, or None when the kernel has an op the
        compiled path does not lower (it then runs on the evaluator; logged at debug)."""
        if self._native is None and self.options.debug:
            # debug=True asks for checks: the evaluator bounds-checks every access and runs
            # device_assert and the overflow checks.
            self._native = False
        if self._native is None:
            from .native import Unsupported, compile_native, log
            from ...ir.printer import print_module
            try:
                self._native = compile_native(self.module, self.name, self.options,
                                              print_module(self.module, debug_info=True))
            except Exception as e:  # noqa: BLE001  (the evaluator can always run it)
                from ...runtime import knobs
                if knobs.cpu_native_strict():
                    raise
                # An op not lowered yet is expected (debug); anything else is a bug of the
                # compiled path, reported, but the kernel still runs.
                level = logging.DEBUG if isinstance(e, Unsupported) else logging.WARNING
                log.log(level, "kernel '%s' runs on the evaluator: %s", self.name, e)
                self._native = False
        return self._native or None

    def run(self, grid, bound_args, specialization):
        args = [a for a, (ty, _) in zip(bound_args, specialization) if ty != "constexpr"]
        if 0 in grid:
            return
        if self._written is None:
            from .readonly import written_args
            from .evaluator import module_plan
            self._written = written_args(module_plan(self.module).funcs[self.name])
        if self._written:
            from .readonly import check_writable
            check_writable(self.name, self._written, args, self.arg_names)
        from ...runtime import knobs
        nk = self.native() if knobs.cpu_path() == "native" else None
        with _host_copies(args) as host_args:
            if nk is not None:
                nk.run(_grid3(grid), host_args)
            else:
                from .launch import launch
                launch(self.module, self.name, grid, host_args)

    def __getitem__(self, grid):
        raise TypeError("a compiled kernel is launched through its @jit function")


def _grid3(grid) -> tuple:
    from .launch import _norm_grid
    return _norm_grid(grid)


class _host_copies:
    """TRITON_INTERPRET=1 with GPU tensors: run on host copies and write results back."""

    def __init__(self, args):
        self.args = args
        self.pairs = []

    def __enter__(self):
        out = []
        for a in self.args:
            dev = getattr(a, "device", None)
            if dev is not None and getattr(dev, "type", "cpu") != "cpu":
                host = a.detach().cpu()
                self.pairs.append((a, host))
                out.append(host)
            else:
                out.append(a)
        return out

    def __exit__(self, *exc):
        for dev_t, host in self.pairs:
            dev_t.copy_(host)
        return False


class CPUBackend:
    name = "cpu"

    def parse_options(self, kw: Dict[str, Any], fn) -> CPUOptions:
        known = CPUOptions.__dataclass_fields__
        opts = {}
        for k, v in kw.items():
            if k in known:
                opts[k] = v
        if "debug" not in opts:
            from ...runtime import knobs
            opts["debug"] = bool(fn.debug) if fn.debug is not None else knobs.debug()
        nw = opts.get("num_warps", 4)
        if not isinstance(nw, int) or nw <= 0 or nw & (nw - 1):
            raise ValueError(f"num_warps must be a power of 2, got {nw!r}")
        return CPUOptions(**opts)

    def device_key(self):
        return "cpu"

    def compile(self, fn, specialization, options) -> CPUKernel:
        from ...frontend.compiler import make_ttir
        module, used = make_ttir(fn, specialization, options)
        names = [n for n, (ty, _) in zip(fn.arg_names, specialization) if ty != "constexpr"]
        kernel = CPUKernel(fn.__name__, module, used, options, names)
        from ...runtime import knobs
        if knobs.kernel_dump():
            from ...ir.printer import print_module
            from ...runtime.cache import _dump, kernel_key
            text = kernel.asm["ttir"]
            _dump(kernel_key(print_module(module, debug_info=True), options, "cpu"),
                  fn.__name__, "ttir", text)
        return kernel
