"""Compile one specialisation stage by stage, keeping what each stage and each pass did.

The stages are the backends' own (codegen, the TTIR pipeline, `ttgir_pipeline`, the
lowering, llvmlite, ptxas), run pass by pass so each pass's time and IR change are seen.
Nothing is launched, so `sm_90a` works without a GPU. The LLIR is lowered with line info
(`!dbg`), the only difference from a normal compile; ptxas gets `-lineinfo` either way.
"""
from __future__ import annotations

import difflib
import re
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

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


def _parse_options(fn, target: str, meta: Dict[str, Any]):
    """The backend's own option parsing (defaults, checks), for `target` rather than for
    the device at hand."""
    meta = {k: v for k, v in meta.items() if k in OPTION_NAMES and v is not None}
    if target == "cpu":
        from ...backends.cpu.backend import CPUBackend
        return CPUBackend().parse_options(meta, fn)
    from ...backends.nvidia.backend import CUDABackend
    backend = CUDABackend()
    backend._capability = capability_of(target)  # so no GPU is asked for its capability
    return backend.parse_options(dict(meta, arch=target), fn)


def capability_of(target: str) -> int:
    m = re.fullmatch(r"sm_(\d+)[af]?", target)
    if m is None:
        raise ValueError(f"target must be 'cpu' or an NVIDIA arch such as 'sm_90a', got {target!r}")
    return int(m.group(1))


class _Clock:
    """Adds up the compiler's own time per stage (the rest of the wall time is the page's)."""

    def __init__(self, record: KernelRecord):
        self.record = record

    def stage(self, name: str, t0: float) -> None:
        self.record.stage_ms[name] = self.record.stage_ms.get(name, 0.0) + (time.perf_counter() - t0) * 1e3


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
            target: str = "cpu") -> KernelRecord:
    """Compile `fn` for one specialisation (the JIT's per-argument tuples) for `target`
    ('cpu' or an NVIDIA arch such as 'sm_90a') and record every stage. A failing stage
    ends the record early with `error` set; the stages before it are kept."""
    options = _parse_options(fn, target, dict(meta or {}))
    record = new_record(fn, specialization, target, options)
    span = SourceSpan(fn.file_name, record.first_line, record.first_line + len(record.source) - 1)
    clock = _Clock(record)
    t_all = time.perf_counter()
    try:
        _run_stages(fn, specialization, options, target, record, span, clock)
    except Exception as exc:  # the page shows what was reached and why it stopped
        record.error = f"{type(exc).__name__}: {exc}"
    total = (time.perf_counter() - t_all) * 1e3
    record.explain_ms = max(0.0, total - record.compile_ms)
    return record


def _run_stages(fn, specialization, options, target, record, span, clock) -> None:
    from ...frontend.compiler import ast_to_ttir
    from ...ir.printer import print_module
    from ...passes import TTIR_PIPELINE
    t0 = time.perf_counter()
    module, _ = ast_to_ttir(fn, specialization, options)
    clock.stage("codegen", t0)
    _run_pipeline(module, TTIR_PIPELINE, "ttir", record)
    record.stages["ttir"] = sourcemap.map_mlir(print_module(module, debug_info=True), span)
    if target == "cpu":
        return
    from ...gpu import passes as _gpu_passes  # noqa: F401  (registers the TTGIR passes)
    from ...gpu.pipeline import ttgir_pipeline
    cap = capability_of(target)
    _run_pipeline(module, ttgir_pipeline(options.num_warps, 32, options.num_ctas,
                                         f"cuda:{cap}", options.num_stages),
                  "ttgir", record)
    record.stages["ttgir"] = sourcemap.map_mlir(print_module(module, debug_info=True), span)
    from .layout_map import collect_layouts
    record.layouts = collect_layouts(module, record.stages["ttgir"])

    from ...backends.nvidia.lowering import make_llir
    from ...backends.nvidia.llvm import llir_to_ptx
    from ...backends.nvidia import toolchain
    t0 = time.perf_counter()
    llir, meta = make_llir(module, capability=cap, line_info=True)
    clock.stage("llir", t0)
    record.stages["llir"] = sourcemap.map_llir(llir, span)
    t0 = time.perf_counter()
    ptx = llir_to_ptx(llir, arch=target, ptx_version=options.ptx_version,
                      enable_fp_fusion=options.enable_fp_fusion)
    clock.stage("ptx", t0)
    record.stages["ptx"] = sourcemap.map_ptx(ptx, span)
    record.resources = {"shared_dynamic": meta.get("shared", 0), "num_warps": options.num_warps}
    if toolchain.find_ptxas() is None:
        record.resources["note"] = "ptxas not found: no cubin, no register report"
        return
    t0 = time.perf_counter()
    cubin, info = toolchain.make_cubin(ptx, arch=target, enable_fp_fusion=options.enable_fp_fusion,
                                       maxnreg=options.maxnreg)
    clock.stage("cubin", t0)
    from .resources import summarize
    record.resources.update(summarize(info, meta.get("shared", 0), options.num_warps, cap))
    t0 = time.perf_counter()
    sass = _sass(cubin, span)
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


def _run_pipeline(module, pipeline: str, stage: str, record: KernelRecord) -> None:
    """Run a pipeline one pass at a time; keep each pass's time and, when it changed the
    IR, a diff of the printed module."""
    from ...ir.printer import print_module
    from ...passes import PassManager
    passes = PassManager(pipeline).passes
    before = print_module(module)
    for p in passes:
        t0 = time.perf_counter()
        PassManager([p], reproducer=False, dump=False, timing=False).run(module)
        ms = (time.perf_counter() - t0) * 1e3
        record.stage_ms[stage] = record.stage_ms.get(stage, 0.0) + ms
        after = print_module(module)
        run = PassRun(stage, p.pipeline_text(), ms)
        if after != before:
            diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(),
                                             "before", "after", n=2, lineterm=""))
            run.diff = "\n".join(diff[2:])
            run.added = sum(1 for d in diff[2:] if d.startswith("+"))
            run.removed = sum(1 for d in diff[2:] if d.startswith("-"))
        record.passes.append(run)
        before = after
