"""The CPU backend as the JIT sees it: options, compile (TTIR only) and launch."""
from __future__ import annotations

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

    def __init__(self, name, module, used_global_vals, options):
        self.name = name
        self.module = module
        self.used_global_vals = used_global_vals
        self.options = options
        self.metadata = {"name": name, "num_warps": options.num_warps,
                         "num_stages": options.num_stages, "shared": 0, "backend": "cpu"}
        self._asm = None

    @property
    def asm(self) -> Dict[str, str]:
        if self._asm is None:
            from ...ir.printer import print_module
            self._asm = {"ttir": print_module(self.module)}
        return self._asm

    def run(self, grid, bound_args, specialization):
        from .launch import launch
        args = []
        for a, (ty, _) in zip(bound_args, specialization):
            if ty == "constexpr":
                continue
            args.append(a)
            if ty.startswith("tensordesc"):       # its shape (i32s) and strides (i64s) follow
                args.extend(list(a.shape) + list(a.strides))
        if 0 in grid:
            return
        with _host_copies(args) as host_args:
            launch(self.module, self.name, grid, host_args)

    def __getitem__(self, grid):
        raise TypeError("a compiled kernel is launched through its @jit function")


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
        kernel = CPUKernel(fn.__name__, module, used, options)
        from ...runtime import knobs
        if knobs.kernel_dump():
            from ...ir.printer import print_module
            from ...runtime.cache import _dump, kernel_key
            text = kernel.asm["ttir"]
            _dump(kernel_key(print_module(module, debug_info=True), options, "cpu"),
                  fn.__name__, "ttir", text)
        return kernel
