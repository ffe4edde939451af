"""Structured control flow with per-program divergence: scf.if, scf.for with per-program
bounds, scf.while; side effects happen only in the programs that take a path."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from irkit import simple_kernel, ptr, i32, i64, f32  # noqa: E402

from tritium.backends.cpu.launch import launch  # noqa: E402


def test_divergent_if_with_results_and_side_effects():
    # even programs store 2*pid into o[pid] inside `then`; odd ones yield -pid from `else`;
    # every program stores the if's result into r[pid].
    def build(k, o, r):
        pid = k.pid(0)
        even = k.cmpi("eq", k.bin("remsi", pid, k.const(2, i32)), k.const(0, i32))

        def then(k):
            v = k.bin("muli", pid, k.const(2, i32))
            k.store(k.addptr(o, pid), v)
            return [v]

        def else_(k):
            return [k.bin("subi", k.const(0, i32), pid)]
        res, = k.if_(even, then, else_, [i32])
        k.store(k.addptr(r, pid), res)
    m = simple_kernel("k", [ptr(i32), ptr(i32)], build)
    n = 11
    o = np.full(n, 99, np.int32)
    r = np.zeros(n, np.int32)
    launch(m, "k", (n,), [o, r])
    p = np.arange(n)
    np.testing.assert_array_equal(o, np.where(p % 2 == 0, 2 * p, 99))
    np.testing.assert_array_equal(r, np.where(p % 2 == 0, 2 * p, -p))


def test_uniform_if_and_if_without_else():
    def build(k, o, flag):
        pid = k.pid(0)
        c = k.cmpi("ne", flag, k.const(0, i32))

        def then(k):
            k.store(k.addptr(o, pid), k.const(1, i32))
        k.if_(c, then)
    m = simple_kernel("k", [ptr(i32), i32], build)
    o = np.zeros(4, np.int32)
    launch(m, "k", (4,), [o, 0])
    assert (o == 0).all()
    launch(m, "k", (4,), [o, 1])
    assert (o == 1).all()


def test_nested_divergent_if_gathers_outer_tensors():
    # a tensor defined outside is used inside nested divergent ifs
    def build(k, x, o):
        pid = k.pid(0)
        off = k.bin("addi", k.splat(k.bin("muli", pid, k.const(8, i32)), [8]), k.arange(0, 8))
        v = k.load(k.addptr(x, off))
        c1 = k.cmpi("slt", pid, k.const(5, i32))

        def then(k):
            c2 = k.cmpi("eq", k.bin("remsi", pid, k.const(2, i32)), k.const(0, i32))
            r, = k.if_(c2, lambda k: [k.bin("addf", v, v)], lambda k: [k.bin("mulf", v, v)],
                       [v.type])
            return [r]
        res, = k.if_(c1, then, lambda k: [v], [v.type])
        k.store(k.addptr(o, off), res)
    m = simple_kernel("k", [ptr(f32), ptr(f32)], build)
    x = np.random.default_rng(0).random(80, np.float32)
    o = np.zeros(80, np.float32)
    launch(m, "k", (10,), [x, o])
    xr = x.reshape(10, 8)
    p = np.arange(10)[:, None]
    ref = np.where(p < 5, np.where(p % 2 == 0, xr + xr, xr * xr), xr)
    np.testing.assert_array_equal(o.reshape(10, 8), ref)


def test_for_with_per_program_bounds():
    # program p sums i for i in range(p, 3p+1, 2) and counts iterations with a store each.
    def build(k, o, cnt):
        pid = k.pid(0)
        lb = pid
        ub = k.bin("addi", k.bin("muli", pid, k.const(3, i32)), k.const(1, i32))

        def body(k, i, acc):
            k.atomic("add", cnt, k.const(1, i32))
            return [k.bin("addi", acc, i)]
        s, = k.for_(lb, ub, k.const(2, i32), [k.const(0, i32)], body)
        k.store(k.addptr(o, pid), s)
    m = simple_kernel("k", [ptr(i32), ptr(i32)], build)
    n = 9
    o = np.zeros(n, np.int32)
    cnt = np.zeros(1, np.int32)
    launch(m, "k", (n,), [o, cnt])
    ref = [sum(range(p, 3 * p + 1, 2)) for p in range(n)]
    np.testing.assert_array_equal(o, ref)
    assert cnt[0] == sum(len(range(p, 3 * p + 1, 2)) for p in range(n))


def test_for_zero_trip_and_per_program_step():
    def build(k, o):
        pid = k.pid(0)
        step = k.bin("addi", pid, k.const(1, i32))
        s, t = k.for_(k.const(0, i32), k.const(10, i32), step,
                      [k.const(0, i32), k.const(0.5, f32)],
                      lambda k, i, a, f: [k.bin("addi", a, k.const(1, i32)),
                                          k.bin("mulf", f, k.const(2.0, f32))])
        k.store(k.addptr(o, pid), s)
        bad, = k.for_(k.const(5, i32), k.const(5, i32), k.const(1, i32), [pid],
                      lambda k, i, a: [k.const(-1, i32)])
        k.store(k.addptr(o, k.bin("addi", pid, k.const(16, i32))), bad)
    m = simple_kernel("k", [ptr(i32)], build)
    o = np.zeros(32, np.int32)
    launch(m, "k", (12,), [o])
    np.testing.assert_array_equal(o[:12], [len(range(0, 10, p + 1)) for p in range(12)])
    np.testing.assert_array_equal(o[16:28], np.arange(12))


def test_for_with_i64_bounds_and_nested_divergent_if():
    def build(k, o):
        pid = k.pid(0)
        ub = k.cast("arith.extsi", k.bin("addi", pid, k.const(1, i32)), i64)

        def body(k, i, acc):
            odd = k.cmpi("eq", k.bin("andi", i, k.const(1, i64)), k.const(1, i64))
            r, = k.if_(odd, lambda k: [k.bin("addi", acc, i)], lambda k: [acc], [i64])
            return [r]
        s, = k.for_(k.const(0, i64), ub, k.const(1, i64), [k.const(0, i64)], body)
        k.store(k.addptr(o, pid), s)
    m = simple_kernel("k", [ptr(i64)], build)
    o = np.zeros(20, np.int64)
    launch(m, "k", (20,), [o])
    np.testing.assert_array_equal(o, [sum(i for i in range(p + 1) if i % 2) for p in range(20)])


def test_while_per_program_collatz():
    # steps of the Collatz sequence from pid+1 down to 1; stores happen inside the loop body
    def build(k, o, trace):
        pid = k.pid(0)
        start = k.bin("addi", pid, k.const(1, i32))

        def before(k, x, steps):
            return k.cmpi("ne", x, k.const(1, i32)), [x, steps]

        def after(k, x, steps):
            even = k.cmpi("eq", k.bin("andi", x, k.const(1, i32)), k.const(0, i32))
            nxt = k.select(even, k.bin("divsi", x, k.const(2, i32)),
                           k.bin("addi", k.bin("muli", x, k.const(3, i32)), k.const(1, i32)))
            tp = k.addptr(trace, pid)          # a plain load/store (no atomics: lock step)
            k.store(tp, k.bin("maxsi", k.load(tp), nxt))
            return [nxt, k.bin("addi", steps, k.const(1, i32))]
        x, steps = k.while_([start, k.const(0, i32)], before, after)
        k.store(k.addptr(o, pid), steps)
    m = simple_kernel("k", [ptr(i32), ptr(i32)], build)
    n = 30
    o = np.zeros(n, np.int32)
    trace = np.zeros(n, np.int32)
    launch(m, "k", (n,), [o, trace])
    from tritium.backends.cpu.evaluator import module_plan
    assert not module_plan(m).plans["k"].serial

    def collatz(v):
        s, peak = 0, 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s, peak = s + 1, max(peak, v)
        return s, peak
    ref = [collatz(p + 1) for p in range(n)]
    np.testing.assert_array_equal(o, [r[0] for r in ref])
    np.testing.assert_array_equal(trace, [r[1] for r in ref])


def test_while_forwarding_different_types():
    # the `before` region forwards a value computed there (an f32), not the carried i32
    def build(k, o):
        pid = k.pid(0)

        def before(k, x):
            c = k.cmpi("slt", x, k.bin("addi", pid, k.const(3, i32)))
            return c, [k.cast("arith.sitofp", x, f32)]

        def after(k, f):
            return [k.bin("addi", k.cast("arith.fptosi", f, i32), k.const(1, i32))]
        r, = k.while_([k.const(0, i32)], before, after, fwd_types=[f32])
        k.store(k.addptr(o, pid), r)
    m = simple_kernel("k", [ptr(f32)], build)
    o = np.zeros(6, np.float32)
    launch(m, "k", (6,), [o])
    np.testing.assert_array_equal(o, np.arange(6) + 3)


def test_loop_carried_tensors_with_divergent_trip_counts():
    def build(k, x, o):
        pid = k.pid(0)
        off = k.bin("addi", k.splat(k.bin("muli", pid, k.const(4, i32)), [4]), k.arange(0, 4))
        v = k.load(k.addptr(x, off))
        r, = k.for_(k.const(0, i32), pid, k.const(1, i32), [v],
                    lambda k, i, acc: [k.bin("addf", acc, v)])
        k.store(k.addptr(o, off), r)
    m = simple_kernel("k", [ptr(f32), ptr(f32)], build)
    x = np.arange(20, dtype=np.float32)
    o = np.zeros(20, np.float32)
    launch(m, "k", (5,), [x, o])
    np.testing.assert_array_equal(o.reshape(5, 4), x.reshape(5, 4) * (np.arange(5)[:, None] + 1))
