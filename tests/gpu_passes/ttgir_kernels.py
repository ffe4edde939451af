"""Realistic kernels for the TTGIR pass tests: each case gives its TTIR (through the real
frontend and TTIR pipeline) and inputs to run it on the CPU backend."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Tuple

import numpy as np

import os
import sys

import tritium
import tritium.language as tl

# The examples' kernels are the realistic ones; the specs below are positional, so the
# example kernels serve as they are.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples")))
from fused_softmax import softmax_kernel  # noqa: E402
from layer_norm import _layer_norm_fwd_fused as layer_norm_kernel  # noqa: E402
from low_memory_dropout import _seeded_dropout as dropout_kernel  # noqa: E402
from vector_add import add_kernel  # noqa: E402


@tritium.jit
def softmax2d_kernel(out_ptr, in_ptr, stride, n_rows, n_cols, BM: tl.constexpr,
                     BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    offs = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    den = tl.sum(num, axis=1)
    tl.store(out_ptr + offs, num / den[:, None], mask=mask)


@tritium.jit
def tile_kernel(dst, src, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    t = tl.load(src + rm[:, None] * stride_m + rn[None, :], mask=mask)
    tl.store(dst + rm[:, None] * stride_m + rn[None, :], t * 2, mask=mask)


@tritium.jit
def row_sum_kernel(out_ptr, in_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(in_ptr + rows[:, None] * stride + cols[None, :])
    tl.store(out_ptr + rows, tl.sum(x, axis=1))


@tritium.jit
def while_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    i = 0
    while i < n:
        acc += tl.load(out_ptr + offs) + i
        if i % 2 == 0:
            acc = acc * 2
        i += 1
    tl.store(out_ptr + offs, acc)


@dataclass
class Case:
    name: str
    fn: object
    spec: tuple
    make_args: Callable[[np.random.Generator], List]   # runtime args, IR order
    grid: Tuple[int, ...]
    outputs: Tuple[int, ...]   # indices of arguments that are written
    zero_converts: bool = True

    def ttir(self):
        from tritium.frontend.compiler import make_ttir
        module, _ = make_ttir(self.fn, self.spec)
        return module


F32 = ("*fp32", "D")


def _vadd(dtype, n):
    def make(rng):
        x = rng.standard_normal(4096).astype(dtype)
        y = rng.standard_normal(4096).astype(dtype)
        return [x, y, np.zeros(4096, dtype), n]
    return make


def _softmax_args(rng):
    x = rng.standard_normal((8, 781)).astype(np.float32)
    return [np.zeros_like(x), x, 781, 781, 781]


def _softmax2d_args(rng):
    x = rng.standard_normal((8, 784)).astype(np.float32)
    return [np.zeros_like(x), x, 784, 8, 784]


def _ln_args(rng):
    x = rng.standard_normal((4, 1504)).astype(np.float32)
    w = rng.random(1504).astype(np.float32)
    b = rng.random(1504).astype(np.float32)
    return [x, np.zeros_like(x), w, b, np.zeros(4, np.float32), np.zeros(4, np.float32),
            1504, 1504, 1e-5]


def _dropout_args(rng):
    return [rng.standard_normal(4096).astype(np.float32), np.zeros(4096, np.float32), 4000,
            0.5, 123]


def _tile_args(rng):
    x = rng.standard_normal((64, 64)).astype(np.float16)
    return [np.zeros_like(x), x, 60, 50, 64]


def _rowsum_args(rng):
    x = rng.standard_normal((16, 64)).astype(np.float32)
    return [np.zeros(16, np.float32), x, 64]


CASES = [
    Case("vadd_f32", add_kernel, (F32, F32, F32, ("i32", "D"), ("constexpr", 1024)),
         _vadd(np.float32, 4000), (4,), (2,)),
    Case("vadd_f16", add_kernel, (("*fp16", "D"),) * 3 + (("i32", "D"), ("constexpr", 1024)),
         _vadd(np.float16, 4000), (4,), (2,)),
    Case("vadd_f32_unaligned_n", add_kernel, (F32, F32, F32, ("i32", ""), ("constexpr", 1024)),
         _vadd(np.float32, 3999), (4,), (2,)),
    Case("softmax", softmax_kernel, (F32, F32, ("i32", ""), ("i32", ""), ("i32", ""),
                                     ("constexpr", 1024)), _softmax_args, (8,), (0,)),
    Case("softmax2d", softmax2d_kernel, (F32, F32, ("i32", "D"), ("i32", "D"), ("i32", "D"),
                                         ("constexpr", 4), ("constexpr", 1024)),
         _softmax2d_args, (2,), (0,)),
    Case("layer_norm", layer_norm_kernel, (F32,) * 6 + (("i32", "D"), ("i32", "D"),
                                                        ("fp32", ""), ("constexpr", 1024)),
         _ln_args, (4,), (1, 4, 5)),
    Case("dropout", dropout_kernel, (F32, F32, ("i32", "D"), ("fp32", ""), ("i32", ""),
                                     ("constexpr", 1024)), _dropout_args, (4,), (1,)),
    Case("tile_f16", tile_kernel, (("*fp16", "D"), ("*fp16", "D"), ("i32", ""), ("i32", ""),
                                   ("i32", "D"), ("constexpr", 64), ("constexpr", 64)),
         _tile_args, (1, 1), (0,)),
    # A row sum stored along a 1-D coalesced layout keeps one conversion, as upstream does.
    Case("row_sum", row_sum_kernel, (F32, F32, ("i32", "D"), ("constexpr", 16),
                                     ("constexpr", 64)), _rowsum_args, (1,), (0,),
         zero_converts=False),
    Case("while_if", while_kernel, (("*i32", "D"), ("i32", ""), ("constexpr", 256)),
         lambda rng: [rng.integers(0, 10, 256).astype(np.int32), 5], (1,), (0,)),
]


@tritium.jit(noinline=True)
def _scale(x, f):
    return x * f


@tritium.jit
def call_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, _scale(x, 2.0))


# Tensors crossing a noinline call keep the callee's signature layouts (converted at the
# call and the return).
CASES.append(Case("noinline_call", call_kernel, (F32, ("constexpr", 512)),
                  lambda rng: [rng.standard_normal(512).astype(np.float32)], (1,), (0,),
                  zero_converts=False))
