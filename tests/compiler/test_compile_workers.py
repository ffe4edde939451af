"""Compile workers (compiler/workers.py): while this process is compiling, another compile's
stages after TTIR run in a worker process. What a worker makes must be what the calling
thread would have made (every stage's text, the cubin, the metadata), errors autotuners
catch must arrive by class, and anything else must fall back to compiling here. No GPU
needed: sm_90a, local ptxas."""
import os
import pickle
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia import toolchain
from tritium.backends.nvidia.backend import CUDABackend
from tritium.compiler import ASTSource, compile
from tritium.compiler import workers
from tritium.runtime.errors import OutOfResources, PTXASError

needs_ptxas = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")
TARGET = GPUTarget("cuda", 90, 32)


@tritium.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptr + rm[:, None] * K + (k * BLOCK_K + rk)[None, :])
        b = tl.load(b_ptr + (k * BLOCK_K + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
CONFIGS = [(64, 64, 32, 4, 3), (128, 64, 32, 4, 3), (64, 128, 64, 4, 2), (32, 64, 32, 2, 3)]


def _compile(cfg):
    bm, bn, bk, warps, stages = cfg
    src = ASTSource(_matmul, dict(SIG, BLOCK_M="constexpr", BLOCK_N="constexpr",
                                  BLOCK_K="constexpr"),
                    {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk})
    return compile(src, target=TARGET, options={"num_warps": warps, "num_stages": stages})


def _same(a, b):
    for stage in ("ttir", "ttgir", "llir", "ptx", "cubin"):
        assert a.asm[stage] == b.asm[stage], stage
    assert dict(a.metadata._asdict()) == dict(b.metadata._asdict())


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TRITIUM_COMPILE_WORKERS", "2")
    workers.shutdown()
    yield
    workers.shutdown()


class _HoldHere:
    """Keeps this process's own compile slots taken, so the next compile goes to a worker."""

    def __enter__(self):
        pool = workers._pool()
        with pool.cond:
            assert pool.here_busy == 0
            pool.here_busy = workers.HERE_SLOTS
        return self

    def __exit__(self, *exc):
        for _ in range(workers.HERE_SLOTS):
            workers._pool().release(None, True)


@needs_ptxas
def test_a_worker_makes_what_this_process_makes(fresh):
    here = _compile(CONFIGS[0])
    before = workers.stats["handed_off"]
    with _HoldHere():
        there = _compile(CONFIGS[0])
    assert workers.stats["handed_off"] == before + 1
    _same(here, there)
    # The kernel's parameter names survive the trip (the parser alone would number them).
    assert "%a_ptr" in there.asm["ttgir"]
    assert there.metadata.n_regs == here.metadata.n_regs and there.metadata.shared > 0


@needs_ptxas
def test_threads_compile_alike_and_some_in_workers(fresh):
    serial = [_compile(c) for c in CONFIGS]
    before = workers.stats["handed_off"]
    gate = threading.Barrier(len(CONFIGS))

    def together(cfg):
        gate.wait()
        return _compile(cfg)
    with ThreadPoolExecutor(len(CONFIGS)) as ex:
        threaded = list(ex.map(together, CONFIGS))
    for a, b in zip(serial, threaded):
        _same(a, b)
    assert workers.stats["handed_off"] > before


def _wait_ready(pool, n):
    deadline = time.monotonic() + 60
    while sum(w.is_ready() for w in pool.idle) < n:
        assert time.monotonic() < deadline, "workers did not start"
        time.sleep(0.02)


@needs_ptxas
def test_a_lost_worker_means_compiling_here(fresh):
    pool = workers._pool()
    with _HoldHere():
        pool.release(pool.acquire(), True)  # starts both workers
        _wait_ready(pool, 2)
        for w in pool.idle:  # killed before they are used: every pipe now ends
            os.kill(_worker_pid(w), signal.SIGKILL)
        fallbacks = workers.stats["fallbacks"]
        kernel = _compile(CONFIGS[1])
    assert workers.stats["fallbacks"] == fallbacks + 1
    assert pool.started == 1  # the dead one handed out is not kept
    _same(kernel, _compile(CONFIGS[1]))


def _worker_pid(worker):
    """A worker's pid: the zygote's child whose pipe is this worker's (read from /proc)."""
    import glob
    ino = os.fstat(worker.out.fileno()).st_ino
    for fd in glob.glob(f"/proc/[0-9]*/fd/{worker.out.fileno()}") + glob.glob("/proc/[0-9]*/fd/*"):
        try:
            if os.readlink(fd) == f"pipe:[{ino}]" and int(fd.split("/")[2]) not in \
                    (os.getpid(), worker.zygote.proc.pid):
                return int(fd.split("/")[2])
        except OSError:
            continue
    raise AssertionError("worker process not found")


@needs_ptxas
def test_swapped_stages_stay_here(fresh, monkeypatch):
    seen = []
    original = CUDABackend.make_ptx

    def spy(self, llir, options):
        seen.append(threading.current_thread().name)
        return original(self, llir, options)
    monkeypatch.setattr(CUDABackend, "make_ptx", spy)
    before = workers.stats["handed_off"]
    with _HoldHere():
        _compile(CONFIGS[3])
    assert seen and workers.stats["handed_off"] == before


def test_no_workers_when_turned_off(monkeypatch):
    monkeypatch.setenv("TRITIUM_COMPILE_WORKERS", "0")
    assert not workers.portable(CUDABackend(TARGET), "ttir")
    monkeypatch.setenv("TRITIUM_COMPILE_WORKERS", "3")
    assert workers.portable(CUDABackend(TARGET), "ttir")
    assert not workers.portable(CUDABackend(TARGET), "ptx")  # an IR file past TTIR


@pytest.mark.parametrize("error", [OutOfResources(300000, 232448, "shared memory"),
                                   PTXASError("ptxas failed")], ids=["oor", "ptxas"])
def test_errors_autotuners_catch_arrive_by_class(error, monkeypatch):
    """A worker's answer to a failing stage (run here, in-process) carries the exception;
    the caller raises it as it is."""
    def fail(*args, **kwargs):
        raise error
    monkeypatch.setattr(toolchain, "make_cubin", fail)
    opts = CUDABackend(TARGET).parse_options({})
    request = dict(target=TARGET, options=opts, language=None, ttir=_ttir_text(),
                   arg_names=None, stages=["ttgir", "llir", "ptx", "cubin"], metadata={})
    request["arg_names"] = workers.block_arg_names(_parse(request["ttir"]))
    reply = workers._answer(request)
    assert reply[0] == "err" and "stage cubin" in reply[2]

    class Fake:
        def call(self, request):
            return reply
    with pytest.raises(type(error)) as exc:
        workers.run_later_stages(workers.Claim(None, Fake()), TARGET, opts, None,
                                 request["ttir"], request["arg_names"], request["stages"], {})
    assert exc.value.args == error.args


def test_other_errors_ask_for_compiling_here():
    class Fake:
        def call(self, request):
            return ("err", pickle.dumps(KeyError("x")), "stage llir: KeyError")
    with pytest.raises(workers.WorkerFailed, match="stage llir"):
        workers.run_later_stages(workers.Claim(None, Fake()), TARGET, None, None, "", [], [], {})


def _ttir_text():
    from tritium.compiler.compiler import _first_text
    src = ASTSource(_matmul, dict(SIG, BLOCK_M="constexpr", BLOCK_N="constexpr",
                                  BLOCK_K="constexpr"), {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32})
    backend = CUDABackend(TARGET)
    opts = backend.parse_options({})
    module = src.make_ir(TARGET, opts, None, None, None)
    module = backend.make_ttir(module, {}, opts)
    return _first_text(module, debug_info=True)


def _parse(text):
    from tritium.ir.parser import parse_module
    return parse_module(text)


@needs_ptxas
def test_ptxas_runs_without_holding_a_slot_here(fresh, monkeypatch):
    """While ptxas assembles one kernel, this process's slot goes to the next compile."""
    busy = []
    original = toolchain.make_cubin

    def spy(*args, **kwargs):
        busy.append(workers._pool().here_busy)
        return original(*args, **kwargs)
    monkeypatch.setattr(toolchain, "make_cubin", spy)
    _compile(CONFIGS[3])
    assert busy == [0]
    assert workers._pool().here_busy == 0


@needs_ptxas
def test_a_worker_that_cannot_start_means_compiling_here(fresh, monkeypatch):
    def cannot(n):
        raise OSError("no interpreter to start")
    monkeypatch.setattr(workers, "_start_workers", cannot)
    before = dict(workers.stats)
    with _HoldHere():
        kernel = _compile(CONFIGS[2])
    assert workers.stats["fallbacks"] == before["fallbacks"] + 1
    assert workers.stats["handed_off"] == before["handed_off"]
    assert workers._pool().started == 0
    _same(kernel, _compile(CONFIGS[2]))


@tritium.jit
def _row_sum(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y, tl.sum(tl.load(X + offs), axis=0))


@needs_ptxas
def test_a_worker_sees_the_environment_as_it_is_now(fresh, monkeypatch):
    """Knobs are read from the environment at each use; a worker started before a change
    must compile as this process would after it (here: the reduce lowering's switch)."""
    src = ASTSource(_row_sum, {"X": "*fp32", "Y": "*fp32", "BLOCK": "constexpr"},
                    {"BLOCK": 1024})

    def both():
        here = compile(src, target=TARGET, options={"num_warps": 8})
        with _HoldHere():
            there = compile(src, target=TARGET, options={"num_warps": 8})
        return here, there
    monkeypatch.setenv("TRITIUM_REDUCE_SHUFFLE_TREE", "1")
    tree_here, tree_there = both()
    monkeypatch.setenv("TRITIUM_REDUCE_SHUFFLE_TREE", "0")
    fold_here, fold_there = both()
    assert tree_here.asm["ptx"] != fold_here.asm["ptx"]  # the switch matters for this kernel
    _same(tree_here, tree_there)
    _same(fold_here, fold_there)


def test_the_first_overflow_starts_the_whole_pool(fresh, monkeypatch):
    """A burst's first overflow starts every worker at once (one zygote, forked), so later
    compiles of the burst find them started and warm rather than each waiting for its own
    start."""
    monkeypatch.setenv("TRITIUM_COMPILE_WORKERS", "3")
    pool = workers._pool()
    with _HoldHere():
        mine = pool.acquire()
        assert mine is not None and pool.started == 3 and len(pool.idle) == 2
        assert {w.zygote for w in pool.idle} == {mine.zygote}
        pool.release(mine, True)
        _wait_ready(pool, 3)
    # A compile alone runs here, warm workers or not (a worker ran big kernels slower) ...
    alone = pool.acquire()
    assert alone is None and pool.here_busy == 1
    # ... but beside it, a warm worker comes before this process's second slot (its GIL
    # stays with the burst's frontends).
    warm = pool.acquire()
    assert warm is not None and pool.here_busy == 1 and pool.lent == 1
    pool.release(warm, True)
    pool.release(alone, True)
    assert pool.here_busy == 0 and pool.lent == 0


def test_a_pool_thread_prestarts_the_workers(fresh, monkeypatch):
    """The first compile on a thread other than the main one starts the workers in the
    background, before any compile overflows; the main thread's compiles start none."""
    monkeypatch.setenv("TRITIUM_COMPILE_WORKERS", "2")
    backend = CUDABackend(TARGET)
    pool = workers._pool()
    workers.prestart(backend, "ttir")
    assert pool.started == 0
    t = threading.Thread(target=workers.prestart, args=(backend, "ttir"))
    t.start()
    t.join()
    assert pool.started == 2
    _wait_ready(pool, 2)
    workers.prestart(backend, "ttir")  # nothing more to start
    assert pool.started == 2 and len(pool.idle) == 2


def test_a_failed_prestart_leaves_the_pool_empty(fresh, monkeypatch):
    def cannot(n):
        raise OSError("out of processes")
    monkeypatch.setattr(workers, "_start_workers", cannot)
    pool = workers._pool()
    pool.prestart()
    deadline = time.monotonic() + 10
    while pool.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.started == 0 and pool.idle == []


@needs_ptxas
def test_a_worker_whose_backend_hash_differs_means_compiling_here(fresh, monkeypatch):
    """A worker fixed its LLVM options at start (TRITIUM_LLVM_OPTIONS is read once per
    process); a compile this process files under another backend hash than the worker's
    would make is compiled here, never taken from the worker."""
    pool = workers._pool()
    with _HoldHere():
        pool.release(pool.acquire(), True)
        _wait_ready(pool, 2)
        real = CUDABackend.hash
        monkeypatch.setattr(CUDABackend, "hash", lambda self: real(self) + "-llvm[-x]")
        before = dict(workers.stats)
        kernel = _compile(CONFIGS[0])
    assert workers.stats["fallbacks"] == before["fallbacks"] + 1
    assert workers.stats["handed_off"] == before["handed_off"]
    monkeypatch.undo()
    plain = _compile(CONFIGS[0])
    for stage in ("ttir", "ttgir", "llir", "ptx", "cubin"):
        assert kernel.asm[stage] == plain.asm[stage], stage
    assert kernel.metadata.hash != plain.metadata.hash  # (filed under the other hash)


@needs_ptxas
def test_a_worker_assembles_with_this_process_ptxas(fresh, tmp_path):
    """The worker is another interpreter (no compat, its own search): it is told the ptxas
    this process uses, so what it makes is filed under the right backend hash instead of
    being given back (on the H100 a worker's own search found upstream Triton's bundled
    ptxas 12.8 where compat's process used CUDA 13.0's)."""
    real = toolchain.find_ptxas()
    fake = tmp_path / "ptxas"  # the real one, reporting another release
    fake.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then\n'
                    f'  echo "Cuda compilation tools, release 12.8, V12.8.93"; exit 0\nfi\n'
                    f'exec {real} "$@"\n')
    fake.chmod(0o755)
    assert CUDABackend(TARGET).worker_env() == {"TRITON_PTXAS_PATH": real}
    toolchain.set_tool_path("ptxas", str(fake))  # pinned in Python: no environment says so
    try:
        assert CUDABackend(TARGET).worker_env() == {"TRITON_PTXAS_PATH": str(fake)}
        assert "ptxas(12, 8)" in CUDABackend(TARGET).hash()
        before = dict(workers.stats)
        with _HoldHere():
            there = _compile(CONFIGS[1])
        assert workers.stats["handed_off"] == before["handed_off"] + 1
        assert workers.stats["fallbacks"] == before["fallbacks"]
        here = _compile(CONFIGS[1])
    finally:
        toolchain.set_tool_path("ptxas", None)
    _same(here, there)
