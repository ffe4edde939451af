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


def autotuning_print() -> bool:
    """TRITON_PRINT_AUTOTUNING=1: print each config tried and the one chosen (to stdout)."""
    return _flag("TRITON_PRINT_AUTOTUNING")


def autotuning_cache() -> bool:
    """TRITON_CACHE_AUTOTUNING: keep autotuning results on disk. Upstream's default is off;
    tritium's is on (=0 turns it off), so a second process does not benchmark again."""
    return os.environ.get("TRITON_CACHE_AUTOTUNING", "1").lower() in ("1", "true", "on", "yes")


def autotuning_progress():
    """TRITIUM_AUTOTUNE_PROGRESS=1/0 forces the progress line on stderr on/off; unset (None)
    shows it only when stderr is a terminal."""
    v = os.environ.get("TRITIUM_AUTOTUNE_PROGRESS", "")
    return None if v == "" else v.lower() in ("1", "true", "on", "yes")


class CompileTimes:
    """What a compilation listener gets as `times`, in microseconds as upstream's:
    `ir_initialization` (the frontend or the IR file), `lowering_stages` [(stage, us)],
    `store_results` (the disk cache) and `total`."""

    def __init__(self, ir_initialization: int, lowering_stages, store_results: int):
        self.ir_initialization = ir_initialization
        self.lowering_stages = list(lowering_stages)
        self.store_results = store_results

    @property
    def total(self) -> int:
        return self.ir_initialization + sum(us for _, us in self.lowering_stages) + \
            self.store_results


class _CompilationKnobs:
    """`knobs.compilation.listener`: None, or a callable the compiler driver calls after
    every `compile` (the JIT's in-memory cache misses) with the keywords `src`,
    `metadata`, `metadata_group` (None: tritium keeps one cache file per kernel), `times`
    (CompileTimes) and `cache_hit`. Tools watch compiles through it (`tritium explain`)."""
    listener = None


compilation = _CompilationKnobs()
