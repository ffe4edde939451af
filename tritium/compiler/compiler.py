"""`compile`: the compiler driver, upstream's `triton.compile`.

    compile(ASTSource(fn, signature, constexprs, attrs) | IRSource(path) | path,
            target=GPUTarget("cuda", 90, 32), options={"num_warps": 8})

The target picks the backend (`tritium.backends`); the backend parses the options and
lists its stages (`add_stages`); the driver runs the source's stage and then every later
one, keeping each stage's text in `asm`. For an `IRSource` the stages start after the
file's own (an edited .ttgir is lowered from TTGIR on). Nothing here needs a device:
compiling for a GPU on a machine without one works (loading waits for the launch).

The disk cache (`runtime/cache.py`) holds the stages after the first: an entry's key is
the first stage's text (for an `ASTSource` the frontend plus the TTIR passes), with
locations, together with the options, the target, the backend's own hash and tritium's
sources. An `ASTSource` is first looked up by its source key, as upstream's (`_source_key`:
its `cache_key`, the specialisation, the options, the target): a hit skips code generation
altogether (no `static_print` runs), a miss runs the first stage and then tries the TTIR key. A backend with a single stage (the CPU on its
evaluator) is not cached on disk. With TRITON_REMOTE_CACHE_BACKEND set, a local miss asks
the remote tier (`runtime/remote_cache.py`) and a fresh entry is pushed there.

After each compile, `knobs.compilation.listener` (when set) is called as upstream's, with
the source, the metadata, each stage's time and whether the disk cache had the kernel.
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from typing import Any, Dict, Optional

from ..backends.compiler import BaseBackend, GPUTarget
from ..runtime import cache as disk_cache
from ..runtime import knobs, remote_cache
from ..runtime.launch_hooks import LazyDict  # noqa: F401  (upstream's home of the name)
from ..errors import PTXASError, TritonError
from .errors import PTXSourceError, StageError
from .kernel import CompiledKernel
from .source import ASTSource, IRSource
from . import ir_override, workers

_BACKENDS: Dict[GPUTarget, BaseBackend] = {}
_INDEX_FILE = "__source__.json"  # source key -> the TTIR-keyed entry (see _source_key)
# (cache dir, source key) -> a single-stage backend's (asm, metadata, products), newest last.
_SINGLE_STAGE: "OrderedDict[tuple, tuple]" = OrderedDict()
_SINGLE_STAGE_SIZE = 512
_SINGLE_STAGE_LOCK = threading.Lock()


def make_backend(target: GPUTarget) -> BaseBackend:
    """The backend instance for `target` (one per target)."""
    backend = _BACKENDS.get(target)
    if backend is None:
        from ..backends import backend_for
        backend = _BACKENDS[target] = backend_for(target)(target)
    return backend


triton_key = disk_cache.triton_key  # upstream's name here: the compiler's own key


def _parse(backend, options):
    if options is not None and not isinstance(options, dict):
        return options  # already the backend's options object (the JIT parsed it)
    return backend.parse_options(dict(options or {}))


def compile(src, target: Optional[GPUTarget] = None, options=None, _env_vars=None,
            *, backend: Optional[BaseBackend] = None) -> CompiledKernel:
    if target is None:
        from ..runtime.driver import driver
        target = driver.active.get_current_target()
    if not isinstance(target, GPUTarget):
        raise TypeError(f"compile: target must be a GPUTarget, got {type(target).__name__}")
    backend = backend or make_backend(target)
    if isinstance(src, (str, os.PathLike)):
        src = IRSource(src)
    if not isinstance(src, (ASTSource, IRSource)):
        raise TypeError(f"compile: src must be an ASTSource, an IRSource or a path to an IR "
                        f"file, got {type(src).__name__}")
    shared = None
    if isinstance(options, dict) and "shared" in options:
        options = dict(options)
        shared = int(options.pop("shared"))
    _check_shared_is_known(src, shared)
    extra = src.parse_options()
    if extra and options is not None and not isinstance(options, dict):
        options = dict(_options_dict(options))
    if extra:
        options = dict(options or {}, **extra)
    options = _parse(backend, options)
    stages: Dict[str, Any] = {}
    backend.add_stages(stages, options, src.language)
    compilation = _Compilation(src, target, backend, options, stages, shared)
    with _gc_paused():
        kernel = compilation.run()
    listener = knobs.compilation.listener
    if listener is not None:  # the hook tools watch compiles through (upstream's)
        listener(src=src, metadata=kernel.metadata, metadata_group=None,
                 times=compilation.times(), cache_hit=compilation.cache_hit)
    return kernel


_gc_lock = threading.Lock()
_gc_state = {"compiles": 0, "was_enabled": False}


@contextlib.contextmanager
def _gc_paused():
    """Python's cyclic garbage collector off while any compile runs. The stages allocate
    IR objects by the hundred thousand, which triggers collections, and a full one scans
    the whole heap: in a process that imported torch that is ~0.2 s (measured: one in every
    flex-attention compile, half its Python time). Upstream's compiler is C++ and triggers
    none. Garbage of a compile is freed by reference counting or by the next collection."""
    with _gc_lock:
        if _gc_state["compiles"] == 0:
            _gc_state["was_enabled"] = gc.isenabled()
            gc.disable()
        _gc_state["compiles"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["compiles"] -= 1
            if _gc_state["compiles"] == 0 and _gc_state["was_enabled"]:
                gc.enable()


def _gc_after_fork() -> None:
    """A child forked while another thread compiled runs no compile: collector as before."""
    global _gc_lock
    _gc_lock = threading.Lock()
    if _gc_state["compiles"]:
        _gc_state["compiles"] = 0
        if _gc_state["was_enabled"]:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_gc_after_fork)


def _check_shared_is_known(src, shared) -> None:
    """The shared memory a kernel needs is found while lowering TTGIR; an LLVM IR or PTX
    file that uses dynamic shared memory must say how much (`options={"shared": bytes}`)."""
    if shared is None and isinstance(src, IRSource) and src.ext in ("llir", "ptx") \
            and "global_smem" in src.src:
        from .errors import IRSourceError
        raise IRSourceError(src.path, "uses dynamic shared memory (global_smem) but its size is "
                            "not known: pass options={'shared': <bytes>} (the kernel's "
                            "metadata.shared)")


def _options_dict(options) -> Dict[str, Any]:
    if hasattr(options, "__dataclass_fields__"):
        return {k: getattr(options, k) for k in options.__dataclass_fields__}
    return dict(vars(options))


class _Compilation:
    """One run of the stages, with the cache, dumps and overrides around them."""

    def __init__(self, src, target, backend, options, stages, shared=None):
        self.src, self.target, self.backend, self.options = src, target, backend, options
        self.shared = shared
        self.stages = stages
        names = list(stages)
        # A backend may take an IR kind it has no stage for at one of its stages
        # (`ir_entry`: the CPU runs a .ttgir file from "ttir" on).
        entry = getattr(backend, "ir_entry", {}).get(src.ext)
        if src.ext not in names and entry not in names:
            raise ValueError(f"{type(backend).__name__} has no stage '{src.ext}' "
                             f"(stages: {', '.join(names)})")
        # An AST runs its own stage (the TTIR passes); an IR file starts after its stage.
        self.own_stage = isinstance(src, ASTSource)
        self.later = names[names.index(src.ext) + 1:] if src.ext in names else \
            names[names.index(entry):]
        # `ir_override=<file>`: that stage's output (or input) is the file's IR.
        self.override = ir_override.plan(
            options, backend, names, ([src.ext] if self.own_stage else []) + self.later)
        self.name = src.name.lstrip("@")  # (an MLIR file's source is named "@kernel")
        self.fname = self.name[:disk_cache.MAX_FILE_NAME]
        self.cache_hit = False
        self.ir_us, self.store_us = 0, 0
        self.stage_us = []  # [(stage, microseconds)] of the stages that ran

    def times(self) -> knobs.CompileTimes:
        return knobs.CompileTimes(self.ir_us, self.stage_us, self.store_us)

    def _run_stage(self, stage, product, metadata):
        t0 = time.perf_counter()
        product = self.stages[stage](product, metadata)
        self.stage_us.append((stage, _us_since(t0)))
        return product

    def run(self) -> CompiledKernel:
        src, options = self.src, self.options
        t0 = time.perf_counter()
        source_key = self._source_key()
        if source_key is not None:
            kernel = self._load_by_source(source_key)
            if kernel is not None:
                self.ir_us = _us_since(t0)
                return kernel
        if self._portable():  # (a compile on a pool thread: start the workers meanwhile)
            workers.prestart(self.backend, src.ext)
        product = src.make_ir(self.target, options, None, None, None)
        used = src.used_global_vals
        self.ir_us = _us_since(t0)
        asm: Dict[str, Any] = {}
        products: Dict[str, Any] = {}
        metadata: Dict[str, Any] = {"name": self.name, "target": self.target,
                                    **_options_dict(options)}
        if getattr(getattr(src, "fn", None), "_repr", None) is not None:
            # `@jit(repr=...)` named the kernel's symbol: that is the kernel's name (what
            # loading looks up), the files keep the function's, as upstream's.
            metadata["name"] = _kernel_symbol(product) or self.name
        if self.own_stage:
            product = self._run_stage(src.ext, self._stage_input(src.ext, product), metadata)
            product = self._overridden(src.ext, product)
        asm[src.ext] = products[src.ext] = product
        if self.shared is not None:
            metadata["shared"] = self.shared
        metadata.setdefault("shared", 0)
        located = _first_text(product, debug_info=True)
        key = disk_cache.kernel_key(located, options, str(self.target), self._backend_hash())
        # Every kernel has its hash, as upstream's (Inductor files kernels by it).
        metadata["hash"] = key
        if not self.later:  # a single-stage backend: nothing worth caching on disk
            kernel = CompiledKernel(src, asm, metadata, self.backend, used, products)
            self._remember_single_stage(source_key, kernel, asm, metadata, products)
            return self._dump_all(kernel, key)
        cache = disk_cache.FileCache(key)
        dump, override = knobs.kernel_dump(), knobs.kernel_override()
        all_stages = [src.ext] + self.later
        # The remote tier (TRITON_REMOTE_CACHE_BACKEND) is asked only on a local miss.
        hit = None if knobs.always_compile() or override else \
            (cache.load(self.fname, all_stages)
             or remote_cache.fetch(cache, self.fname, all_stages))
        if hit is not None:
            self.cache_hit = True
            self._remember_source(source_key, key)
            # The TTIR stage ran to make the key (upstream hashes the source instead): on a
            # hit it counts as making the IR, and nothing was lowered, as upstream reports.
            self.ir_us += sum(us for _, us in self.stage_us)
            self.stage_us = []
            if dump:
                for stage, text in hit["asm"].items():
                    disk_cache._dump(key, self.fname, stage, text)
            return CompiledKernel(src, hit["asm"], hit["metadata"], self.backend, used)
        asm[src.ext] = _first_text(product)
        if dump:
            disk_cache._dump(key, self.fname, src.ext, asm[src.ext])
        # While other compiles are running here, a compile worker may run the rest.
        claim = workers.claim(self.backend, src.ext) if self._portable() else \
            workers.Claim(None, None)
        try:
            handed = self._in_worker(claim, product, located, metadata) \
                if claim.worker is not None else None
            self._later_stages(product, asm, metadata, key, handed, claim)
        finally:
            claim.release()
        # What a later load returns: JSON types (lists, not tuples) from the first run on.
        metadata = json.loads(json.dumps(metadata, default=_jsonable))
        if not override:
            t0 = time.perf_counter()
            metadata = cache.store(self.fname, asm, metadata)
            remote_cache.push(cache, self.fname, asm, metadata)
            self._remember_source(source_key, key)
            self.store_us = _us_since(t0)
        # The first stage's product stays an object (the CPU evaluates its TTIR module).
        return CompiledKernel(src, asm, metadata, self.backend, used, products)

    def _later_stages(self, product, asm, metadata, key, handed, claim) -> None:
        dump, override = knobs.kernel_dump(), knobs.kernel_override()
        previous = self.src.ext
        elsewhere = getattr(self.backend, "subprocess_stages", ())
        for stage in self.later:
            if stage in elsewhere:  # e.g. ptxas: this process only waits for it
                claim.leaving_this_process()
            if handed is not None:  # a worker ran the stages
                asm[stage] = handed[stage]
                if dump:
                    disk_cache._dump(key, self.fname, stage, asm[stage])
                continue
            text = disk_cache._override(key, self.fname, stage) if override else None
            if text is not None:
                product = _from_text(stage, text)
            else:
                try:
                    product = self._run_stage(stage, self._stage_input(stage, product), metadata)
                    product = self._overridden(stage, product)
                except TritonError as e:
                    if isinstance(e, PTXASError) and isinstance(self.src, IRSource) \
                            and self.src.ext == "ptx":
                        raise _ptx_file_error(self.src.path, e) from e
                    raise  # PTXASError, OutOfResources: callers (autotuners) catch these by class
                except Exception as e:
                    repro = _keep_for_repro(self.fname, previous, asm[previous])
                    raise StageError(stage, self.name, e, repro) from e
            asm[stage] = _first_text(product)
            if dump:
                disk_cache._dump(key, self.fname, stage, asm[stage])
            previous = stage

    def _in_worker(self, claim, product, located: str, metadata):
        """The later stages run by a compile worker (compiler/workers.py): their asm, with
        `metadata` and the stage times updated; None to run them here instead."""
        try:
            asm, new_metadata, times = workers.run_later_stages(
                claim, self.target, self.options, self.src.language, located,
                workers.block_arg_names(product), self.later, dict(metadata),
                backend_hash=_backend_hash(self.backend),
                extra_env=getattr(self.backend, "worker_env", dict)())
        except workers.WorkerFailed:
            return None  # compiled here again: its error, if any, is raised as without workers
        metadata.clear()
        metadata.update(new_metadata)
        self.stage_us += times
        return asm

    # ---------------------------------------------------------------- ir_override
    def _stage_input(self, stage, product):
        o = self.override
        return o.load() if o is not None and o.at_input and o.stage == stage else product

    def _overridden(self, stage, product):
        o = self.override
        return o.load() if o is not None and not o.at_input and o.stage == stage else product

    def _portable(self) -> bool:
        """Compile workers run the backend's own later stages only: none is overridden."""
        return self.override is None or self.override.stage not in self.later

    def _backend_hash(self) -> str:
        # The override file's contents are part of both keys: an edited file recompiles.
        extra = f"-ir_override-{self.override.digest}" if self.override else ""
        return _backend_hash(self.backend) + extra

    # ---------------------------------------------------------------- source index
    # As upstream, a `@jit` source whose key (its `cache_key`, which covers its callees and
    # constexpr globals, the specialisation with functions passed as arguments by their own
    # `cache_key`, the globals it reads, the options, the target) is on disk skips code
    # generation: a small index file maps that key to the entry, which stays keyed by its
    # TTIR (so two sources that make the same TTIR share one entry).
    def _source_key(self) -> Optional[str]:
        src = self.src
        if not isinstance(src, ASTSource) or knobs.always_compile() \
                or knobs.kernel_override():
            return None
        try:
            fn = src.fn
            text = "\n".join([
                "source-index-v1", src.hash(), getattr(fn, "file_name", ""),
                repr(sorted((name, repr(value)) for (name, _), (value, _) in
                            getattr(fn, "used_global_vals", {}).items()))])
        except Exception:  # (unsupported references: code generation reports them)
            return None
        return disk_cache.kernel_key(text, self.options, str(self.target), self._backend_hash())

    def _load_by_source(self, source_key: str) -> Optional[CompiledKernel]:
        if not self.later:
            return self._load_single_stage(source_key)
        index = disk_cache.get_file(disk_cache.dir_name(source_key), _INDEX_FILE)
        if index is None:
            return None
        try:
            with open(index) as f:
                key = json.load(f)["key"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        all_stages = [self.src.ext] + self.later
        hit = disk_cache.FileCache(key).load(self.fname, all_stages)
        if hit is None:
            return None
        self.cache_hit = True
        used = dict(getattr(self.src.fn, "used_global_vals", {}))
        self.src.used_global_vals = used
        if knobs.kernel_dump():
            for stage, text in hit["asm"].items():
                disk_cache._dump(key, self.fname, stage, text)
        return CompiledKernel(self.src, hit["asm"], hit["metadata"], self.backend, used)

    # A single-stage backend's product (the CPU evaluator's TTIR module) lives in memory,
    # not on disk: the compiles of this process, per cache directory, stand in for the
    # disk cache, so the evaluator skips code generation where a GPU would hit the disk.
    def _load_single_stage(self, source_key: str) -> Optional[CompiledKernel]:
        with _SINGLE_STAGE_LOCK:  # (AsyncCompileMode compiles on other threads)
            entry = _SINGLE_STAGE.get((knobs.cache_dir(), source_key))
            if entry is None:
                return None
            _SINGLE_STAGE.move_to_end((knobs.cache_dir(), source_key))
        asm, metadata, products = entry
        self.cache_hit = True
        used = dict(getattr(self.src.fn, "used_global_vals", {}))
        self.src.used_global_vals = used
        return CompiledKernel(self.src, dict(asm), dict(metadata), self.backend, used,
                              dict(products))

    @staticmethod
    def _remember_single_stage(source_key: Optional[str], kernel: CompiledKernel,
                               asm, metadata, products) -> None:
        if source_key is None:
            return
        with _SINGLE_STAGE_LOCK:
            _SINGLE_STAGE[(knobs.cache_dir(), source_key)] = (dict(asm), dict(metadata),
                                                              dict(products))
            while len(_SINGLE_STAGE) > _SINGLE_STAGE_SIZE:
                _SINGLE_STAGE.popitem(last=False)

    @staticmethod
    def _remember_source(source_key: Optional[str], key: str) -> None:
        if source_key is not None:
            disk_cache.put_file(disk_cache.dir_name(source_key), _INDEX_FILE,
                                json.dumps({"key": key}))

    def _dump_all(self, kernel, key):
        if knobs.kernel_dump():
            for stage in kernel.asm.keys():
                disk_cache._dump(key, self.fname, stage, kernel.asm[stage])
        return kernel


_PTXAS_LINE = re.compile(r"line (\d+); (?:error|fatal)\s*:\s*(.*)")


def _ptx_file_error(path: str, e) -> PTXSourceError:
    """A user's .ptx that ptxas rejects: the first error at the file's own line (the file
    reaches ptxas unchanged), ptxas's whole output after it."""
    text = getattr(e, "error_message", None) or str(e)
    # (what the backend says about its own PTX does not apply to a user's file)
    text = text[text.find("`ptxas` output:"):] if "`ptxas` output:" in text else text
    m = _PTXAS_LINE.search(text)
    if m is None:
        return PTXSourceError(path, "ptxas rejected the file", 0, 0, text)
    line, message = int(m.group(1)), m.group(2).strip()
    col = 0
    token = re.search(r"'([^']+)'", message)  # the column of the token ptxas quotes
    try:
        with open(path) as f:
            text_line = f.read().splitlines()[line - 1]
        if token and token.group(1) in text_line:
            col = text_line.index(token.group(1)) + 1
    except (OSError, IndexError):
        pass
    return PTXSourceError(path, f"ptxas: {message}", line, col, text)


def _kernel_symbol(module) -> Optional[str]:
    """The public tt.func's name in a TTIR module."""
    body = getattr(module, "regions", None)
    if not body:
        return None
    for op in body[0].entry.ops:
        if op.name == "tt.func" and op.attr("sym_visibility") != "private":
            return op.attr("sym_name")
    return None


def _us_since(t0: float) -> int:
    return int((time.perf_counter() - t0) * 1e6)


def _jsonable(value):
    if isinstance(value, GPUTarget):
        return {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
    return str(value)


def _first_text(product, debug_info: bool = False):
    if isinstance(product, (str, bytes)):
        return product
    from ..ir.printer import print_module
    return print_module(product, debug_info=debug_info)


def _from_text(stage: str, text):
    if stage in ("ttir", "ttgir"):
        from ..ir.parser import parse_module
        return parse_module(text)
    return text


def _backend_hash(backend) -> str:
    h = getattr(backend, "hash", None)
    text = h() if callable(h) else ""
    # A custom pipeline (knobs.runtime.add_stages_inspection_hook) makes other binaries
    # from the same TTIR: its hash is part of the disk cache key, as of the JIT's.
    hook = knobs.runtime.add_stages_inspection_hook
    if hook is not None:
        text += f"-custom_pipeline-{hook()[1]}"
    return text


def _keep_for_repro(kernel: str, stage: str, text) -> Optional[str]:
    try:
        d = tempfile.mkdtemp(prefix=f"tritium-{kernel}-{stage}-")
        path = os.path.join(d, f"{kernel}.{stage}")
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(path, mode) as f:
            f.write(text)
        return path
    except OSError:
        return None
