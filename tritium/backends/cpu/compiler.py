"""The CPU backend's compiler side: options and its stages. "ttir" (the TTIR passes) always;
then, when kernels run compiled (`knobs.cpu.compiled()`, and not with debug=True, which asks
for the evaluator's checks), "llir" (TTIR lowered for the host) and "obj" (LLVM's machine
code for this CPU, `native/`). The driver (`driver.py`) runs the object code, or evaluates
the TTIR module with numpy when there is none or the evaluator is asked for."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from ..compiler import BaseBackend, GPUTarget, Language, check_num_warps, inspect_stages


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
    # Accepted as upstream's GPU backends take it, as `(name, path)` pairs; nothing is
    # linked: the CPU backend computes libdevice's functions itself (upstream's interpreter
    # ignores the option too).
    extern_libs: Optional[tuple] = None
    # Upstream's: a .ttir (or .ttgir, layouts dropped), .llir or .obj file whose IR replaces
    # that stage's output (`compiler/ir_override.py`); .llir/.obj on the compiled path only.
    ir_override: Optional[str] = None

    def __str__(self) -> str:
        return str(tuple(sorted(self.__dict__.items())))

    def hash_items(self):
        return sorted(self.__dict__.items())


class NoUsage(int):
    """0, for a GPU resource (registers, shared memory) a CPU program does not use. Code
    written for GPUs sizes grids by dividing a device's capacity by a kernel's usage
    (upstream's tutorial 02: `SIZE_SMEM // kernel.metadata.shared`); divided by `NoUsage`
    a capacity gives a bound too large to ever limit, instead of ZeroDivisionError."""
    UNBOUNDED = 1 << 31

    def __new__(cls):
        return super().__new__(cls, 0)

    def __mul__(self, other):
        return self if isinstance(other, int) else int.__mul__(self, other)

    __rmul__ = __mul__

    def __rfloordiv__(self, other):
        return self.UNBOUNDED

    def __rtruediv__(self, other):
        return float("inf")

    def __reduce__(self):  # pickled with the metadata (Inductor's compile workers)
        return NoUsage, ()

    def __repr__(self) -> str:
        return "0"


def make_ttir(module, metadata, options):
    """The TTIR stage: inline, canonicalize, combine, CSE, LICM, ... (upstream's order).
    A TTGIR file (`IRSource`) enters here too, its layouts dropped first (`from_ttgir`)."""
    from ...passes import make_ttir_pipeline
    from .from_ttgir import has_layouts, strip_layouts
    if has_layouts(module):
        strip_layouts(module)
    make_ttir_pipeline().run(module)
    metadata["shared"] = NoUsage()
    return module


def make_gluon_ttgir(module):
    """Gluon's TTGIR stage without the GPU's shared-memory allocation."""
    from ...gpu.pipeline import make_gluon_ttgir as gluon_stage
    return gluon_stage(module, shared_memory=False)


class CPUBinary(NamedTuple):
    """What the CPU driver loads: the TTIR (module or text) and the object code (b"": none)."""
    ttir: object
    obj: bytes


def compiled_stages(options) -> bool:
    import tritium.knobs as knobs
    return knobs.cpu.compiled()


class CPUBackend(BaseBackend):
    binary_ext = "ttir"
    # An IR file of a kind with no stage here enters at this stage: a TTGIR file
    # (`compile(IRSource("k.ttgir"))`) runs from "ttir" on, which drops its layouts.
    ir_entry = {"ttgir": "ttir"}

    def __init__(self, target: Optional[GPUTarget] = None):
        super().__init__(target or GPUTarget("cpu", 0, 32))

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cpu"

    def hash(self) -> str:
        # Object code is for this CPU: its triple, name and features are part of the key.
        from .native.jit import host_key
        return f"cpu:{host_key()}"

    def get_target_name(self, options) -> str:
        return "cpu"

    def parse_options(self, options: dict) -> CPUOptions:
        known = CPUOptions.__dataclass_fields__
        opts = {k: v for k, v in dict(options).items() if k in known and v is not None}
        check_num_warps(opts)
        libs = opts.get("extern_libs")
        if libs is not None:
            libs = libs.items() if isinstance(libs, dict) else libs
            opts["extern_libs"] = tuple((str(n), str(p)) for n, p in libs)
        return CPUOptions(**opts)

    def add_stages(self, stages: dict, options, language=Language.TRITON) -> None:
        if language == Language.GLUON:
            # A Gluon kernel's TTGIR (its layouts resolved, as on a GPU), then run without
            # them: the CPU holds a program's whole block, so a layout says nothing it needs.
            stages["ttgir"] = lambda src, metadata: make_gluon_ttgir(src)
        stages["ttir"] = lambda src, metadata: make_ttir(src, metadata, options)
        if compiled_stages(options):
            from . import native
            stages["llir"] = native.make_llir
            stages["obj"] = native.make_obj
        inspect_stages(self, stages, options, language, None)

    def binary(self, asm, products) -> CPUBinary:
        return CPUBinary(products.get("ttir", asm.get("ttir")), asm.get("obj") or b"")

    def disassemble(self, key: str, asm):
        """`kernel.asm["asm"]`: the host assembly of the compiled kernel."""
        if key == "asm" and asm.get("llir"):
            from .native import host_asm
            return host_asm(asm["llir"])
        return None

    def pack_metadata(self, metadata):
        # Metadata that went through JSON (the disk cache, with the compiled stages) has
        # `shared` back as a plain 0: make it `NoUsage` again.
        if not metadata.get("shared"):
            metadata["shared"] = NoUsage()
        return (metadata.get("num_warps", 4), metadata.get("num_ctas", 1), 0)
