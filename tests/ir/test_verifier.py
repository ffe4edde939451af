"""Verifier tests: invalid IR is caught with a message naming the op, its location and the
problem; valid IR (hand-written and built) passes."""
import pytest

from tritium.ir import types as T
from tritium.ir.attrs import IntegerAttr, StringAttr, TypeAttr, i32_attr
from tritium.ir.builder import Builder
from tritium.ir.core import Block, Location, Operation, make_module, module_body
from tritium.ir.parser import parse_module
from tritium.ir.verifier import VerificationError, verify


def check(body: str, args: str = "", results: str = ""):
    """Verify a function whose body is `body`; returns the parsed module."""
    res = f" -> {results}" if results else ""
    m = parse_module(f"tt.func @f({args}){res} {{\n{body}\n}}")
    verify(m)
    return m


def func(arg_types=(), result_types=()):
    m = make_module()
    b = Builder(module_body(m))
    f = b.create("tt.func", attributes={
        "sym_name": StringAttr("f"),
        "function_type": TypeAttr(T.FunctionType(tuple(arg_types), tuple(result_types)))},
        num_regions=1)
    blk = f.regions[0].add_block(Block(arg_types))
    b.set_insertion_point_to_end(blk)
    return m, f, b, blk.args


# (function arguments, body, expected op, expected message fragment)
INVALID = [
    ("%a: i32, %b: i64", '%0 = "arith.addi"(%a, %b) : (i32, i64) -> i32\ntt.return',
     "arith.addi", "operand #1 has type i64, expected i32"),
    ("%a: f32", "%0 = arith.addi %a, %a : f32\ntt.return", "arith.addi", "expects integer operands"),
    ("%a: i32", "%0 = arith.addf %a, %a : i32\ntt.return", "arith.addf", "expects float operands"),
    ("%a: tensor<8xi32>", '%0 = "arith.cmpi"(%a, %a) {predicate = 2 : i64} : (tensor<8xi32>, tensor<8xi32>) -> i1\ntt.return',
     "arith.cmpi", "result type i1 should be tensor<8xi1>"),
    ("%a: i32", '%0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : (i32, i32) -> i1\ntt.return',
     "arith.cmpi", "predicate 12 is out of range"),
    ("%a: f32", "%0 = arith.cmpi eq, %a, %a : f32\ntt.return", "arith.cmpi", "cannot compare"),
    ("%c: tensor<4xi1>, %a: tensor<8xf32>", "%0 = arith.select %c, %a, %a : tensor<4xi1>, tensor<8xf32>\ntt.return",
     "arith.select", "condition type tensor<4xi1> must be i1 or tensor<8xi1>"),
    ("%a: i64", "%0 = arith.extsi %a : i64 to i32\ntt.return", "arith.extsi", "must be wider than"),
    ("%a: f32", "%0 = arith.bitcast %a : f32 to i64\ntt.return", "arith.bitcast", "must be as wide as"),
    ("%a: tensor<4xi32>", "%0 = arith.sitofp %a : tensor<4xi32> to tensor<8xf32>\ntt.return",
     "arith.sitofp", "must have the same shape"),
    ("", '%0 = "arith.constant"() {value = 1 : i64} : () -> i32\ntt.return',
     "arith.constant", "does not match the result type i32"),
    ("", '%0 = "arith.constant"() : () -> i32\ntt.return', "arith.constant", "requires attribute 'value'"),
    ("", "%0 = tt.make_range {end = 12 : i32, start = 0 : i32} : tensor<12xi32>\ntt.return",
     "tt.make_range", "end - start = 12 must be a positive power of two"),
    ("", "%0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<8xi32>\ntt.return",
     "tt.make_range", "should be tensor<16xi32>"),
    ("", '%0 = "tt.get_program_id"() {axis = 3 : i32} : () -> i32\ntt.return',
     "tt.get_program_id", "axis 3 must be 0, 1 or 2"),
    ("%a: i32", "%0 = tt.splat %a : i32 -> tensor<8xf32>\ntt.return", "tt.splat", "cannot splat i32"),
    ("%a: tensor<4x2xf32>", "%0 = tt.broadcast %a : tensor<4x2xf32> -> tensor<4x8xf32>\ntt.return",
     "tt.broadcast", "cannot broadcast"),
    ("%a: tensor<4xf32>", "%0 = tt.expand_dims %a {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>\ntt.return",
     "tt.expand_dims", "result shape [4, 1] should be [1, 4]"),
    ("%a: tensor<4x8xf32>", "%0 = tt.reshape %a : tensor<4x8xf32> -> tensor<16xf32>\ntt.return",
     "tt.reshape", "cannot reshape"),
    ("%a: tensor<4x8xf32>", "%0 = tt.trans %a {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>\ntt.return",
     "tt.trans", "is not a permutation"),
    ("%p: tensor<8x!tt.ptr<f32>>, %o: tensor<4xi32>", '%0 = "tt.addptr"(%p, %o) : (tensor<8x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<8x!tt.ptr<f32>>\ntt.return',
     "tt.addptr", "must have the same shape"),
    ("%p: !tt.ptr<f32>, %o: f32", '%0 = "tt.addptr"(%p, %o) : (!tt.ptr<f32>, f32) -> !tt.ptr<f32>\ntt.return',
     "tt.addptr", "offset must be an integer"),
    ("%p: tensor<8x!tt.ptr<f32>>", '%0 = "tt.load"(%p) : (tensor<8x!tt.ptr<f32>>) -> tensor<8xf16>\ntt.return',
     "tt.load", "result type tensor<8xf16> should be tensor<8xf32>"),
    ("%p: tensor<8x!tt.ptr<f32>>, %m: tensor<8xi32>", "%0 = tt.load %p, %m : tensor<8x!tt.ptr<f32>>\ntt.return",
     "tt.load", "mask type tensor<8xi32> should be tensor<8xi1>"),
    ("%p: !tt.ptr<f32>, %v: i32", "tt.store %p, %v : !tt.ptr<f32>\ntt.return", "tt.store",
     "operand #1 has type i32, should be f32"),
    ("%a: tensor<16x32xf16>, %b: tensor<16x32xf16>, %c: tensor<16x32xf32>",
     "%0 = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<16x32xf16> * tensor<16x32xf16> -> tensor<16x32xf32>\ntt.return",
     "tt.dot", "do not match"),
    ("%a: i32", "tt.return %a : i32", "tt.return", "returns (i32) but the function type is (i32) -> ()"),
    ("%a: i32", "tt.return\n%0 = arith.addi %a, %a : i32", "tt.return",
     "is a terminator but is not the last op of its block"),
    ("%a: i32", "%0 = arith.addi %a, %a : i32", "tt.func", "region #0 must end with a terminator"),
    ("%n: i32, %x: f32", "%r = scf.for %i = %n to %n step %n iter_args(%acc = %x) -> (f32) : i32 {\n"
     "  %0 = arith.addi %i, %i : i32\n}\ntt.return", "scf.for",
     "region #0 yields () but the results are (f32)"),  # the implicit scf.yield is empty
    ("%n: i32, %x: f32", "%r = scf.for %i = %n to %n step %n iter_args(%acc = %x) -> (f32) : i32 {\n"
     "  scf.yield %i : i32\n}\ntt.return", "scf.for", "region #0 yields (i32) but the results are (f32)"),
    ("%c: i1", "%r = scf.if %c -> (i32) {\n  %0 = arith.constant 1 : i32\n  scf.yield %0 : i32\n}\ntt.return",
     "scf.if", "has results but no else region"),
    ("%c: i32", "scf.if %c {\n  scf.yield\n}\ntt.return", "scf.if", "condition must be i1"),
    ("%x: i32", "%r = scf.while (%a = %x) : (i32) -> i32 {\n  %t = arith.constant true\n"
     "  scf.condition(%t) %a : i32\n} do {\n^bb0(%b: f32):\n  scf.yield %x : i32\n}\ntt.return",
     "scf.while", "all three must match"),
    ("%x: i32", "scf.yield %x : i32", "scf.yield", "must be inside an scf op"),
    ("%x: tensor<8xf32>", '%0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({\n^bb0(%a: f32):\n'
     '  tt.reduce.return %a : f32\n}) : (tensor<8xf32>) -> f32\ntt.return', "tt.reduce",
     "combine region takes (f32) but 2 scalar arguments (f32, f32) are expected"),
    ("%x: tensor<8x4xf32>", '%0 = "tt.reduce"(%x) <{axis = 2 : i32}> ({\n^bb0(%a: f32, %b: f32):\n'
     '  tt.reduce.return %a : f32\n}) : (tensor<8x4xf32>) -> f32\ntt.return', "tt.reduce",
     "axis 2 out of range for rank 2"),
    ("%x: tensor<8x4xf32>", '%0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({\n^bb0(%a: f32, %b: f32):\n'
     '  tt.reduce.return %a : f32\n}) : (tensor<8x4xf32>) -> tensor<4xf32>\ntt.return', "tt.reduce",
     "result #0 type tensor<4xf32> should have shape [8]"),
    ("%x: i32", "%0 = tt.call @nowhere(%x) : (i32) -> i32\ntt.return", "tt.call",
     "calls @nowhere, which is not defined in the module"),
    ("%x: i32", "%0 = tt.call @f(%x) : (i32) -> i32\ntt.return", "tt.call",
     "does not match @f : (i32) -> ()"),
    ("%x: i32", "%0 = arith.addi %1, %x : i32\n%1 = arith.addi %x, %x : i32\ntt.return",
     "arith.addi", "operand #0 is defined by a later 'arith.addi'"),
    ("%x: i32", '%0 = "test.loop"() ({\n  %1 = arith.addi %0, %x : i32\n  "test.end"() : () -> ()\n'
     '}) : () -> i32\ntt.return', "arith.addi", "is a result of the enclosing 'test.loop' itself"),
    ("%x: i32", '%0 = "arith.addi"(%x) : (i32) -> i32\ntt.return', "arith.addi",
     "expects 2 operands, found 1"),
    ("%p: !tt.ptr<f32>", '%0 = "tt.load"(%p) ({\n}) : (!tt.ptr<f32>) -> f32\ntt.return', "tt.load",
     "expects 0 regions, found 1"),
]


@pytest.mark.parametrize("args,body,op_name,message", INVALID,
                         ids=[f"{i}-{case[2]}" for i, case in enumerate(INVALID)])
def test_invalid_ir_is_rejected(args, body, op_name, message):
    m = parse_module(f"tt.func @f({args}) {{\n{body}\n}}")
    with pytest.raises(VerificationError) as info:
        verify(m)
    err = info.value
    assert err.op.name == op_name, str(err)
    assert message in err.problem, str(err)
    assert f"'{op_name}' op " in str(err)


def test_message_names_location():
    m = parse_module('tt.func @f(%a: f32) {\n  %0 = arith.addi %a, %a : f32 loc("k.py":7:9)\n'
                     '  tt.return\n}')
    with pytest.raises(VerificationError, match=r"^k\.py:7:9: 'arith\.addi' op expects integer"):
        verify(m)


def test_value_from_outside_isolated_function():
    m, f, b, (x,) = func([T.i32])
    b.create("tt.return")
    _, g, gb, _ = func()
    gb.create1("arith.addi", [x, x], T.i32)  # uses f's argument inside g
    gb.create("tt.return")
    g.remove_from_parent()
    module_body(m).append(g)
    with pytest.raises(VerificationError, match="defined outside the enclosing 'tt.func', which "
                                                "is isolated from above"):
        verify(m)


def test_use_list_corruption():
    m, f, b, (x,) = func([T.i32])
    add = b.create1("arith.addi", [x, x], T.i32).owner_op
    b.create("tt.return")
    verify(m)
    x.uses.remove(add.op_operands[1])  # a pass forgot to register a use
    with pytest.raises(VerificationError, match="operand #1 is missing from its value's use-list"):
        verify(m)


def test_detached_user_is_reported():
    m, f, b, (x,) = func([T.i32])
    a = b.create1("arith.addi", [x, x], T.i32)
    user = b.create1("arith.muli", [a, a], T.i32).owner_op
    b.create("tt.return")
    user.remove_from_parent()  # removed without erase(): still listed as a user of %a
    with pytest.raises(VerificationError, match="used by a 'arith.muli' that is not in the IR"):
        verify(m)


def test_operand_from_detached_op():
    m, f, b, (x,) = func([T.i32])
    stray = Operation("arith.addi", [x, x], [T.i32])
    b.create1("arith.muli", [stray.results[0], x], T.i32)
    b.create("tt.return")
    with pytest.raises(VerificationError, match="result of a 'arith.addi' that is not in any block"):
        verify(m)


def test_block_argument_of_sibling_block_does_not_dominate():
    m, f, b, _ = func()
    g = b.create("test.graph", [], [], num_regions=1)
    b0 = g.regions[0].add_block()
    b1 = g.regions[0].add_block(Block([T.i32]))
    with b.at_end(b0):
        b.create("test.use", [b1.args[0]])
    b.create("tt.return")
    with pytest.raises(VerificationError, match="does not dominate"):
        verify(m)


def test_unterminated_loop_body():
    m, f, b, (n,) = func([T.i32])
    loop = b.create("scf.for", [n, n, n], [], num_regions=1)
    with b.at_end(loop.regions[0].add_block(Block([T.i32]))):
        b.create1("arith.addi", [n, n], T.i32)
    b.create("tt.return")
    with pytest.raises(VerificationError, match="'scf.for' op region #0 must end with 'scf.yield', "
                                                "found 'arith.addi'"):
        verify(m)


def test_bad_function_signature():
    m, f, b, _ = func([T.i32])
    f.regions[0].entry.add_argument(T.f32)
    b.create("tt.return")
    with pytest.raises(VerificationError, match=r"entry block arguments \(i32, f32\) do not match"):
        verify(m)


def test_unknown_ops_get_generic_checks_only():
    m = check('%0:2 = "my.anything"(%a, %a) {x = 1} : (i32, i32) -> (f32, f64)\n'
              '"my.region"() ({\n^bb0(%q: i8):\n  "my.inner"(%q, %0#1) : (i8, f64) -> ()\n}) : () -> ()\n'
              'tt.return', "%a: i32")
    assert m is not None


VALID = [
    ("%p: !tt.ptr<f32>, %n: i32", """
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.000000e+00 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    %v = tt.load %p : !tt.ptr<f32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  tt.store %p, %r : !tt.ptr<f32>
  tt.return"""),
    ("%x: tensor<4x8xf32>, %i: tensor<4x8xi32>", """
  %0:2 = "tt.reduce"(%x, %i) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %m = arith.select %gt, %a, %b : f32
    %mi = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %m, %mi : f32, i32
  }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  %1 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %3 = tt.expand_dims %0#0 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %4 = tt.broadcast %3 : tensor<4x1xf32> -> tensor<4x8xf32>
  %5 = tt.reshape %4 : tensor<4x8xf32> -> tensor<32xf32>
  %6 = tt.join %5, %5 : tensor<32xf32>, tensor<32xf32> -> tensor<32x2xf32>
  %7:2 = tt.split %6 : tensor<32x2xf32> -> tensor<32xf32>, tensor<32xf32>
  %8 = tt.cat %7#0, %7#1 : tensor<32xf32>, tensor<32xf32> -> tensor<64xf32>
  tt.return"""),
    ("%c: i1, %x: i32", """
  %w = scf.while (%a = %x) : (i32) -> i32 {
    scf.condition(%c) %a : i32
  } do {
  ^bb0(%b: i32):
    %r = scf.if %c -> (i32) {
      scf.yield %b : i32
    } else {
      %n = arith.addi %b, %x : i32
      scf.yield %n : i32
    }
    scf.yield %r : i32
  }
  %e = arith.extsi %w : i32 to i64
  %t = arith.trunci %e : i64 to i8
  %f = arith.sitofp %t : i8 to f16
  %g = arith.extf %f : f16 to f32
  %h = arith.truncf %g : f32 to bf16
  %p = tt.int_to_ptr %e : i64 -> !tt.ptr<f32>
  %q = tt.addptr %p, %x : !tt.ptr<f32>, i32
  tt.return"""),
]


@pytest.mark.parametrize("args,body", VALID)
def test_valid_ir_passes(args, body):
    check(body, args)


def test_valid_call_and_builder_ir():
    m = parse_module("""
    module {
      tt.func private @g(%a: f32) -> f32 {
        tt.return %a : f32
      }
      tt.func public @f(%x: f32) -> f32 {
        %0 = tt.call @g(%x) : (f32) -> f32
        tt.return %0 : f32
      }
    }""")
    verify(m)
    mm, f, b, (p,) = func([T.PointerType(T.f32)])
    b.loc = Location("x.py", 1, 1)
    t = T.TensorType((128,), T.i32)
    r = b.create1("tt.make_range", [], t, {"start": i32_attr(0), "end": i32_attr(128)})
    ptrs = b.create1("tt.addptr", [b.create1("tt.splat", [p], T.TensorType((128,), p.type)), r],
                     T.TensorType((128,), p.type))
    mask = b.create1("arith.cmpi", [r, r], T.TensorType((128,), T.i1),
                     {"predicate": IntegerAttr(2, T.i64)})
    x = b.create1("tt.load", [ptrs, mask, b.constant(0.0, T.TensorType((128,), T.f32))],
                  T.TensorType((128,), T.f32))
    b.create("tt.store", [ptrs, x, mask])
    b.create("tt.return")
    verify(mm)
    verify(f)  # verifying a nested op on its own works too
