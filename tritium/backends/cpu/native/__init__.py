"""The compiled CPU path: TTIR → LLVM IR for the host → machine code, run on every core.

The CPU backend's stages after "ttir" (`backends/cpu/compiler.py`): `make_llir` lowers the
kernel ("" when it uses an op this path does not lower yet: the driver then evaluates it
with numpy), `make_obj` runs LLVM (O3, vectorisers) into an object file for this CPU. The
compiler driver keeps both stages in the on-disk cache, keyed by the host CPU (triple, name,
features: `jit.host_key`) through the backend's hash, so another process on the same machine
does not recompile. `load` turns the object file into a `NativeKernel` the launcher calls.

Files: `context.py` (the framework: lazy tensor values, loop nests, materialisation),
one file per op family (`arith`, `mathops`, `shape`, `memory`, `reduce`, `dot`, `control`),
`module.py` (the kernel function and its program loop), `prepare.py` + `lanes.py` (the TTIR
the lowering sees: rewrites, and padded block dimensions cut to the lanes anything
observes), `jit.py` (llvmlite), `launcher.py` (argument packing by a per-kernel `Packer`,
the thread pool).
"""
from __future__ import annotations

import logging
from typing import Optional

from .context import Unsupported
from .debug import Sites

log = logging.getLogger("tritium.cpu.native")

__all__ = ["make_llir", "make_obj", "load", "NativeKernel", "Unsupported"]


class NativeKernel:
    def __init__(self, name: str, kinds, engine, sites=None, waits: bool = False):
        from .launcher import Launcher, Packer
        self.name = name
        self.sites = sites or Sites()
        self.threads = 1 if self.sites.prints else None  # prints come out in program order
        self.kinds = kinds
        self.engine = engine
        self.launch = Launcher(engine.address(name), always_pooled=waits)
        self.packer = Packer(kinds)

    def run(self, grid, args, kn=None) -> None:
        """Run over `grid`; raises `launcher.OffHost` before running anything when an
        argument is a tensor on another device. `kn`: the launch's `LaunchKnobs`, where the
        caller has read them (a read is ~0.25 us, and Inductor launches back to back)."""
        if len(args) != len(self.kinds):
            raise TypeError(f"kernel '{self.name}' takes {len(self.kinds)} runtime arguments, "
                            f"got {len(args)}")
        packer = self.packer
        if not self.sites:
            buf = packer.pack(grid, args, 0, kn)
            self.launch(grid, buf, self.threads, kn)
            packer.release(buf)   # (not after a raise: a later launch makes a new one)
            return
        from .debug import launch_id
        with launch_id(self.sites, self.name) as lid:
            buf = packer.pack(grid, args, lid, kn)
            self.launch(grid, buf, self.threads, kn)
            packer.release(buf)


def _fall_back(metadata, e: Exception) -> None:
    """Record why the kernel runs on the evaluator; `load` reports it (also when the kernel
    comes from the disk cache). TRITIUM_CPU_NATIVE_STRICT=1 makes it an error instead."""
    import tritium.knobs as knobs
    if knobs.cpu.native_strict:
        raise e
    # An op not lowered yet is expected (debug); anything else is a bug of the compiled
    # path, reported, but the kernel still runs.
    metadata["cpu_fallback"] = [logging.DEBUG if isinstance(e, Unsupported) else logging.WARNING,
                                f"{type(e).__name__}: {e}" if not isinstance(e, Unsupported)
                                else str(e)]


def make_llir(module, metadata, line_info: bool = False) -> str:
    """The "llir" stage: LLVM IR text of the kernel, or "" when it runs on the evaluator.
    The launcher's argument kinds and the print sites go into the metadata. `line_info`:
    a line table too (`!dbg`; the explain tool asks for it)."""
    from .jit import host_key, vector_bits
    from ..waits import waits_on_others
    from .module import kernel_func, lower_kernel
    from .prepare import for_host
    name = metadata["name"]
    try:
        host = for_host(module)
        llir, kinds, sites = lower_kernel(host, name, vector_bits(), line_info,
                                          x86=host_key().startswith("x86_64"))
    except Exception as e:  # noqa: BLE001  (the evaluator can always run it)
        _fall_back(metadata, e)
        return ""
    metadata["cpu_arg_kinds"] = kinds
    metadata["cpu_print_sites"] = sites.prints
    metadata["cpu_assert_sites"] = sites.asserts
    # Programs that wait in a loop on what others write (a grid barrier, a semaphore) need
    # the others running beside them: such kernels always use the thread pool.
    metadata["cpu_waits_on_others"] = waits_on_others(kernel_func(host, name), {})
    return llir


def make_obj(llir: str, metadata) -> bytes:
    """The "obj" stage: the object file for this CPU (b"" when there is no LLVM IR, or the
    code calls a symbol this process lacks: MCJIT would bind it to address 0)."""
    if not llir:
        return b""
    from .debug import bind_symbols
    from .jit import Engine, missing_symbols
    bind_symbols()
    try:
        eng = Engine(llir)
        missing = missing_symbols(eng.obj or b"")
        if missing:
            raise Unsupported(f"the machine code calls {', '.join(missing)}, which this "
                              "process does not provide")
    except Exception as e:  # noqa: BLE001
        _fall_back(metadata, e)
        return b""
    return eng.obj or b""


def load(obj: bytes, name: str, metadata) -> Optional[NativeKernel]:
    """The kernel in `obj` ready to call, or None when there is none (the evaluator runs)."""
    kinds = metadata.get("cpu_arg_kinds")
    if not obj or kinds is None:
        level, why = metadata.get("cpu_fallback") or (logging.DEBUG, "no object code")
        log.log(level, "kernel '%s' runs on the evaluator: %s", name, why)
        return None
    from .debug import bind_symbols
    from .jit import engine_for, missing_symbols
    bind_symbols()
    missing = missing_symbols(obj)
    if missing:  # a cached object from a process that had them
        log.warning("kernel '%s' runs on the evaluator: its machine code calls %s, which "
                    "this process does not provide", name, ", ".join(missing))
        return None
    return NativeKernel(name, kinds, engine_for(obj),
                        Sites(metadata.get("cpu_print_sites") or (),
                              metadata.get("cpu_assert_sites") or ()),
                        waits=bool(metadata.get("cpu_waits_on_others")))


def host_asm(llir: str, obj: bytes = b"") -> str:
    """The kernel's machine code as assembly text (`kernel.asm["asm"]`). With the object code
    `make_obj` just made from `llir`, its engine's optimised IR is printed (no second O3)."""
    from . import jit
    eng = jit._BY_OBJ.get(obj) if obj else None
    if eng is not None and eng.llir_opt:
        return jit.host_asm(eng.llir_opt)
    return jit.host_asm(str(jit.optimize(llir))) if llir else ""
