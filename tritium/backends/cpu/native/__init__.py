"""The compiled CPU path: TTIR → LLVM IR for the host → machine code, run on every core.

`compile_native(module, name, options)` returns a `NativeKernel`, or raises `Unsupported`
when the kernel uses an op this path does not lower yet (the caller then evaluates it with
numpy). Object code goes into the on-disk cache keyed by the TTIR, the options and the host
CPU (triple, name, features), so another process on the same machine does not recompile.

Files: `context.py` (the framework: lazy tensor values, loop nests, materialisation),
one file per op family (`arith`, `mathops`, `shape`, `memory`, `reduce`, `dot`, `control`),
`module.py` (the kernel function and its program loop), `jit.py` (llvmlite), `launcher.py`
(argument packing, the thread pool).
"""
from __future__ import annotations

import logging
import time
from typing import Optional

from .context import Unsupported

log = logging.getLogger("tritium.cpu.native")

__all__ = ["compile_native", "NativeKernel", "Unsupported"]


class NativeKernel:
    def __init__(self, name: str, llir: str, kinds, engine, compile_s: float, sites=()):
        from .debug import register_table
        from .launcher import Launcher
        self.name = name
        self.table = register_table(list(sites)) if sites else 0
        self.threads = 1 if sites else None     # prints come out in program order
        self.llir = llir
        self.kinds = kinds
        self.engine = engine
        self.compile_s = compile_s
        self.launch = Launcher(engine.address(name))
        self._asm: Optional[str] = None

    def run(self, grid, args) -> None:
        from .launcher import pack
        if len(args) != len(self.kinds):
            raise TypeError(f"kernel '{self.name}' takes {len(self.kinds)} runtime arguments, "
                            f"got {len(args)}")
        buf = pack(self.kinds, grid, args, self.table)
        self.launch(grid, buf, self.threads)

    @property
    def host_asm(self) -> str:
        if self._asm is None:
            from .jit import host_asm, optimize
            src = self.engine.llir_opt or str(optimize(self.llir))
            self._asm = host_asm(src)
        return self._asm


def compile_native(module, name: str, options, ttir_key: Optional[str] = None) -> NativeKernel:
    from ....runtime import knobs
    from ....runtime.cache import FileCache, kernel_key
    from .context import Unsupported
    from .jit import Engine, host_key, missing_symbols, vector_bits
    from .debug import bind_symbols
    from .module import lower_kernel
    t0 = time.perf_counter()
    llir, kinds, sites = lower_kernel(module, name, vector_bits())
    bind_symbols()
    cache = None
    if ttir_key is not None:
        key = kernel_key(ttir_key, options, "cpu-native", host_key())
        cache = FileCache(key, stages=("llir", "obj"), binary=("obj",))
        hit = None if knobs.always_compile() else cache.load(name[:150])
        if hit is not None and hit["asm"]["llir"] == llir \
                and not missing_symbols(hit["asm"]["obj"]):
            eng = Engine(None, obj=hit["asm"]["obj"])
            return NativeKernel(name, llir, kinds, eng, time.perf_counter() - t0, sites)
    eng = Engine(llir)
    missing = missing_symbols(eng.obj or b"")
    if missing:
        raise Unsupported(f"the machine code calls {', '.join(missing)}, which this process "
                          "does not provide")
    dt = time.perf_counter() - t0
    if cache is not None and eng.obj:
        cache.store(name[:150], {"llir": llir, "obj": eng.obj},
                    {"name": name, "compile_s": dt})
    log.debug("compiled %s for the host in %.3f s", name, dt)
    return NativeKernel(name, llir, kinds, eng, dt, sites)

