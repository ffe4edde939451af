"""A process's first compile, done ahead: what every later compile finds already in place.

A fresh process's first GPU compile costs 0.1-0.3 s more than its second: importing the
stages' modules (a few hundred files, from source where no bytecode was written), starting
LLVM, reading the backend entry points, hashing tritium's sources for the cache key and
asking ptxas its version. A process that will fork compile workers (tritium's own zygote,
Inductor's compile-pool parent) does it once before forking, so every worker starts warm.

libdevice is not parsed here: its trimmed functions come from the cache directory (see
`backends/nvidia/llvm.py`). Parsing it here as well (session 20) delayed the pool's
readiness by as much, and three A/B runs on the H100 had the models compiled in Inductor's
workers slower with it, not faster.

Nothing here touches the CUDA driver: a process that forks must not have initialised it.
"""
from __future__ import annotations


def warm_up() -> None:
    """Import and initialise what the NVIDIA stages use (the frontend is the caller's to
    import: this layer does not, and compile workers get TTIR). Never raises: a process for
    another backend (or with a broken toolchain) compiles as it would have, reporting
    whatever went wrong at its first compile."""
    try:
        from ..backends import line_info  # noqa: F401
        from ..backends.nvidia import backend, llvm, lowering, toolchain  # noqa: F401
        from ..gpu import pipeline  # noqa: F401
        from ..ir import parser  # noqa: F401
        from ..runtime import cache
        from ..backends import backends  # noqa: F401  (entry points, read once per process)
        cache.tritium_key()
        llvm._llvm()
        # What the backend hash asks of the installation, both cached per process: ptxas's
        # version (a subprocess) and llvmlite's (package metadata, read by the email parser).
        toolchain.tool_version(toolchain.find_ptxas())
        backend._llvmlite_version()
    except Exception:  # noqa: BLE001
        pass
