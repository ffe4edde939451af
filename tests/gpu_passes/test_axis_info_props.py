"""AxisInfo soundness: random integer expression DAGs over make_range / splat / constants /
function arguments are analysed and evaluated with NumPy; every contiguity, divisibility,
constancy and constant the analysis claims must hold of the concrete values.

Values stay small and non-negative where division is involved (the documented assumption
of the division rules); examples that overflow i32 are rejected.
"""
import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tritium.gpu.axis_info import AxisInfoAnalysis
from tritium.ir.parser import parse_module

I32 = (-(2 ** 31), 2 ** 31 - 1)


def check_claims(info, arr, step=1, what=""):
    """Assert that `info` (an AxisInfo) holds of the concrete array `arr`."""
    arr = np.asarray(arr, dtype=object)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    assert info.rank == arr.ndim, what
    if info.constant is not None:
        assert all(int(x) == info.constant for x in arr.flat), f"{what}: constant {info}"
    for d in range(arr.ndim):
        n = arr.shape[d]
        rows = np.moveaxis(arr, d, -1).reshape(-1, n)
        c = min(info.contiguity[d], n)
        k = min(info.constancy[d], n)
        div = info.divisibility[d]
        for row in rows:
            for g in range(0, n, c):
                seg = [int(x) for x in row[g:g + c]]
                assert all(seg[j] == seg[0] + j * step for j in range(len(seg))), \
                    f"{what}: contiguity {info} violated by {list(row)}"
                assert seg[0] % div == 0, f"{what}: divisibility {info} violated by {list(row)}"
            for g in range(0, n, k):
                seg = [int(x) for x in row[g:g + k]]
                assert len(set(seg)) == 1, f"{what}: constancy {info} violated by {list(row)}"


class Program:
    """Builds MLIR text and the concrete value of every SSA name side by side."""

    def __init__(self, rows, cols, args):
        self.R, self.C = rows, cols
        self.args = args            # (value, divisible_by_16)
        self.lines = []
        self.vals = {}
        self.types = {}
        self.n = 0
        self.pools = {(): [], (rows,): [], (cols,): [], (rows, cols): []}
        for i, (v, _) in enumerate(args):
            self.vals[f"%arg{i}"] = np.array(v, dtype=object)
            self.types[f"%arg{i}"] = "i32"
            self.pools[()].append(f"%arg{i}")

    @staticmethod
    def ty(shape, elt="i32"):
        if not shape:
            return elt
        return "tensor<" + "x".join(map(str, shape)) + f"x{elt}>"

    def emit(self, text, value, shape, pool=True, elt="i32"):
        name = f"%v{self.n}"
        self.n += 1
        self.lines.append(f"    {name} = {text}")
        value = np.array(value, dtype=object).reshape(shape) if shape else \
            np.array(value, dtype=object)
        if elt == "i32":
            assume(all(I32[0] <= int(x) <= I32[1] for x in np.asarray(value).flat))
        self.vals[name] = value
        self.types[name] = self.ty(shape, elt)
        if pool:
            self.pools[tuple(shape)].append(name)
        return name

    def text(self):
        params = ", ".join(f"%arg{i}: i32" + (" {tt.divisibility = 16 : i32}" if d else "")
                           for i, (_, d) in enumerate(self.args))
        return ("module {\n  tt.func public @k(" + params + ") {\n" + "\n".join(self.lines)
                + "\n    tt.return\n  }\n}\n")


BINARY = ["arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
          "arith.maxsi", "arith.minsi", "arith.divsi", "arith.remsi", "arith.shli",
          "arith.shrsi", "arith.shrui", "arith.divui", "arith.remui"]
PREDS = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def _evaluate(name, a, b):
    f = np.frompyfunc
    if name == "arith.addi":
        return a + b
    if name == "arith.subi":
        return a - b
    if name == "arith.muli":
        return a * b
    if name == "arith.andi":
        return f(lambda x, y: int(x) & int(y), 2, 1)(a, b)
    if name == "arith.ori":
        return f(lambda x, y: int(x) | int(y), 2, 1)(a, b)
    if name == "arith.xori":
        return f(lambda x, y: int(x) ^ int(y), 2, 1)(a, b)
    if name == "arith.maxsi":
        return f(max, 2, 1)(a, b)
    if name == "arith.minsi":
        return f(min, 2, 1)(a, b)
    if name in ("arith.divsi", "arith.divui"):
        return f(lambda x, y: int(x) // int(y), 2, 1)(a, b)
    if name in ("arith.remsi", "arith.remui"):
        return f(lambda x, y: int(x) % int(y), 2, 1)(a, b)
    if name == "arith.shli":
        return f(lambda x, y: int(x) << int(y), 2, 1)(a, b)
    if name == "arith.shrsi":
        return f(lambda x, y: int(x) >> int(y), 2, 1)(a, b)
    if name == "arith.shrui":
        return f(lambda x, y: (int(x) & 0xFFFFFFFF) >> int(y), 2, 1)(a, b)
    raise AssertionError(name)


def _compare(pred, a, b):
    def cmp(x, y):
        x, y = int(x), int(y)
        if pred.startswith("u"):
            x, y = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        p = pred.lstrip("su") if pred not in ("eq", "ne") else pred
        return int({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y,
                    "ge": x >= y}[p])
    return np.frompyfunc(cmp, 2, 1)(a, b)


@st.composite
def programs(draw):
    rows, cols = draw(st.sampled_from([(1, 8), (4, 8), (8, 4), (2, 16), (16, 2), (4, 1)]))
    args = [(draw(st.integers(0, 40)) * 16, True), (draw(st.integers(0, 40)) * 16, True),
            (draw(st.integers(0, 600)), False)]
    p = Program(rows, cols, args)
    shapes = [(), (rows,), (cols,), (rows, cols)]

    def pick(shape):
        pool = p.pools[shape]
        return draw(st.sampled_from(pool)) if pool else None

    def leaf(shape):
        kind = draw(st.sampled_from(["range", "const", "splat"] if len(shape) == 1 else
                                    ["const", "splat", "expand"] if len(shape) == 2 else
                                    ["const", "scalar_op"]))
        if kind == "range":
            start = draw(st.sampled_from([0, 1, 2, 4, 8, 16, 48, 5]))
            n = shape[0]
            return p.emit(f"tt.make_range {{end = {start + n} : i32, start = {start} : i32}}"
                          f" : tensor<{n}xi32>", list(range(start, start + n)), shape)
        if kind == "const":
            c = draw(st.sampled_from([0, 1, 2, 3, 4, 8, 16, 24, 64, 7, 1024]))
            if not shape:
                return p.emit(f"arith.constant {c} : i32", c, shape)
            return p.emit(f"arith.constant dense<{c}> : {p.ty(shape)}",
                          np.full(shape, c, dtype=object), shape)
        if kind == "splat":
            s = pick(())
            return p.emit(f"tt.splat {s} : i32 -> {p.ty(shape)}",
                          np.full(shape, p.vals[s], dtype=object), shape)
        if kind == "scalar_op":
            a, b = pick(()), pick(())
            op = draw(st.sampled_from(["arith.addi", "arith.muli", "arith.subi"]))
            return p.emit(f"{op} {a}, {b} : i32", _evaluate(op, p.vals[a], p.vals[b]), ())
        # expand a 1-D value to 2-D and broadcast it
        axis = draw(st.sampled_from([0, 1]))
        src_shape = (cols,) if axis == 0 else (rows,)
        src = pick(src_shape) or leaf(src_shape)
        mid = (1, cols) if axis == 0 else (rows, 1)
        e = p.emit(f"tt.expand_dims {src} {{axis = {axis} : i32}} : {p.ty(src_shape)} -> "
                   f"{p.ty(mid)}", np.expand_dims(p.vals[src], axis), mid, pool=False)
        return p.emit(f"tt.broadcast {e} : {p.ty(mid)} -> {p.ty(shape)}",
                      np.broadcast_to(p.vals[e], shape), shape)

    for shape in shapes[1:]:
        leaf(shape)
    for _ in range(draw(st.integers(1, 10))):
        shape = draw(st.sampled_from(shapes))
        kind = draw(st.sampled_from(["leaf", "binary", "binary", "binary", "select", "ext"]))
        if kind == "leaf" or not p.pools[shape]:
            leaf(shape)
            continue
        a = pick(shape)
        t = p.ty(shape)
        if kind == "binary":
            op = draw(st.sampled_from(BINARY))
            if op in ("arith.shli", "arith.shrsi", "arith.shrui"):
                k = draw(st.integers(0, 3))
                b = p.emit(f"arith.constant {k} : i32" if not shape else
                           f"arith.constant dense<{k}> : {t}", np.full(shape, k, dtype=object)
                           if shape else k, shape, pool=False)
                if op == "arith.shrui":
                    assume(all(int(x) >= 0 for x in np.asarray(p.vals[a]).flat))
            elif op in ("arith.divsi", "arith.remsi", "arith.divui", "arith.remui"):
                k = draw(st.sampled_from([1, 2, 4, 8, 16, 3, 32]))
                b = p.emit(f"arith.constant {k} : i32" if not shape else
                           f"arith.constant dense<{k}> : {t}", np.full(shape, k, dtype=object)
                           if shape else k, shape, pool=False)
                assume(all(int(x) >= 0 for x in np.asarray(p.vals[a]).flat))
            else:
                b = pick(shape)
            p.emit(f"{op} {a}, {b} : {t}", _evaluate(op, p.vals[a], p.vals[b]), shape)
        else:
            b = pick(shape)
            pred = draw(st.sampled_from(PREDS))
            c = p.emit(f"arith.cmpi {pred}, {a}, {b} : {t}", _compare(pred, p.vals[a], p.vals[b]),
                       shape, pool=False, elt="i1")
            if kind == "ext":
                p.emit(f"arith.extui {c} : {p.ty(shape, 'i1')} to {t}", p.vals[c], shape)
            else:
                x, y = pick(shape), pick(shape)
                p.emit(f"arith.select {c}, {x}, {y} : " + (f"{p.ty(shape, 'i1')}, {t}" if shape
                                                           else t),
                       np.where(np.asarray(p.vals[c], dtype=bool), p.vals[x], p.vals[y])
                       if shape else (p.vals[x] if p.vals[c] else p.vals[y]), shape)
    return p


def _analyse(p: Program):
    func = next(iter(parse_module(p.text()).regions[0].entry))
    info = AxisInfoAnalysis(func)
    # one result per emitted line, in program order, like the %vN names
    return info, [r for op in func.walk() for r in op.results]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
@given(programs())
def test_axis_info_claims_hold(p):
    info, results = _analyse(p)
    names = [f"%v{i}" for i in range(p.n)]
    assert len(results) == len(names)
    for name, r in zip(names, results):
        check_claims(info.get(r), p.vals[name], what=f"{name} in\n{p.text()}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
@given(programs(), st.sampled_from([("f32", 4), ("f16", 2), ("i8", 1), ("f64", 8)]))
def test_addptr_claims_hold_in_bytes(p, elem):
    """Pointers: contiguity counts elements, divisibility counts bytes."""
    elt, size = elem
    off = p.pools[(p.R, p.C)][-1]
    base = 4096 * 16
    t = p.ty((p.R, p.C), f"!tt.ptr<{elt}>")
    p.lines.append(f"    %pp = tt.splat %argp : !tt.ptr<{elt}> -> {t}")
    p.lines.append(f"    %ptr = tt.addptr %pp, {off} : {t}, {p.ty((p.R, p.C))}")
    text = p.text().replace("@k(", f"@k(%argp: !tt.ptr<{elt}> {{tt.divisibility = 16 : i32}}, ")
    module = parse_module(text)
    func = next(iter(module.regions[0].entry))
    info = AxisInfoAnalysis(func)
    ptr = [op for op in func.walk() if op.name == "tt.addptr"][-1].results[0]
    check_claims(info.get(ptr), base + np.asarray(p.vals[off], dtype=object) * size, step=size,
                 what=text)


def test_compare_range_with_constant_exhaustively():
    """x <pred> c for every predicate, 1-D runs [s, s+n) and constants c: the constancy
    claims of the comparison rule, checked against every case."""
    lines, expect = [], []
    k = 0
    for n in (4, 8, 16):
        for s in (0, 2, 4, 8, 12, 16):
            for c in (0, 1, 3, 4, 5, 8, 10, 12, 16, 17, 20, 32):
                for pred in PREDS:
                    for swap in (False, True):
                        t = f"tensor<{n}xi32>"
                        lines.append(f"    %r{k} = tt.make_range {{end = {s + n} : i32, "
                                     f"start = {s} : i32}} : {t}")
                        lines.append(f"    %c{k} = arith.constant dense<{c}> : {t}")
                        a, b = (f"%c{k}", f"%r{k}") if swap else (f"%r{k}", f"%c{k}")
                        lines.append(f"    %x{k} = arith.cmpi {pred}, {a}, {b} : {t}")
                        rng = np.arange(s, s + n, dtype=object)
                        cst = np.full(n, c, dtype=object)
                        expect.append(_compare(pred, *((cst, rng) if swap else (rng, cst))))
                        k += 1
    text = "module {\n  tt.func public @k() {\n" + "\n".join(lines) + \
        "\n    tt.return\n  }\n}\n"
    func = next(iter(parse_module(text).regions[0].entry))
    info = AxisInfoAnalysis(func)
    cmps = [op.results[0] for op in func.walk() if op.name == "arith.cmpi"]
    assert len(cmps) == len(expect)
    gained = 0
    for r, want in zip(cmps, expect):
        check_claims(info.get(r), want, what=str(r.owner_op))
        gained += info.get(r).constancy[0] > 1
    assert gained > 100  # the rule does prove something


def test_div_rem_of_runs_exhaustively():
    """[s, s+n) / q and % q for non-negative runs and constants q."""
    lines, expect = [], []
    k = 0
    for n in (4, 8, 16):
        for s in (0, 4, 8, 16, 3):
            for q in (1, 2, 4, 8, 16, 3, 6):
                for op in ("arith.divsi", "arith.remsi", "arith.divui", "arith.remui"):
                    t = f"tensor<{n}xi32>"
                    lines.append(f"    %r{k} = tt.make_range {{end = {s + n} : i32, "
                                 f"start = {s} : i32}} : {t}")
                    lines.append(f"    %c{k} = arith.constant dense<{q}> : {t}")
                    lines.append(f"    %x{k} = {op} %r{k}, %c{k} : {t}")
                    expect.append(_evaluate(op, np.arange(s, s + n, dtype=object),
                                            np.full(n, q, dtype=object)))
                    k += 1
    text = "module {\n  tt.func public @k() {\n" + "\n".join(lines) + \
        "\n    tt.return\n  }\n}\n"
    func = next(iter(parse_module(text).regions[0].entry))
    info = AxisInfoAnalysis(func)
    outs = [op.results[0] for op in func.walk() if op.name.startswith(("arith.div", "arith.rem"))]
    for r, want in zip(outs, expect):
        check_claims(info.get(r), want, what=str(r.owner_op))
