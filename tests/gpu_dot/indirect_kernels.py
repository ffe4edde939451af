"""Kernels whose tiles are found through an index table read in the loop, the shape of
Inductor's flex attention and of block-sparse matmuls: the pipeliner must run the table
reads ahead of the copies they address. Shared by the compile tests (sm_90a, no GPU), the
CPU runs and the H100 tests; the references are plain torch."""
import tritium as triton
import tritium.language as tl


@triton.jit
def bsr_matmul(A, B, C, IDX, NNZ, M, N, K, sam, sak, sbk, sbn, scm, scn, MAXNNZ,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               WALK_PTR: tl.constexpr = False):
    """C[m-block, n-block] = sum over j < NNZ[m] of A[m, kb] @ B[kb, n], kb = IDX[m, j]: the
    K block (and so both tiles' addresses and masks) comes from the table each iteration,
    read at IDX + j or (WALK_PTR) through a pointer carried and bumped each iteration."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    nnz = tl.load(NNZ + pid_m)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    p = IDX + pid_m * MAXNNZ
    for j in range(nnz):
        if WALK_PTR:
            kb = tl.load(p)
            p += 1
        else:
            kb = tl.load(IDX + pid_m * MAXNNZ + j)
        ks = kb * BK + rk
        a = tl.load(A + rm[:, None] * sam + ks[None, :] * sak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(B + ks[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def tma_bsr_matmul(a_desc, b_desc, c_desc, IDX, NNZ, MAXNNZ,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """bsr_matmul through tensor descriptors: the table names the TMA copies' coordinates."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    nnz = tl.load(NNZ + pid_m)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in range(nnz):
        kb = tl.load(IDX + pid_m * MAXNNZ + j)
        acc = tl.dot(a_desc.load([pid_m * BM, kb * BK]), b_desc.load([kb * BK, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


@triton.jit
def block_attn(Q, K, V, O, KV_IDX, KV_NUM, N_CTX, sz, sm, scale, MAXB,
               BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    """Attention of each BM-row block over the KV blocks KV_IDX[z, m, :KV_NUM[z, m]], walked
    as flex attention does: the block offset is carried and moved by (next - cur) * BN, read
    from the table at the end of each iteration; K is loaded [BN, D] and transposed."""
    pid = tl.program_id(0)
    z = tl.program_id(1)
    row = z * tl.num_programs(0) + pid
    offs_m = pid * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + z * sz + offs_m[:, None] * sm + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    idx = KV_IDX + row * MAXB
    n_blocks = tl.load(KV_NUM + row)
    kv_offset = tl.load(idx) * BN
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for j in range(0, n_blocks):
        offs_n = kv_offset + tl.arange(0, BN)
        k = tl.load(K + z * sz + offs_n[:, None] * sm + offs_d[None, :],
                    mask=offs_n[:, None] < N_CTX, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * scale
        qk = tl.where(offs_n[None, :] < N_CTX, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + z * sz + offs_n[:, None] * sm + offs_d[None, :],
                    mask=offs_n[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        cur = tl.load(idx + j)
        nxt = tl.load(idx + j + 1, mask=j + 1 < n_blocks)
        kv_offset += (nxt - cur) * BN
    l_i = tl.where(l_i == 0.0, 1.0, l_i)  # a row block with no KV blocks writes zeros
    tl.store(O + z * sz + offs_m[:, None] * sm + offs_d[None, :], (acc / l_i[:, None]).to(O.dtype.element_ty),
             mask=offs_m[:, None] < N_CTX)


@triton.jit
def walk_matmul(A, B, C, LAST, K, sa, BM: tl.constexpr, BK: tl.constexpr,
                READ_AFTER: tl.constexpr):
    """A plain K loop whose pointers are read after it (LAST = the A tile one past the end):
    the pipeliner must not hand the loop's result out D iterations ahead."""
    rm, rk = tl.arange(0, BM), tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * sa + rk[None, :]
    b_ptrs = B + rk[:, None] * BM + rm[None, :]
    acc = tl.zeros((BM, BM), dtype=tl.float32)
    for _ in range(K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * BM
    tl.store(C + rm[:, None] * BM + rm[None, :], acc)
    if READ_AFTER:
        tl.store(LAST + rm[:, None] * BK + rk[None, :], tl.load(a_ptrs))


@triton.jit
def matmul_bt(A, B, C, M, N, K, sa, sb, sc, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr):
    """C = A @ B^T with B stored [N, K] and transposed in the kernel (attention's K): the
    pipeliner rings B as loaded and hands the dot a transposed view."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * sa + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(B + rn[:, None] * sb + (k0 + rk)[None, :],
                    mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K), other=0.0)
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(C + rm[:, None] * sc + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def bsr_case(torch, M, N, K, BM, BK, max_nnz, dtype, device, gen):
    """Operands and a random block table (distinct K blocks per row block in random order,
    counts from 0 to `max_nnz`), and the float64 reference."""
    mb, kbs = -(-M // BM), -(-K // BK)
    a = torch.randn((M, K), generator=gen).to(dtype)
    b = torch.randn((K, N), generator=gen).to(dtype)
    nnz = torch.randint(0, max_nnz + 1, (mb,), generator=gen, dtype=torch.int32)
    nnz[0] = min(max_nnz, kbs)  # at least one row block with the most blocks
    nnz = nnz.clamp(max=kbs)
    idx = torch.zeros((mb, max(max_nnz, 1)), dtype=torch.int32)
    ref = torch.zeros((M, N), dtype=torch.float64)
    for r in range(mb):
        blocks = torch.randperm(kbs, generator=gen)[:int(nnz[r])]
        idx[r, :len(blocks)] = blocks.to(torch.int32)
        rows = slice(r * BM, min(M, (r + 1) * BM))
        for kb in blocks.tolist():
            ks = slice(kb * BK, min(K, (kb + 1) * BK))
            ref[rows] += a[rows, ks].double() @ b[ks].double()
    return [t.to(device) for t in (a, b, idx, nnz)] + [ref]


def attn_case(torch, Z, N_CTX, D, BM, BN, max_blocks, dtype, device, gen):
    """q, k, v [Z, N_CTX, D], a random block list per (z, row block) (distinct KV blocks in
    random order, 0 to `max_blocks` of them) and the float64 reference (keys outside a row's
    blocks masked; a row block with none gives zeros)."""
    nm, nb = -(-N_CTX // BM), -(-N_CTX // BN)
    q, k, v = (torch.randn((Z, N_CTX, D), generator=gen).to(dtype) for _ in range(3))
    maxb = max(max_blocks, 1)
    num = torch.randint(0, max_blocks + 1, (Z, nm), generator=gen, dtype=torch.int32)
    num[0, 0] = min(max_blocks, nb)
    num = num.clamp(max=nb)
    idx = torch.zeros((Z, nm, maxb), dtype=torch.int32)
    scale = D ** -0.5
    ref = torch.zeros((Z, N_CTX, D), dtype=torch.float64)
    for z in range(Z):
        s = (q[z].double() @ k[z].double().T) * scale
        for r in range(nm):
            blocks = torch.randperm(nb, generator=gen)[:int(num[z, r])]
            idx[z, r, :len(blocks)] = blocks.to(torch.int32)
            if not len(blocks):
                continue
            rows = slice(r * BM, min(N_CTX, (r + 1) * BM))
            keep = torch.zeros(N_CTX, dtype=torch.bool)
            for kb in blocks.tolist():
                keep[kb * BN:(kb + 1) * BN] = True
            sr = s[rows].masked_fill(~keep, float("-inf"))
            ref[z, rows] = torch.softmax(sr, dim=-1) @ v[z].double()
    return [t.to(device) for t in (q, k, v, idx, num)] + [scale, ref]


def run_bsr(torch, device, M, N, K, BM, BN, BK, max_nnz, dtype, seed, warps=4, stages=3,
            walk_ptr=False):
    """Launch bsr_matmul on `device` (CPU tensors run on the CPU backend); (C, reference)."""
    gen = torch.Generator().manual_seed(seed)
    a, b, idx, nnz, ref = bsr_case(torch, M, N, K, BM, BK, max_nnz, dtype, device, gen)
    c = torch.full((M, N), float("nan"), device=device)
    bsr_matmul[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a, b, c, idx, nnz, M, N, K, *a.stride(), *b.stride(), *c.stride(), idx.shape[1],
        BM=BM, BN=BN, BK=BK, WALK_PTR=walk_ptr, num_warps=warps, num_stages=stages)
    return c.cpu(), ref


def run_attn(torch, device, Z, N_CTX, D, BM, BN, max_blocks, dtype, seed, warps=4, stages=3):
    """Launch block_attn on `device`; (O, reference, block counts)."""
    gen = torch.Generator().manual_seed(seed)
    q, k, v, idx, num, scale, ref = attn_case(torch, Z, N_CTX, D, BM, BN, max_blocks, dtype,
                                              device, gen)
    o = torch.full_like(q, float("nan"))
    block_attn[(triton.cdiv(N_CTX, BM), Z)](q, k, v, o, idx, num, N_CTX, q.stride(0),
                                            q.stride(1), scale, idx.shape[2], BM=BM, BN=BN,
                                            D=D, num_warps=warps, num_stages=stages)
    return o.cpu(), ref, num.cpu()


def rel_err(torch, out, ref) -> float:
    """Relative Frobenius error (absolute when the reference is all zeros)."""
    diff = (out.double() - ref).norm().item()
    n = ref.norm().item()
    return diff / n if n else diff


def run_walk(torch, device, K, BM, BK, seed, warps=4, stages=3):
    """walk_matmul over K blocks (A has one more, read after the loop): (C, LAST, references)."""
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn((BM, (K + 1) * BK), generator=gen).half()
    b = torch.randn((K * BK, BM), generator=gen).half()
    c = torch.full((BM, BM), float("nan"))
    last = torch.zeros((BM, BK), dtype=torch.float16)
    args = [t.to(device) for t in (a, b, c, last)]
    walk_matmul[(1,)](*args, K, a.stride(0), BM=BM, BK=BK, READ_AFTER=True,
                      num_warps=warps, num_stages=stages)
    ref = a[:, :K * BK].double() @ b.double()
    return args[2].cpu(), args[3].cpu(), ref, a[:, K * BK:]


def run_tma_bsr(torch, device, M, N, K, BM, BN, BK, max_nnz, seed, warps=4, stages=3):
    """tma_bsr_matmul with fp16 operands and an fp32 C: (C, reference)."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    gen = torch.Generator().manual_seed(seed)
    a, b, idx, nnz, ref = bsr_case(torch, M, N, K, BM, BK, max_nnz, torch.float16, device, gen)
    c = torch.full((M, N), float("nan"), device=device)
    tma_bsr_matmul[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
        TensorDescriptor.from_tensor(c, [BM, BN]), idx, nnz, idx.shape[1],
        BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    return c.cpu(), ref


def run_matmul_bt(torch, device, M, N, K, BM, BN, BK, dtype, seed, warps=4, stages=3):
    """matmul_bt: (C, float64 reference)."""
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn((M, K), generator=gen).to(dtype)
    b = torch.randn((N, K), generator=gen).to(dtype)
    c = torch.full((M, N), float("nan"))
    args = [t.to(device) for t in (a, b, c)]
    matmul_bt[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        *args, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=BM, BN=BN, BK=BK,
        num_warps=warps, num_stages=stages)
    return args[2].cpu(), a.double() @ b.double().T
