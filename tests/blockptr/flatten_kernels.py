"""Persistent matmuls whose tile loop is `tl.range(..., flatten=True)`: tutorial 09's TMA
kernel from `bench/tc_kernels.py` (loaded with `triton` bound to tritium, so the benchmark
and the tests share one source), and a pointer version in the style of tutorial 09's
non-TMA persistent kernel (masked K tail, a tile counter carried by the outer loop)."""
import os
import sys

import tritium as triton
import tritium.language as tl

_BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, _BENCH)
from kernel_loader import load_kernels_from  # noqa: E402

matmul_tma_persistent = load_kernels_from("tc_kernels.py", "tritium").matmul_kernel_tma_persistent


@triton.jit
def matmul_ptr_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                          stride_bn, stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr, GROUP: tl.constexpr, NUM_PROGS: tl.constexpr):
    start = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    in_group = GROUP * num_pid_n
    offs_k0 = tl.arange(0, BK)
    done = start - NUM_PROGS   # a value the outer loop carries (the tile just stored)
    for tile in tl.range(start, num_tiles, NUM_PROGS, flatten=True):
        first_m = (tile // in_group) * GROUP
        size_m = min(num_pid_m - first_m, GROUP)
        pid_m = first_m + (tile % size_m)
        pid_n = (tile % in_group) // size_m
        offs_am = pid_m * BM + tl.arange(0, BM)
        offs_bn = pid_n * BN + tl.arange(0, BN)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BM), BM)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BN), BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BK + offs_k0
            a = tl.load(a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak,
                        mask=offs_k0[None, :] < K - ki * BK, other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn,
                        mask=offs_k0[:, None] < K - ki * BK, other=0.0)
            acc = tl.dot(a, b, acc)
        done += NUM_PROGS
        rows = pid_m * BM + tl.arange(0, BM)
        cols = pid_n * BN + tl.arange(0, BN)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn,
                 acc.to(c_ptr.dtype.element_ty),
                 mask=(rows[:, None] < M) & (cols[None, :] < N) & (done == tile))
