"""Flash-attention forward (FlashAttention-2 online softmax) with plain pointers, as users
write it in Triton: two chained dots per iteration, P fed to the second from registers."""
import tritium as triton
import tritium.language as tl


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, N_CTX, stride_z, stride_m,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_z = tl.program_id(1).to(tl.int64) * stride_z
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + off_z + offs_m[:, None] * stride_m + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    k_ptrs = K + off_z + offs_n[None, :] * stride_m + offs_d[:, None]   # K^T tile [D, N]
    v_ptrs = V + off_z + offs_n[:, None] * stride_m + offs_d[None, :]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        kt = tl.load(k_ptrs, mask=(start_n + offs_n[None, :]) < N_CTX, other=0.0)
        qk = tl.dot(q, kt)
        valid = (start_n + offs_n[None, :]) < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= start_n + offs_n[None, :])
        qk = tl.where(valid, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs, mask=(start_n + offs_n[:, None]) < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_m
        v_ptrs += BLOCK_N * stride_m
    acc = acc / l_i[:, None]
    tl.store(Out + off_z + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < N_CTX)
