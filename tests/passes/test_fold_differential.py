"""Differential tests of constant folding: random small elementwise programs over constants
(scalars or splat tensors) go through canonicalize; every returned value must fold to the
constant numpy computes on the same dtype (wraparound, C division, NaN, signed zeros).
Where the result is undefined (division by zero, INT_MIN / -1, over-wide shifts,
out-of-range float→int) the op must simply stay."""
import math

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from tritium.ir import types as T
from tritium.ir.attrs import IntegerAttr, StringAttr, TypeAttr
from tritium.ir.builder import Builder
from tritium.ir.core import make_module, module_body
from tritium.ir.ops import CMPF_PREDICATES, CMPI_PREDICATES
from tritium.passes import canonicalize

INT_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
UNSIGNED = {np.int8: np.uint8, np.int16: np.uint16, np.int32: np.uint32, np.int64: np.uint64}
FLOAT_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
IR_TYPE = {"i1": T.i1, "i8": T.i8, "i16": T.i16, "i32": T.i32, "i64": T.i64,
           "f16": T.f16, "f32": T.f32, "f64": T.f64}

INT_BIN = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori",
           "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui", "ceildivsi",
           "floordivsi"]
FLOAT_BIN = ["addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf",
             "minnumf"]
FLOAT_UN = ["negf", "math.absf", "math.sqrt", "math.floor", "math.ceil", "math.trunc",
            "math.roundeven"]


# ---------------------------------------------------------------- numpy reference
def _u(a):
    return a.view(UNSIGNED[a.dtype.type])


def ref_int(name, a, b):
    """numpy on 1-element arrays of the program's dtype; None where undefined."""
    dt = a.dtype.type
    info = np.iinfo(dt)
    w = info.bits
    with np.errstate(all="ignore"):
        if name in ("divsi", "remsi", "ceildivsi", "floordivsi"):
            if b[0] == 0 or (name != "remsi" and a[0] == info.min and b[0] == -1):
                return None
            if name == "remsi":
                return np.zeros_like(a) if b[0] == -1 else np.fmod(a, b)
            r = np.fmod(a, b)
            q = (a - r) // b  # exact: C's truncating quotient
            if name == "ceildivsi":
                return q + ((r != 0) & ((r < 0) == (b < 0))).astype(dt)
            if name == "floordivsi":
                return q - ((r != 0) & ((r < 0) != (b < 0))).astype(dt)
            return q
        if name in ("divui", "remui"):
            if b[0] == 0:
                return None
            r = _u(a) // _u(b) if name == "divui" else _u(a) % _u(b)
            return r.view(dt)
        if name in ("shli", "shrsi", "shrui"):
            s = int(_u(b)[0])
            if s >= w:
                return None
            if name == "shli":
                return np.left_shift(a, dt(s))
            if name == "shrsi":
                return np.right_shift(a, dt(s))
            return np.right_shift(_u(a), UNSIGNED[dt](s)).view(dt)
        simple = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                  "andi": np.bitwise_and, "ori": np.bitwise_or, "xori": np.bitwise_xor,
                  "maxsi": np.maximum, "minsi": np.minimum}
        if name in simple:
            return simple[name](a, b)
        f = np.maximum if name == "maxui" else np.minimum
        return f(_u(a), _u(b)).view(dt)


def _ieee_zero_sign(name, a, b, r):
    """numpy's min/max pick an operand when -0.0 == +0.0; IEEE-754 orders -0.0 first."""
    both_zero = (a == 0) & (b == 0)
    if name.startswith("min"):
        fix = np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0)
    else:
        fix = np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0)
    return np.where(both_zero, fix.astype(r.dtype), r)


def ref_float(name, a, b=None):
    if name in ("maximumf", "minimumf", "maxnumf", "minnumf"):
        fn = {"maximumf": np.maximum, "minimumf": np.minimum, "maxnumf": np.fmax,
              "minnumf": np.fmin}[name]
        return _ieee_zero_sign(name, a, b, fn(a, b))
    with np.errstate(all="ignore"):
        fns = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
               "remf": np.fmod, "maximumf": np.maximum, "minimumf": np.minimum,
               "maxnumf": np.fmax, "minnumf": np.fmin, "negf": np.negative,
               "math.absf": np.abs, "math.sqrt": np.sqrt, "math.floor": np.floor,
               "math.ceil": np.ceil, "math.trunc": np.trunc, "math.roundeven": np.rint}
        return fns[name](a) if b is None else fns[name](a, b)


def ref_cmpi(pred, a, b):
    if pred[0] == "u" or pred in ("eq", "ne"):
        a, b = _u(a), _u(b)
    rel = pred if pred in ("eq", "ne") else pred[1:]
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
            "ge": a >= b}[rel]


def ref_cmpf(pred, a, b):
    uno = np.isnan(a) | np.isnan(b)
    if pred in ("false", "true"):
        return np.full(a.shape, pred == "true")
    if pred == "ord":
        return ~uno
    if pred == "uno":
        return uno
    rel = {"eq": a == b, "ne": a != b, "gt": a > b, "ge": a >= b, "lt": a < b,
           "le": a <= b}[pred[1:]]
    return (rel & ~uno) if pred[0] == "o" else (rel | uno)


# ---------------------------------------------------------------- programs
def int_values(dt):
    info = np.iinfo(dt)
    edge = [0, 1, -1, 2, -2, 3, 7, -7, info.min, info.max, info.min + 1, info.max - 1,
            info.bits - 1, info.bits]
    return st.one_of(st.sampled_from(edge), st.integers(int(info.min), int(info.max)))


def float_values(dt):
    edge = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, math.inf, -math.inf, math.nan, 1e-3, 65504.0,
            1.0 / 3.0, 1e30]
    def to_dtype(v):  # constants hold values representable in their type
        with np.errstate(over="ignore"):
            return float(dt(v))
    return st.one_of(st.sampled_from(edge),
                     st.floats(allow_nan=True, allow_infinity=True, width=32)).map(to_dtype)


@st.composite
def programs(draw):
    tname = draw(st.sampled_from(list(INT_TYPES) + list(FLOAT_TYPES)))
    is_int = tname in INT_TYPES
    dt = INT_TYPES.get(tname) or FLOAT_TYPES[tname]
    shape = draw(st.sampled_from([(), (4,), (2, 8)]))
    vals = draw(st.lists(int_values(dt) if is_int else float_values(dt), min_size=2,
                         max_size=4))
    steps = []
    n = len(vals)
    bools = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["bin", "bin", "bin", "cmp", "select", "un"]))
        if kind == "un" and is_int:
            kind = "bin"
        if kind == "select" and not bools:
            kind = "cmp"
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if kind == "bin":
            steps.append(("bin", draw(st.sampled_from(INT_BIN if is_int else FLOAT_BIN)), i, j))
            n += 1
        elif kind == "un":
            steps.append(("un", draw(st.sampled_from(FLOAT_UN)), i, i))
            n += 1
        elif kind == "cmp":
            preds = CMPI_PREDICATES if is_int else CMPF_PREDICATES
            steps.append(("cmp", draw(st.sampled_from(preds)), i, j))
            bools.append(len(steps) - 1)
        else:
            c = draw(st.sampled_from(bools))
            steps.append(("select", c, i, j))
            n += 1
    return tname, dt, shape, vals, steps


def build_and_reference(tname, dt, shape, vals, steps):
    """The IR (one function returning every value) and numpy's value for each result."""
    ty = IR_TYPE[tname]
    full = T.tensor_of(shape, ty)
    bool_ty = T.tensor_of(shape, T.i1)
    m = make_module()
    b = Builder(module_body(m))
    f = b.create("tt.func", [], [], {"sym_name": StringAttr("p"),
                                      "function_type": TypeAttr(T.FunctionType((), ()))},
                 num_regions=1)
    b.set_insertion_point_to_end(f.regions[0].add_block())
    ir_vals = [b.constant(v, full) for v in vals]
    np_vals = [np.array([v], dtype=dt) for v in vals]
    ir_bools, np_bools = [], []
    results = []  # (ir value, numpy value or None when undefined)
    for kind, what, i, j in steps:
        defined = np_vals[i] is not None and np_vals[j] is not None
        if kind == "bin":
            v = b.create1("arith." + what, [ir_vals[i], ir_vals[j]], full)
            ref = ref_int if tname in INT_TYPES else ref_float
            r = ref(what, np_vals[i], np_vals[j]) if defined else None
        elif kind == "un":
            name = what if "." in what else "arith." + what
            v = b.create1(name, [ir_vals[i]], full)
            r = ref_float(what, np_vals[i]) if defined else None
        elif kind == "cmp":
            op = "arith.cmpi" if tname in INT_TYPES else "arith.cmpf"
            preds = CMPI_PREDICATES if tname in INT_TYPES else CMPF_PREDICATES
            v = b.create1(op, [ir_vals[i], ir_vals[j]], bool_ty,
                          {"predicate": IntegerAttr(preds.index(what), T.i64)})
            ref = ref_cmpi if tname in INT_TYPES else ref_cmpf
            r = ref(what, np_vals[i], np_vals[j]) if defined else None
            ir_bools.append(v)
            np_bools.append(r)
            results.append((v, r))
            continue
        else:  # select on the result of an earlier compare step
            ci = sum(1 for s in steps[:what] if s[0] == "cmp")
            v = b.create1("arith.select", [ir_bools[ci], ir_vals[i], ir_vals[j]], full)
            c_np = np_bools[ci]
            r = None if c_np is None or not defined else \
                np.where(c_np, np_vals[i], np_vals[j]).astype(dt)
        ir_vals.append(v)
        np_vals.append(r)
        results.append((v, r))
    ret = b.create("tt.return", [v for v, _ in results])
    return m, ret, [r for _, r in results]


def folded_value(v):
    op = v.owner_op
    if op is None or op.name != "arith.constant":
        return None
    return op.attributes["value"].value


def same(expected, got, dt) -> bool:
    e = expected.reshape(-1)[0]
    if dt is bool or expected.dtype == np.bool_:
        return bool(e) == bool(got)
    if np.issubdtype(expected.dtype, np.integer):
        return int(e) == int(got)
    e = float(e)
    if math.isnan(e):
        return math.isnan(got)
    return e == got and math.copysign(1, e) == math.copysign(1, got)


@settings(max_examples=int(__import__("os").environ.get("FOLD_EXAMPLES", 400)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_folding_matches_numpy(prog):
    tname, dt, shape, vals, steps = prog
    m, ret, expected = build_and_reference(tname, dt, shape, vals, steps)
    canonicalize(m)
    for k, (v, e) in enumerate(zip(ret.operands, expected)):
        got = folded_value(v)
        if e is None:
            continue  # undefined: whatever remains is fine
        assert got is not None, f"result {k} not folded: {m}"
        assert same(e, got, dt), f"result {k}: numpy {e!r} vs folded {got!r}\n{m}"


CAST_CASES = [("i32", "i8", "trunci"), ("i8", "i32", "extsi"), ("i16", "i64", "extsi"),
              ("i8", "i64", "extui"), ("i64", "i16", "trunci"), ("i32", "f32", "sitofp"),
              ("i64", "f32", "sitofp"), ("i64", "f64", "sitofp"), ("i16", "f16", "sitofp"),
              ("i32", "f16", "uitofp"), ("i32", "f64", "uitofp"),
              ("f32", "i32", "fptosi"), ("f64", "i16", "fptosi"),
              ("f32", "i64", "fptoui"), ("f32", "f16", "truncf"), ("f64", "f32", "truncf"),
              ("f64", "f16", "truncf"), ("f16", "f32", "extf"), ("f32", "i32", "bitcast"),
              ("i64", "f64", "bitcast")]
NP = {**INT_TYPES, **FLOAT_TYPES}


@st.composite
def casts(draw):
    src, dst, op = draw(st.sampled_from(CAST_CASES))
    sdt = NP[src]
    v = draw(int_values(sdt) if src in INT_TYPES else float_values(sdt))
    return src, dst, op, v


@settings(max_examples=int(__import__("os").environ.get("FOLD_EXAMPLES", 300)), deadline=None)
@given(casts())
def test_cast_folding_matches_numpy(case):
    src, dst, op, v = case
    sdt, ddt = NP[src], NP[dst]
    a = np.array([v], sdt)
    with np.errstate(all="ignore"):
        if op in ("extui", "uitofp"):
            e = _u(a).astype(UNSIGNED.get(ddt, ddt)).view(ddt) if op == "extui" \
                else _u(a).astype(ddt)
        elif op in ("fptosi", "fptoui"):
            lo, hi = (np.iinfo(ddt).min, np.iinfo(ddt).max) if op == "fptosi" else \
                (0, 2 * np.iinfo(ddt).max + 1)
            t = np.trunc(a.astype(np.float64))[0]
            if not np.isfinite(t) or not lo <= t <= hi:
                e = None
            else:
                e = np.array([int(t)], UNSIGNED[ddt] if op == "fptoui" else ddt).view(ddt)
        elif op == "bitcast":
            e = a.view(ddt)
            if np.issubdtype(ddt, np.floating) and np.isnan(e[0]):
                e = None  # NaN payloads are not folded
        else:
            e = a.astype(ddt)
    m = make_module()
    b = Builder(module_body(m))
    f = b.create("tt.func", [], [], {"sym_name": StringAttr("c"),
                                      "function_type": TypeAttr(T.FunctionType((), ()))},
                 num_regions=1)
    b.set_insertion_point_to_end(f.regions[0].add_block())
    x = b.create1("arith." + op, [b.constant(v, IR_TYPE[src])], IR_TYPE[dst])
    ret = b.create("tt.return", [x])
    canonicalize(m)
    got = folded_value(ret.operand(0))
    if e is None:
        return
    assert got is not None, str(m)
    assert same(e, got, ddt), f"{op} {src}->{dst} of {v!r}: numpy {e!r}, folded {got!r}"


def test_bf16_rounding():
    """bf16 has no numpy dtype: check the rounding against bit manipulation of f32."""
    from tritium.passes.folds import round_float
    rng = np.random.default_rng(0)
    xs = rng.standard_normal(2000).astype(np.float32) * np.float32(1e3)
    for x in xs:
        bits = int(np.array(x).view(np.uint32))
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        want = float(np.array(rounded, np.uint32).view(np.float32))
        assert round_float(float(x), T.bf16) == want
    assert round_float(1e39, T.bf16) == math.inf
    assert math.isnan(round_float(math.nan, T.bf16))
