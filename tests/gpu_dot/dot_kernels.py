"""Dot kernels shared by the tensor-core tests: one plain-pointer matmul that takes any
strides (so transposed operands are column-major views), masks on every edge, an optional
accumulator input and an output cast."""
import tritium as triton
import tritium.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M, N, K,
                  sam, sak, sbk, sbn, scm, scn, sdm, sdn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  PRECISION: tl.constexpr, HAS_C: tl.constexpr, OUT: tl.constexpr,
                  ACC: tl.constexpr, ZERO: tl.constexpr = 0.0):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    if HAS_C:
        acc = tl.load(c_ptr + rm[:, None] * scm + rn[None, :] * scn,
                      mask=(rm[:, None] < M) & (rn[None, :] < N), other=0).to(ACC)
    else:
        acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=ZERO)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=ZERO)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(d_ptr + rm[:, None] * sdm + rn[None, :] * sdn, acc.to(OUT),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, d_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                       K: tl.constexpr, ACC: tl.constexpr):
    """One program computes a whole [B, M, N] batch of products with a 3-D tl.dot."""
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rka = tl.arange(0, K)[None, None, :]
    rkb = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rka)
    b = tl.load(b_ptr + rb * K * N + rkb * N + rn)
    d = tl.dot(a, b, out_dtype=ACC)
    tl.store(d_ptr + rb * M * N + rm * N + rn, d)


@triton.jit
def fp8_imprecise_kernel(a_ptr, b_ptr, d_ptr, sam, sak, sbk, sbn, M: tl.constexpr,
                         N: tl.constexpr, K: tl.constexpr, LIMIT: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak)
    b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn)
    d = tl.dot(a, b, max_num_imprecise_acc=LIMIT)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], d)
