"""tritongpu-optimize-thread-locality on real kernels compiled for sm_90a (no GPU): the
reductions it splits (two `tt.reduce`s, the one in the loop within each thread) and the
ones it must leave alone, and the rewritten TTGIR run on the CPU backend against numpy —
the split must compute what the kernel says. FileCheck of the rewrite itself:
lit/optimize_thread_locality.mlir."""
import re

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.cpu.launch import launch
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile
from tritium.ir.parser import parse_module

CUDA90 = GPUTarget("cuda", 90, 32)
pytestmark = [pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed"),
              pytest.mark.usefixtures("private_cache")]


# upstream's test_optimize_thread_locality kernel (OP picks what upstream patches in: 0 sum,
# 1 max, 2 min), with an init that may differ from the combine's neutral element (the pass
# must add it back after the loop)
@tritium.jit
def row_reduce(X, Y, N, OP: tl.constexpr, INIT: tl.constexpr, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    num_pid_n = tl.num_programs(1)
    local = tl.full([BLOCK_M], INIT, dtype=tl.float32)
    off_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    for start_n in range(pid_n, tl.cdiv(N, BLOCK_N), num_pid_n):
        off_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
        x = tl.load(X + off_m[:, None] * N + off_n[None, :])
        if OP == 0:
            local = local + tl.sum(x, axis=1)
        elif OP == 1:
            local = tl.maximum(local, tl.max(x, axis=1))
        else:
            local = tl.minimum(local, tl.min(x, axis=1))
    tl.store(Y + off_m * num_pid_n + pid_n, local)


@tritium.jit
def _mul(a, b):
    return a * b


@tritium.jit
def row_prod_ragged(X, Y, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """A product (mulf's neutral is 1) over a ragged N: masked loads, other=1."""
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.full([BLOCK_M], 1.0, dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        off_n = start_n + tl.arange(0, BLOCK_N)
        mask = (off_m[:, None] < M) & (off_n[None, :] < N)
        x = tl.load(X + off_m[:, None] * N + off_n[None, :], mask=mask, other=1.0)
        acc = acc * tl.reduce(x, 1, _mul)
    tl.store(Y + off_m, acc, mask=off_m < M)


@tritium.jit
def batched_row_sum(X, Y, N, B: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """A rank-3 tile reduced along its last dim."""
    ob = tl.arange(0, B)[:, None, None]
    om = tl.arange(0, BLOCK_M)[None, :, None]
    acc = tl.zeros([B, BLOCK_M], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        on = start_n + tl.arange(0, BLOCK_N)[None, None, :]
        x = tl.load(X + (ob * BLOCK_M + om) * N + on)
        acc += tl.sum(x, axis=2)
    tl.store(Y + tl.arange(0, B)[:, None] * BLOCK_M + tl.arange(0, BLOCK_M)[None, :], acc)


@tritium.jit
def sum_of_max(X, Y, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Left alone: partial maxima summed over iterations are not the sum of maxima."""
    off_m = tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        off_n = start_n + tl.arange(0, BLOCK_N)
        acc += tl.max(tl.load(X + off_m[:, None] * N + off_n[None, :]), axis=1)
    tl.store(Y + off_m, acc)


@tritium.jit
def running_sum(X, Y, R, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Left alone: the accumulator is read in the loop (each prefix is stored)."""
    off_m = tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        off_n = start_n + tl.arange(0, BLOCK_N)
        tl.store(R + (start_n // BLOCK_N) * BLOCK_M + off_m, acc)
        acc += tl.sum(tl.load(X + off_m[:, None] * N + off_n[None, :]), axis=1)
    tl.store(Y + off_m, acc)


D16 = [["tt.divisibility", 16]]


def _compile(fn, sig, consts, num_warps=4, aligned=("X", "Y")):
    src = ASTSource(fn, sig, consts, {k: D16 for k in aligned})
    return compile(src, target=CUDA90, options={"num_warps": num_warps})


def _reduces(ttgir):
    """(count of tt.reduce, count of those inside a scf.for)."""
    m = parse_module(ttgir)
    reds = [op for op in m.walk() if op.name == "tt.reduce"]
    in_loop = 0
    for r in reds:
        p = r.parent_op
        while p is not None and p.name != "scf.for":
            p = p.parent_op
        in_loop += p is not None
    return len(reds), in_loop


def _loop_reduce_is_thread_local(ttgir):
    """The reduce in the loop runs along a dim that one thread holds whole."""
    m = parse_module(ttgir)
    for r in m.walk():
        if r.name == "tt.reduce" and r.parent_op.name == "scf.for":
            enc = r.operand(0).type.encoding
            axis = int(r.attr("axis"))
            return enc.threads_per_warp[axis] == 1 and enc.warps_per_cta[axis] == 1
    return False


def _run_ttgir(k, grid, args):
    launch(parse_module(k.asm["ttgir"]), k.metadata.name, grid, args)


SIG = {"X": "*fp32", "Y": "*fp32", "N": "i32", "OP": "constexpr", "INIT": "constexpr",
       "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
OPS = {"sum": (0, np.sum, 0.0), "max": (1, np.max, float("-inf")),
       "min": (2, np.min, float("inf"))}


@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("BLOCK_N,N,num_pid_n", [(32, 512, 2), (64, 1024, 4), (128, 2048, 2),
                                                 (128, 640, 3), (16, 1024, 2)])
@pytest.mark.parametrize("init", ["neutral", "other"])
def test_loop_reductions_are_split_and_stay_correct(rng, op, BLOCK_N, N, num_pid_n,
                                                     num_warps, init):
    code, np_op, neutral = OPS[op]
    INIT = neutral if init == "neutral" else 0.75
    BLOCK_M = 32
    k = _compile(row_reduce, SIG, {"OP": code, "INIT": INIT, "BLOCK_M": BLOCK_M,
                                   "BLOCK_N": BLOCK_N},
                 num_warps, aligned=("X", "Y", "N"))  # as the JIT specialises N = 512
    assert k.asm["ttgir"].count('"tt.reduce"') == 2, k.asm["ttgir"]
    assert _reduces(k.asm["ttgir"]) == (2, 1)
    assert _loop_reduce_is_thread_local(k.asm["ttgir"])
    assert k.n_spills == 0
    x = rng.standard_normal((BLOCK_M, N)).astype(np.float32)
    y = np.full((BLOCK_M, num_pid_n), np.nan, np.float32)
    _run_ttgir(k, (1, num_pid_n, 1), [x, y, N])
    # each program reduces the column blocks pid_n, pid_n + num_pid_n, ...
    for p in range(num_pid_n):
        cols = np.concatenate([np.arange(s * BLOCK_N, (s + 1) * BLOCK_N)
                               for s in range(p, N // BLOCK_N, num_pid_n)])
        want = np_op(np.concatenate([x[:, cols], np.full((BLOCK_M, 1), INIT, np.float32)],
                                    axis=1), axis=1)
        np.testing.assert_allclose(y[:, p], want, rtol=1e-5, atol=1e-4)


def test_no_cross_thread_work_in_the_loop():
    """The loop's PTX holds the loads and in-thread adds; the shuffles come after it."""
    k = _compile(row_reduce, SIG, {"OP": 0, "INIT": 0.0, "BLOCK_M": 32, "BLOCK_N": 128},
                 aligned=("X", "Y", "N"))
    ptx = k.asm["ptx"]
    body = re.search(r"\$L__BB0_(\d+):\n(.*?)@%p\d+ bra \t\$L__BB0_\1;", ptx, re.S)
    assert body is not None, ptx
    assert "ld.global" in body.group(2)
    assert "shfl" not in body.group(2) and "bar.sync" not in body.group(2)
    assert "shfl.sync.bfly" in ptx[body.end():]


@pytest.mark.parametrize("M,N", [(70, 300), (64, 512), (5, 33)])
def test_ragged_product(rng, M, N):
    k = _compile(row_prod_ragged, {"X": "*fp32", "Y": "*fp32", "M": "i32", "N": "i32",
                                   "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
                 {"BLOCK_M": 32, "BLOCK_N": 256})  # N unaligned: 4 scalar loads a thread
    assert _reduces(k.asm["ttgir"]) == (2, 1)
    x = (1 + 0.02 * rng.standard_normal((M, N))).astype(np.float32)
    y = np.full(M, np.nan, np.float32)
    _run_ttgir(k, (-(-M // 32), 1, 1), [x, y, M, N])
    np.testing.assert_allclose(y, np.prod(x.astype(np.float64), axis=1), rtol=1e-5)


def test_rank3_tile(rng):
    B, BM, BN, N = 2, 16, 64, 192
    k = _compile(batched_row_sum, {"X": "*fp32", "Y": "*fp32", "N": "i32", "B": "constexpr",
                                   "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
                 {"B": B, "BLOCK_M": BM, "BLOCK_N": BN}, aligned=("X", "Y", "N"))
    assert _reduces(k.asm["ttgir"]) == (2, 1)
    x = rng.standard_normal((B, BM, N)).astype(np.float32)
    y = np.full((B, BM), np.nan, np.float32)
    _run_ttgir(k, (1, 1, 1), [x, y, N])
    np.testing.assert_allclose(y, x.sum(axis=2), rtol=1e-5, atol=1e-4)


def test_left_alone_and_still_correct(rng):
    sig = {"X": "*fp32", "Y": "*fp32", "N": "i32", "BLOCK_M": "constexpr",
           "BLOCK_N": "constexpr"}
    N = 256
    x = rng.standard_normal((32, N)).astype(np.float32)
    k = _compile(sum_of_max, sig, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert _reduces(k.asm["ttgir"]) == (1, 1)
    y = np.full(32, np.nan, np.float32)
    _run_ttgir(k, (1,), [x, y, N])
    np.testing.assert_allclose(y, x.reshape(32, 4, 64).max(axis=2).sum(axis=1), rtol=1e-5)

    k = _compile(running_sum, dict(sig, R="*fp32"), {"BLOCK_M": 32, "BLOCK_N": 64})
    assert _reduces(k.asm["ttgir"]) == (1, 1)
    y, r = np.full(32, np.nan, np.float32), np.full((4, 32), np.nan, np.float32)
    _run_ttgir(k, (1,), [x, y, r, N])
    parts = x.reshape(32, 4, 64).sum(axis=2)
    np.testing.assert_allclose(y, parts.sum(axis=1), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(r, np.cumsum(parts, axis=1).T - parts.T, rtol=1e-5, atol=1e-4)
