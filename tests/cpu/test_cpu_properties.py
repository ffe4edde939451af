"""Property and differential tests: lock-step evaluation equals one-program-at-a-time
evaluation; integer ops agree with Python's ints; divergent loops with random bounds;
libdevice externs."""
import os
import sys

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from irkit import run_elementwise, simple_kernel, ptr, tensor, i8, i16, i32, i64, f32, f64  # noqa

from tritium.backends.cpu.launch import launch  # noqa: E402
from tritium.ir.attrs import StringAttr, BoolAttr  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

def _erf_ref(x):
    """libm's erf in float64, element by element (no scipy needed)."""
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, np.float64))


def _erfc_ref(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(np.asarray(x, np.float64))



def divergent_kernel():
    """Per program: loop pid%5 times over a while-loop of data-dependent length, with a
    divergent if inside; stores from inside the loops."""
    def build(k, x, o, log):
        pid = k.pid(0)
        off = k.bin("addi", k.splat(k.bin("muli", pid, k.const(4, i32)), [4]), k.arange(0, 4))
        v = k.load(k.addptr(x, off))
        trips = k.bin("remsi", pid, k.const(5, i32))

        def outer(k, i, acc):
            s = k.reduce([acc], 0, lambda k, a, b: [k.bin("addi", a[0], b[0])])
            neg = k.cmpi("slt", s, k.const(0, i32))
            r, = k.if_(neg, lambda k: [k.bin("subi", k.const(0, tensor([4], i32)), acc)],
                       lambda k: [k.bin("addi", acc, k.splat(i, [4]))], [acc.type])

            def before(k, n):
                return k.cmpi("sgt", n, k.const(0, i32)), [n]

            def after(k, n):
                k.store(k.addptr(log, k.bin("addi", k.bin("muli", pid, k.const(64, i32)), n)),
                        i)
                return [k.bin("shrsi", n, k.const(1, i32))]
            k.while_([k.bin("andi", s, k.const(63, i32))], before, after)
            return [r]
        res, = k.for_(k.const(0, i32), trips, k.const(1, i32), [v], outer)
        k.store(k.addptr(o, off), res)
    return simple_kernel("div", [ptr(i32), ptr(i32), ptr(i32)], build)


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 2 ** 31 - 1))
def test_lockstep_equals_serial(nprog, seed):
    m = divergent_kernel()
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, 4 * nprog).astype(np.int32)
    outs = []
    for serial in (False, True):
        o = np.zeros(4 * nprog, np.int32)
        log = np.full(64 * nprog, -1, np.int32)
        launch(m, "div", (nprog,), [x, o, log], serial=serial)
        outs.append((o, log))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


@SETTINGS
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(1, 7)),
                min_size=1, max_size=12))
def test_for_random_per_program_bounds(bounds):
    def build(k, lb_p, ub_p, st_p, o):
        pid = k.pid(0)
        lb, ub, sp = (k.load(k.addptr(p, pid)) for p in (lb_p, ub_p, st_p))
        s, c = k.for_(lb, ub, sp, [k.const(0, i32), k.const(0, i32)],
                      lambda k, i, a, n: [k.bin("addi", a, k.bin("muli", i, i)),
                                          k.bin("addi", n, k.const(1, i32))])
        k.store(k.addptr(o, k.bin("muli", pid, k.const(2, i32))), s)
        k.store(k.addptr(o, k.bin("addi", k.bin("muli", pid, k.const(2, i32)),
                                  k.const(1, i32))), c)
    m = simple_kernel("f", [ptr(i32)] * 4, build)
    lb, ub, sp = (np.array(c, np.int32) for c in zip(*bounds))
    o = np.zeros(2 * len(bounds), np.int32)
    launch(m, "f", (len(bounds),), [lb, ub, sp, o])
    ref = [v for a, b, s in bounds for v in (sum(i * i for i in range(a, b, s)),
                                             len(range(a, b, s)))]
    np.testing.assert_array_equal(o, ref)


WIDTHS = {8: i8, 16: i16, 32: i32, 64: i64}


@SETTINGS
@given(st.sampled_from([8, 16, 32, 64]), st.data())
def test_int_ops_match_python(width, data):
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    vals = data.draw(st.lists(st.tuples(st.integers(lo, hi), st.integers(lo, hi)),
                              min_size=3, max_size=3))
    a = np.array([v[0] for v in vals], f"int{width}")
    b = np.array([v[1] if v[1] != 0 else 1 for v in vals], f"int{width}")
    t = WIDTHS[width]

    def wrap(x):
        x &= (1 << width) - 1
        return x - (1 << width) if x >> (width - 1) else x

    def cdiv(x, y):
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q
    checks = {"addi": lambda x, y: x + y, "muli": lambda x, y: x * y,
              "divsi": cdiv, "remsi": lambda x, y: x - y * cdiv(x, y),
              "floordivsi": lambda x, y: x // y}
    for name, fn in checks.items():
        out = run_elementwise(f"arith.{name}", [t, t], t, [a, b], programs=1)
        ref = [wrap(fn(int(x), int(y))) for x, y in zip(a, b)]
        assert out.tolist() == ref, name


@SETTINGS
@given(st.lists(st.floats(allow_nan=False, width=32), min_size=3, max_size=3))
def test_fptosi_roundtrip_property(xs):
    x = np.array(xs, np.float32)
    out = run_elementwise("arith.fptosi", [f32], i32, [x], programs=1)
    for v, r in zip(x.tolist(), out.tolist()):
        expect = 0 if v != v else max(-(2 ** 31), min(2 ** 31 - 1, int(v))) if abs(v) < 1e30 \
            else (2 ** 31 - 1 if v > 0 else -(2 ** 31))
        assert r == expect


def extern(symbol, arg_elts, out_elt, inputs):
    attrs = {"libname": StringAttr(""), "libpath": StringAttr(""),
             "symbol": StringAttr(symbol), "pure": BoolAttr(True)}
    return run_elementwise("tt.extern_elementwise", arg_elts, out_elt, inputs, attrs)


def test_libdevice_externs():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(30).astype(np.float32)
    y = np.abs(rng.standard_normal(30)).astype(np.float32) + 0.5
    np.testing.assert_allclose(extern("__nv_expf", [f32], f32, [x]), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(extern("__nv_powf", [f32, f32], f32, [y, x]), y ** x, rtol=1e-5)
    np.testing.assert_allclose(extern("__nv_erff", [f32], f32, [x]), _erf_ref(x),
                               rtol=1e-6)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(extern("__nv_erfc", [f64], f64, [xd]), _erfc_ref(xd),
                               rtol=1e-13)
    np.testing.assert_array_equal(extern("__nv_isnanf", [f32], i32,
                                         [np.float32([np.nan, 1, np.inf] * 10)]),
                                  [1, 0, 0] * 10)
    ints = rng.integers(-2 ** 31, 2 ** 31, 30).astype(np.int32)
    rev = ints[::-1].copy()       # kernels need contiguous memory, not a negative-stride view
    np.testing.assert_array_equal(extern("__nv_popc", [i32], i32, [ints]),
                                  [bin(int(v) & 0xFFFFFFFF).count("1") for v in ints])
    ref = np.array([((int(a) & 0xFFFFFFFF) * (int(b) & 0xFFFFFFFF)) >> 32
                    for a, b in zip(ints, rev)], np.uint32).view(np.int32)
    np.testing.assert_array_equal(extern("__nv_umulhi", [i32, i32], i32, [ints, rev]),
                                  ref)
    l64 = rng.integers(-2 ** 63, 2 ** 63, 30, dtype=np.int64)
    rev64 = l64[::-1].copy()
    ref = [((int(a) * int(b)) >> 64) for a, b in zip(l64, rev64)]
    np.testing.assert_array_equal(extern("__nv_mul64hi", [i64, i64], i64, [l64, rev64]),
                                  ref)
    np.testing.assert_array_equal(extern("__nv_clz", [i32], i32, [ints]),
                                  [32 - (int(v) & 0xFFFFFFFF).bit_length() for v in ints])


def test_unknown_extern_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="__nv_nosuchthing"):
        extern("__nv_nosuchthing", [f32], f32, [np.zeros(3, np.float32)])


def test_mulhiui_64():
    rng = np.random.default_rng(9)
    a = rng.integers(-2 ** 63, 2 ** 63, 30, dtype=np.int64)
    b = rng.integers(-2 ** 63, 2 ** 63, 30, dtype=np.int64)
    out = run_elementwise("tt.mulhiui", [i64, i64], i64, [a, b])
    ref = np.array([((int(x) % 2 ** 64) * (int(y) % 2 ** 64)) >> 64 for x, y in zip(a, b)],
                   np.uint64).view(np.int64)
    np.testing.assert_array_equal(out, ref)
