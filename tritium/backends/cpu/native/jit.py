"""LLVM IR text → machine code for this CPU, through llvmlite (O3 with the loop and SLP
vectorisers, MCJIT). Object code can be given back (from the on-disk cache) to skip LLVM's
optimisation and code generation entirely."""
from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from typing import Optional

_lock = threading.RLock()
_state: dict = {}
# Engines are never freed: tearing down an MCJIT engine (and its object-cache callbacks)
# from the garbage collector crashes llvmlite, and a kernel's code is small.
_KEEP: list = []
_BY_OBJ: dict = {}  # object code -> the engine running it (`engine_for`)


def _llvm():
    import llvmlite.binding as llvm
    if "tm" not in _state:
        with _lock:
            if "tm" not in _state:
                llvm.initialize_native_target()
                llvm.initialize_native_asmprinter()
                target = llvm.Target.from_default_triple()
                cpu, feats = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
                _state["tm"] = target.create_target_machine(cpu=cpu, features=feats, opt=3,
                                                            jit=True)
                _state["host"] = f"{llvm.get_process_triple()}:{cpu}:{feats}"
    return llvm


def host_key() -> str:
    """The CPU this code is for: triple, CPU name and feature set (part of the cache key)."""
    _llvm()
    return _state["host"]


def vector_bits() -> int:
    feats = host_key()
    if "+avx512f" in feats:
        return 512
    if "+avx" in feats:
        return 256
    return 128


def optimize(text: str):
    llvm = _llvm()
    tm = _state["tm"]
    with _lock:
        mod = llvm.parse_assembly(text)
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(tm, pto)
        with _without_remarks():
            pb.getModulePassManager().run(mod, pb)
    return mod


# What LLVM prints when a loop the lowering pinned to a vector width stays scalar: the
# lowering's to act on (TRITIUM_CPU_LLVM_REMARKS=1 shows them), not the user's.
_REMARK = re.compile(rb"^(remark|warning): .*loop not (vectorized|interleaved)")


@contextmanager
def _without_remarks():
    """LLVM writes its remarks to file descriptor 2 from C++ (llvmlite sets no diagnostic
    handler), so they are caught there: fd 2 goes to a file while LLVM runs, and what is
    not a remark is written back after — including anything another thread printed
    meanwhile, later but not lost."""
    import tritium.knobs as knobs
    if knobs.cpu.llvm_remarks:
        yield
        return
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError, OSError):
        pass
    with tempfile.TemporaryFile() as caught:
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().splitlines(keepends=True)
                    if not _REMARK.match(line)]
            if kept:
                os.write(2, b"".join(kept))


class Engine:
    """A JIT'ed module; `address(name)` of its functions. Keeps the engine alive."""

    def __init__(self, llir: Optional[str], obj: Optional[bytes] = None):
        llvm = _llvm()
        tm = _state["tm"]
        self.obj = obj
        with _lock:
            if obj is not None:
                mod = llvm.parse_assembly("")
            else:
                mod = optimize(llir)
            mod.triple = tm.triple
            mod.data_layout = str(tm.target_data)
            self.llir_opt = None if obj is not None else str(mod)
            self.engine = llvm.create_mcjit_compiler(mod, tm)
            self.engine.set_object_cache(self._notify, self._get)
            self.engine.finalize_object()
            self.engine.run_static_constructors()
            _KEEP.append((self.engine, mod, self._notify, self._get))
            if obj is None and self.obj:
                _BY_OBJ[self.obj] = self

    def _notify(self, module, buffer: bytes) -> None:
        self.obj = bytes(buffer)

    def _get(self, module):
        return self.obj

    def address(self, name: str) -> int:
        return self.engine.get_function_address(name)


def undefined_symbols(obj: bytes) -> list:
    """Names an ELF64 object file uses but does not define (what MCJIT must find in the
    process). MCJIT binds a name it cannot find to address 0, so a kernel calling, say, a
    compiler-rt helper would jump to 0; the caller checks these first."""
    import struct
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sec in secs:
        if sec[1] != 2:                          # SHT_SYMTAB
            continue
        _, _, _, _, off, size, link, _, _, entsize = sec
        stroff = secs[link][4]
        for k in range(1, size // entsize):
            name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", obj, off + k * entsize)
            if shndx == 0 and name:
                end = obj.index(b"\0", stroff + name)
                out.append(obj[stroff + name:end].decode())
    return out


def missing_symbols(obj: bytes) -> list:
    llvm = _llvm()
    return [n for n in undefined_symbols(obj) if not llvm.address_of_symbol(n)]


def engine_for(obj: bytes) -> Engine:
    """The engine running object code `obj`: the one that just compiled it (the "obj"
    stage) or a new one loading it (a disk-cache hit)."""
    with _lock:
        eng = _BY_OBJ.get(obj)
        if eng is None:
            eng = _BY_OBJ[obj] = Engine(None, obj=obj)
        return eng


def host_asm(llir_opt: str) -> str:
    llvm = _llvm()
    with _lock:
        mod = llvm.parse_assembly(llir_opt)
        return _state["tm"].emit_assembly(mod)
