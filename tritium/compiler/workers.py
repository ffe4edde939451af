"""Compile workers: the stages after TTIR run in separate processes while compiles overlap.

Why: Inductor precompiles its autotune choices from a ThreadPoolExecutor (one thread per
core), and upstream's compile releases the GIL in C++, so its threads compile in parallel.
tritium's stages are Python (they hold the GIL) and LLVM through llvmlite, which runs every
LLVM call behind one process-wide lock: N threads got about two compiles' worth of cores
(one in Python, one in LLVM, ptxas aside). Here the compiler driver, when this process is
already running two compiles, hands the TTIR text to a worker process that runs the rest
of the stages (TTGIR, LLIR, PTX, cubin) and sends back each stage's text and the metadata;
the calling thread waits without the GIL.

What crosses the pipe is what the disk cache already keys a kernel on: the TTIR text with
its locations, the target, the options (a frozen dataclass) and the metadata so far, plus
the block arguments' names (the parser does not keep `%arg_Q`, the printer prints it), so
the worker's TTGIR/LLIR/PTX/cubin are the ones the calling thread would have made.

Not handed off (compiled in the calling thread, as before): the first two compiles in
flight (they never wait for a worker to start; one running ptxas no longer counts),
backends or stages that are not the backend's own (`compile_in_worker()`), overrides, a custom pipeline hook, knobs set in Python that the
environment does not carry. A worker that dies or fails with anything but a `TritonError`
(those are what autotuners catch by class: `OutOfResources`, `PTXASError`) makes the
calling thread compile again itself, so errors look exactly as without workers.

Workers are started on first need (`TRITIUM_COMPILE_WORKERS`: how many; default the cores
this process may use less the two its own threads keep busy, 0 turns them off), kept for
the process's life (each request carries the environment as it is then); each exits when
its pipe closes.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, Dict, List, Optional, Tuple

from ..runtime import knobs

stats = {"handed_off": 0, "fallbacks": 0}  # compiles a worker finished / gave back


# Compiles this process runs itself at once: one in Python (the GIL) while another is in
# LLVM (llvmlite releases the GIL but lets one thread in at a time) keeps ~2 cores busy.
HERE_SLOTS = 2


def max_workers() -> int:
    """Worker processes: the cores this process cannot keep busy itself (none on 2 cores,
    where its own two compiles at once already use both)."""
    n = knobs.compile_workers()
    if n >= 0:
        return n
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, cores - HERE_SLOTS)


def portable(backend, src_ext: str) -> bool:
    """Whether a worker may run this compile's later stages: a fresh process makes them
    alike from the target and options (the backend's own stages, settings all in the
    environment, no override or per-pass dump)."""
    if src_ext != "ttir" or max_workers() <= 0:
        return False
    own = getattr(backend, "compile_in_worker", None)
    if own is None or not own():
        return False
    return not (knobs.kernel_override() or knobs.pipeline_hook_set() or knobs.mlir_dump()
                or knobs.mlir_timing() or not knobs.python_values_in_env())


class Claim:
    """Where one compile's later stages run: here (`worker` None) or in `worker`. This
    process runs HERE_SLOTS compiles at once itself (more would only queue for the GIL and
    LLVM's lock); the others wait for a free worker, or start one."""

    def __init__(self, pool: Optional["_Pool"], worker: Optional["_Worker"]):
        self.pool, self.worker = pool, worker
        self.ok = False

    def release(self) -> None:
        if self.pool is not None:
            self.pool.release(self.worker, self.ok)
            self.pool = None

    def leaving_this_process(self) -> None:
        """The rest of a compile here runs in another program (ptxas): free the slot."""
        if self.worker is None:
            self.release()


def claim(backend, src_ext: str) -> Claim:
    if not portable(backend, src_ext):
        return Claim(None, None)
    pool = _pool()
    try:
        return Claim(pool, pool.acquire())
    except Exception:  # noqa: BLE001  (no worker could start: compile here, as without)
        stats["fallbacks"] += 1
        return Claim(None, None)


# -- the calling side ---------------------------------------------------------------------

class WorkerFailed(Exception):
    """The worker could not give an answer the caller may use as its own: compile inline."""


def run_later_stages(claim: Claim, target, backend_options, language, ttir_text: str,
                     arg_names: List, stages: List[str], metadata: Dict[str, Any]):
    """(asm of each later stage, metadata, [(stage, µs)]) from the claimed worker; raises a
    worker's `TritonError` as is and `WorkerFailed` for anything else."""
    # The environment as it is now goes along (knobs are read from it at each use), so a
    # worker sees what this process would, without being restarted when it changes.
    request = dict(target=target, options=backend_options, language=language,
                   ttir=ttir_text, arg_names=arg_names, stages=stages, metadata=metadata,
                   env=dict(os.environ))
    try:
        reply = claim.worker.call(request)
    except Exception as e:  # noqa: BLE001  (lost, or a request it cannot take: not kept)
        stats["fallbacks"] += 1
        raise WorkerFailed(f"compile worker lost: {type(e).__name__}: {e}") from None
    claim.ok = True
    if reply[0] == "ok":
        stats["handed_off"] += 1
        return reply[1], reply[2], reply[3]
    error = _unpickle(reply[1])
    from ..errors import TritonError
    if isinstance(error, TritonError):
        raise error
    stats["fallbacks"] += 1
    raise WorkerFailed(reply[2])


def _unpickle(data):
    if data is None:
        return None
    try:
        return pickle.loads(data)
    except Exception:
        return None


def block_arg_names(module) -> List[Optional[str]]:
    """The name hints of every block argument, in walk order (kernel parameters' names)."""
    return [a.name_hint for op in module.walk() for r in op.regions for b in r.blocks
            for a in b.args]


def _restore_arg_names(module, names: List[Optional[str]]) -> None:
    args = [a for op in module.walk() for r in op.regions for b in r.blocks for a in b.args]
    if len(args) != len(names):
        raise ValueError("the TTIR parsed in the worker has other block arguments")
    for a, n in zip(args, names):
        a.name_hint = n


class _Worker:
    def __init__(self, env: Dict[str, str]):
        self.env = env
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code = (f"import sys; sys.path.insert(0, {root!r}); "
                f"from tritium.compiler.workers import serve; "
                f"serve({to_child_r}, {from_child_w})")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code], env=env,
                                         pass_fds=(to_child_r, from_child_w),
                                         stdin=subprocess.DEVNULL, stdout=_stderr_fd(),
                                         close_fds=True)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.out = Connection(to_child_w, readable=False)
        self.inp = Connection(from_child_r, writable=False)

    def call(self, request):
        self.out.send(request)
        return self.inp.recv()  # blocks in os.read: the GIL is free meanwhile

    def close(self) -> None:
        for c in (self.out, self.inp):
            try:
                c.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _stderr_fd():
    """Where a worker's prints go: this process's stderr (its stdout is no protocol pipe, but
    a stray print must not land in the caller's stdout either)."""
    try:
        return sys.__stderr__.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL


class _Pool:
    def __init__(self):
        self.cond = threading.Condition()
        self.idle: List[_Worker] = []
        self.started = 0
        self.here_busy = 0  # compiles running their later stages in this process

    def acquire(self) -> Optional[_Worker]:
        """None: compile here (this process had a free slot); else a worker, idle or new."""
        new = False
        with self.cond:
            while True:
                if self.here_busy < HERE_SLOTS:
                    self.here_busy += 1
                    return None
                if self.idle:
                    return self.idle.pop()
                if self.started < max_workers():
                    self.started += 1
                    break
                self.cond.wait()
        try:
            return _Worker(dict(os.environ))
        except BaseException:
            with self.cond:
                self.started -= 1
                self.cond.notify()
            raise

    def release(self, worker: Optional[_Worker], ok: bool) -> None:
        if worker is None:
            with self.cond:
                self.here_busy -= 1
                self.cond.notify()
            return
        keep = ok and worker.proc.poll() is None
        with self.cond:
            if keep:
                self.idle.append(worker)
            else:
                self.started -= 1
            self.cond.notify()
        if not keep:
            worker.close()

    def close(self) -> None:
        with self.cond:
            idle, self.idle = self.idle, []
            self.started -= len(idle)
        for w in idle:
            w.close()


_the_pool: Optional[_Pool] = None
_pool_lock = threading.Lock()


def _pool() -> _Pool:
    global _the_pool
    if _the_pool is None:
        with _pool_lock:
            if _the_pool is None:
                import atexit
                _the_pool = _Pool()
                atexit.register(_the_pool.close)
    return _the_pool


def _forget_after_fork() -> None:
    """A forked child does not share its parent's workers (their pipes are the parent's
    conversations): it starts its own when it needs them."""
    global _the_pool, _pool_lock
    _the_pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def shutdown() -> None:
    """Stop the idle workers (tests; a later hand-off starts new ones)."""
    if _the_pool is not None:
        _the_pool.close()


# -- the worker side -----------------------------------------------------------------------

def serve(inp_fd: int, out_fd: int) -> None:
    """A worker's loop: one request at a time until the caller closes the pipe."""
    inp = Connection(inp_fd, writable=False)
    out = Connection(out_fd, readable=False)
    _warm_up()
    while True:
        try:
            request = inp.recv()
        except (EOFError, OSError):
            return
        out.send(_answer(request))


def _warm_up() -> None:
    """Import what the stages use before the first request arrives."""
    try:
        from ..backends.nvidia import backend  # noqa: F401
        from ..backends.nvidia import lowering, llvm  # noqa: F401
        from ..gpu import pipeline  # noqa: F401
        from ..ir import parser  # noqa: F401
        llvm._llvm()
    except Exception:  # noqa: BLE001  (a worker for another backend still serves)
        pass


def _answer(request) -> Tuple:
    from ..ir.parser import parse_module
    from .compiler import _first_text, make_backend
    stage = "ttir"
    try:
        env = request.get("env")
        if env is not None and env != os.environ:
            os.environ.clear()
            os.environ.update(env)
        backend = make_backend(request["target"])
        stages: Dict[str, Any] = {}
        backend.add_stages(stages, request["options"], request["language"])
        product = parse_module(request["ttir"])
        _restore_arg_names(product, request["arg_names"])
        metadata = request["metadata"]
        asm, times = {}, []
        for stage in request["stages"]:
            t0 = time.perf_counter()
            product = stages[stage](product, metadata)
            times.append((stage, int((time.perf_counter() - t0) * 1e6)))
            asm[stage] = _first_text(product)
        return ("ok", asm, metadata, times)
    except BaseException as e:  # noqa: BLE001  (every failure goes back to the caller)
        import traceback
        try:
            data = pickle.dumps(e)
        except Exception:  # noqa: BLE001
            data = None
        return ("err", data, f"stage {stage}: {traceback.format_exc()}")
