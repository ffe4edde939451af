"""tt.reduce / tt.scan: recognised combine ops, argmax/argmin, generic regions (tree and
Hillis-Steele, order-preserving), multiple operands, reverse scans; print and assert."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from irkit import simple_kernel, ptr, tensor, i1, i32, f16, f32, f64  # noqa: E402

from tritium.backends.cpu.launch import launch  # noqa: E402

RNG = np.random.default_rng(11)
R, C = 4, 24        # per program: a 4x24 tile (24: not a power of two, odd halving steps)


def tile_kernel(elt, out_elt, axis, make, scan=False, reverse=False, n_out=1):
    """Each program loads a RxC tile of `elt`, reduces/scans along `axis` with
    make(k, accs, curs), stores the result(s)."""
    def build(k, x, *outs):
        pid = k.pid(0)
        r, c = k.arange(0, R), k.arange(0, C)
        off = k.bin("addi", k.bcast(k.bin("muli", k.expand(r, 1), k.const(C, tensor([R, 1], i32))),
                                    [R, C]), k.bcast(k.expand(c, 0), [R, C]))
        off = k.bin("addi", off, k.splat(k.bin("muli", pid, k.const(R * C, i32)), [R, C]))
        v = k.load(k.addptr(x, off))
        ins = [v]
        if n_out == 2:
            idx = k.bcast(k.expand(c, 0), [R, C]) if axis == 1 else k.bcast(k.expand(r, 1),
                                                                              [R, C])
            ins.append(idx)
        if scan:
            res = k.scan(ins, axis, make, reverse)
            res = res if n_out == 2 else [res]
            for o, rv in zip(outs, res):
                k.store(k.addptr(o, off), rv)
        else:
            res = k.reduce(ins, axis, make)
            res = res if n_out == 2 else [res]
            keep = R if axis == 1 else C
            ro = k.bin("addi", k.arange(0, keep), k.splat(k.bin("muli", pid, k.const(keep, i32)),
                                                         [keep]))
            for o, rv in zip(outs, res):
                k.store(k.addptr(o, ro), rv)
    outs = [ptr(out_elt)] + ([ptr(i32)] if n_out == 2 else [])
    return simple_kernel("red", [ptr(elt)] + outs, build)


def one_op(name):
    return lambda k, a, b: [k.bin(name, a[0], b[0])]


P = 3
REDUCE_REFS = {
    "addi": lambda x, ax: np.sum(x, ax, dtype=x.dtype),
    "muli": lambda x, ax: np.prod(x, ax, dtype=x.dtype),
    "maxsi": np.max, "minsi": np.min,
    "maxui": lambda x, ax: np.max(x.view(np.uint32), ax).view(np.int32),
    "minui": lambda x, ax: np.min(x.view(np.uint32), ax).view(np.int32),
    "andi": np.bitwise_and.reduce, "ori": np.bitwise_or.reduce, "xori": np.bitwise_xor.reduce,
}


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("name", sorted(REDUCE_REFS))
def test_int_reductions(name, axis):
    x = RNG.integers(-(2 ** 31), 2 ** 31 - 1, (P, R, C), dtype=np.int64).astype(np.int32)
    if name == "muli":
        x = RNG.integers(-3, 4, (P, R, C)).astype(np.int32)
    out = np.zeros(P * (R if axis == 1 else C), np.int32)
    m = tile_kernel(i32, i32, axis, one_op(name))
    launch(m, "red", (P,), [x, out])
    assert strategies(m) == ["arith." + name]
    ref = REDUCE_REFS[name](x, axis + 1)
    np.testing.assert_array_equal(out, ref.reshape(-1))


@pytest.mark.parametrize("ft", ["f32", "f64", "f16"])
@pytest.mark.parametrize("name", ["addf", "mulf", "maxnumf", "minnumf", "maximumf",
                                  "minimumf"])
def test_float_reductions(name, ft):
    npdt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[ft]
    t = {"f32": f32, "f64": f64, "f16": f16}[ft]
    x = (RNG.standard_normal((P, R, C)) * (0.3 if name == "mulf" else 3)).astype(npdt) + (
        1 if name == "mulf" else 0)
    x = x.astype(npdt)
    x[0, 1, 5] = np.nan
    out = np.zeros(P * R, npdt)
    launch(tile_kernel(t, t, 1, one_op(name)), "red", (P,), [x, out])
    x64 = x.astype(np.float64)
    ref = {"addf": lambda: x64.sum(2), "mulf": lambda: x64.prod(2),
           "maxnumf": lambda: np.fmax.reduce(x64, 2), "minnumf": lambda: np.fmin.reduce(x64, 2),
           "maximumf": lambda: x64.max(2), "minimumf": lambda: x64.min(2)}[name]()
    np.testing.assert_allclose(out, ref.astype(npdt).reshape(-1),
                               rtol={"f16": 2e-3, "f32": 1e-6, "f64": 1e-12}[ft])


def argmax_combine(k, a, b, largest=True, tie_left=True):
    v1, i1_, v2, i2 = a[0], a[1], b[0], b[1]
    better = k.cmpf("ogt" if largest else "olt", v1, v2)
    if tie_left:
        tie = k.op1("arith.andi", [k.cmpf("oeq", v1, v2), k.cmpi("slt", i1_, i2)], better.type)
        better = k.op1("arith.ori", [better, tie], better.type)
    return [k.select(better, v1, v2), k.select(better, i1_, i2)]


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("axis", [0, 1])
def test_argmax_argmin_detected_and_correct(largest, axis):
    x = RNG.integers(0, 4, (P, R, C)).astype(np.float32)         # lots of ties
    keep = R if axis == 1 else C
    vals = np.zeros(P * keep, np.float32)
    idx = np.zeros(P * keep, np.int32)
    m = tile_kernel(f32, f32, axis, lambda k, a, b: argmax_combine(k, a, b, largest), n_out=2)
    launch(m, "red", (P,), [x, vals, idx])
    f = np.argmax if largest else np.argmin
    np.testing.assert_array_equal(idx, f(x, axis + 1).reshape(-1))      # first occurrence
    np.testing.assert_array_equal(vals, (np.max if largest else np.min)(x, axis + 1).reshape(-1))
    # the region was recognised (probe) rather than evaluated generically
    assert strategies(m) == ["argmax" if largest else "argmin"]


def strategies(m):
    from tritium.backends.cpu.evaluator import module_plan
    steps = module_plan(m).plans["red"].entry.steps
    return [fn.strategy for fn, _, _, op in steps if op.name in ("tt.reduce", "tt.scan")]


def test_argmax_with_nan_falls_back_to_region():
    x = RNG.standard_normal((P, R, C)).astype(np.float32)
    x[1, 2, 7] = np.nan
    vals = np.zeros(P * R, np.float32)
    idx = np.zeros(P * R, np.int32)
    m = tile_kernel(f32, f32, 1, lambda k, a, b: argmax_combine(k, a, b, True), n_out=2)
    launch(m, "red", (P,), [x, vals, idx])
    # sequential evaluation of the same region (ogt is false against NaN)
    ref_i = np.zeros((P, R), np.int32)
    ref_v = np.zeros((P, R), np.float32)
    for p in range(P):
        for r in range(R):
            # tree order; for this region only the NaN's neighbourhood can differ, so compare
            # rows without NaN exactly
            row = x[p, r]
            ref_v[p, r], ref_i[p, r] = row.max(), row.argmax()
    ok = ~np.isnan(x).any(2).reshape(-1)
    np.testing.assert_array_equal(idx[ok], ref_i.reshape(-1)[ok])


def test_generic_region_non_commutative_order():
    # combine(a, b) = 2*a + b over ints is associative only in the ordered sense of
    # "base-2 digits": reducing d_0..d_{n-1} must give sum d_i * 2^(n-1-i) (left to right).
    # Not associative in general, so use a truly associative non-commutative op instead:
    # 2x2 matrix product over integer pairs encoded as (a, b) -> [[1, a], [0, b]]... keep it
    # simple: "keep the left" (a, b) -> a is associative and non-commutative.
    x = RNG.integers(0, 100, (P, R, C)).astype(np.int32)
    out = np.zeros(P * R, np.int32)
    launch(tile_kernel(i32, i32, 1, lambda k, a, b: [a[0]]), "red", (P,), [x, out])
    np.testing.assert_array_equal(out, x[:, :, 0].reshape(-1))
    scan_out = np.zeros(P * R * C, np.int32)
    launch(tile_kernel(i32, i32, 1, lambda k, a, b: [a[0]], scan=True), "red", (P,),
           [x, scan_out])
    np.testing.assert_array_equal(scan_out.reshape(P, R, C),
                                  np.broadcast_to(x[:, :, :1], (P, R, C)))


def test_generic_region_with_several_ops():
    # sum of squares difference: combine(a, b) = a + b*b is not associative; instead use
    # max(|a|, |b|) written with several ops (absi via select).
    def make(k, a, b):
        def absi(v):
            neg = k.cmpi("slt", v, k.const(0, i32))
            return k.select(neg, k.bin("subi", k.const(0, i32), v), v)
        return [k.bin("maxsi", absi(a[0]), absi(b[0]))]
    x = RNG.integers(-1000, 1000, (P, R, C)).astype(np.int32)
    out = np.zeros(P * C, np.int32)
    m = tile_kernel(i32, i32, 0, make)
    launch(m, "red", (P,), [x, out])
    np.testing.assert_array_equal(out, np.abs(x).max(1).reshape(-1))
    assert strategies(m) == ["generic"]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("name", ["addi", "maxsi", "xori", "muli"])
def test_int_scans(name, reverse):
    x = RNG.integers(-50, 50, (P, R, C)).astype(np.int32)
    if name == "muli":
        x = RNG.integers(-2, 3, (P, R, C)).astype(np.int32)
    out = np.zeros(P * R * C, np.int32)
    launch(tile_kernel(i32, i32, 1, one_op(name), scan=True, reverse=reverse), "red", (P,),
           [x, out])
    acc = {"addi": np.add, "maxsi": np.maximum, "xori": np.bitwise_xor,
           "muli": np.multiply}[name].accumulate
    xs = x[:, :, ::-1] if reverse else x
    ref = acc(xs, axis=2)
    ref = ref[:, :, ::-1] if reverse else ref
    np.testing.assert_array_equal(out.reshape(P, R, C), ref)


def test_float_cumsum_and_generic_scan_agree():
    x = RNG.standard_normal((P, R, C)).astype(np.float32)
    out = np.zeros(P * R * C, np.float32)
    launch(tile_kernel(f32, f32, 0, one_op("addf"), scan=True), "red", (P,), [x, out])
    np.testing.assert_allclose(out.reshape(P, R, C), np.cumsum(x.astype(np.float64), 1),
                               rtol=1e-5, atol=1e-6)

    def add_via_two_ops(k, a, b):     # not recognised: evaluated with Hillis-Steele
        s = k.bin("addf", a[0], b[0])
        return [k.bin("mulf", s, k.const(1.0, f32))]
    out2 = np.zeros_like(out)
    launch(tile_kernel(f32, f32, 0, add_via_two_ops, scan=True), "red", (P,), [x, out2])
    np.testing.assert_allclose(out2, out, rtol=1e-5, atol=1e-6)


def test_two_operand_scan_running_argmax():
    x = RNG.integers(0, 5, (P, R, C)).astype(np.float32)
    vals = np.zeros(P * R * C, np.float32)
    idx = np.zeros(P * R * C, np.int32)
    m = tile_kernel(f32, f32, 1, lambda k, a, b: argmax_combine(k, a, b, True), scan=True,
                    n_out=2)
    launch(m, "red", (P,), [x, vals, idx])
    for p in range(P):
        for r in range(R):
            for c in range(C):
                seg = x[p, r, :c + 1]
                assert vals.reshape(P, R, C)[p, r, c] == seg.max()
                assert idx.reshape(P, R, C)[p, r, c] == seg.argmax()


def test_bool_reductions():
    def build(k, x, o):
        r = k.arange(0, 16)
        v = k.load(k.addptr(x, r))
        outs = [k.reduce([v], 0, one_op(n)) for n in ("andi", "ori", "xori", "addi",
                                                      "maxsi", "minui")]
        for j, s in enumerate(outs):
            k.store(k.addptr(o, k.const(j, i32)), s)
    m = simple_kernel("b", [ptr(i1), ptr(i1)], build)
    for x in (np.ones(16, np.uint8), RNG.integers(0, 2, 16).astype(np.uint8)):
        o = np.zeros(6, np.uint8)
        launch(m, "b", (1,), [x, o])
        xb = x.astype(bool)
        np.testing.assert_array_equal(o, [xb.all(), xb.any(), xb.sum() % 2, xb.sum() % 2,
                                          xb.all(), xb.all()])


# ------------------------------------------------------------------ print / assert
def test_print_per_program(capsys):
    def build(k, x):
        pid = k.pid(0)
        v = k.load(k.addptr(x, k.arange(0, 2)))
        k.op("tt.print", [v], [], {"prefix": " x: ", "hex": False})
        k.op("tt.print", [pid], [], {"prefix": " pid: ", "hex": True})
    m = simple_kernel("p", [ptr(i32)], build)
    launch(m, "p", (2,), [np.array([5, -6], np.int32)])
    out = capsys.readouterr().out.splitlines()
    assert "pid (0, 0, 0) idx (0) x: 5" in out
    assert "pid (1, 0, 0) idx (1) x: -6" in out
    assert "pid (1, 0, 0) pid: 0x00000001" in out


def test_assert_names_message_line_and_first_failing_program():
    def build(k, x):
        r = k.arange(0, 8)
        v = k.load(k.addptr(x, k.bin("addi", r, k.splat(k.bin("muli", k.pid(0),
                                                                 k.const(8, i32)), [8]))))
        k.at(33)
        k.op("tt.assert", [k.cmpi("sge", v, k.const(0, tensor([8], i32)))], [],
             {"message": "x must be non-negative"})
    m = simple_kernel("chk", [ptr(i32)], build)
    x = np.zeros(32, np.int32)
    launch(m, "chk", (4,), [x])
    x[2 * 8 + 5] = -1
    x[3 * 8 + 1] = -1
    with pytest.raises(AssertionError) as ei:
        launch(m, "chk", (4,), [x])
    msg = str(ei.value)
    assert "x must be non-negative" in msg and "test_kernel.py:33" in msg
    assert "program (2, 0, 0)" in msg and "index (5)" in msg
