"""AxisInfo on known kernels: the values coalescing depends on, loops and branches, user
hints, and the queries the lowering uses."""
import os
import sys

import pytest

import tritium
import tritium.language as tl
from tritium.frontend.compiler import make_ttir
from tritium.gpu.axis_info import KMAX, AxisInfo, AxisInfoAnalysis, contiguity_order
from tritium.gpu.pipeline import make_ttgir
from tritium.ir.parser import parse_module
from tritium.ir.printer import print_module

sys.path.insert(0, os.path.dirname(__file__))
from ttgir_kernels import CASES  # noqa: E402


def func_of(module):
    return next(op for op in module.regions[0].entry if op.name == "tt.func")


def analyse(text):
    func = func_of(parse_module(text))
    return func, AxisInfoAnalysis(func)


def first(func, name, index=0):
    return [op for op in func.walk() if op.name == name][index]


def case(name):
    return next(c for c in CASES if c.name == name)


def test_vector_add_values():
    func = func_of(case("vadd_f32").ttir())
    info = AxisInfoAnalysis(func)
    offs = first(func, "arith.addi").results[0]
    assert info.get(offs) == AxisInfo((1024,), (1024,), (1,))
    mask = first(func, "arith.cmpi").results[0]
    assert info.get(mask).constancy == (16,)
    ptr = first(func, "tt.addptr").results[0]
    assert info.get(ptr).contiguity == (1024,) and info.get(ptr).divisibility == (16,)
    assert info.get_ptr_alignment(ptr) == 4          # 16 bytes of fp32
    assert info.get_mask_alignment(mask) == 16
    assert info.get_mem_vector_width(first(func, "tt.load")) == 4


@pytest.mark.parametrize("name, width", [("vadd_f32", 4), ("vadd_f16", 8),
                                         ("vadd_f32_unaligned_n", 1)])
def test_vector_width_on_ttgir(name, width):
    module = make_ttgir(case(name).ttir(), num_warps=4)
    func = func_of(module)
    info = AxisInfoAnalysis(func)
    for op in func.walk():
        if op.name in ("tt.load", "tt.store"):
            assert info.get_mem_vector_width(op) == width
            assert info.get_ptr_contiguity(op.operand(0)) == width


def test_scalars_and_arguments():
    func, info = analyse("""
module {
  tt.func public @k(%a: i32 {tt.divisibility = 16 : i32}, %p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: i32) {
    %c6 = arith.constant 6 : i32
    %0 = arith.muli %a, %c6 : i32
    %1 = arith.addi %0, %b : i32
    %2 = tt.addptr %p, %a : !tt.ptr<f16>, i32
    %3 = arith.shli %a, %c6 : i32
    tt.return
  }
}""")
    ops = [op for op in func.walk() if op.results]
    got = {op.name: info.get(op.results[0]) for op in ops}
    assert got["arith.constant"] == AxisInfo((1,), (2,), (1,), 6)
    assert got["arith.muli"].divisibility == (32,)
    assert got["arith.addi"].divisibility == (1,)
    assert got["tt.addptr"].divisibility == (16,)      # 16 + 2 * 16k bytes
    assert got["arith.shli"].divisibility == (1024,)


LOOP = """
module {
  tt.func public @k(%n: i32, %p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %s = tt.splat %c256 : i32 -> tensor<256xi32>
    %res = scf.for %i = %c0 to %n step %c256 iter_args(%o = %r) -> (tensor<256xi32>) : i32 {
      %o2 = arith.addi %o, %s : tensor<256xi32>
      %ps = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
      %ptr = tt.addptr %ps, %o : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
      %x = tt.load %ptr : tensor<256x!tt.ptr<f32>>
      scf.yield %o2 : tensor<256xi32>
    }
    tt.return
  }
}"""


def test_loop_carried_offsets_and_induction_variable():
    func, info = analyse(LOOP)
    loop = first(func, "scf.for")
    iv, carried = loop.regions[0].entry.args
    assert info.get(iv) == AxisInfo((1,), (256,), (1,))
    assert info.get(carried) == AxisInfo((256,), (256,), (1,))
    assert info.get(loop.results[0]) == AxisInfo((256,), (256,), (1,))
    ptr = first(func, "tt.addptr").results[0]
    assert info.get_ptr_alignment(ptr) == 4


def test_if_and_while_join():
    func, info = analyse("""
module {
  tt.func public @k(%c: i1, %n: i32) {
    %a = arith.constant dense<16> : tensor<8xi32>
    %b = arith.constant dense<48> : tensor<8xi32>
    %0 = scf.if %c -> (tensor<8xi32>) {
      scf.yield %a : tensor<8xi32>
    } else {
      scf.yield %b : tensor<8xi32>
    }
    %c0 = arith.constant 0 : i32
    %c12 = arith.constant 12 : i32
    %1 = scf.while (%i = %c0) : (i32) -> (i32) {
      %cond = arith.cmpi slt, %i, %n : i32
      scf.condition(%cond) %i : i32
    } do {
    ^bb0(%j: i32):
      %k = arith.addi %j, %c12 : i32
      scf.yield %k : i32
    }
    tt.return
  }
}""")
    assert info.get(first(func, "scf.if").results[0]) == AxisInfo((1,), (16,), (8,))
    w = first(func, "scf.while")
    assert info.get(w.results[0]).divisibility == (4,)
    assert info.get(w.regions[0].entry.args[0]).divisibility == (4,)


def test_hints_replace_derived_values():
    func, info = analyse("""
module {
  tt.func public @k(%a: i32, %n: i32) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %s = tt.splat %a : i32 -> tensor<128xi32>
    %o = arith.addi %s, %r {tt.divisibility = array<i32: 128>, tt.contiguity = array<i32: 128>} : tensor<128xi32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = scf.for %i = %c0 to %n step %c1 iter_args(%v = %a) -> (i32) : i32 {
      scf.yield %v : i32
    } {tt.divisibility_arg1 = array<i32: 8>}
    tt.return
  }
}""")
    assert info.get(first(func, "arith.addi").results[0]) == AxisInfo((128,), (128,), (1,))
    loop = first(func, "scf.for")
    assert info.get(loop.regions[0].entry.args[1]).divisibility == (8,)


@tritium.jit
def hinted_kernel(x_ptr, off, BLOCK: tl.constexpr):
    offs = off + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32))


def test_frontend_hints_reach_coalescing():
    module, _ = make_ttir(hinted_kernel, (("*fp32", "D"), ("i32", ""), ("constexpr", 256)))
    func = func_of(module)
    offs = [op for op in func.walk() if op.name == "arith.addi"][-1].results[0]
    assert AxisInfoAnalysis(func).get(offs).divisibility == (256,)
    text = print_module(make_ttgir(module, num_warps=2))
    assert text.startswith("#blocked = #ttg.blocked<{sizePerThread = [4]"), text


def test_contiguity_order_ties_keep_row_major():
    assert contiguity_order([1, 1]) == [1, 0]
    assert contiguity_order([4, 1]) == [0, 1]
    assert contiguity_order([1, 64, 1]) == [1, 2, 0]


def test_join_is_sound_for_different_groupings():
    a = AxisInfo((4,), (4,), (1,))       # [4k, 4k+1, 4k+2, 4k+3, ...]
    b = AxisInfo((2,), (16,), (1,))      # [16k, 16k+1, ...] in pairs
    j = a.join(b, (8,))
    assert j.contiguity == (2,)
    assert j.divisibility == (2,)        # 4k+2 starts a pair of `a`
    assert AxisInfo.of_constant(0, (4,)).divisibility == (KMAX,)
