"""Compile one specialisation stage by stage, keeping what each stage and each pass did.

The stages are the backend's own, from its `add_stages` (codegen through the
`ASTSource`, then the TTIR pipeline, TTGIR, the lowering, llvmlite, ptxas), run in order
as the compiler driver runs them; a pass observer (`passes.manager.observing_passes`)
sees each pass, so each pass's time and IR change are kept. Nothing is launched and no
device is asked, so `sm_90a` works without a GPU. The LLIR is lowered with line info
(`!dbg`), the only difference from a normal compile (it changes no machine code); ptxas gets
`-lineinfo` either way. On the CPU's compiled path the object code is shown as host
assembly, linked through the same line table.
"""
from __future__ import annotations

import difflib
import re
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ...passes.manager import observing_passes
from . import sourcemap
from .sourcemap import Mapped, SourceSpan

OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "enable_fp_fusion",
                "ptx_version", "default_dot_input_precision", "max_num_imprecise_acc_default",
                "sanitize_overflow")


@dataclass
class PassRun:
    stage: str
    label: str
    ms: float
    diff: str = ""          # unified diff of the printed IR; '' when the pass changed nothing
    added: int = 0
    removed: int = 0


@dataclass
class KernelRecord:
    """Everything one kernel page shows."""
    name: str
    target: str
    file: str
    first_line: int
    source: List[str]
    signature: str
    options: Dict[str, Any]
    stages: Dict[str, Mapped] = field(default_factory=dict)
    passes: List[PassRun] = field(default_factory=list)
    layouts: List[dict] = field(default_factory=list)
    resources: Dict[str, Any] = field(default_factory=dict)
    stage_ms: Dict[str, float] = field(default_factory=dict)
    explain_ms: float = 0.0   # time spent on the page's own work (printing, diffs, maps)
    bench: Any = None         # bench.BenchResult when the script timed it with do_bench
    error: Optional[str] = None

    @property
    def compile_ms(self) -> float:
        return sum(self.stage_ms.values())


def _gpu_target(target: str):
    from ...backends.compiler import GPUTarget
    if target == "cpu":
        return GPUTarget("cpu", 0, 32)
    return GPUTarget("cuda", capability_of(target), 32)


def _explaining_backend(target: str):
    """A backend of its own for `target` (no device asked, whatever the machine has): the
    backend's own stages, except that the LLIR carries line info (`!dbg`) and the ptxas
    report is kept for the page."""
    gpu_target = _gpu_target(target)
    if gpu_target.backend == "cpu":
        from ...backends.cpu.compiler import CPUBackend

        class ExplainCPUBackend(CPUBackend):
            def add_stages(self, stages, options, *language):
                super().add_stages(stages, options, *language)
                if "llir" in stages:   # the compiled path
                    from ...backends.cpu import native
                    stages["llir"] = lambda src, md: native.make_llir(src, md, line_info=True)

        return ExplainCPUBackend(gpu_target)
    from ...backends.nvidia.backend import CUDABackend

    class ExplainCUDABackend(CUDABackend):
        ptxas_info = None

        def make_llir(self, module, options):
            from ...backends.nvidia.lowering import make_llir
            from ...backends.nvidia.llvm import written_ptx_version
            return make_llir(module, capability=options.capability, line_info=True,
                             ptx_version=written_ptx_version(options.ptx_arch, options.ptx_version),
                             maxnreg=options.maxnreg)

        def make_cubin(self, ptx, options):
            cubin, self.ptxas_info = super().make_cubin(ptx, options)
            return cubin, self.ptxas_info

    return ExplainCUDABackend(gpu_target)


def _parse_options(fn, backend, target: str, meta: Dict[str, Any]):
    """The backend's own option parsing (defaults, checks), with the kernel's `debug` as
    the JIT sets it."""
    meta = {k: v for k, v in meta.items() if k in OPTION_NAMES and v is not None}
    if "debug" not in meta:
        from ...runtime import knobs
        meta["debug"] = bool(fn.debug) if fn.debug is not None else knobs.debug()
    if target != "cpu":
        meta["arch"] = target
    return backend.parse_options(meta)


def capability_of(target: str) -> int:
    m = re.fullmatch(r"sm_(\d+)[af]?", target)
    if m is None:
        raise ValueError(f"target must be 'cpu' or an NVIDIA arch such as 'sm_90a', got {target!r}")
    return int(m.group(1))


class _Clock:
    """Adds up the compiler's own time per stage (the rest of the wall time is the page's)."""

    def __init__(self, record: KernelRecord):
        self.record = record

    def stage(self, name: str, t0: float, less_ms: float = 0.0) -> None:
        ms = (time.perf_counter() - t0) * 1e3 - less_ms
        self.record.stage_ms[name] = self.record.stage_ms.get(name, 0.0) + ms


def _source_of(fn):
    lines = fn.src.splitlines()
    return lines, fn.starting_line_number


def _arg_text(ty: str, key) -> str:
    """One argument of a specialisation as the page shows it (upstream's `D` and `1` keys)."""
    if ty == "constexpr":
        return f"={key!r}"
    if key == "D":
        return ty + (" (16-byte aligned)" if ty.startswith("*") else " (multiple of 16)")
    return ty + (" (== 1)" if key == 1 else "")


def new_record(fn, specialization, target: str, options) -> KernelRecord:
    lines, first = _source_of(fn)
    sig = ", ".join(f"{n}: {_arg_text(ty, key)}" for n, (ty, key) in zip(fn.arg_names, specialization))
    opts = {k: getattr(options, k) for k in OPTION_NAMES if hasattr(options, k)}
    return KernelRecord(fn.__name__, target, fn.file_name, first, lines, sig, opts)


def capture(fn, specialization, meta: Optional[Dict[str, Any]] = None,
            target: str = "cpu", bench=None) -> KernelRecord:
    """Compile `fn` for one specialisation (the JIT's per-argument tuples) for `target`
    ('cpu' or an NVIDIA arch such as 'sm_90a') and record every stage. A failing stage
    ends the record early with `error` set; the stages before it are kept. `bench`: the
    kernel's `bench.BenchResult` from the script, whose dot FLOPs are counted on the TTIR."""
    backend = _explaining_backend(target)
    options = _parse_options(fn, backend, target, dict(meta or {}))
    record = new_record(fn, specialization, target, options)
    record.bench = bench
    span = SourceSpan(fn.file_name, record.first_line, record.first_line + len(record.source) - 1)
    clock = _Clock(record)
    t_all = time.perf_counter()
    try:
        _run_stages(fn, specialization, backend, options, record, span, clock)
    except Exception as exc:  # the page shows what was reached and why it stopped
        record.error = f"{type(exc).__name__}: {exc}"
    total = (time.perf_counter() - t_all) * 1e3
    record.explain_ms = max(0.0, total - record.compile_ms)
    return record


def _run_stages(fn, specialization, backend, options, record, span, clock) -> None:
    """The backend's stages (`add_stages`) in order, as the compiler driver runs them,
    each one's product shown as soon as it is made."""
    from ...compiler import ASTSource
    from ...backends.nvidia import toolchain
    src = ASTSource.from_specialization(fn, specialization)
    t0 = time.perf_counter()
    product = src.make_ir(backend.target, options)
    clock.stage("codegen", t0)
    stages: Dict[str, Any] = {}
    backend.add_stages(stages, options, src.language)
    metadata: Dict[str, Any] = {"name": src.name, "target": backend.target}
    watch = _PassWatch(record)
    for name, stage in stages.items():
        if name == "cubin" and toolchain.find_ptxas() is None:
            record.resources["note"] = "ptxas not found: no cubin, no register report"
            return
        watch.begin(name, product)
        t0 = time.perf_counter()
        with observing_passes(watch):
            product = stage(product, metadata)
        clock.stage(name, t0, less_ms=watch.own_ms)
        _show(name, product, metadata, backend, options, record, span, clock)


def _show(stage: str, product, metadata, backend, options, record, span, clock) -> None:
    """Map one stage's product to the source (and, for TTGIR and the cubin, note the
    layouts and resources)."""
    from ...ir.printer import print_module
    if stage in ("ttir", "ttgir"):
        record.stages[stage] = sourcemap.map_mlir(print_module(product, debug_info=True), span)
        if stage == "ttir" and record.bench is not None:
            record.bench.count_flops(product, record.name)
        if stage == "ttgir":
            from .layout_map import collect_layouts
            record.layouts = collect_layouts(product, record.stages["ttgir"])
    elif stage == "llir":
        if product:   # "": the CPU path could not lower it and the evaluator runs it
            record.stages["llir"] = sourcemap.map_llir(product, span)
        elif metadata.get("cpu_fallback"):
            record.resources["note"] = ("runs on the evaluator, not compiled: "
                                        + metadata["cpu_fallback"][1])
    elif stage == "obj":
        if not product and metadata.get("cpu_fallback"):
            record.resources["note"] = ("runs on the evaluator, not compiled: "
                                        + metadata["cpu_fallback"][1])
        if product:
            from ...backends.cpu import native
            t0 = time.perf_counter()
            asm = native.host_asm("", product)   # the engine that just made `product`
            if asm:
                record.stages["asm"] = sourcemap.map_host_asm(asm, span)
                clock.stage("asm", t0)
    elif stage == "ptx":
        record.stages["ptx"] = sourcemap.map_ptx(product, span)
        record.resources = {"shared_dynamic": metadata.get("shared", 0),
                            "num_warps": options.num_warps}
    elif stage == "cubin":
        from .resources import summarize
        record.resources.update(summarize(backend.ptxas_info, metadata.get("shared", 0),
                                          options.num_warps, backend.capability))
        t0 = time.perf_counter()
        sass = _sass(product, span)
        if sass is not None:
            record.stages["sass"] = sass
            clock.stage("sass", t0)


def _sass(cubin: bytes, span: SourceSpan) -> Optional[Mapped]:
    """SASS linked to the source through nvdisasm's line table when nvdisasm is found,
    else cuobjdump's listing unlinked, else None."""
    import os
    import subprocess
    import tempfile
    from ...backends.nvidia import toolchain
    nvdisasm = toolchain.find_tool("nvdisasm")
    if nvdisasm is not None:
        with tempfile.TemporaryDirectory(prefix="tritium-explain-") as tmp:
            path = os.path.join(tmp, "kernel.cubin")
            with open(path, "wb") as f:
                f.write(cubin)
            proc = subprocess.run([nvdisasm, "-c", "-g", path], capture_output=True, text=True)
        if proc.returncode == 0:
            return sourcemap.map_sass(proc.stdout, span)
    if toolchain.find_cuobjdump() is not None:
        return sourcemap.map_plain(toolchain.disassemble(cubin))
    return None


class _PassWatch:
    """Sees each pass of a stage's pipelines as the backend runs them (a pass observer):
    keeps its time and, when it changed the IR, a diff of the printed module. `own_ms` is
    the printing and diffing, which is the page's time, not the compiler's."""

    def __init__(self, record: KernelRecord):
        self.record = record
        self.stage, self.before, self.own_ms = "", None, 0.0

    def begin(self, stage: str, product) -> None:
        from ...ir.core import Operation
        from ...ir.printer import print_module
        self.stage, self.own_ms = stage, 0.0
        self.before = print_module(product) if isinstance(product, Operation) else None

    def __call__(self, label: str, module, ms: float) -> None:
        from ...ir.printer import print_module
        t0 = time.perf_counter()
        after = print_module(module)
        run = PassRun(self.stage, label, ms)
        if self.before is not None and after != self.before:
            diff = list(difflib.unified_diff(self.before.splitlines(), after.splitlines(),
                                             "before", "after", n=2, lineterm=""))
            run.diff = "\n".join(diff[2:])
            run.added = sum(1 for d in diff[2:] if d.startswith("+"))
            run.removed = sum(1 for d in diff[2:] if d.startswith("-"))
        self.record.passes.append(run)
        self.before = after
        self.own_ms += (time.perf_counter() - t0) * 1e3
