"""`tt.dot`: a batched `np.matmul` over the program axis.

Float inputs narrower than f32 (f16, bf16, fp8: all exact in f32) are multiplied in f32 with
f32 accumulation, as the tensor cores do; f64 in f64. `inputPrecision = tf32` (the default
for f32 inputs on the GPU, which rounds the inputs to 10 mantissa bits) is computed exactly in
f32 here: results are at least as accurate as the GPU's, which is what differential tests
with a tolerance need. Integer dots accumulate in i64 and wrap to the accumulator type.
`maxNumImpreciseAcc` (periodic fp8 accumulator flushes) has no effect: accumulation is exact f32.
"""
from __future__ import annotations

import numpy as np

from tritium.ir import types as T

from .dtypes import compute_dtype, rounder
from .evaluator import register


@register("tt.dot")
def _dot(pc, op):
    a_elt = op.operand(0).type.element_type
    b_elt = op.operand(1).type.element_type
    c_elt = op.operand(2).type.element_type
    out_dt = compute_dtype(c_elt)
    rnd = rounder(c_elt)
    if isinstance(c_elt, T.IntegerType):
        def run(env, a, b, c):
            r = np.matmul(a.astype(np.int64), b.astype(np.int64))
            return (r + c).astype(out_dt)
        return run
    wide = any(getattr(e, "name", "") == "f64" for e in (a_elt, b_elt, c_elt))
    work = np.float64 if wide else np.float32

    def run(env, a, b, c):
        r = np.matmul(a.astype(work, copy=False), b.astype(work, copy=False))
        if r.shape == np.broadcast_shapes(r.shape, c.shape):
            r += c
        else:
            r = r + c
        if r.dtype != out_dt:
            r = r.astype(out_dt)
        return rnd(r) if rnd is not None else r
    return run
