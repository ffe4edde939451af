"""`tl.device_assert` (and the overflow sanitizer's checks) with `debug=True` on the compiled
CPU path: kernels run compiled with their checks (Inductor compiles every kernel with
debug=True), report what the evaluator reports, and stop a failing program before the
access its assert guards."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.errors import DeviceAssertionError


@triton.jit(debug=True)
def gather_checked(X, I, Out, n, size, BLOCK: tl.constexpr):
    # Inductor's indirect indexing: the index is checked, then used for a load.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    i = tl.load(I + offs, mask=m, other=0)
    tl.device_assert(((0 <= i) & (i < size)) | ~m, "index out of bounds: 0 <= i < size")
    tl.store(Out + offs, tl.load(X + i, mask=m), mask=m)


@triton.jit(debug=True)
def rows_checked(X, Out, limit, R: tl.constexpr, C: tl.constexpr):
    pid = tl.program_id(0)
    tl.device_assert(limit > 0, "limit must be positive")       # a scalar condition
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(X + pid * R * C + r * C + c)
    acc = tl.zeros((R, C), tl.float32)
    for k in range(3):                                        # a check inside a loop
        tl.device_assert(x < limit + k, "value over the limit")
        acc += x * (k + 1)
    tl.store(Out + pid * R * C + r * C + c, acc)


def _compiled(kernel):
    k = next(iter(next(iter(kernel.cache.values())).values()))
    return len(k.asm.get("obj", b"")) > 0


def test_passing_checks_run_compiled_on_every_core(rng, monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    monkeypatch.setenv("TRITON_CPU_MAX_THREADS", "0")
    size, n = 97, 5000
    x = rng.standard_normal(size).astype(np.float32)
    idx = rng.integers(0, size, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    gather_checked[(triton.cdiv(n, 64),)](x, idx, out, n, size, BLOCK=64)
    np.testing.assert_array_equal(out, x[idx])
    assert _compiled(gather_checked)

    xs = rng.uniform(-4, 4, (40, 4, 8)).astype(np.float32)
    out = np.zeros_like(xs)
    rows_checked[(40,)](xs, out, 5.0, R=4, C=8)
    np.testing.assert_allclose(out, xs * 6, rtol=1e-6)
    assert _compiled(rows_checked)


@pytest.mark.parametrize("bad_at", [0, 700, 4999])
def test_failed_check_names_the_same_program_and_element_on_both_paths(rng, monkeypatch,
                                                                       bad_at):
    size, n = 97, 5000
    x = rng.standard_normal(size).astype(np.float32)
    idx = rng.integers(0, size, n).astype(np.int32)
    idx[bad_at] = size + int(rng.integers(0, 50))
    messages = []
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        with pytest.raises(DeviceAssertionError) as info:
            triton.jit(gather_checked.fn, debug=True)[(triton.cdiv(n, 64),)](
                x, idx, np.zeros(n, np.float32), n, size, BLOCK=64)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert f"program ({bad_at // 64}, 0, 0), index ({bad_at % 64})" in messages[0]
    assert "index out of bounds: 0 <= i < size" in messages[0]
    assert "device-side assert triggered" in messages[0]


def test_a_failing_program_stops_before_the_access_it_guards(rng, native_only):
    # An index 2**40 elements away: the load it guards would fault if it ran.
    x = rng.standard_normal(64).astype(np.float32)
    idx = np.arange(256, dtype=np.int64) % 64
    idx[130] = 1 << 40
    out = np.zeros(256, np.float32)
    with pytest.raises(DeviceAssertionError, match=r"program \(2, 0, 0\), index \(2\)"):
        gather_checked[(4,)](x, idx, out, 256, 64, BLOCK=64)
    # Programs that passed stored their results; the failing one stopped at its check.
    np.testing.assert_array_equal(out[:64], x[idx[:64]])
    assert not out[128:192].any()


def test_scalar_and_in_loop_checks(rng, monkeypatch):
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        xs = rng.uniform(0, 1, (3, 4, 8)).astype(np.float32)
        xs[1, 2, 5] = 5.5   # passes k = 1 and 2's bound only: fails at k = 0
        kernel = triton.jit(rows_checked.fn, debug=True)
        with pytest.raises(DeviceAssertionError,
                           match=r"value over the limit` failed in program \(1, 0, 0\), "
                                 r"index \(2, 5\)"):
            kernel[(3,)](xs, np.zeros_like(xs), 5.0, R=4, C=8)
        with pytest.raises(DeviceAssertionError, match="limit must be positive"):
            kernel[(3,)](xs, np.zeros_like(xs), -1.0, R=4, C=8)


def test_overflow_check_in_debug_runs_compiled(monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")

    @triton.jit(debug=True)
    def add_big(X, BLOCK: tl.constexpr):
        x = tl.load(X + tl.arange(0, BLOCK))
        tl.store(X + tl.arange(0, BLOCK), x + 2147483600)

    ok = np.arange(-100, -92, dtype=np.int32)
    add_big[(1,)](ok, BLOCK=8)
    np.testing.assert_array_equal(ok, np.arange(-100, -92) + 2147483600)
    assert _compiled(add_big)
    with pytest.raises(DeviceAssertionError, match="int32 overflow detected for operation add"):
        add_big[(1,)](np.arange(100, 108, dtype=np.int32), BLOCK=8)


@pytest.fixture
def native_only(monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
