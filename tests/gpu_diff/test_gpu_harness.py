"""The harness itself: poisoned outputs reach both sides, unwritten elements are caught, the
tolerance kinds accept what they document and no more."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from harness import (POISON, TOLERANCES, InOut, Out, assert_same, run_both, ulp_distance)

pytestmark = pytest.mark.gpu


@triton.jit
def half_store_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


@pytest.mark.parametrize("dt", [np.float32, np.bool_, "bfloat16"])
def test_unwritten_elements_keep_the_poison_on_both_sides(dt):
    torch = pytest.importorskip("torch")
    if dt == "bfloat16":
        x = torch.arange(16, dtype=torch.float32).to(torch.bfloat16)
    else:
        x = np.arange(16).astype(dt)
    cpu, gpu = run_both(half_store_kernel, (1,), x, Out(16, dt), 10, BLOCK=16)
    assert_same(cpu[0], gpu[0], dt, "exact")
    raw = cpu[0][10:]
    if dt == "bfloat16":  # came back widened to float32: 0x5A5A then 16 zero bits
        assert (raw.view(np.uint32) == (POISON * 0x0101) << 16).all()
    else:
        assert (raw.view(np.uint8) == POISON).all()
    # A side that missed a store differs from one that made it.
    bad = gpu[0].copy()
    bad[3] = cpu[0][12]
    with pytest.raises(AssertionError, match="1 of 16 elements differ"):
        assert_same(cpu[0], bad, dt, "exact")


def test_inout_keeps_initial_values():
    acc = np.array([5, 6, 7, 8], np.int64)
    cpu, gpu = run_both(half_store_kernel, (1,), np.arange(4), InOut(acc), 2, BLOCK=4)
    np.testing.assert_array_equal(cpu[0], [1, 2, 7, 8])
    np.testing.assert_array_equal(gpu[0], [1, 2, 7, 8])


def test_ulp_distance():
    one = np.float32(1)
    a = np.array([one, one, -0.0, 0.0, -one, np.float32(2.0)], np.float32)
    b = np.array([one, np.nextafter(one, np.float32(2)), 0.0, np.float32(1e-45), one,
                  np.nextafter(np.float32(2.0), np.float32(0))], np.float32)
    np.testing.assert_array_equal(ulp_distance(a, b), [0, 1, 0, 1, 2 * 0x3F800000, 1])
    h = np.array([1.0, -2.0], np.float16)
    np.testing.assert_array_equal(ulp_distance(h, np.nextafter(h, np.float16(0))), [1, 1])
    # bfloat16 values held in float32: one bf16 ulp is 2^16 float32 ulps.
    bf = np.array([1.0], np.float32)
    nb = (bf.view(np.uint32) + (1 << 16)).view(np.float32)
    assert ulp_distance(bf, nb, "bfloat16")[0] == 1
    d = np.array([1e300, -1e300])
    assert (ulp_distance(d, -d) > 2 ** 62).all()


def test_tolerance_kinds():
    x = np.array([1.0, 3.0, np.nan, -np.inf], np.float32)
    assert_same(x, x.copy(), kind="exact")
    two_ulp = x.copy()
    two_ulp[1] = np.nextafter(np.nextafter(x[1], np.float32(9)), np.float32(9))
    assert_same(x, two_ulp, kind="div")
    with pytest.raises(AssertionError, match=r"\[arith"):
        assert_same(x, two_ulp, kind="arith")
    with pytest.raises(AssertionError):
        assert_same(np.float32([0.0]), np.float32([-0.0]), kind="exact")
    with pytest.raises(AssertionError):
        assert_same(x, np.where(np.isnan(x), 0, x).astype(np.float32), kind="math")
    # Sums: 1e-6 * sqrt(n) relative to the magnitude given.
    s = np.float32([100.0])
    assert_same(s, s + np.float32(3e-4), kind="sum", n=16, scale=100.0)
    with pytest.raises(AssertionError):
        assert_same(s, s + np.float32(1e-2), kind="sum", n=16, scale=100.0)
    # The approximate-log floor: absolute near zero.
    assert_same(np.float32([1e-9]), np.float32([3e-7]), kind="approx")
    # Integers are exact whatever the kind.
    with pytest.raises(AssertionError):
        assert_same(np.int32([1]), np.int32([2]), kind="sum")
    assert set(TOLERANCES) >= {"exact", "arith", "div", "approx", "math", "fp16", "sum"}
