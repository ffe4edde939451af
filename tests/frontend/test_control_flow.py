"""Control flow and calls through the code generator, run on the CPU backend against numpy."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@triton.jit
def early_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def test_early_return_in_kernel(rng):
    x = rng.standard_normal(100).astype(np.float32)
    out = np.full(200, -7.0, np.float32)
    early_return_kernel[(8,)](x, out, 100, BLOCK=32)  # programs 4..7 return at once
    np.testing.assert_array_equal(out[:100], x + 1)
    assert (out[100:] == -7).all()
    text = early_return_kernel.warmup(x, out, 100, BLOCK=32, grid=(1,)).asm["ttir"]
    assert "scf.if" in text and "cf.cond_br" not in text


@triton.jit
def sign_of(v):
    if v > 0:
        return 1
    elif v < 0:
        return -1
    return 0


@triton.jit
def early_return_callee_kernel(x_ptr, out_ptr):
    i = tl.program_id(0)
    tl.store(out_ptr + i, sign_of(tl.load(x_ptr + i)))


def test_early_return_in_callee_with_value(rng):
    x = rng.integers(-3, 4, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    early_return_callee_kernel[(64,)](x, out)
    np.testing.assert_array_equal(out, np.sign(x))


@triton.jit
def plus_one_if_negative(v):
    if v < 0:
        return v + 1, v * 2
    # falls through: upstream returns ub.poison here (what the caller reads is undefined)


@triton.jit
def poison_after_pass(v):
    if v >= 0:
        pass          # this path ends first, before the return type is known
    else:
        return v - 1


@triton.jit
def poison_kernel(x_ptr, a_ptr, b_ptr, c_ptr):
    i = tl.program_id(0)
    v = tl.load(x_ptr + i)
    if v < 0:  # only read where the callees returned values
        a, b = plus_one_if_negative(v)
        tl.store(a_ptr + i, a)
        tl.store(b_ptr + i, b)
        tl.store(c_ptr + i, poison_after_pass(v))


def test_paths_without_return_give_poison(rng):
    """A device function whose other paths return values and one ends without `return`
    compiles (as upstream: that path returns `ub.poison`), and the paths that return give
    the right values."""
    x = rng.integers(-50, 50, 64).astype(np.int32)
    a, b, c = (np.full(64, 99, np.int32) for _ in range(3))
    h = poison_kernel[(64,)](x, a, b, c)
    assert h.asm["ttir"].count("ub.poison") >= 1
    neg = x < 0
    np.testing.assert_array_equal(a[neg], x[neg] + 1)
    np.testing.assert_array_equal(b[neg], x[neg] * 2)
    np.testing.assert_array_equal(c[neg], x[neg] - 1)
    assert (a[~neg] == 99).all() and (c[~neg] == 99).all()


@triton.jit
def divmod_pair(a, b):
    return a // b, a % b


@triton.jit
def tuple_kernel(x_ptr, q_ptr, r_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    q, r = divmod_pair(x, 7)
    pair = (q, r)
    tl.store(q_ptr + offs, pair[0])
    tl.store(r_ptr + offs, pair[1])


def test_tuples_returned_and_indexed(rng):
    x = rng.integers(-100, 100, 64).astype(np.int32)
    q, r = np.zeros_like(x), np.zeros_like(x)
    tuple_kernel[(1,)](x, q, r, BLOCK=64)
    np.testing.assert_array_equal(q, np.trunc(x / 7).astype(np.int32))  # C semantics
    np.testing.assert_array_equal(r, np.fmod(x, 7))


@triton.jit
def ternary_minmax_kernel(x_ptr, out_ptr, lim, BLOCK: tl.constexpr, USE_MAX: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    pid = tl.program_id(0)
    scale = 2.0 if pid == 0 else 3.0        # tensor condition: scf.if
    y = max(x, lim) if USE_MAX else min(x, lim)  # constexpr condition, builtin min/max
    k = min(BLOCK, 16)                       # compile-time min
    tl.store(out_ptr + pid * BLOCK + offs, y * scale + k)


@pytest.mark.parametrize("use_max", [True, False])
def test_conditional_expressions_and_min_max(rng, use_max):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(64, np.float32)
    ternary_minmax_kernel[(2,)](x, out, 0.25, BLOCK=32, USE_MAX=use_max)
    ref = np.maximum(x, 0.25) if use_max else np.minimum(x, 0.25)
    np.testing.assert_allclose(out[:32], ref * 2 + 16)
    np.testing.assert_allclose(out[32:], ref * 3 + 16)


@triton.jit
def loops_kernel(out_ptr, n):
    # while with a data-dependent trip count, per program
    i = 0
    total = 0
    limit = n + tl.program_id(0)
    while i < limit:
        total += i
        i += 1
    # static_range unrolls; tl.range and range are scf.for
    s = 0
    for j in tl.static_range(4):
        s += j * 10
    acc = 0
    for j in range(10, 0, -2):  # negative constant step
        acc = acc * 2 + j
    for j in tl.range(0, n, 3):
        acc += j
    if n > 5:
        acc += 1000
    elif n > 2:
        acc += 100
    else:
        acc += 10
    tl.store(out_ptr + tl.program_id(0) * 4 + tl.arange(0, 4),
             tl.where(tl.arange(0, 4) == 0, total, tl.where(tl.arange(0, 4) == 1, s, acc)))


@pytest.mark.parametrize("n", [0, 3, 7])
def test_loops_and_branches(n):
    out = np.zeros(12, np.int32)
    loops_kernel[(3,)](out, n)
    for pid in range(3):
        limit = n + pid
        acc = 0
        for j in range(10, 0, -2):
            acc = acc * 2 + j
        acc += sum(range(0, n, 3))
        acc += 1000 if n > 5 else 100 if n > 2 else 10
        assert list(out[pid * 4: pid * 4 + 3]) == [sum(range(limit)), 60, acc]


@triton.jit
def scale_value(v, factor: tl.constexpr):
    return v * factor


@triton.jit
def twice(v):
    return scale_value(v, 2)


@triton.jit
def nested_calls_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, twice(scale_value(tl.load(x_ptr + offs), 3)))


def test_nested_jit_calls_are_inlined(rng):
    x = rng.standard_normal(16).astype(np.float32)
    ref = x * 6
    nested_calls_kernel[(1,)](x, BLOCK=16)
    np.testing.assert_allclose(x, ref, rtol=1e-6)
    text = nested_calls_kernel.warmup(x, BLOCK=16, grid=(1,)).asm["ttir"]
    assert "tt.call" not in text  # the inliner removed every call


@triton.jit
def loop_carried_tuple_kernel(out_ptr, n):
    a = 0
    b = 1
    for i in range(n):
        a, b = b, a + b
    tl.store(out_ptr, a)


def test_fibonacci_loop_carried_pair():
    out = np.zeros(1, np.int32)
    loop_carried_tuple_kernel[(1,)](out, 20)
    assert out[0] == 6765


@triton.jit
def constexpr_branch_kernel(out_ptr, MODE: tl.constexpr):
    if MODE == "a":
        v = 1
    elif MODE == "b":
        v = 2
    else:
        v = 3
    tl.static_assert(MODE != "z", "mode z is not allowed")
    tl.store(out_ptr, v)


@pytest.mark.parametrize("mode,expected", [("a", 1), ("b", 2), ("c", 3)])
def test_constexpr_branches_compile_only_taken_side(mode, expected):
    out = np.zeros(1, np.int32)
    constexpr_branch_kernel[(1,)](out, MODE=mode)
    assert out[0] == expected
    text = constexpr_branch_kernel.warmup(out, MODE=mode, grid=(1,)).asm["ttir"]
    assert "scf.if" not in text
