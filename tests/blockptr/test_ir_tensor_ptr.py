"""Block pointer and tensor descriptor ops in the IR: upstream's texts parse, re-print
identically (both type spellings read), verify, and malformed ones are rejected."""
import pytest

from tritium.ir import types as T
from tritium.ir.parser import ParseError, parse_module, parse_type
from tritium.ir.printer import print_module
from tritium.ir.verifier import verify
from tritium.ir.verify_ops import VerificationError

BLOCK_PTR = """\
module {
  tt.func public @k(%arg0: !tt.ptr<f16>, %arg1: i64, %arg2: i32) {
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tt.make_tensor_ptr %arg0, [%arg1, %arg1], [%arg1, %c1_i64], [%arg2, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
    %1 = tt.advance %0, [%c0_i32, %c32_i32] : <tensor<64x32xf16>>
    %2 = tt.load %1 {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : !tt.ptr<tensor<64x32xf16>>
    %3 = tt.load %0 : !tt.ptr<tensor<64x32xf16>>
    tt.store %1, %2 {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x32xf16>>
    tt.store %0, %3 : !tt.ptr<tensor<64x32xf16>>
    tt.return
  }
}
"""

DESCRIPTORS = """\
module {
  tt.func public @k(%arg0: !tt.tensordesc<tensor<16x32xf32>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tt.ptr<f32>, %arg6: tensor<8xi32>) {
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.descriptor_load %arg0[%arg1, %c0_i32] : !tt.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
    tt.descriptor_store %arg0[%c0_i32, %arg2], %0 : !tt.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
    tt.descriptor_reduce add, %arg0[%c0_i32, %c0_i32], %0 : !tt.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
    %1 = tt.make_tensor_descriptor %arg5, [%arg1, %arg2], [%arg3, %c1_i64] : <f32>, <tensor<8x32xf32>>
    %2 = tt.make_tensor_descriptor %arg5, [%arg1, %arg2], [%arg3, %c1_i64] {padding = 2 : i32} : <f32>, <tensor<8x32xf32>>
    %3 = tt.descriptor_gather %1[%arg6, %c0_i32] : (!tt.tensordesc<tensor<8x32xf32>>, tensor<8xi32>, i32) -> tensor<8x32xf32>
    tt.descriptor_scatter %2[%arg6, %arg2], %3 : !tt.tensordesc<tensor<8x32xf32>>, tensor<8xi32>, i32, tensor<8x32xf32>
    tt.return
  }
}
"""


@pytest.mark.parametrize("text", [BLOCK_PTR, DESCRIPTORS], ids=["block_ptr", "descriptors"])
def test_roundtrip_identical(text):
    m = parse_module(text)
    verify(m)
    assert print_module(m) == text
    dbg = print_module(m, debug_info=True)
    assert print_module(parse_module(dbg), debug_info=True) == dbg


def test_long_and_newer_type_spellings():
    long = BLOCK_PTR.replace(": <tensor<64x32xf16>>", ": !tt.ptr<tensor<64x32xf16>>")
    assert print_module(parse_module(long)) == BLOCK_PTR
    newer = DESCRIPTORS.replace("tensordesc<tensor<16x32xf32>>", "tensordesc<16x32xf32>") \
        .replace(": <f32>, <tensor<8x32xf32>>", ": !tt.ptr<f32>, !tt.tensordesc<8x32xf32>")
    assert print_module(parse_module(newer)) == DESCRIPTORS
    assert parse_type("!tt.tensordesc<4x8xbf16>") == T.TensorDescType(T.TensorType((4, 8), T.bf16))


@pytest.mark.parametrize("old,new,message", [
    ("{order = array<i32: 1, 0>}", "{order = array<i32: 1, 1>}", "permutation"),
    ("[%arg2, %c0_i32] {order", "[%arg2] {order", "offset operands"),
    ("boundaryCheck = array<i32: 0, 1>", "boundaryCheck = array<i32: 0, 2>", "boundaryCheck"),
    ("padding = 2 : i32", "padding = 7 : i32", "padding"),
])
def test_block_pointer_rejections(old, new, message):
    assert old in BLOCK_PTR
    with pytest.raises(VerificationError, match=message):
        verify(parse_module(BLOCK_PTR.replace(old, new, 1)))


def _one_op(params: str, body: str) -> str:
    return (f"module {{\n  tt.func public @k({params}) {{\n    {body}\n    tt.return\n  }}\n}}\n")


_D16 = "%d: !tt.tensordesc<tensor<16x32xf32>>, %i: i32"
_D8 = "%d: !tt.tensordesc<tensor<8x32xf32>>, %x: tensor<8xi32>, %i: i32"


@pytest.mark.parametrize("params,body,message", [
    (_D16, "%0 = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<16x32xf32>> -> "
           "tensor<16x16xf32>", "does not match"),
    (_D16, "%0 = tt.descriptor_load %d[%i] : !tt.tensordesc<tensor<16x32xf32>> -> "
           "tensor<16x32xf32>", "one index per dim"),
    (_D8, "%0 = tt.descriptor_gather %d[%x, %i] : (!tt.tensordesc<tensor<8x32xf32>>, "
          "tensor<8xi32>, i32) -> tensor<4x32xf32>", "should be"),
    (_D16 + ", %v: tensor<16x32xf16>", "tt.descriptor_store %d[%i, %i], %v : "
     "!tt.tensordesc<tensor<16x32xf32>>, tensor<16x32xf16>", "does not match"),
])
def test_descriptor_rejections(params, body, message):
    with pytest.raises(VerificationError, match=message):
        verify(parse_module(_one_op(params, body)))


def test_parse_errors_point_at_the_problem():
    bad = BLOCK_PTR.replace(": <tensor<64x32xf16>>\n    %1", ": <f16>\n    %1", 1)
    with pytest.raises(ParseError, match="makes a block pointer"):
        parse_module(bad)
    bad = DESCRIPTORS.replace("descriptor_reduce add", "descriptor_reduce fma", 1)
    with pytest.raises(ParseError, match="unknown descriptor reduce kind 'fma'"):
        parse_module(bad)
