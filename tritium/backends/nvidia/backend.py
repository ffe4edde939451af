"""The NVIDIA backend's compiler side: options and the stage pipeline (`add_stages`).

Stages run in upstream's order and under upstream's `asm` keys:
    ttir → ttgir → llir → ptx → cubin   (sass disassembled on demand)
The compiler driver (`tritium/compiler`) runs them, dumps (TRITON_KERNEL_DUMP), overrides
(TRITON_KERNEL_OVERRIDE), caches them on disk and raises `StageError` naming a failing
stage. Nothing here touches a device: the target (`GPUTarget("cuda", 90, 32)`) says what
the code is for, so compiling works on a machine without a GPU. Loading and launching are
the driver's (`driver.py`, `launcher.py`).
"""
from __future__ import annotations

import functools
import importlib.metadata
import os
import re
from dataclasses import dataclass, fields
from typing import Any, Dict, Optional  # noqa: F401

from ..compiler import BaseBackend, GPUTarget, Language, check_num_warps, inspect_stages


@dataclass(frozen=True)
class CUDAOptions:
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 3
    maxnreg: Optional[int] = None
    cluster_dims: tuple = (1, 1, 1)
    ptx_version: Optional[int] = None
    enable_fp_fusion: bool = True
    # libdevice's flush-to-zero variants (`nvvm-reflect-ftz`), as upstream's option
    enable_reflect_ftz: bool = True
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    supported_fp8_dtypes: tuple = ("fp8e5", "fp8e4b15", "fp8e4nv")
    deprecated_fp8_dtypes: tuple = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 2 ** 30  # Hopper's; parse_options lowers it elsewhere
    debug: bool = False
    sanitize_overflow: bool = True  # only takes effect with debug, as upstream
    # upstream's spelling, "sm90" (TRITON_OVERRIDE_ARCH / `arch=`): what the stages compile
    # for, which may differ from the target's device (`ptx_arch` is ptxas' name for it)
    arch: str = "sm90"
    backend_name: str = "cuda"
    # Bitcode libraries linked into kernels that call external functions, as upstream:
    # `(name, path)` pairs; libdevice's is always there (the one found when not given).
    extern_libs: Optional[tuple] = None
    # Upstream's: the path of a .ttir/.ttgir/.llir/.ptx/.cubin file whose IR replaces that
    # stage's output (the compiler driver applies it, `compiler/ir_override.py`).
    ir_override: Optional[str] = None

    def __str__(self) -> str:
        return str(tuple((f.name, getattr(self, f.name)) for f in fields(self)))

    @property
    def capability(self) -> int:
        return parse_arch(self.arch)

    @property
    def ptx_arch(self) -> str:
        """ptxas' and LLVM's name of the arch: sm_90a from Hopper on (its wgmma/TMA
        instructions need the `a` features), sm_80 before."""
        cap = self.capability
        return f"sm_{cap}a" if cap >= 90 else f"sm_{cap}"

    def hash_items(self):
        return sorted((f.name, getattr(self, f.name)) for f in fields(self))


class CUDABackend(BaseBackend):
    binary_ext = "cubin"
    # Stages another program runs (ptxas): a compile there leaves its slot in this process
    # to the next one (compiler/workers.py).
    subprocess_stages = ("cubin",)

    def __init__(self, target: Optional[GPUTarget] = None):
        if target is None:  # the current device's
            from . import driver
            major, minor = driver.get_device_capability()
            target = GPUTarget("cuda", major * 10 + minor, 32)
        super().__init__(target)
        self._capability = int(target.arch)

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cuda"

    @property
    def capability(self) -> int:
        return self._capability

    def parse_options(self, options: dict) -> CUDAOptions:
        import tritium.knobs as knobs
        known = CUDAOptions.__dataclass_fields__
        opts = {k: v for k, v in dict(options).items() if k in known and v is not None}
        check_num_warps(opts)
        # As upstream: the arch compiled for is TRITON_OVERRIDE_ARCH, else the `arch`
        # option, else the target's; everything below follows it, not the device.
        opts["arch"] = canonical_arch(opts.get("arch") or knobs.runtime.override_arch
                                      or f"sm{self.capability}")
        cap = parse_arch(opts["arch"])
        if opts.get("num_ctas", 1) > 1 and cap < 90:
            raise ValueError(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper). Current target is "
                             f"sm_{cap}. This configuration will fail. Please set num_ctas=1 "
                             f"or target an SM90+ GPU.")
        if cap < 89:  # fp8e4nv (e4m3) conversions need sm_89
            opts.setdefault("supported_fp8_dtypes", ("fp8e4b15", "fp8e5"))
        opts.setdefault("enable_fp_fusion", knobs.language.default_fp_fusion)
        # fp8 dots on Hopper accumulate in the tensor cores' own (reduced-precision) sums
        # unless asked otherwise, as upstream: a partial sum is added into an fp32
        # accumulator every max_num_imprecise_acc K elements.
        if cap != 90:
            opts.setdefault("max_num_imprecise_acc_default", 0)
        for k in ("cluster_dims", "supported_fp8_dtypes", "deprecated_fp8_dtypes",
                  "allowed_dot_input_precisions"):
            if isinstance(opts.get(k), list):  # options read back from JSON
                opts[k] = tuple(opts[k])
        opts["extern_libs"] = extern_libs_option(opts.get("extern_libs"))
        return CUDAOptions(**opts)

    def hash(self) -> str:
        """What decides the code besides the kernel and its options: the device the
        stages target and the versions of ptxas and LLVM (part of the disk cache's key)."""
        from .toolchain import find_ptxas, tool_version
        try:
            ptxas = tool_version(find_ptxas())
        except FileNotFoundError:  # a TRITON_PTXAS_PATH that is not there
            ptxas = None
        from .lowering.reduce import shuffle_tree_enabled
        tree = "-rtree" if shuffle_tree_enabled() else ""
        from .llvm import extra_options
        opts = extra_options()
        llvm_opts = f"-llvm[{opts}]" if opts else ""
        return f"sm{self.capability}-ptxas{ptxas}-llvmlite{_llvmlite_version()}{tree}{llvm_opts}"

    def add_stages(self, stages: dict, options, language=Language.TRITON) -> None:
        # Late-bound (`self.make_*`), so a stage can be swapped on the class or instance.
        if language == Language.GLUON:
            # A Gluon kernel arrives as TTGIR in the user's layouts: no TTIR stage, and
            # none of the layout-choosing TTGIR passes (upstream's gluon pipeline).
            stages["ttgir"] = lambda src, metadata: self.make_gluon_ttgir(src, options)
        else:
            stages["ttir"] = lambda src, metadata: self.make_ttir(src, metadata, options)
            stages["ttgir"] = lambda src, metadata: self.make_ttgir(src, options)
        stages["llir"] = lambda src, metadata: _with_info(self.make_llir(src, options), metadata)
        stages["ptx"] = lambda src, metadata: self.make_ptx(src, options)
        stages["cubin"] = lambda src, metadata: _cubin_with_info(self.make_cubin(src, options),
                                                                 metadata)
        inspect_stages(self, stages, options, language, self.capability)

    def worker_env(self) -> dict:
        """What a compile worker's environment needs to make this process's binaries: the
        ptxas found here. A worker is another interpreter, without compat installed, so its
        own search could find another one (upstream Triton's bundled ptxas, through the
        real `triton` package, where this process sees compat's)."""
        from .toolchain import find_ptxas
        if os.environ.get("TRITON_PTXAS_PATH"):
            return {}
        try:
            path = find_ptxas()
        except FileNotFoundError:
            return {}
        return {"TRITON_PTXAS_PATH": path} if path else {}

    def compile_in_worker(self) -> bool:
        """Whether a compile worker (compiler/workers.py), given only the target and the
        options, makes the stages this instance runs: not when a stage was swapped in on
        the instance or a subclass."""
        return type(self) is CUDABackend and not any(
            name in vars(self) for name in _STAGE_METHODS) and all(
            getattr(CUDABackend, name) is _OWN_STAGES[name] for name in _STAGE_METHODS)

    def pack_metadata(self, metadata):
        return (metadata["num_warps"], metadata.get("num_ctas", 1), metadata.get("shared", 0))

    def disassemble(self, key, asm):
        """`asm["sass"]`, from the cubin on first access."""
        if key == "sass" and "cubin" in asm:
            from .sass import format_sass
            from .toolchain import disassemble
            return format_sass(disassemble(asm["cubin"]))  # upstream's format
        return None

    # -- the stages (each takes the previous stage's product) -----------------------------
    def make_ttir(self, module, metadata, options):
        from ...passes import make_ttir_pipeline
        from ...gpu import passes as _gpu_passes  # noqa: F401  (registers keep-tma-descriptors)
        make_ttir_pipeline(rewrite_tensor_pointer=True, tma=options.capability >= 90).run(module)
        return module

    def make_ttgir(self, module, options):
        from ...gpu.pipeline import make_ttgir
        return make_ttgir(module, num_warps=options.num_warps, threads_per_warp=32,
                          num_ctas=options.num_ctas, target=f"cuda:{options.capability}",
                          num_stages=options.num_stages)

    def make_gluon_ttgir(self, module, options):
        from ...gpu.pipeline import make_gluon_ttgir
        return make_gluon_ttgir(module)

    def get_target_name(self, options) -> str:
        """The module's `ttg.target` (upstream's name for it)."""
        return f"cuda:{options.capability}"

    def make_llir(self, module, options):
        from .lowering import make_llir
        from .llvm import written_ptx_version
        return make_llir(module, capability=options.capability,
                         ptx_version=written_ptx_version(options.ptx_arch, options.ptx_version),
                         maxnreg=options.maxnreg)

    def make_ptx(self, llir: str, options):
        from .llvm import llir_to_ptx
        return llir_to_ptx(llir, arch=options.ptx_arch, ptx_version=options.ptx_version,
                           enable_fp_fusion=options.enable_fp_fusion,
                           enable_reflect_ftz=options.enable_reflect_ftz,
                           extern_libs=options.extern_libs or ())

    def make_cubin(self, ptx: str, options):
        from .toolchain import make_cubin
        return make_cubin(ptx, arch=options.ptx_arch, enable_fp_fusion=options.enable_fp_fusion,
                          maxnreg=options.maxnreg)


_STAGE_METHODS = ("add_stages", "make_ttir", "make_ttgir", "make_gluon_ttgir", "make_llir", "make_ptx", "make_cubin")
_OWN_STAGES = {name: CUDABackend.__dict__[name] for name in _STAGE_METHODS}


_ARCH = re.compile(r"sm_?(\d+)a?")


def parse_arch(arch: str) -> int:
    """The compute capability of an arch name: upstream's "sm90" (also ptxas' "sm_90a")."""
    m = _ARCH.fullmatch(str(arch))
    if m is None:
        raise ValueError(f"TRITON_OVERRIDE_ARCH must have the form ^sm(\\d+)$, got {arch!r}")
    return int(m.group(1))


def canonical_arch(arch: str) -> str:
    return f"sm{parse_arch(arch)}"


def extern_libs_option(value) -> tuple:
    """Upstream's `extern_libs` option as a hashable tuple of `(name, path)` pairs: a dict
    or pairs (a tuple read back from JSON comes as lists); libdevice added when missing."""
    libs = dict(value.items() if isinstance(value, dict) else (tuple(p) for p in value or ()))
    for name, path in libs.items():
        if not isinstance(name, str) or not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"extern_libs: expected {{name: path of a bitcode file}}, got "
                            f"{name!r}: {path!r}")
    if not libs.get("libdevice"):
        from .llvm import find_libdevice
        found = find_libdevice()
        if found:
            libs["libdevice"] = found
    return tuple((name, os.fspath(path)) for name, path in libs.items())


@functools.lru_cache(maxsize=1)
def _llvmlite_version() -> Optional[str]:
    try:
        return importlib.metadata.version("llvmlite")
    except importlib.metadata.PackageNotFoundError:
        return None


def _with_info(product, metadata):
    """A stage may return (text, {metadata}); the metadata joins the kernel's."""
    if isinstance(product, tuple):
        product, info = product
        metadata.update(info)
    metadata.setdefault("shared", 0)
    return product


def _cubin_with_info(product, metadata):
    if isinstance(product, tuple):
        product, info = product
        metadata.update({"n_regs": getattr(info, "registers", None),
                         "n_spills": getattr(info, "spills", None)})
    return product
