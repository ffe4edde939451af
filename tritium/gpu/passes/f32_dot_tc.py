"""tritongpu-F32DotTC: fp32 dots at (nearly) fp32 accuracy on tensor cores, by splitting each
operand into a sum of lower-precision parts and adding up several tensor-core dots.

* **tf32x3** (CUTLASS's 3xTF32): big = round-to-tf32(x) (`cvt.rna.tf32.f32` as inline asm:
  rounding to nearest keeps the residual within tf32's reach), small = x - big. The result is
  dot(big_a, big_b) + dot(small_a, big_b) + dot(big_a, small_b) as tf32 dots; small x small
  is below fp32's resolution and dropped.
* **bf16x3 / bf16x6** (arXiv:1904.06376): x = hi + mid (+ lo), each part the bf16 truncation
  of what the previous parts leave; x3 sums hi*mid terms and hi*hi, x6 adds mid*mid and the
  hi*lo terms. The parts are bf16 tensors, so those dots are ordinary bf16 dots.

The small terms are summed first, into a zero accumulator, so they are not swamped by the
big one; a NaN there (inf * 0 when an operand is huge and its residual is 0) is replaced by
0 before the big dot, which then carries the inf. The original accumulator is added last.
Orders follow upstream's F32DotTC; it runs before accelerate-matmul so every new dot gets a
tensor-core layout (wgmma for tf32 and bf16 on sm_90).
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.attrs import BoolAttr, IntegerAttr, StringAttr
from ...ir.builder import Builder
from ...ir.core import Operation, Value
from ...ir.ops import CMPF_PREDICATES, INPUT_PRECISIONS
from ...passes.manager import Pass, register_pass

__all__ = ["F32DotTC", "f32_dot_tc"]

_I32 = T.IntegerType(32)
_BF16_PARTS = {INPUT_PRECISIONS["bf16x3"]: 2, INPUT_PRECISIONS["bf16x6"]: 3}


class _Rewriter:
    def __init__(self, dot: Operation):
        self.dot = dot
        self.b = Builder()
        self.b.set_insertion_point_before(dot)
        self.b.loc = dot.loc
        self.max_imprecise = dot.attributes.get("maxNumImpreciseAcc", IntegerAttr(0, _I32))

    def binary(self, name: str, x: Value, y: Value) -> Value:
        return self.b.create1(name, [x, y], x.type)

    def zero_like(self, v: Value) -> Value:
        return self.b.constant(0.0, v.type)

    def nans_to_zero(self, v: Value) -> Value:
        i1 = T.TensorType(v.type.dims, T.IntegerType(1), v.type.encoding)
        pred = {"predicate": IntegerAttr(CMPF_PREDICATES.index("uno"), T.IntegerType(64))}
        nan = self.b.create1("arith.cmpf", [v, v], i1, pred)
        return self.b.create1("arith.select", [nan, self.zero_like(v), v], v.type)

    def dot_op(self, a: Value, b: Value, c: Value, precision: str) -> Value:
        attrs = {"inputPrecision": IntegerAttr(INPUT_PRECISIONS[precision], _I32),
                 "maxNumImpreciseAcc": self.max_imprecise}
        return self.b.create1("tt.dot", [a, b, c], c.type, attrs)

    def replace(self, v: Value) -> None:
        self.dot.results[0].replace_all_uses_with(v)
        self.dot.erase()

    # ------------------------------------------------------------------ tf32x3
    def to_tf32(self, x: Value) -> Value:
        attrs = {"asm_string": StringAttr("cvt.rna.tf32.f32 $0, $1;"),
                 "constraints": StringAttr("=r,r"), "pure": BoolAttr(True),
                 "packed_element": IntegerAttr(1, _I32)}
        return self.b.create1("tt.elementwise_inline_asm", [x], x.type, attrs)

    def tf32x3(self) -> None:
        a, b, c = self.dot.operands
        a_big, b_big = self.to_tf32(a), self.to_tf32(b)
        a_small = self.binary("arith.subf", a, a_big)
        b_small = self.binary("arith.subf", b, b_big)
        small = self.dot_op(a_small, b_big, self.zero_like(c), "tf32")
        small = self.dot_op(a_big, b_small, small, "tf32")
        total = self.dot_op(a_big, b_big, self.nans_to_zero(small), "tf32")
        self.replace(self.binary("arith.addf", total, c))

    # ------------------------------------------------------------------ bf16xN
    def split_bf16(self, x: Value, n: int) -> List[Value]:
        parts = []
        bf16_t = T.TensorType(x.type.dims, T.bf16, x.type.encoding)
        for i in range(n):
            part = self.b.create1("arith.truncf", [x], bf16_t)
            if i != n - 1:
                x = self.binary("arith.subf", x, self.b.create1("arith.extf", [part], x.type))
            parts.append(part)
        return parts

    def bf16xn(self, n: int) -> None:
        a, b, c = self.dot.operands
        lhs, rhs = self.split_bf16(a, n), self.split_bf16(b, n)
        hi, mid, lo = 0, 1, 2
        acc = self.zero_like(c)
        if n == 3:
            for i, j in ((mid, mid), (lo, hi), (hi, lo)):
                acc = self.dot_op(lhs[i], rhs[j], acc, "ieee")
        for i, j in ((mid, hi), (hi, mid)):
            acc = self.dot_op(lhs[i], rhs[j], acc, "ieee")
        acc = self.dot_op(lhs[hi], rhs[hi], self.nans_to_zero(acc), "ieee")
        self.replace(self.binary("arith.addf", acc, c))


def _is_f32(v: Value) -> bool:
    return isinstance(v.type, T.TensorType) and v.type.element_type == T.f32


def f32_dot_tc(module: Operation, emu_tf32: bool = True) -> int:
    """Split every tf32x3 / bf16x3 / bf16x6 fp32 dot; returns how many were split."""
    n = 0
    for op in [o for o in module.walk() if o.name == "tt.dot"]:
        a, b = op.operand(0), op.operand(1)
        if not (_is_f32(a) and _is_f32(b) and _is_f32(op.results[0])):
            continue
        precision = int(op.attr("inputPrecision", INPUT_PRECISIONS["tf32"]))
        if precision == INPUT_PRECISIONS["tf32x3"] and emu_tf32:
            _Rewriter(op).tf32x3()
        elif precision in _BF16_PARTS:
            _Rewriter(op).bf16xn(_BF16_PARTS[precision])
        else:
            continue
        n += 1
    return n


@register_pass
class F32DotTC(Pass):
    name = "tritongpu-F32DotTC"
    aliases = ("tritongpu-f32-dot-tc", "f32-dot-tc")
    description = "tf32x3 / bf16x3 / bf16x6 fp32 dots split into several tensor-core dots"
    options = {"emu-tf32": (bool, True, "split tf32x3 dots (targets with tf32 tensor cores)")}

    def run(self, module: Operation) -> None:
        f32_dot_tc(module, self.emu_tf32)
