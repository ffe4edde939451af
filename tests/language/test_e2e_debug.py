"""Hints, device_print, device_assert and the debug-mode overflow check, through @jit."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@triton.jit
def hinted_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def test_hints_reach_the_ttir():
    x = np.arange(40, dtype=np.float32)
    out = np.zeros_like(x)
    kernel = hinted_kernel[(3,)](x, out, 40, BLOCK=16)
    np.testing.assert_array_equal(out, x)
    ttir = kernel.asm["ttir"]
    assert "tt.divisibility = array<i32: 16>" in ttir and "tt.contiguity = array<i32: 16>" in ttir


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("val", x)
    print("pid", tl.program_id(0))


def test_device_print(capfd):
    print_kernel[(1,)](np.array([3, 4], np.int32), BLOCK=2)
    out = capfd.readouterr().out
    assert "val: 3" in out and "val: 4" in out and "pid: 0" in out


@triton.jit
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x < 5, "too big")


@triton.jit
def overflow_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), x + 2147483600)


def test_device_assert_and_overflow_check_in_debug(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "1")
    with pytest.raises(AssertionError, match="too big"):
        assert_kernel[(1,)](np.arange(8, dtype=np.int32), BLOCK=8)
    with pytest.raises(AssertionError, match="int32 overflow detected for operation add"):
        overflow_kernel[(1,)](np.arange(100, 108, dtype=np.int32), BLOCK=8)


def test_device_assert_is_off_without_debug(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "0")
    # Fresh kernels: the ones above may already be compiled with debug on.
    quiet_assert = triton.jit(assert_kernel.fn)
    quiet_overflow = triton.jit(overflow_kernel.fn)
    quiet_assert[(1,)](np.arange(8, dtype=np.int32), BLOCK=8)
    x = np.arange(100, 108, dtype=np.int32)
    quiet_overflow[(1,)](x, BLOCK=8)
    np.testing.assert_array_equal(x, (np.arange(100, 108) + 2147483600).astype(np.int32))


@pytest.mark.parametrize("jit_flag,launch_flag,env,raises", [
    (None, None, "1", True), (False, None, "1", True), (None, False, "1", True),
    (True, None, "0", True), (False, True, "0", True), (True, False, "0", False),
    (None, None, "0", False)])
def test_debug_switches_as_upstream(monkeypatch, jit_flag, launch_flag, env, raises):
    """Upstream's rule: the launch's `debug=`, else the @jit flag; TRITON_DEBUG=1 turns
    debugging on whatever those say. A failed assertion is an AssertionError naming the
    kernel's line and a RuntimeError saying "device-side assert" (upstream's GPU error)."""
    from tritium.errors import DeviceAssertionError
    monkeypatch.setenv("TRITON_DEBUG", env)
    k = triton.jit(assert_kernel.fn, debug=jit_flag)
    kw = {} if launch_flag is None else {"debug": launch_flag}
    x = np.arange(8, dtype=np.int32)
    if not raises:
        k[(1,)](x, BLOCK=8, **kw)
        return
    with pytest.raises(RuntimeError, match="device-side assert triggered") as info:
        k[(1,)](x, BLOCK=8, **kw)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, DeviceAssertionError)
    line = next(i for i, text in enumerate(open(__file__), 1) if "device_assert(x < 5" in text)
    assert "too big" in str(info.value) and f"test_e2e_debug.py:{line}" in str(info.value)
