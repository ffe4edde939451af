"""Environment knobs, read when used (not at import) so tests and users can flip them."""
from __future__ import annotations

import os


def _flag(name: str) -> bool:
    return os.environ.get(name, "0").lower() in ("1", "true", "on", "yes")


def interpret() -> bool:
    """TRITON_INTERPRET=1: run kernels on the CPU backend even when a GPU is present."""
    return _flag("TRITON_INTERPRET")


def log_recompiles() -> bool:
    """TRITIUM_LOG_RECOMPILES=1 (or TRITON_LOG_RECOMPILES=1): say on stderr which argument's
    specialisation changed each time a kernel compiles again."""
    return _flag("TRITIUM_LOG_RECOMPILES") or _flag("TRITON_LOG_RECOMPILES")


def mlir_dump():
    """MLIR_ENABLE_DUMP=1 dumps IR around every pass; =<kernel name> only for that kernel."""
    v = os.environ.get("MLIR_ENABLE_DUMP", "0")
    return None if v in ("0", "") else v


def kernel_dump() -> bool:
    return _flag("TRITON_KERNEL_DUMP")


def dump_dir() -> str:
    return os.environ.get("TRITON_DUMP_DIR") or os.path.join(home_dir(), ".triton", "dump")


def cache_dir() -> str:
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(home_dir(), ".triton", "cache")


def home_dir() -> str:
    return os.environ.get("TRITON_HOME") or os.path.expanduser("~")


def always_compile() -> bool:
    return _flag("TRITON_ALWAYS_COMPILE")


def front_end_debugging() -> bool:
    return _flag("TRITON_FRONT_END_DEBUGGING")


def debug() -> bool:
    """TRITON_DEBUG=1: compile kernels with device assertions (and overflow checks) on."""
    return _flag("TRITON_DEBUG")


def allow_non_constexpr_globals() -> bool:
    return _flag("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")


def cpu_path() -> str:
    """Which CPU path runs kernels on CPU tensors: 'native' (compiled by LLVM for this
    machine, the default) or 'evaluator' (the numpy evaluator of TTIR: TRITON_INTERPRET=1 or
    TRITIUM_CPU_PATH=evaluator)."""
    if interpret():
        return "evaluator"
    v = os.environ.get("TRITIUM_CPU_PATH", "native").lower()
    return "evaluator" if v in ("evaluator", "eval", "interpret", "numpy") else "native"


def cpu_max_threads() -> int:
    """TRITON_CPU_MAX_THREADS=<n>: cap the threads a compiled CPU kernel runs on (0: all)."""
    try:
        return max(0, int(os.environ.get("TRITON_CPU_MAX_THREADS", "0")))
    except ValueError:
        return 0


def cpu_native_strict() -> bool:
    """TRITIUM_CPU_NATIVE_STRICT=1: a kernel the compiled CPU path cannot lower is an error
    instead of running on the evaluator (to see what the compiled path covers)."""
    return _flag("TRITIUM_CPU_NATIVE_STRICT")
