"""Inductor's `triton_mm` template (torch/_inductor/kernel/templates/triton_mm.py.jinja) as
torch.compile(mode="max-autotune-no-cudagraphs") renders it for `relu(a @ b + bias)` with
static fp16 shapes: sizes and strides are literals (here constexprs), `EVEN_K`, the
`rm % M` index hints, loads through `xindex`, and the fused epilogue (bias broadcast along M,
Inductor's NaN-propagating `maximum` for relu, masked store through `tl.broadcast_to`).

Written against `import triton` so one source compiles through upstream Triton and tritium
(`kernel_loader.load_kernels_from`)."""
import triton
import triton.language as tl


@triton.jit
def maximum(a, b):  # torch/_inductor/runtime/triton_helpers.py's, as the epilogue calls it
    mask = a > b
    if a.dtype.is_floating():
        mask |= a != a
    return tl.where(mask, a, b)


@triton.jit
def triton_tem_fused_addmm_relu(in_ptr0, arg_A, arg_B, out_ptr1, M: tl.constexpr,
                                N: tl.constexpr, K: tl.constexpr, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
    ALLOW_TF32: tl.constexpr = False
    ACC_TYPE: tl.constexpr = tl.float32
    INDEX_DTYPE: tl.constexpr = tl.int32
    A = arg_A
    B = arg_B
    if M * N == 0:
        # early exit due to zero-size input(s)
        return
    stride_am = K
    stride_ak = 1
    stride_bk = N
    stride_bn = 1

    # based on triton.ops.matmul
    pid = tl.program_id(0).to(INDEX_DTYPE)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(INDEX_DTYPE)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(INDEX_DTYPE)
    if ((stride_am == 1 and stride_ak == M) or (stride_am == K and stride_ak == 1)) and (M >= BLOCK_M and K > 1):
        offs_a_m = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    else:
        offs_a_m = rm % M
    if ((stride_bk == 1 and stride_bn == K) or (stride_bk == N and stride_bn == 1)) and (N >= BLOCK_N and K > 1):
        offs_b_n = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    else:
        offs_b_n = rn % N
    offs_k = tl.arange(0, BLOCK_K).to(INDEX_DTYPE)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)

    for k_idx in range(0, tl.cdiv(K, BLOCK_K)):
        a_k_idx_vals = offs_k[None, :] + (k_idx * BLOCK_K)
        b_k_idx_vals = offs_k[:, None] + (k_idx * BLOCK_K)

        idx_m = offs_a_m[:, None]
        idx_n = a_k_idx_vals
        xindex = idx_n + K * idx_m
        if EVEN_K:
            a = tl.load(A + (xindex))
        else:
            a_mask = offs_k[None, :] < (K - k_idx * BLOCK_K)
            a = tl.load(A + (xindex), mask=a_mask, other=0.0)

        idx_m = b_k_idx_vals
        idx_n = offs_b_n[None, :]
        xindex = idx_n + N * idx_m
        if EVEN_K:
            b = tl.load(B + (xindex))
        else:
            b_mask = offs_k[:, None] < (K - k_idx * BLOCK_K)
            b = tl.load(B + (xindex), mask=b_mask, other=0.0)

        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32, out_dtype=ACC_TYPE)

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(INDEX_DTYPE)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(INDEX_DTYPE)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # inductor generates a suffix
    xindex = idx_n + N * idx_m
    tmp0 = tl.load(in_ptr0 + (tl.broadcast_to(idx_n, [BLOCK_M, BLOCK_N])), mask,
                   eviction_policy='evict_last').to(tl.float32)
    tmp1 = acc + tmp0
    tmp2 = tl.full([1, 1], 0, tl.int32)
    tmp3 = maximum(tmp2, tmp1)
    tl.store(out_ptr1 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), tmp3, mask)



# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) of Inductor's H100 autotune table for
# fp16 4096^3 (GROUP_M = 8)
CONFIGS = [(128, 128, 64, 4, 3), (128, 128, 64, 8, 5), (128, 128, 32, 4, 3),
           (64, 128, 128, 4, 4), (64, 128, 64, 4, 3)]
# More of Inductor's mm configs (a sample of torch/_inductor/template_heuristics), for
# compiling many distinct kernels at once
MORE_CONFIGS = [
    (128, 128, 64, 4, 3), (128, 128, 32, 4, 4), (64, 128, 32, 4, 4), (128, 64, 32, 4, 4),
    (64, 64, 32, 4, 5), (128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (64, 128, 64, 4, 3),
    (128, 64, 64, 4, 3), (64, 64, 64, 4, 3), (128, 128, 32, 8, 3), (64, 256, 32, 4, 4),
]
SIGNATURE = {"in_ptr0": "*fp16", "arg_A": "*fp16", "arg_B": "*fp16", "out_ptr1": "*fp16",
             **{k: "constexpr" for k in ("M", "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K",
                                         "GROUP_M", "EVEN_K")}}
# Inductor's launch specialises its four pointers as 16-byte aligned
ATTRS = {(i,): [["tt.divisibility", 16]] for i in range(4)}


def constexprs(cfg, size=4096):
    """The template's constexpr values for one config at size^3."""
    BM, BN, BK = cfg[:3]
    return {"M": size, "N": size, "K": size, "BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK,
            "GROUP_M": 8, "EVEN_K": size % BK == 0}
