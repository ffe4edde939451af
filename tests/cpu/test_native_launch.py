"""The compiled CPU path's launch: arguments packed per kernel (every scalar kind, from
Python, numpy and torch values; pointers from torch tensors, their subclasses and numpy
arrays) and the launch-time knobs, cached until the environment or a knob override
changes them."""
import os

import numpy as np
import pytest

import tritium as triton
import tritium.knobs as knobs
import tritium.language as tl
from tritium.backends.cpu.launch_knobs import launch_knobs

torch = pytest.importorskip("torch")


@triton.jit
def _scalars(Out, a, b, c, d, e, f, g):
    tl.store(Out + 0, a.to(tl.float64))
    tl.store(Out + 1, b.to(tl.float64))
    tl.store(Out + 2, c.to(tl.float64))
    tl.store(Out + 3, d.to(tl.float64))
    tl.store(Out + 4, e.to(tl.float64))
    tl.store(Out + 5, f.to(tl.float64))
    tl.store(Out + 6, g.to(tl.float64))


_SIG = {"Out": "*fp64", "a": "i1", "b": "i8", "c": "i32", "d": "i64", "e": "fp16",
        "f": "bf16", "g": "fp32"}


def _values(rng, how):
    raw = [bool(rng.integers(0, 2)), int(rng.integers(-128, 127)),
           int(rng.integers(-2 ** 31, 2 ** 31)), int(rng.integers(-2 ** 62, 2 ** 62)),
           float(np.float16(rng.standard_normal())), 1.5 * float(rng.integers(-8, 8)),
           float(np.float32(rng.standard_normal()))]
    dt = [np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, np.float32]
    if how == "numpy":
        return raw, [t(v) for t, v in zip(dt, raw)]
    if how == "torch":
        tt = [torch.bool, torch.int8, torch.int32, torch.int64, torch.float16, torch.float32,
              torch.float32]
        return raw, [torch.tensor(v, dtype=t) for t, v in zip(tt, raw)]
    return raw, raw


@pytest.mark.parametrize("how", ["python", "numpy", "torch"])
def test_scalar_arguments_of_every_kind(rng, cpu_path, how):
    k = triton.compile(triton.compiler.ASTSource(_scalars, _SIG, {}),
                       target=triton.backends.compiler.GPUTarget("cpu", 0, 32))
    for _ in range(3):   # (the same kernel again: its packer is reused)
        raw, args = _values(rng, how)
        out = np.full(7, np.nan)
        k[(1, 1, 1)](out, *args)
        want = np.array(raw, np.float64)
        want[4] = np.float16(raw[4])
        np.testing.assert_array_equal(out, want)


@triton.jit
def _axpy(X, Y, Out, a, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(Out + o, a * tl.load(X + o, mask=m) + tl.load(Y + o, mask=m), mask=m)


@pytest.mark.parametrize("n", [1, 37, 1000])
def test_pointer_arguments_of_every_kind(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    want = 3 * x + y
    tx, ty = torch.from_numpy(x.copy()), torch.nn.Parameter(torch.from_numpy(y.copy()),
                                                            requires_grad=False)
    for X, Y in ((tx, ty), (x, y), (tx, y), (x, ty)):
        out = torch.full((n,), 7.0)
        _axpy[(triton.cdiv(n, 64),)](X, Y, out, 3.0, n, BLOCK=64)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
        out_np = np.full(n, 7, np.float32)
        _axpy[(triton.cdiv(n, 64),)](X, Y, out_np, 3.0, n, BLOCK=64)
        np.testing.assert_allclose(out_np, want, rtol=1e-6)
    with pytest.raises(TypeError, match="missing"):
        _axpy[(1,)](tx, ty, tx, 3.0, BLOCK=64)


def test_a_launch_reads_its_knobs_once(monkeypatch, rng):
    # The compiled-or-evaluator choice, the packer's streaming threshold and the thread cap
    # come from one read (each read is ~0.25 us; Inductor launches small kernels back to
    # back). Three programs, so the thread cap is asked for too.
    from tritium.backends.cpu import launch_knobs as lk
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    x = rng.standard_normal(150).astype(np.float32)
    out = np.empty_like(x)
    _axpy[(3,)](x, x, out, 2.0, 150, BLOCK=64)
    reads = []
    real = lk._signature
    monkeypatch.setattr(lk, "_signature", lambda: reads.append(1) or real())
    _axpy[(3,)](x, x, out, 2.0, 150, BLOCK=64)
    np.testing.assert_allclose(out, 3 * x, rtol=1e-6)
    assert len(reads) == 1


def test_the_core_count_is_read_per_thread_at_most_every_few_ms(monkeypatch):
    # sched_getaffinity costs ~1.5 us on a VM: a launch reuses the calling thread's count
    # for CORES_TTL seconds, then reads it again, so a thread pinned to one core (as the
    # client benchmarks pin their timing thread) launches on one thread from then on.
    import threading
    from tritium.backends.cpu.native import launcher
    reads, now = [], [100.0]
    real = os.sched_getaffinity
    allowed = real(0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: reads.append(pid) or real(pid))
    monkeypatch.setattr(launcher, "_clock", lambda: now[0])
    monkeypatch.delenv("TRITON_CPU_MAX_THREADS", raising=False)
    launcher._affinity.__dict__.clear()
    assert [launcher.max_threads() for _ in range(50)] == [len(allowed)] * 50
    assert len(reads) == 1
    now[0] += 1.01 * launcher.CORES_TTL
    assert launcher.max_threads() == len(allowed) and len(reads) == 2
    other = []
    t = threading.Thread(target=lambda: other.append(launcher.max_threads()))
    t.start()
    t.join()
    assert other == [len(allowed)] and len(reads) == 3   # another thread reads its own
    if len(allowed) < 2:
        return
    try:
        os.sched_setaffinity(0, {min(allowed)})
        now[0] += 0.5 * launcher.CORES_TTL
        assert launcher.max_threads() == len(allowed)        # within the TTL: the count held
        now[0] += 0.6 * launcher.CORES_TTL
        assert launcher.max_threads() == 1 and len(reads) == 4
    finally:
        os.sched_setaffinity(0, allowed)
        launcher._affinity.__dict__.clear()


@triton.jit
def _axpy_later(X, Y, Out, a, n, BLOCK: tl.constexpr):
    # (a kernel of its own: another test's compile under --cpu-path=evaluator has no
    # object code, and the JIT would hand that one back)
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(Out + o, a * tl.load(X + o, mask=m) + tl.load(Y + o, mask=m), mask=m)


def test_a_kernels_later_launches_keep_every_check(monkeypatch, rng):
    # After a first plain launch the driver takes a shorter path for the same kernel (no
    # re-derivation of what the first one settled): a read-only output, a wrong argument
    # count, a switch to the evaluator and a compiled kernel handed to it anew still behave
    # as on the first launch.
    from tritium.backends.cpu.driver import CPULauncher
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")   # (also under --cpu-path=evaluator)
    n = 200
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    out = np.empty_like(x)
    k = _axpy_later.warmup(x, y, out, 1.5, n, BLOCK=64, grid=(4,))
    k._init_handles()
    launcher = k._run
    assert isinstance(launcher, CPULauncher)
    for a in (1.5, -2.0, 0.25):                     # the first sets the short path up
        k[(4,)](x, y, out, a, n, 64)
        np.testing.assert_allclose(out, a * x + y, rtol=1e-6)
    assert launcher._hot is not None and launcher._hot[0] is k.function
    ro = np.frombuffer(out.tobytes(), np.float32)
    with pytest.raises(ValueError, match="'Out'.*read-only"):
        k[(4,)](x, y, ro, 1.0, n, 64)
    with pytest.raises(TypeError,
                       match="'_axpy_later' needs at least 5 arguments .through 'n'., got 4"):
        launcher.launch((4, 1, 1), (x, y, out, 1.0), k.function)
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")
    k[(4,)](x, y, out, 3.0, n, 64)
    np.testing.assert_allclose(out, 3.0 * x + y, rtol=1e-6)
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    torch_out = torch.empty(n)
    k[(4,)](torch.from_numpy(x), torch.from_numpy(y), torch_out, 0.5, n, 64)
    np.testing.assert_allclose(torch_out.numpy(), 0.5 * x + y, rtol=1e-6)
    import pickle          # a launched kernel's launcher still pickles (Inductor pickles them)
    back = pickle.loads(pickle.dumps(launcher))
    assert back._hot is None and launcher._hot is not None


def test_threads_launching_one_kernel_keep_their_own_arguments(rng):
    # Each launch packs its arguments into a buffer taken from the kernel's spares and given
    # back after: launches of one kernel from several threads at once must not share one.
    import threading
    n = 4096
    xs = [rng.standard_normal(n).astype(np.float32) for _ in range(4)]
    outs = [np.empty(n, np.float32) for _ in range(4)]
    _axpy[(triton.cdiv(n, 64),)](xs[0], xs[0], outs[0], 1.0, n, BLOCK=64)
    errors = []

    def worker(t):
        try:
            for r in range(200):
                _axpy[(triton.cdiv(n, 64),)](xs[t], xs[t], outs[t], float(t + r), n, BLOCK=64)
                np.testing.assert_allclose(outs[t], (t + r + 1) * xs[t].astype(np.float64),
                                           rtol=1e-6)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]


def test_packed_arguments_and_the_wrapping_of_values_past_64_bits():
    # The packer's layout: grid, each argument by kind, launch id, streaming threshold, and
    # two slots the pool fills. A value past 64 bits (which struct refuses) wraps as the
    # ctypes array it replaced did.
    from tritium.backends.cpu.native.launcher import Packer
    p = Packer(["ptr", "i32", "i64", "f32"])
    a = np.arange(4, dtype=np.float32)
    buf = p.pack((3, 2, 1), [a, -1, 2 ** 40, 1.5], 7)
    got = list(buf)
    assert got[:3] == [3, 2, 1]
    assert got[3] == a.__array_interface__["data"][0]
    assert got[4:7] == [2 ** 64 - 1, 2 ** 40, 0x3FC00000]
    assert got[7] == 7 and got[9:] == [0, 0]
    p.release(buf)
    assert p.pack((1, 1, 1), [a, 0, 0, 0.0]) is buf          # a spare is reused
    wrapped = p.pack((2 ** 64 + 5, 1, 1), [a, 0, 0, 0.0])
    assert wrapped[0] == 5 and wrapped[3] == got[3]
    # torch tensors and plain ints take an inlined path; a subclass, a numpy integer and
    # a tensor off the host the converters'
    from tritium.backends.cpu.native.launcher import OffHost
    t = torch.randn(5)
    sub = torch.nn.Parameter(torch.randn(3))
    assert list(p.pack((1, 1, 1), [t, -2, np.int64(-3), 0.0]))[3:6] == \
        [t.data_ptr(), 2 ** 64 - 2, 2 ** 64 - 3]
    assert p.pack((1, 1, 1), [sub, True, 0, 0.0])[3:5] == [sub.data_ptr(), 1]
    with pytest.raises(OffHost, match="argument 0 is on device meta"):
        p.pack((1, 1, 1), [torch.empty(3, device="meta"), 0, 0, 0.0])


def test_launch_knobs_follow_the_environment(monkeypatch):
    monkeypatch.delenv("TRITON_CPU_MAX_THREADS", raising=False)
    monkeypatch.delenv("TRITIUM_CPU_STREAM_BYTES", raising=False)
    monkeypatch.delenv("TRITIUM_CPU_PATH", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert launch_knobs() == (True, 0, 0)
    monkeypatch.setenv("TRITON_CPU_MAX_THREADS", "3")
    assert launch_knobs().max_threads == 3
    monkeypatch.setenv("TRITIUM_CPU_STREAM_BYTES", "-1")
    assert launch_knobs().stream_bytes == -1
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")
    assert launch_knobs().compiled is False
    monkeypatch.delenv("TRITIUM_CPU_PATH")
    assert launch_knobs().compiled is True
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert launch_knobs().compiled is False
    monkeypatch.delenv("TRITON_INTERPRET")
    monkeypatch.setenv("TRITON_CPU_MAX_THREADS", "nope")
    with pytest.raises(ValueError, match="TRITON_CPU_MAX_THREADS"):
        launch_knobs()
    monkeypatch.setenv("TRITON_CPU_MAX_THREADS", "2")
    assert launch_knobs().max_threads == 2


def test_launch_knobs_follow_overrides(monkeypatch):
    monkeypatch.delenv("TRITON_CPU_MAX_THREADS", raising=False)
    monkeypatch.delenv("TRITIUM_CPU_PATH", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert launch_knobs().max_threads == 0
    try:
        knobs.cpu.max_threads = 1
        assert launch_knobs().max_threads == 1
        knobs.runtime.interpret = True
        assert launch_knobs().compiled is False
    finally:   # (setting a knob set its variable too; monkeypatch would restore that)
        del knobs.cpu.max_threads
        del knobs.runtime.interpret
        os.environ.pop("TRITON_CPU_MAX_THREADS", None)
        os.environ.pop("TRITON_INTERPRET", None)
    assert launch_knobs() == (True, 0, launch_knobs().stream_bytes)
    assert launch_knobs().compiled is True


@triton.jit
def _twice(X, n):
    o = tl.arange(0, 16)
    tl.store(X + o, tl.load(X + o, mask=o < n) * 2, mask=o < n)


def test_path_switch_between_launches_takes_effect(monkeypatch):
    from tritium.backends.cpu import launch as evaluator
    from tritium.backends.cpu import native
    ran = []
    for mod, name, tag in ((native.NativeKernel, "run", "native"), (evaluator, "launch", "eval")):
        orig = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, orig=orig, tag=tag, **k: (ran.append(tag),
                                                                           orig(*a, **k))[1])
    x = np.ones(16, np.float32)
    monkeypatch.delenv("TRITIUM_CPU_PATH", raising=False)
    _twice[(1,)](x, 16)
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")
    _twice[(1,)](x, 16)
    monkeypatch.delenv("TRITIUM_CPU_PATH")
    _twice[(1,)](x, 16)
    assert ran == ["native", "eval", "native"]
    np.testing.assert_array_equal(x, 8)
