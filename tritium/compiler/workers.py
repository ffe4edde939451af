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

Not handed off (compiled in the calling thread, as before): a compile that finds no warm
worker while one of this process's two slots is free (one running ptxas no longer counts),
backends or stages that are not the backend's own (`compile_in_worker()`), overrides, a
custom pipeline hook, knobs set in Python that the environment does not carry. A worker
that dies, whose backend hash differs from its caller's, or that fails with anything but a
`TritonError` (those are what autotuners catch by class: `OutOfResources`, `PTXASError`)
makes the calling thread compile again itself, so errors look exactly as without workers.

Workers (`TRITIUM_COMPILE_WORKERS`: how many; default the cores this process may use less
the two its own threads keep busy, 0 turns them off) are all started at once, by one
"zygote" interpreter that imports the compiler and forks them: in the background when a
compile first runs on a thread other than the main one (a pool: a burst is coming), else
when a compile first finds both slots here taken. They are kept for the process's life
(each request carries the environment as it is then, plus the backend's `worker_env()`,
e.g. the ptxas this process uses); each exits when its pipe closes.
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
last_fallback = [""]  # why the last one was given back (for reports such as first_call_split)


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


def prestart(backend, src_ext: str) -> None:
    """A compile is starting on a thread other than the main one (Inductor's precompile
    pool; a burst is likely): start the workers in the background, so they have imported
    the compiler by the time the burst's TTIRs are made. Compiles on the main thread start
    none ahead (one kernel at a time needs no workers)."""
    if threading.current_thread() is threading.main_thread() or \
            not portable(backend, src_ext):
        return
    pool = _pool()
    if pool.started < max_workers():
        pool.prestart()


# -- the calling side ---------------------------------------------------------------------

class WorkerFailed(Exception):
    """The worker could not give an answer the caller may use as its own: compile inline."""


def run_later_stages(claim: Claim, target, backend_options, language, ttir_text: str,
                     arg_names: List, stages: List[str], metadata: Dict[str, Any],
                     backend_hash: Optional[str] = None, extra_env: Optional[dict] = None):
    """(asm of each later stage, metadata, [(stage, µs)]) from the claimed worker; raises a
    worker's `TritonError` as is and `WorkerFailed` for anything else."""
    # The environment as it is now goes along (knobs are read from it at each use), so a
    # worker sees what this process would, without being restarted when it changes.
    request = dict(target=target, options=backend_options, language=language,
                   ttir=ttir_text, arg_names=arg_names, stages=stages, metadata=metadata,
                   env=dict(os.environ, **(extra_env or {})), backend_hash=backend_hash)
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
    last_fallback[0] = reply[2][-500:]
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


_READY = "ready"  # a worker's first message: imported and warm, requests are served at once


class _Worker:
    """This process's end of one worker's two pipes. The worker itself is a child of the
    pool's zygote (below), so there is no process handle here: a dead worker shows as a
    closed pipe, which the caller turns into compiling here."""

    def __init__(self, out: Connection, inp: Connection, zygote: "_Zygote"):
        self.out, self.inp, self.zygote = out, inp, zygote
        self.ready = False

    def is_ready(self) -> bool:
        """Whether its start-up is over (reads the ready message if it has arrived)."""
        if not self.ready:
            try:
                if self.inp.poll(0):
                    self.ready = self.inp.recv() == _READY
            except (EOFError, OSError):
                return False
        return self.ready

    def call(self, request):
        self.out.send(request)
        if not self.ready:  # blocks in os.read: the GIL is free meanwhile
            if self.inp.recv() != _READY:
                raise WorkerFailed("compile worker did not start")
            self.ready = True
        return self.inp.recv()

    def close(self) -> None:
        for c in (self.out, self.inp):
            try:
                c.close()
            except OSError:
                pass
        self.zygote.one_closed()


class _Zygote:
    """One interpreter started per batch of workers: it imports the compiler once and forks
    a worker per pipe pair, so starting N workers costs this process one spawn (under
    the GIL, while the burst's other threads want it too), not N, and each worker starts
    with the imports done."""

    def __init__(self, n: int, env: Dict[str, str]):
        pipes = [(os.pipe(), os.pipe()) for _ in range(n)]  # (to child, from child)
        child_fds = [(to[0], back[1]) for to, back in pipes]
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code = (f"import sys; sys.path.insert(0, {root!r}); "
                f"from tritium.compiler.workers import zygote; zygote({child_fds!r})")
        # One BLAS thread: the zygote forks, and a process with threads should not.
        env = dict(env, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code], env=env,
                                         pass_fds=[fd for pair in child_fds for fd in pair],
                                         stdin=subprocess.DEVNULL, stdout=_stderr_fd(),
                                         close_fds=True)
        except BaseException:
            for to, back in pipes:
                for fd in (*to, *back):
                    os.close(fd)
            raise
        for to, back in pipes:
            os.close(to[0])
            os.close(back[1])
        self.open = n
        self.lock = threading.Lock()
        self.workers = [_Worker(Connection(to[1], readable=False),
                                Connection(back[0], writable=False), self) for to, back in pipes]

    def one_closed(self) -> None:
        with self.lock:
            self.open -= 1
            last = self.open == 0
        if last:  # every worker's pipe is closed: they exit, and so does the zygote
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _start_workers(n: int) -> List[_Worker]:
    return _Zygote(n, dict(os.environ)).workers


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
        self.lent = 0  # workers running a compile now

    def acquire(self) -> Optional[_Worker]:
        """None: compile here; else a worker. A compile alone (none other here or in a
        worker) runs here: on the H100 host a worker ran flex attention's 1.1 s compile
        20-35% slower than this process did, LLVM and ptxas alike (CPU time, not waiting),
        and that compile is all of flex's first call. Within a burst, in order: a warm idle
        worker (this process's GIL stays with the burst's frontends), a free slot here, a
        worker still starting, starting the whole pool, waiting.

        The first compile that finds no worker starts every worker the pool may have, not
        just its own: overflow means a burst (Inductor precompiles one choice per core at
        once), and each start is ~0.3-0.5 s of imports the burst's later compiles should
        not wait for in turn. `prestart` does the same earlier, in the background."""
        with self.cond:
            while True:
                if self.here_busy == 0 and self.lent == 0:
                    self.here_busy += 1
                    return None
                for i in range(len(self.idle) - 1, -1, -1):
                    if self.idle[i].is_ready():
                        self.lent += 1
                        return self.idle.pop(i)
                if self.here_busy < HERE_SLOTS:
                    self.here_busy += 1
                    return None
                if self.idle:
                    self.lent += 1
                    return self.idle.pop()
                missing = max_workers() - self.started
                if missing > 0:
                    self.started += missing
                    break
                self.cond.wait()
        started = self._start(missing)
        with self.cond:
            self.idle.extend(started[1:])
            self.lent += 1
            self.cond.notify_all()
        return started[0]

    def _start(self, missing: int) -> List[_Worker]:
        """Start `missing` workers, already counted in `started`; uncounted if they cannot."""
        try:
            return _start_workers(missing)
        except BaseException:
            with self.cond:
                self.started -= missing
                self.cond.notify_all()
            raise

    def prestart(self) -> None:
        """Start the missing workers now from another thread (a burst is beginning: their
        imports overlap its frontends). Failures are not reported: `acquire` tries again."""
        with self.cond:
            missing = max_workers() - self.started
            if missing <= 0:
                return
            self.started += missing

        def start():
            try:
                started = self._start(missing)
            except Exception:  # noqa: BLE001  (acquire will try, and fall back, itself)
                return
            with self.cond:
                self.idle.extend(started)
                self.cond.notify_all()
        threading.Thread(target=start, name="tritium-compile-workers", daemon=True).start()

    def release(self, worker: Optional[_Worker], ok: bool) -> None:
        if worker is None:
            with self.cond:
                self.here_busy -= 1
                self.cond.notify()
            return
        with self.cond:
            self.lent -= 1
            if ok:
                self.idle.append(worker)
            else:
                self.started -= 1
            self.cond.notify()
        if not ok:
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
    global _the_pool
    if _the_pool is not None:
        _the_pool.close()
        _the_pool = None  # (a worker still out with a caller goes back to the old pool)


# -- the worker side -----------------------------------------------------------------------

def zygote(fd_pairs: List[Tuple[int, int]]) -> None:
    """Import and warm up once, then fork one worker per (request, reply) pipe pair; wait
    for them all, so the caller's handle outlives its workers."""
    from .warm import warm_up
    warm_up()
    import warnings
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # fork(): no threads here
    every_fd = {fd for pair in fd_pairs for fd in pair}
    children = []
    for inp_fd, out_fd in fd_pairs:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                for fd in every_fd - {inp_fd, out_fd}:
                    os.close(fd)
                serve(inp_fd, out_fd)
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        children.append(pid)
    for fd in every_fd:
        os.close(fd)
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def serve(inp_fd: int, out_fd: int) -> None:
    """A worker's loop: one request at a time until the caller closes the pipe."""
    inp = Connection(inp_fd, writable=False)
    out = Connection(out_fd, readable=False)
    out.send(_READY)  # (warm already: the zygote warmed up before forking this worker)
    while True:
        try:
            request = inp.recv()
        except (EOFError, OSError):
            return
        out.send(_answer(request))


def _answer(request) -> Tuple:
    from ..ir.parser import parse_module
    from .compiler import _backend_hash, _first_text, _gc_paused, make_backend
    stage = "ttir"
    try:
        env = request.get("env")
        if env is not None and env != os.environ:
            os.environ.clear()
            os.environ.update(env)
        backend = make_backend(request["target"])
        wanted, own = request.get("backend_hash"), _backend_hash(backend)
        if wanted is not None and wanted != own:
            # What the caller files the kernel under is not what this process would make
            # (LLVM's options are fixed per process): the caller compiles it itself.
            raise RuntimeError(f"backend hash {wanted} here is {own}")
        stages: Dict[str, Any] = {}
        backend.add_stages(stages, request["options"], request["language"])
        product = parse_module(request["ttir"])
        _restore_arg_names(product, request["arg_names"])
        metadata = request["metadata"]
        asm, times = {}, []
        with _gc_paused():  # (as a compile in the caller's process runs)
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
