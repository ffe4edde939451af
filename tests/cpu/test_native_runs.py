"""Loads whose pointers are consecutive in aligned runs shorter than a row (Inductor's
per-channel parameters at `x % C` of a channels-last tensor): the compiled path loads them
run by run (`memory._fill_groups`) instead of one gathered element at a time. Results
against numpy on ragged sizes and several dtypes, on both paths; which loads take it."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.ir.parser import parse_module


@triton.jit
def _bn(X, Mean, Scale, Out, n, C: tl.constexpr, XBLOCK: tl.constexpr):
    """Inductor's batch norm over a channels-last tensor, its parameters by `x % C`."""
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = x < n
    c = x % C
    v = tl.load(X + x, m)
    mu = tl.load(Mean + c, m, eviction_policy="evict_last")
    s = tl.load(Scale + c, m, other=0)
    tl.store(Out + x, ((v - mu) * s).to(Out.dtype.element_ty), m)


@triton.jit
def _bn2d(X, Scale, Out, M, N: tl.constexpr, C: tl.constexpr, XBLOCK: tl.constexpr,
          RBLOCK: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    cols = tl.arange(0, RBLOCK)[None, :]
    m = (rows < M) & (cols < N)
    v = tl.load(X + rows * N + cols, m)
    s = tl.load(Scale + cols % C, m)
    tl.store(Out + rows * N + cols, v * s, m)


@triton.jit
def _tiles(X, Out, n, R: tl.constexpr, STRIDE: tl.constexpr, XBLOCK: tl.constexpr):
    """Runs of R consecutive elements, each from its own place (a tile's rows)."""
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    m = x < n
    tl.store(Out + x, tl.load(X + (x // R) * STRIDE + x % R, m, other=-1.0), m)


@pytest.mark.parametrize("n,R,stride", [(1000, 16, 100), (77, 32, 33), (256, 64, 64)])
def test_runs_from_separate_places(rng, cpu_path, n, R, stride):
    x = rng.standard_normal((n // R + 1) * stride + R).astype(np.float32)
    out = np.full(n, 7, np.float32)
    _tiles[(triton.cdiv(n, 128),)](x, out, n, R=R, STRIDE=stride, XBLOCK=128)
    i = np.arange(n)
    np.testing.assert_array_equal(out, x[(i // R) * stride + i % R])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("n,C,block", [(18432, 16, 128), (1000, 16, 128), (77, 32, 64),
                                       (300, 64, 256), (50, 8, 64)])
def test_channel_parameters_match_numpy(rng, cpu_path, dtype, n, C, block):
    def rand(*shape):
        if dtype == np.int32:
            return rng.integers(-1000, 1000, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    x, mean, scale = rand(n), rand(C), rand(C)
    out = np.full(n, 7, dtype)
    _bn[(triton.cdiv(n, block),)](x, mean, scale, out, n, C=C, XBLOCK=block)
    c = np.arange(n) % C
    want = (x - mean[c]) * scale[c]
    if dtype == np.float16:   # (f16 arithmetic rounds each step on both sides)
        want = ((x - mean[c]).astype(np.float16) * scale[c]).astype(np.float16)
    np.testing.assert_array_equal(out, want.astype(dtype))


@pytest.mark.parametrize("M,N,C", [(5, 64, 16), (7, 100, 32), (3, 128, 64)])
def test_channel_parameters_2d(rng, cpu_path, M, N, C):
    x = rng.standard_normal((M, N)).astype(np.float32)
    scale = rng.standard_normal(C).astype(np.float32)
    out = np.full((M, N), 7, np.float32)
    _bn2d[(triton.cdiv(M, 2),)](x, scale, out, M, N=N, C=C, XBLOCK=2,
                                RBLOCK=triton.next_power_of_2(N))
    np.testing.assert_array_equal(out, x * scale[np.arange(N) % C])


@pytest.mark.parametrize("C,block,runs", [(16, 128, 2), (64, 128, 2), (4, 128, 0),
                                          (128, 128, 0)])
def test_which_loads_go_by_runs(monkeypatch, C, block, runs):
    """Runs of whole SIMD registers shorter than the block: the two parameters. (Runs of 4
    fill no register; a run as long as the block is a plain contiguous load.)"""
    from tritium.backends.cpu import native
    from tritium.backends.cpu.native import jit, memory
    if jit.vector_bits() // 32 > 16:
        pytest.skip("wider SIMD than this test's runs")
    calls = []
    orig = memory._fill_groups
    monkeypatch.setattr(memory, "_fill_groups", lambda *a: (calls.append(a[-1]), orig(*a)))
    sig = {"X": "*fp32", "Mean": "*fp32", "Scale": "*fp32", "Out": "*fp32", "n": "i32",
           "C": "constexpr", "XBLOCK": "constexpr"}
    k = triton.compile(triton.compiler.ASTSource(_bn, sig, {"C": C, "XBLOCK": block}),
                       target=GPUTarget("cpu", 0, 32))
    meta = {"name": k.metadata.name}
    assert native.make_llir(parse_module(k.asm["ttir"]), meta)
    lanes = max(4, jit.vector_bits() // 32)
    by_runs = runs and C >= lanes and C % lanes == 0
    # (each load is emitted for full and ragged blocks, so more calls than loads)
    assert set(calls) == ({C} if by_runs else set()) and len(calls) >= (runs if by_runs else 0)
