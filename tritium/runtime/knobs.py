"""The knobs the compiler and runtime read, as functions over `tritium.knobs` (the one source
of truth: Python assignments there and environment variables both count). Read when used,
not at import, so tests and users can flip them."""
from __future__ import annotations

import os

import tritium.knobs as _k  # (not `from .. import`: that would import the package, a cycle)


def _flag(name: str) -> bool:
    return _k.parse_bool(name, os.environ.get(name), False)


def interpret() -> bool:
    """TRITON_INTERPRET=1: run kernels on the CPU backend even when a GPU is present."""
    return _k.runtime.interpret


def default_backend():
    """TRITON_DEFAULT_BACKEND=<name> (upstream's): the registered backend whose driver is the
    default one, without asking the others whether they are active (which may import torch).
    None when unset."""
    return os.environ.get("TRITON_DEFAULT_BACKEND") or None


def log_recompiles() -> bool:
    """TRITIUM_LOG_RECOMPILES=1 (or TRITON_LOG_RECOMPILES=1): say on stderr which argument's
    specialisation changed each time a kernel compiles again."""
    return _flag("TRITIUM_LOG_RECOMPILES") or _k.runtime.log_recompiles


def mlir_dump():
    """MLIR_ENABLE_DUMP=1 dumps IR around every pass; =<kernel name> only for that kernel."""
    v = os.environ.get("MLIR_ENABLE_DUMP", "0")
    return None if v in ("0", "") else v


def mlir_timing() -> bool:
    """MLIR_ENABLE_TIMING=1 (or TRITON_ENABLE_TIMING=1): time every pass."""
    return any(os.environ.get(k, "") not in ("", "0", "false", "False")
               for k in ("MLIR_ENABLE_TIMING", "TRITON_ENABLE_TIMING"))


def kernel_dump() -> bool:
    return _k.compilation.dump_ir


def compile_workers() -> int:
    return _k.compilation.compile_workers


def python_values_in_env() -> bool:
    return _k.python_values_in_env()


def pipeline_hook_set() -> bool:
    return _k.runtime.add_stages_inspection_hook is not None


def kernel_override() -> bool:
    return _k.compilation.override


def dump_dir() -> str:
    return _k.cache.dump_dir


def override_dir() -> str:
    return _k.cache.override_dir


def cache_dir() -> str:
    return _k.cache.dir


def home_dir() -> str:
    return _k.cache.home_dir


def always_compile() -> bool:
    return _k.compilation.always_compile


def front_end_debugging() -> bool:
    return _k.compilation.front_end_debugging


def debug() -> bool:
    """TRITON_DEBUG=1: compile kernels with device assertions (and overflow checks) on."""
    return _k.runtime.debug


def allow_non_constexpr_globals() -> bool:
    return _k.compilation.allow_non_constexpr_globals


def fp32_default():
    return _k.language.fp32_default


def autotuning_print() -> bool:
    """TRITON_PRINT_AUTOTUNING=1: print each config tried and the one chosen (to stdout)."""
    return _k.autotuning.print


def autotuning_cache() -> bool:
    """TRITON_CACHE_AUTOTUNING: keep autotuning results on disk (tritium's default: on)."""
    return _k.autotuning.cache


def autotuning_progress():
    """TRITIUM_AUTOTUNE_PROGRESS=1/0 forces the progress line on stderr on/off; None: only
    when stderr is a terminal."""
    return _k.autotuning.progress



def cpu_path() -> str:
    """Which CPU path runs kernels on CPU tensors: 'native' (compiled by LLVM for this
    machine, the default) or 'evaluator' (TRITON_INTERPRET=1 or TRITIUM_CPU_PATH=evaluator)."""
    return "native" if _k.cpu.compiled() else "evaluator"


def cpu_max_threads() -> int:
    """TRITON_CPU_MAX_THREADS=<n>: cap the threads a compiled CPU kernel runs on (0: all)."""
    return max(0, _k.cpu.max_threads)


def cpu_native_strict() -> bool:
    """TRITIUM_CPU_NATIVE_STRICT=1: a kernel the compiled CPU path cannot lower is an error
    instead of running on the evaluator (to see what the compiled path covers)."""
    return _k.cpu.native_strict

def __getattr__(name):
    # Upstream code reaches the knob groups through modules that imported `knobs`
    # (`from triton.runtime.cache import knobs; knobs.cache.dir`): answer with tritium.knobs.
    return getattr(_k, name)


def mlir_diagnostics() -> frozenset:
    """MLIR_ENABLE_DIAGNOSTICS, upstream's comma-separated list: "remarks" (and "warnings")
    print the compiler's remarks on stderr, "operations" adds the op each is about."""
    v = os.environ.get("MLIR_ENABLE_DIAGNOSTICS", "")
    return frozenset(w.strip() for w in v.split(",") if w.strip())
