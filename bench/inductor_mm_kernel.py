"""Inductor's `triton_mm` template as torch.compile generates it for relu(a @ b + bias)
(4096x4096 fp16, `mode="max-autotune-no-cudagraphs"`; torch/_inductor/kernel/templates/
triton_mm.py.jinja), with the block sizes as constexpr parameters so that distinct autotune
configs can be compiled from one source. Written against `import triton` (see
kernel_loader.py): compiled by upstream Triton and by tritium from the same text."""
import triton
import triton.language as tl


@triton.jit
def triton_tem_fused_add_mm_relu_0(arg_A, arg_B, in_ptr2, out_ptr0,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    EVEN_K: tl.constexpr = True
    ALLOW_TF32: tl.constexpr = False
    ACC_TYPE: tl.constexpr = tl.float32
    INDEX_DTYPE: tl.constexpr = tl.int32
    A = arg_A
    B = arg_B

    M = 4096
    N = 4096
    K = 4096
    if M * N == 0:
        # early exit due to zero-size input(s)
        return
    stride_am = 4096
    stride_ak = 1
    stride_bk = 4096
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
        xindex = idx_n + 4096 * idx_m
        a = tl.load(A + (xindex))

        idx_m = b_k_idx_vals
        idx_n = offs_b_n[None, :]
        xindex = idx_n + 4096 * idx_m
        b = tl.load(B + (xindex))

        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32, out_dtype=ACC_TYPE)

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(INDEX_DTYPE)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(INDEX_DTYPE)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # inductor generates a suffix
    xindex = idx_n + 4096 * idx_m
    tmp0 = tl.load(in_ptr2 + (tl.broadcast_to(idx_n, [BLOCK_M, BLOCK_N])), mask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = acc + tmp0
    tmp2 = tl.full([1, 1], 0, tl.int32)
    tmp3 = tl.maximum(tmp2, tmp1)
    tl.store(out_ptr0 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), tmp3, mask)


SIGNATURE = {"arg_A": "*fp16", "arg_B": "*fp16", "in_ptr2": "*fp16", "out_ptr0": "*fp16"}
# Inductor's pointer arguments are 16-byte aligned ("tt.divisibility" on each).
ATTRS = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]],
         (2,): [["tt.divisibility", 16]], (3,): [["tt.divisibility", 16]]}
# The mm configs Inductor's max-autotune tries on an H100 for fp16 4096^3 (a sample of
# its list, torch/_inductor/template_heuristics): (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages).
CONFIGS = [
    (128, 128, 64, 4, 3), (128, 128, 32, 4, 4), (64, 128, 32, 4, 4), (128, 64, 32, 4, 4),
    (64, 64, 32, 4, 5), (128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (64, 128, 64, 4, 3),
    (128, 64, 64, 4, 3), (64, 64, 64, 4, 3), (128, 128, 32, 8, 3), (64, 256, 32, 4, 4),
]
