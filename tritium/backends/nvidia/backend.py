"""The NVIDIA backend as the JIT sees it: options, the stage pipeline, the compiled kernel.

Stages run in upstream's order and under upstream's `asm` keys:
    ttir → ttgir → llir → ptx → cubin   (sass disassembled on demand)
Each stage's text can be dumped (TRITON_KERNEL_DUMP), replaced from a file
(TRITON_KERNEL_OVERRIDE) and is stored in the on-disk cache (runtime/cache.py). A failing
stage raises `StageError` naming the stage and keeping the previous stage's text on disk.
"""
from __future__ import annotations

import functools
import importlib.metadata
import os
import sys
import tempfile
from dataclasses import dataclass, fields
from typing import Any, Dict, Optional



@dataclass(frozen=True)
class CUDAOptions:
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 3
    maxnreg: Optional[int] = None
    cluster_dims: tuple = (1, 1, 1)
    ptx_version: Optional[int] = None
    enable_fp_fusion: bool = True
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    supported_fp8_dtypes: tuple = ("fp8e5", "fp8e4b15", "fp8e4nv")
    deprecated_fp8_dtypes: tuple = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    debug: bool = False
    sanitize_overflow: bool = True  # only takes effect with debug, as upstream
    arch: str = "sm_90a"
    backend_name: str = "cuda"

    def __str__(self) -> str:
        return str(tuple((f.name, getattr(self, f.name)) for f in fields(self)))

    def hash_items(self):
        return sorted((f.name, getattr(self, f.name)) for f in fields(self))


class StageError(RuntimeError):
    """A compiler stage failed; the input of the failing stage is kept for a repro."""

    def __init__(self, stage: str, kernel: str, cause: BaseException, repro_path: Optional[str]):
        self.stage, self.kernel, self.repro_path = stage, kernel, repro_path
        where = f"; its input is kept at {repro_path}" if repro_path else ""
        super().__init__(f"stage '{stage}' failed for kernel {kernel}: "
                         f"{type(cause).__name__}: {cause}{where}")


def _keep_for_repro(kernel: str, stage: str, text) -> Optional[str]:
    try:
        d = tempfile.mkdtemp(prefix=f"tritium-{kernel}-{stage}-")
        path = os.path.join(d, f"{kernel}.{stage}")
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(path, mode) as f:
            f.write(text)
        return path
    except OSError:
        return None


class CUDAKernel:
    """A compiled specialisation: stage texts, metadata, and a lazily loaded launcher."""

    def __init__(self, name: str, asm: Dict[str, Any], metadata: Dict[str, Any],
                 signature: Dict[str, str], used_global_vals):
        self.name = name
        self.asm = _Asm(asm)
        self.metadata = metadata
        self.signature = signature
        self.used_global_vals = used_global_vals
        self.function = None
        self.module = None
        self.n_regs = self.n_spills = None
        self._launch = None

    def _init_handles(self):
        from . import driver
        from .launcher import make_launcher
        self.module, self.function, self.n_regs, self.n_spills = driver.load_binary(
            self.name, self.asm["cubin"], self.metadata["shared"], driver.get_current_device())
        self._launch = make_launcher(self.signature, scratch=self.metadata.get("scratch_args", 0))
        self._num_warps = self.metadata["num_warps"]
        self._shared = self.metadata["shared"]

    def run(self, grid, bound_args, specialization):
        if self._launch is None:
            self._init_handles()
        self._launch(grid[0], grid[1], grid[2], current_stream(), self.function,
                     self._num_warps, self._shared, *bound_args)

    def __getitem__(self, grid):
        raise TypeError("a compiled kernel is launched through its @jit function")


class _Asm(dict):
    """`kernel.asm`: stage texts; `sass` is disassembled from the cubin on first access."""

    def __missing__(self, key):
        if key == "sass" and "cubin" in self:
            from .toolchain import disassemble
            self["sass"] = disassemble(self["cubin"])
            return self["sass"]
        raise KeyError(key)


class CUDABackend:
    name = "cuda"

    def __init__(self):
        from . import driver
        self.driver = driver
        self._capability = None

    @property
    def capability(self) -> int:
        if self._capability is None:
            major, minor = self.driver.get_device_capability()
            self._capability = major * 10 + minor
        return self._capability

    def parse_options(self, kw: Dict[str, Any], fn) -> CUDAOptions:
        known = CUDAOptions.__dataclass_fields__
        opts = {k: v for k, v in kw.items() if k in known and v is not None}
        if "debug" not in opts:
            from ...runtime import knobs
            opts["debug"] = bool(fn.debug) if fn.debug is not None else knobs.debug()
        nw = opts.get("num_warps", 4)
        if not isinstance(nw, int) or nw <= 0 or nw & (nw - 1):
            raise ValueError(f"num_warps must be a power of 2, got {nw!r}")
        cap = self.capability
        opts.setdefault("arch", f"sm_{cap}a" if cap >= 90 else f"sm_{cap}")
        return CUDAOptions(**opts)

    def device_key(self):
        return ("cuda", current_device())

    def hash(self) -> str:
        """What decides the code besides the kernel and its options: the device the
        stages target and the versions of ptxas and LLVM (part of the disk cache's key)."""
        from .toolchain import find_ptxas, tool_version
        try:
            ptxas = tool_version(find_ptxas())
        except FileNotFoundError:  # a TRITON_PTXAS_PATH that is not there
            ptxas = None
        return f"sm{self.capability}-ptxas{ptxas}-llvmlite{_llvmlite_version()}"

    def compile(self, fn, specialization, options: CUDAOptions) -> CUDAKernel:
        from ...runtime.cache import compile_cached
        return compile_cached(self, fn, specialization, options)

    # -- the stages (each takes the previous stage's product) -----------------------------
    def make_ttir(self, fn, specialization, options):
        from ...frontend.compiler import make_ttir
        return make_ttir(fn, specialization, options, lower_block_pointers=True)

    def make_ttgir(self, module, options):
        from ...gpu.pipeline import make_ttgir
        return make_ttgir(module, num_warps=options.num_warps, threads_per_warp=32,
                          num_ctas=options.num_ctas, target=f"cuda:{self.capability}",
                          num_stages=options.num_stages)

    def make_llir(self, module, options):
        from .lowering import make_llir
        return make_llir(module, capability=self.capability)

    def make_ptx(self, llir: str, options):
        from .llvm import llir_to_ptx
        return llir_to_ptx(llir, arch=options.arch, ptx_version=options.ptx_version,
                           enable_fp_fusion=options.enable_fp_fusion)

    def make_cubin(self, ptx: str, options):
        from .toolchain import make_cubin
        return make_cubin(ptx, arch=options.arch, enable_fp_fusion=options.enable_fp_fusion,
                          maxnreg=options.maxnreg)


@functools.lru_cache(maxsize=1)
def _llvmlite_version() -> Optional[str]:
    try:
        return importlib.metadata.version("llvmlite")
    except importlib.metadata.PackageNotFoundError:
        return None


_BACKEND = None
_TORCH_C = None


def _torch_c():
    """torch._C once torch is loaded: its raw device/stream getters cost ~0.1 us each, a
    fraction of the Python-level torch.cuda calls, and launches call them every time."""
    global _TORCH_C
    if _TORCH_C is None:
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch._C, "_cuda_getCurrentRawStream"):
            _TORCH_C = torch._C
    return _TORCH_C


def current_device() -> int:
    c = _torch_c()
    if c is not None:
        return c._cuda_getDevice()
    from . import driver
    return driver.get_current_device()


def current_stream() -> int:
    c = _torch_c()
    if c is not None:
        return c._cuda_getCurrentRawStream(c._cuda_getDevice())
    from . import driver
    return driver.get_current_stream()



def cuda_backend() -> CUDABackend:
    global _BACKEND
    if _BACKEND is None:
        _BACKEND = CUDABackend()
    return _BACKEND
