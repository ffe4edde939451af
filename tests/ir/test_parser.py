"""Parser tests: print -> parse -> print is the identity on hand-built IR, upstream-style
TTIR/TTGIR texts parse and re-print stably, and malformed text fails with `line:col`."""
import contextlib
import io
import re

import pytest

from tritium.ir import types as T
from tritium.ir.attrs import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DictAttr,
                              FloatAttr, IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr,
                              TypeAttr, UnitAttr, i32_attr)
from tritium.ir.builder import Builder
from tritium.ir.core import Block, Location, UnknownLoc, make_module, module_body
from tritium.ir.ops import CMPF_PREDICATES, CMPI_PREDICATES, INPUT_PRECISIONS
from tritium.ir.parser import (FORMATS, OpaqueEncoding, OpaqueType, ParseError, parse_attr,
                               parse_module, parse_op, parse_type)
from tritium.ir.printer import ARROW_OPS, BINARY_OPS, CAST_OPS, Printer, print_module, print_op
from tritium.ir.verifier import verify

PF32 = T.PointerType(T.f32)


# ---------------------------------------------------------------- helpers
def roundtrip(m, check_verify=True):
    """Both print modes round-trip; returns the plain text and the module re-parsed from
    the text with locations."""
    text = print_module(m)
    assert print_module(parse_module(text)) == text
    debug = print_module(m, debug_info=True)
    m2 = parse_module(debug)
    assert print_module(m2, debug_info=True) == debug
    assert print_module(m2) == text
    if check_verify:
        verify(m2)
    return text, m2


def stable(text):
    """Parse `text`, print it, and check that the printed form round-trips."""
    m = parse_module(text)
    out = print_module(m)
    assert print_module(parse_module(out)) == out
    dbg = print_module(m, debug_info=True)
    assert print_module(parse_module(dbg), debug_info=True) == dbg
    return m, out


def filecheck(checks: str, output: str) -> None:
    from filecheck.finput import FInput
    from filecheck.matcher import Matcher
    from filecheck.options import Options
    from filecheck.parser import Parser, pattern_for_opts
    opts = Options(match_filename="<checks>", input_file="<output>", check_prefixes="CHECK")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        ops = Parser(opts, io.StringIO(checks), *pattern_for_opts(opts))
        rc = Matcher(opts, FInput("<output>", output), ops).run()
    assert rc == 0, err.getvalue() + "\n--- output ---\n" + output


def new_func(name="k", arg_types=(), result_types=(), module=None, **attrs):
    m = module if module is not None else make_module()
    b = Builder(module_body(m))
    fty = T.FunctionType(tuple(arg_types), tuple(result_types))
    f = b.create("tt.func", attributes={"sym_name": StringAttr(name), "function_type": TypeAttr(fty),
                                        "sym_visibility": StringAttr("public"), **attrs},
                 num_regions=1)
    blk = f.regions[0].add_block()
    args = [blk.add_argument(t) for t in arg_types]
    b.set_insertion_point_to_end(blk)
    return m, f, b, args


def vector_add_module():
    arg_attrs = ArrayAttr(tuple(DictAttr((("tt.divisibility", i32_attr(16)),)) for _ in range(4)))
    m, f, b, args = new_func("add_kernel", (PF32, PF32, PF32, T.i32), arg_attrs=arg_attrs,
                             noinline=BoolAttr(False))
    b.loc = Location("add.py", 3, 4)
    t = T.TensorType((1024,), T.i32)
    c = b.constant(1024, T.i32)
    pid = b.create1("tt.get_program_id", [], T.i32, {"axis": i32_attr(0)})
    s = b.create1("arith.muli", [pid, c], T.i32)
    r = b.create1("tt.make_range", [], t, {"start": i32_attr(0), "end": i32_attr(1024)})
    off = b.create1("arith.addi", [b.create1("tt.splat", [s], t), r], t)
    mask = b.create1("arith.cmpi", [off, b.create1("tt.splat", [args[3]], t)],
                     T.TensorType((1024,), T.i1), {"predicate": IntegerAttr(2, T.i64)})
    ptrs = []
    for a in args[:3]:
        p = b.create1("tt.splat", [a], T.TensorType((1024,), PF32))
        ptrs.append(b.create1("tt.addptr", [p, off], p.type))
    mem = {"cache": i32_attr(1), "evict": i32_attr(1)}
    x = b.create1("tt.load", ptrs[:1] + [mask], T.TensorType((1024,), T.f32),
                  {**mem, "isVolatile": BoolAttr(False)})
    y = b.create1("tt.load", ptrs[1:2] + [mask], x.type, {**mem, "isVolatile": BoolAttr(False)})
    b.create("tt.store", [ptrs[2], b.create1("arith.addf", [x, y], x.type), mask], [], mem)
    b.create("tt.return")
    return m


# ---------------------------------------------------------------- hand-built IR
def test_vector_add_roundtrip_and_text():
    text, m2 = roundtrip(vector_add_module())
    filecheck("""
CHECK: tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}
CHECK-SAME: attributes {noinline = false}
CHECK: %c1024_i32 = arith.constant 1024 : i32
CHECK: %0 = tt.get_program_id x : i32
CHECK: tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
CHECK: arith.cmpi slt, %{{.*}} : tensor<1024xi32>
CHECK: tt.load %{{[0-9]+}}, %{{[0-9]+}} : tensor<1024x!tt.ptr<f32>>
CHECK: tt.store
CHECK-NEXT: tt.return
""", text)
    loads = [op for op in m2.walk() if op.name == "tt.load"]
    assert loads[0].attr("cache") == 1 and loads[0].attr("isVolatile") is False
    assert all(op.loc == Location("add.py", 3, 4) for op in m2.walk() if op.name != "builtin.module"
               and op.name != "tt.func")


@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_every_binary_and_unary_op(name):
    from tritium.ir.ops import lookup
    is_float = not (name.endswith("i") or name[-2:] in ("si", "ui") or name == "math.absi"
                    or name in ("arith.andi", "arith.ori", "arith.xori"))
    elt = T.f32 if is_float else T.i32
    ty = T.TensorType((4, 8), elt)
    doc = lookup(name).doc
    n = 1 if doc.startswith("operand ") else (3 if name == "math.fma" else 2)
    m, f, b, args = new_func(arg_types=[ty] * n)
    r = b.create1(name, args, ty)
    b.create("tt.return")
    text, _ = roundtrip(m)
    assert f"= {name} " in text
    assert print_op(r.owner_op).startswith(f"%0 = {name} %in0")


@pytest.mark.parametrize("name,src,dst", [
    ("arith.extsi", T.i32, T.i64), ("arith.extui", T.i8, T.i32), ("arith.trunci", T.i64, T.i16),
    ("arith.extf", T.f16, T.f32), ("arith.truncf", T.f32, T.bf16), ("arith.sitofp", T.i32, T.f32),
    ("arith.uitofp", T.i16, T.f16), ("arith.fptosi", T.f32, T.i32), ("arith.fptoui", T.f64, T.i8),
    ("arith.bitcast", T.f32, T.i32), ("tt.fp_to_fp", T.f32, T.FloatType("f8E4M3FN")),
    ("tt.bitcast", T.PointerType(T.f16), T.PointerType(T.i16)), ("tt.int_to_ptr", T.i64, PF32),
    ("tt.ptr_to_int", PF32, T.i64)])
@pytest.mark.parametrize("shape", [(), (16,), (2, 64)])
def test_every_cast(name, src, dst, shape):
    m, f, b, args = new_func(arg_types=[T.tensor_of(shape, src)])
    attrs = {"rounding": i32_attr(1)} if name == "tt.fp_to_fp" else None
    b.create1(name, args, T.tensor_of(shape, dst), attrs)
    b.create("tt.return")
    text, _ = roundtrip(m)
    sep = "to" if name in CAST_OPS else "->"
    assert f"{name} %arg0" in text and f" : {T.tensor_of(shape, src)} {sep} " in text


def test_cmp_predicates_and_select_forms():
    ti, tf = T.TensorType((8,), T.i32), T.TensorType((8,), T.f32)
    m, f, b, (x, y, c) = new_func(arg_types=[ti, tf, T.i1])
    for i, _ in enumerate(CMPI_PREDICATES):
        b.create1("arith.cmpi", [x, x], T.TensorType((8,), T.i1), {"predicate": IntegerAttr(i, T.i64)})
    for i, _ in enumerate(CMPF_PREDICATES):
        mask = b.create1("arith.cmpf", [y, y], T.TensorType((8,), T.i1),
                         {"predicate": IntegerAttr(i, T.i64)})
    b.create1("arith.select", [c, y, y], tf)      # scalar condition: one type
    b.create1("arith.select", [mask, y, y], tf)   # tensor condition: two types
    b.create("tt.return")
    text, m2 = roundtrip(m)
    for p in CMPI_PREDICATES:
        assert f"arith.cmpi {p}, %arg0, %arg0 : tensor<8xi32>" in text
    for p in CMPF_PREDICATES:
        assert f"arith.cmpf {p}, %arg1, %arg1 : tensor<8xf32>" in text
    assert re.search(r"arith.select %arg2, %arg1, %arg1 : tensor<8xf32>\n", text)
    assert re.search(r"arith.select %\d+, %arg1, %arg1 : tensor<8xi1>, tensor<8xf32>", text)


def test_constants_names_and_values():
    m, f, b, _ = new_func()
    weird = [0.0, -0.0, 1.5, 0.1, 1 / 3, float("inf"), float("-inf"), float("nan"),
             1.401298464324817e-45, 65504.0, 6e-08, -2.0 ** -24]
    b.constant(1e300, T.f64)
    b.constant(5e-324, T.f64)
    for v in weird:
        for t in (T.f16, T.bf16, T.f32, T.f64):
            b.constant(v, t)
            b.constant(v, T.TensorType((4,), t))
    for name in ("f8E4M3FN", "f8E5M2"):  # fp8 NaN/inf print as hex too
        for v in (float("nan"), float("inf"), -1.5):
            b.constant(v, T.FloatType(name))
    for v, t in [(0, T.i32), (-1, T.i32), (2**63 - 1, T.i64), (-2**63, T.i64), (1, T.i1),
                 (0, T.i1), (255, T.i8), (7, T.i16)]:
        b.constant(v, t)
        b.constant(v, T.TensorType((2, 2), t))
    b.create("tt.return")
    text, m2 = roundtrip(m)
    for s in ["%c0_i32 = arith.constant 0 : i32", "%c-1_i32 = arith.constant -1 : i32",
              "%true = arith.constant true", "%false = arith.constant false",
              "arith.constant 0x7FC00000 : f32", "arith.constant 0xFF800000 : f32",
              "arith.constant 0x7C00 : f16", "arith.constant dense<true> : tensor<2x2xi1>",
              "arith.constant -0.000000e+00 : f32", "%cst_0 = ", "arith.constant dense<-1> : tensor<2x2xi8>"]:
        assert s in text, s
    values = [op.attributes["value"] for op in m2.walk() if op.name == "arith.constant"]
    originals = [op.attributes["value"] for op in m.walk() if op.name == "arith.constant"]
    assert values == originals  # bit-exact, NaN included


def test_arrow_ops_and_multi_results():
    m, f, b, (x, p) = new_func(arg_types=[T.TensorType((4, 1), T.f32), PF32])
    t41 = x.type
    bc = b.create1("tt.broadcast", [x], T.TensorType((4, 8), T.f32))
    e = b.create1("tt.expand_dims", [bc], T.TensorType((4, 1, 8), T.f32), {"axis": i32_attr(1)})
    r = b.create1("tt.reshape", [e], T.TensorType((32,), T.f32), {"allow_reorder": BoolAttr(False)})
    tr = b.create1("tt.trans", [bc], T.TensorType((8, 4), T.f32),
                   {"order": DenseArrayAttr(T.i32, (1, 0))})
    j = b.create1("tt.join", [tr, tr], T.TensorType((8, 4, 2), T.f32))
    sp = b.create("tt.split", [j], [tr.type, tr.type])
    b.create1("tt.cat", [sp.results[0], sp.results[1]], T.TensorType((16, 4), T.f32))
    b.create1("tt.histogram", [b.create1("arith.fptosi", [r], T.TensorType((32,), T.i32))],
              T.TensorType((8,), T.i32))
    s = b.create1("tt.splat", [p], T.TensorType((4, 1), PF32))
    b.create1("tt.ptr_to_int", [s], T.TensorType((4, 1), T.i64))
    b.create1("ttg.convert_layout", [t41 and x], t41)
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert re.search(r"%(\d+):2 = tt.split %\d+ : tensor<8x4x2xf32> -> tensor<8x4xf32>, "
                     r"tensor<8x4xf32>", text)
    assert re.search(r"tt.cat %\d+#0, %\d+#1 : ", text)
    assert "tt.trans %0 {order = array<i32: 1, 0>}" in text


def test_program_ids_make_range_addptr():
    m, f, b, (p,) = new_func(arg_types=[PF32])
    for axis in range(3):
        b.create1("tt.get_program_id", [], T.i32, {"axis": i32_attr(axis)})
        b.create1("tt.get_num_programs", [], T.i32, {"axis": i32_attr(axis)})
    r = b.create1("tt.make_range", [], T.TensorType((64,), T.i32),
                  {"start": i32_attr(64), "end": i32_attr(128)})
    b.create1("tt.addptr", [b.create1("tt.splat", [p], T.TensorType((64,), PF32)), r],
              T.TensorType((64,), PF32))
    b.create1("tt.addptr", [p, b.constant(4, T.i64)], PF32)
    b.create("tt.return")
    text, m2 = roundtrip(m)
    for a in "xyz":
        assert f"tt.get_program_id {a} : i32" in text and f"tt.get_num_programs {a} : i32" in text
    pids = [op.attr("axis") for op in m2.walk() if op.name == "tt.get_program_id"]
    assert pids == [0, 1, 2]


def test_load_store_attributes_and_defaults():
    t = T.TensorType((16,), PF32)
    m, f, b, (p, msk) = new_func(arg_types=[t, T.TensorType((16,), T.i1)])
    other = b.constant(0.0, T.TensorType((16,), T.f32))
    x = b.create1("tt.load", [p, msk, other], other.type,
                  {"cache": i32_attr(3), "evict": i32_attr(2), "isVolatile": BoolAttr(True)})
    b.create1("tt.load", [p], other.type)  # no attributes at all
    b.create("tt.store", [p, x], [], {"cache": i32_attr(6), "evict": i32_attr(1)})
    b.create("tt.store", [p, x, msk])
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert "{cache = 3 : i32, evict = 2 : i32, isVolatile = true}" in text
    assert "tt.store %arg0, %0 {cache = 6 : i32} : tensor<16x!tt.ptr<f32>>" in text
    loads = [op for op in m2.walk() if op.name == "tt.load"]
    assert [o.attr("cache") for o in loads] == [3, 1] and loads[1].attr("isVolatile") is False
    stores = [op for op in m2.walk() if op.name == "tt.store"]
    assert stores[1].attr("evict") == 1 and "isVolatile" not in stores[1].attributes


def test_upstream_load_store_modifiers():
    m, _ = stable("""
    tt.func @f(%p: tensor<8x!tt.ptr<f16>>, %m: tensor<8xi1>) {
      %x = tt.load %p, %m cacheModifier = cg evictionPolicy = evict_first {isVolatile = true} : tensor<8x!tt.ptr<f16>>
      tt.store %p, %x, %m cacheModifier = wt : tensor<8x!tt.ptr<f16>>
      tt.return
    }""")
    load = next(op for op in m.walk() if op.name == "tt.load")
    assert (load.attr("cache"), load.attr("evict"), load.attr("isVolatile")) == (3, 2, True)  # EVICT_FIRST = 2, as upstream's enum
    store = next(op for op in m.walk() if op.name == "tt.store")
    assert store.attr("cache") == 6


@pytest.mark.parametrize("prec", sorted(INPUT_PRECISIONS))
def test_dot_precisions(prec):
    a, bt, c = (T.TensorType(s, e) for s, e in [((16, 32), T.f16), ((32, 64), T.f16),
                                                 ((16, 64), T.f32)])
    m, f, b, args = new_func(arg_types=[a, bt, c])
    b.create1("tt.dot", args, c, {"inputPrecision": i32_attr(INPUT_PRECISIONS[prec]),
                                  "maxNumImpreciseAcc": i32_attr(0)})
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert (f"tt.dot %arg0, %arg1, %arg2, inputPrecision = {prec} {{maxNumImpreciseAcc = 0 : i32}}"
            f" : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>") in text


def test_calls_with_zero_one_two_results_and_declarations():
    m = make_module()
    _, g0, b0, _ = new_func("none", [T.i32], [], module=m)
    b0.create("tt.return")
    _, g1, b1, (a,) = new_func("one", [T.f32], [T.f32], module=m)
    b1.create("tt.return", [a])
    _, g2, b2, (x, y) = new_func("two", [T.f32, T.i32], [T.i32, T.f32], module=m)
    b2.create("tt.return", [y, x])
    Builder(module_body(m)).create("tt.func", attributes={
        "sym_name": StringAttr("ext"), "sym_visibility": StringAttr("private"),
        "function_type": TypeAttr(T.FunctionType((T.i32,), (T.i32,)))}, num_regions=1)
    _, f, b, (u, v) = new_func("main", [T.f32, T.i32], module=m)
    b.create("tt.call", [v], [], {"callee": SymbolRefAttr("none")})
    b.create("tt.call", [u], [T.f32], {"callee": SymbolRefAttr("one")})
    b.create("tt.call", [u, v], [T.i32, T.f32], {"callee": SymbolRefAttr("two"),
                                                  "tt.keep": UnitAttr()})
    b.create("tt.call", [v], [T.i32], {"callee": SymbolRefAttr("ext")})
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert "tt.call @none(%arg1) : (i32) -> ()" in text
    assert "= tt.call @one(%arg0) : (f32) -> f32" in text
    assert "%1:2 = tt.call @two(%arg0, %arg1) {tt.keep} : (f32, i32) -> (i32, f32)" in text
    assert "tt.func private @ext(i32) -> i32\n" in text


def test_scf_for_if_while_nesting():
    m, f, b, (n, p) = new_func(arg_types=[T.i32, PF32], result_types=[T.f32])
    c0, c1 = b.constant(0, T.i32), b.constant(1, T.i32)
    acc0 = b.constant(0.0, T.f32)
    loop = b.create("scf.for", [c0, n, c1, acc0], [T.f32],
                    {"tt.num_stages": i32_attr(3), "tt.flatten": UnitAttr()}, num_regions=1)
    body = loop.regions[0].add_block()
    iv, acc = body.add_argument(T.i32), body.add_argument(T.f32)
    with b.at_end(body):
        cond = b.create1("arith.cmpi", [iv, c1], T.i1, {"predicate": IntegerAttr(0, T.i64)})
        iff = b.create("scf.if", [cond], [T.f32], num_regions=2)
        with b.at_end(iff.regions[0].add_block()):
            b.create("scf.yield", [b.create1("arith.sitofp", [iv], T.f32)])
        with b.at_end(iff.regions[1].add_block()):
            b.create("scf.yield", [acc])
        inner = b.create("scf.for", [c0, iv, c1], [], num_regions=1)
        with b.at_end(inner.regions[0].add_block(Block([T.i32]))):
            b.create("tt.store", [p, acc])
            b.create("scf.yield")
        b.create("scf.yield", [b.create1("arith.addf", [acc, iff.results[0]], T.f32)])
    bare_if = b.create("scf.if", [b.constant(True, T.i1)], [], num_regions=2)
    with b.at_end(bare_if.regions[0].add_block()):
        b.create("tt.store", [p, loop.results[0]])
        b.create("scf.yield")
    w = b.create("scf.while", [c0, loop.results[0]], [T.i32, T.f32], num_regions=2)
    before = w.regions[0].add_block(Block([T.i32, T.f32]))
    with b.at_end(before):
        lt = b.create1("arith.cmpi", [before.args[0], n], T.i1, {"predicate": IntegerAttr(2, T.i64)})
        b.create("scf.condition", [lt, *before.args])
    after = w.regions[1].add_block(Block([T.i32, T.f32]))
    with b.at_end(after):
        b.create("scf.yield", [b.create1("arith.addi", [after.args[0], c1], T.i32), after.args[1]])
    b.create("tt.return", [w.results[1]])
    text, m2 = roundtrip(m)
    filecheck("""
CHECK: %[[R:.*]] = scf.for %arg2 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg3 = %cst) -> (f32) : i32 {
CHECK: scf.if %{{.*}} -> (f32) {
CHECK: } else {
CHECK-NEXT: scf.yield %arg3 : f32
CHECK: scf.for %arg4 = %c0_i32 to %arg2 step %c1_i32 : i32 {
CHECK: } {tt.flatten, tt.num_stages = 3 : i32}
CHECK: scf.if %true {
CHECK-NOT: else
CHECK: %[[W:.*]]:2 = scf.while (%arg5 = %c0_i32, %arg6 = %[[R]]) : (i32, f32) -> (i32, f32) {
CHECK: scf.condition(%{{.*}}) %arg5, %arg6 : i32, f32
CHECK-NEXT: } do {
CHECK-NEXT: ^bb0(%arg7: i32, %arg8: f32):
CHECK: tt.return %[[W]]#1 : f32
""", text)
    ifs = [op for op in m2.walk() if op.name == "scf.if"]
    assert len(ifs[1].regions[1].blocks) == 0  # an omitted else is an empty region


def test_reduce_scan_and_generic_ops():
    t = T.TensorType((4, 16), T.f32)
    ti = T.TensorType((4, 16), T.i32)
    m, f, b, (x, idx) = new_func(arg_types=[t, ti])
    red = b.create("tt.reduce", [x, idx], [T.TensorType((4,), T.f32), T.TensorType((4,), T.i32)],
                   {"axis": i32_attr(1)}, num_regions=1)
    blk = red.regions[0].add_block(Block([T.f32, T.i32, T.f32, T.i32]))
    with b.at_end(blk):
        gt = b.create1("arith.cmpf", [blk.args[0], blk.args[2]], T.i1, {"predicate": IntegerAttr(2, T.i64)})
        v = b.create1("arith.select", [gt, blk.args[0], blk.args[2]], T.f32)
        i = b.create1("arith.select", [gt, blk.args[1], blk.args[3]], T.i32)
        b.create("tt.reduce.return", [v, i])
    scan = b.create("tt.scan", [x], [t], {"axis": i32_attr(0), "reverse": BoolAttr(True)},
                    num_regions=1)
    blk = scan.regions[0].add_block(Block([T.f32, T.f32]))
    with b.at_end(blk):
        b.create("tt.scan.return", [b.create1("arith.addf", list(blk.args), T.f32)])
    g = b.create("my.op", [red.results[0]], [T.f32, T.NoneType()],
                 {"s": StringAttr('q"\\\n\t\x01é'), "f": FloatAttr(float("nan"), T.bf16)},
                 num_regions=2)
    gb = g.regions[0].add_block(Block([T.f32]))
    with b.at_end(gb):
        b.create("my.term", [gb.args[0]])
    g.regions[0].add_block()
    b.create("tt.return")
    text, m2 = roundtrip(m, check_verify=False)
    verify(m2)
    assert '"tt.reduce"(%arg0, %arg1) ({' in text
    assert "tt.reduce.return %2, %3 : f32, i32" in text
    assert "}) {axis = 1 : i32} : (tensor<4x16xf32>, tensor<4x16xi32>) -> (tensor<4xf32>, tensor<4xi32>)" in text
    assert '"my.op"(%0#0) ({\n      ^bb0(%arg' in text and "^bb1:" in text
    assert 's = "q\\"\\\\\\0A\\09\\01é"' in text
    g2 = next(op for op in m2.walk() if op.name == "my.op")
    assert g2.attributes == g.attributes and len(g2.regions[0].blocks) == 2
    assert len(g2.regions[1].blocks) == 0


def test_module_and_function_attributes():
    m = make_module({"ttg.num-warps": i32_attr(4), "ttg.target": StringAttr("cuda:90"),
                     "weird key": UnitAttr()})
    args = ArrayAttr((DictAttr((("tt.divisibility", i32_attr(16)), ("tt.pointer_range", i32_attr(32)))),
                      DictAttr(())))
    _, f, b, _ = new_func("f", [PF32, T.i32], [], module=m, arg_attrs=args,
                          noinline=BoolAttr(True), **{"tt.attrs": DictAttr((("a", UnitAttr()),))})
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert text.startswith('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
                           '"weird key"} {')
    assert "%arg1: i32) attributes {noinline = true, tt.attrs = {a}} {" in text
    f2 = next(op for op in m2.walk() if op.name == "tt.func")
    assert f2.attributes["arg_attrs"] == args and f2.attr("sym_visibility") == "public"


def test_locations_and_callsites():
    m, f, b, _ = new_func()
    inner = Location("inner.py", 1, 2, Location("mid.py", 3, 4, Location("top.py", 5, 6)))
    with b.location(inner):
        b.constant(1, T.i32)
    with b.location(Location('we"ird\\.py', 7, 0)):
        b.constant(2, T.i32)
    b.create("tt.return")
    text = print_module(m, debug_info=True)
    assert 'loc(callsite("inner.py":1:2 at callsite("mid.py":3:4 at "top.py":5:6)))' in text
    m2 = parse_module(text)
    locs = [op.loc for op in m2.walk() if op.name == "arith.constant"]
    assert locs == [inner, Location('we"ird\\.py', 7, 0)]
    assert print_module(m2, debug_info=True) == text
    op = parse_op('%0 = arith.constant 1 : i32 loc(callsite("f":1:2 at "g":3:4))')
    assert op.loc == Location("f", 1, 2, Location("g", 3, 4))
    assert parse_op("%0 = arith.constant 1 : i32 loc(unknown)").loc is UnknownLoc


def test_location_aliases_name_and_fused():
    m, _ = stable("""
    module {
      tt.func @f() {
        %0 = arith.constant 0 : i32 loc(#loc2)
        %1 = arith.constant 1 : i32 loc(#loc3)
        %2 = arith.constant 2 : i32 loc(#loc4)
        %3 = arith.constant 3 : i32 loc(fused[#loc1, "x.py":9:9])
        tt.return loc(#loc)
      } loc(#loc)
    } loc(#loc)
    #loc = loc("x.py":1:0)
    #loc1 = loc(unknown)
    #loc2 = loc("x_ptr"(#loc))
    #loc3 = loc(callsite(#loc2 at #loc5))
    #loc4 = loc("name_only")
    #loc5 = loc("caller.py":4:2)
    """)
    locs = [op.loc for op in m.walk() if op.name == "arith.constant"]
    assert locs == [Location("x.py", 1, 0), Location("x.py", 1, 0, Location("caller.py", 4, 2)),
                    UnknownLoc, Location("x.py", 9, 9)]


def test_forward_references_in_graph_region():
    m = parse_module("""
    "test.user"(%later, %pair#1) : (i32, f32) -> ()
    %later = "test.def"() : () -> i32
    %pair:2 = "test.two"() : () -> (i32, f32)
    """)
    ops = m.regions[0].entry.ops
    assert ops[0].operands == [ops[1].results[0], ops[2].results[1]]
    assert ops[1].results[0].uses[0].owner is ops[0]  # the placeholder's use moved over
    verify(m)  # the module body is a graph region: use before definition is allowed
    text = print_module(m)
    assert text.splitlines()[1].strip() == '"test.user"(%0, %1#1) : (i32, f32) -> ()'
    assert print_module(parse_module(text)) == text


def test_forward_reference_into_nested_region_and_builder_printing():
    m = make_module()
    b = Builder(module_body(m))
    user = b.create("test.user", [], [T.i32], num_regions=1)
    d = b.create1("test.def", [], T.i64)
    with b.at_end(user.regions[0].add_block()):
        b.create("test.use", [d])
    text, m2 = roundtrip(m)
    assert '"test.use"(%1) : (i64) -> ()' in text


def test_ttgir_encodings_aliases():
    text = """
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%arg0: tensor<32x32xf32, #blocked>) {
    %0 = "tt.reduce"(%arg0) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<32x32xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %1 = ttg.convert_layout %0 : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32xf32, #blocked1>
    %2 = ttg.convert_layout %arg0 : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #mma>
    %3 = "ttg.local_alloc"(%2) : (tensor<32x32xf32, #mma>) -> !ttg.memdesc<32x32xf32, #mma, #smem, mutable>
    tt.return
  }
}
"""
    m, out = stable(text)
    verify(m)
    assert "#blocked = #ttg.blocked<{sizePerThread = [1, 4]" in out
    assert "#blocked1 = #ttg.blocked<{sizePerThread = [4]" in out
    assert "#mma = #ttg.nvidia_mma<" in out
    assert "tensor<32xf32, #blocked1>" in out and "-> tensor<32x32xf32, #mma>" in out
    # shared-memory descriptors are modelled: shape, element, encoding, mutability
    memdesc = next(op for op in m.walk() if op.name == "ttg.local_alloc").results[0].type
    assert isinstance(memdesc, T.MemDescType) and memdesc.mutable and memdesc.dims == (32, 32)
    assert "#smem, mutable>" in out and "#smem = #ttg.shared_memory" in out
    enc = next(op for op in m.walk() if op.name == "ttg.convert_layout").results[0].type.encoding
    try:
        from tritium.gpu.layouts import parse_layout_attr  # noqa: F401
    except ImportError:
        assert isinstance(enc, OpaqueEncoding)
    else:
        assert not isinstance(enc, OpaqueAttr)  # the layouts module built a real layout


def test_opaque_encoding_roundtrip_from_builder():
    enc = OpaqueEncoding("#foo.layout<{a = [1, 2]}>", "layout")
    t = T.TensorType((8,), T.f32, enc)
    m, f, b, (x,) = new_func(arg_types=[t])
    b.create1("arith.negf", [x], t)
    b.create("tt.return")
    text, m2 = roundtrip(m)
    assert text.startswith("#layout = #foo.layout<{a = [1, 2]}>\n")
    assert "tensor<8xf32, #layout>" in text


def test_upstream_vector_add_prints_identically():
    text = """module {
  tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>>
    %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f32>>
    %13 = arith.addf %9, %12 : tensor<1024xf32>
    %14 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %15 = tt.addptr %14, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %15, %13, %6 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""
    m = parse_module(text)
    verify(m)
    assert print_module(m) == text
    # and with upstream's debug locations: aliases at the end, locations on arguments
    with_locs = text.replace("{tt.divisibility = 16 : i32}", '{tt.divisibility = 16 : i32} loc("v.py":28:0)')
    lines = with_locs.splitlines()
    lines = [ln + " loc(#loc1)" if ln.startswith("    ") else ln for ln in lines]
    lines[-2] += " loc(#loc)"
    lines[-1] += " loc(#loc)"
    src = "#loc = loc(\"v.py\":28:0)\n" + "\n".join(lines) + "\n#loc1 = loc(\"v.py\":30:4)\n"
    m2 = parse_module(src)
    assert print_module(m2) == text
    assert all(op.loc == Location("v.py", 30, 4) for op in m2.walk()
               if op.name not in ("builtin.module", "tt.func"))


MATMUL = """
module {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<32x32xi32>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %0 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %1 = tt.expand_dims %0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %2 = tt.expand_dims %0 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %3 = tt.broadcast %1 : tensor<32x1xi32> -> tensor<32x32xi32>
    %4 = tt.broadcast %2 : tensor<1x32xi32> -> tensor<32x32xi32>
    %5 = arith.muli %3, %cst : tensor<32x32xi32>
    %6 = arith.addi %5, %4 : tensor<32x32xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %8 = tt.addptr %7, %6 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %9 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %10 = tt.addptr %9, %6 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %11:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %cst_0, %arg6 = %8, %arg7 = %10) -> (tensor<32x32xf32>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>)  : i32 {
      %15 = tt.load %arg6 : tensor<32x32x!tt.ptr<f16>>
      %16 = tt.load %arg7 : tensor<32x32x!tt.ptr<f16>>
      %17 = tt.dot %15, %16, %arg5, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      %18 = tt.addptr %arg6, %cst : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %19 = tt.addptr %arg7, %cst : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      scf.yield %17, %18, %19 : tensor<32x32xf32>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>
    } {tt.num_stages = 3 : i32}
    %12 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %13 = tt.addptr %12, %6 : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %14 = arith.truncf %11#0 : tensor<32x32xf32> to tensor<32x32xf16>
    %20 = arith.extf %14 : tensor<32x32xf16> to tensor<32x32xf32>
    tt.store %13, %20 : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_upstream_matmul_loop():
    m, out = stable(MATMUL)
    verify(m)
    loop = next(op for op in m.walk() if op.name == "scf.for")
    assert len(loop.results) == 3 and loop.attr("tt.num_stages") == 3
    assert [a.type for a in loop.regions[0].entry.args][1:] == loop.result_types
    dot = next(op for op in m.walk() if op.name == "tt.dot")
    assert dot.operand(2) is loop.regions[0].entry.args[1]
    assert "%11:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(" in out
    assert re.search(r"%\d+ = arith.truncf %11#0 : tensor<32x32xf32> to tensor<32x32xf16>", out)


def test_upstream_while_if_and_implicit_yields():
    m, out = stable("""
    tt.func @f(%n: i32, %p: !tt.ptr<i32>, %c: i1) -> i32 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %r = scf.while (%i = %c0) : (i32) -> i32 {
        %lt = arith.cmpi slt, %i, %n : i32
        scf.condition(%lt) %i : i32
      } do {
      ^bb0(%j: i32):
        %k = arith.addi %j, %c1 : i32
        scf.yield %k : i32
      }
      scf.if %c {
        tt.store %p, %r : !tt.ptr<i32>
      }
      scf.for %iv = %c0 to %n step %c1 : i32 {
        tt.store %p, %iv : !tt.ptr<i32>
      }
      %s = scf.if %c -> (i32) {
        scf.yield %r : i32
      } else {
        scf.yield %c0 : i32
      }
      tt.return %s : i32
    }""")
    verify(m)
    # the elided terminators were put back in the IR, and the printer elides them again
    assert out.count("scf.yield\n") == 0
    assert sum(1 for op in m.walk() if op.name == "scf.yield" and not op.operands) == 2
    assert m.regions[0].entry.first.name == "tt.func"  # a bare function is wrapped in a module


def test_comments_and_whitespace():
    m, out = stable("""// leading comment
    module { // trailing
      // a comment line
      tt.func @f() {   tt.return   }
    }
    // the end""")
    assert out == "module {\n  tt.func public @f() {\n    tt.return\n  }\n}\n"


def test_multiple_result_name_groups():
    m = parse_module("""
    %a, %b:2 = "t.three"() : () -> (i32, f32, f16)
    "t.use"(%a, %b#0, %b#1) : (i32, f32, f16) -> ()
    """)
    three, use = m.regions[0].entry.ops
    assert use.operands == three.results


def test_parse_type_and_attr():
    assert parse_type("tensor<4x8x!tt.ptr<f16, 3>>") == T.TensorType((4, 8), T.PointerType(T.f16, 3))
    assert parse_type("!tt.ptr<tensor<16x16xbf16>>") == T.PointerType(T.TensorType((16, 16), T.bf16))
    assert parse_type("(i32, f32) -> (i1, f64)") == T.FunctionType((T.i32, T.f32), (T.i1, T.f64))
    assert parse_type("() -> i32") == T.FunctionType((), (T.i32,))
    assert parse_type("f8E5M2") == T.FloatType("f8E5M2")
    assert parse_type("tensor<f32>") == T.TensorType((), T.f32)
    assert parse_type("index") == OpaqueType("index")
    assert parse_attr("5") == IntegerAttr(5, T.i64)
    assert parse_attr("-7 : i8") == IntegerAttr(-7, T.i8)
    assert parse_attr("0x7FC00000 : f32").type == T.f32
    assert parse_attr("1.5") == FloatAttr(1.5, T.f64)
    assert parse_attr("1e-07 : f32") == FloatAttr(1e-07, T.f32)
    assert parse_attr("dense<-2.500000e+00> : tensor<2xf16>") == DenseElementsAttr(-2.5, T.TensorType((2,), T.f16))
    assert str(parse_attr("dense<[1, 2]> : tensor<2xi32>")) == "dense<[1, 2]> : tensor<2xi32>"
    assert parse_attr("array<i32: 1, -2, 3>") == DenseArrayAttr(T.i32, (1, -2, 3))
    assert parse_attr('{a, "b c" = "d", e = [true, unit, @s]}') == DictAttr((
        ("a", UnitAttr()), ("b c", StringAttr("d")),
        ("e", ArrayAttr((BoolAttr(True), UnitAttr(), SymbolRefAttr("s"))))))
    assert parse_attr("tensor<2xi1>") == TypeAttr(T.TensorType((2,), T.i1))
    assert parse_attr('"\\E2\\82\\AC\\n"') == StringAttr("€\n")
    assert str(parse_attr("affine_map<(d0) -> (d0)>")) == "affine_map<(d0) -> (d0)>"


def test_parse_op_with_outside_values():
    m, f, b, (x, y) = new_func(arg_types=[T.i32, T.i32])
    op = parse_op("%r = arith.addi %x, %y : i32", {"x": x, "%y": y})
    assert op.operands == [x, y] and op.results[0].type == T.i32
    with pytest.raises(ParseError, match="undefined value '%z'"):
        parse_op("%r = arith.addi %x, %z : i32", {"x": x})


def test_every_printer_format_has_a_parser():
    custom = {n[3:] for n in dir(Printer) if n.startswith("_p_")}
    parsed = {n.replace(".", "_") for n in FORMATS}
    assert custom <= parsed, custom - parsed
    assert not (BINARY_OPS & CAST_OPS) and not (BINARY_OPS & ARROW_OPS)


def test_large_module():
    body = MATMUL.split("\n", 2)[2].rsplit("}", 1)[0]
    text = "module {\n" + "".join(body.replace("@matmul_kernel", f"@mm{i}") for i in range(70)) + "}\n"
    m = parse_module(text)
    out = print_module(m)
    assert len(out.splitlines()) > 2000
    assert print_module(parse_module(out)) == out


# ---------------------------------------------------------------- errors
ERRORS = [
    ("module {\n  tt.func @f() {\n    %0 = arith.addi %x, %x : i32\n    tt.return\n  }\n}",
     3, 21, "use of undefined value '%x'"),
    ("tt.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n  %0 = arith.addi %a, %a : i32\n}",
     3, 3, "redefinition of value '%0'"),
    ("tt.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : i64\n}", 2, 19,
     "'%a' has type i32, but is used as i64"),
    ("tt.func @f() {\n  %0 = tt.frobnicate : i32\n}", 2, 8, "unknown operation 'tt.frobnicate'"),
    ("tt.func @f(%a: tensor<4xi33x>) {\n}", 1, 25, "unknown type 'i33x'"),
    ("tt.func @f(%a: tensor<4xi32 x>) {\n}", 1, 29, "expected '>' closing tensor type"),
    ("tt.func @f(%a: quux) {\n}", 1, 16, "unknown type 'quux'"),
    ("tt.func @f() {\n  tt.return\n", 3, 1, "unterminated region"),
    ("tt.func @f(%a: i32) {\n  %0 = arith.cmpi lol, %a, %a : i32\n}", 2, 19,
     "unknown arith.cmpi predicate 'lol'"),
    ("%0 = \"t.x\"() : () -> (i32, i32)", 1, 1, "has 2 results but 1 names are given"),
    ("%0 = arith.constant 1 : tensor<4xf32, #nope>", 1, 39, "undefined attribute alias '#nope'"),
    ("%0 = arith.constant 1 : i32 loc(#loc9)", 1, 33, "undefined location alias '#loc9'"),
    ('"t.x"() {s = "bad \\q"} : () -> ()', 1, 14, "bad escape sequence"),
    ('"t.br"()[^bb1] : () -> ()', 1, 9, "successor blocks are not supported"),
    ("tt.func @f() {\n  %0 = arith.addi %a#2 : i32\n}", 2, 19, "use of undefined value"),
    ("%a = \"t.x\"() : () -> i32\n\"t.y\"(%a#3) : (i32) -> ()", 2, 7, "'%a' has 1 results, no #3"),
    ("tt.func @f() {\n  %0 = arith.constant 1.5 : i32\n}", 2, 23, "float literal 1.5 with non-float type"),
    ("module {} extra", 1, 11, "unknown operation 'extra'"),
    ("module {} 42", 1, 11, "expected an operation, found '42'"),
    ("tt.func @f(%p: i32) {\n  %0 = tt.load %p : i32\n}", 2, 21, "tt.load needs a pointer type"),
    ("tt.func @f() {\n  %0 = arith.constant 1 : i32 ?\n}", 2, 31, "expected an operation"),
    ("tt.func @f() {\n  %0 = \"t.x\"() : () -> i32\n  \"t.y\"(%0) : (f32) -> ()\n}", 3, 9,
     "'%0' has type i32, but is used as f32"),
    ('"t.y"(%fw) : (f32) -> ()\n%fw = "t.x"() : () -> i32', 1, 7,
     "'%fw' is used as f32, but defined as i32"),
    ("#a = 1 : i32\n#a = 2 : i32", 2, 1, "redefinition of attribute alias '#a'"),
    ("tt.func @f() {\n  %0 = \"t.x\"() : () -> i32 $\n}", 2, 28, "unexpected character '$'"),
]


@pytest.mark.parametrize("text,line,col,message", ERRORS)
def test_errors_report_line_and_column(text, line, col, message):
    with pytest.raises(ParseError) as info:
        parse_module(text)
    err = info.value
    assert message in err.problem, str(err)
    assert (err.line, err.col) == (line, col), str(err)
    assert str(err).startswith(f"{line}:{col}: ")
    if line <= len(text.splitlines()):
        assert str(err).splitlines()[-1].index("^") == col + 1  # caret under the column
