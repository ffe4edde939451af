"""Triton kernels the translator tests turn into Gluon and run next to the original: the
cases of upstream's test_triton_to_gluon.py, and more constructs the translator rewrites."""
import tritium as triton
import tritium.language as tl
from tritium.tools.ragged_tma import load_ragged, store_ragged


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def impl_matmul_tile_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs_m = tl.arange(0, M)[:, None]
    offs_n = tl.arange(0, N)[None, :]
    acc = tl.zeros((M, N), dtype=tl.float32)
    a = tl.load(a_ptr + offs_m * K + (tl.arange(0, K))[None, :])
    b = tl.load(b_ptr + (tl.arange(0, K))[:, None] * N + offs_n)
    acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m * N + offs_n, acc)


@triton.jit
def matmul_tile_kernel(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    impl_matmul_tile_kernel(a_ptr, b_ptr, c_ptr, BLOCK_M, BLOCK_N, BLOCK_K)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, output_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=output_ptr.dtype.element_ty)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), step=1, num_stages=4):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        accumulator = tl.dot(a, b, acc=accumulator, out_dtype=output_ptr.dtype.element_ty)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    output_ptrs = output_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(output_ptrs, accumulator)


@triton.jit
def descriptor_store_kernel(desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, V: tl.constexpr):
    tile = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16) + V
    desc.store([0, 0], tile)


@triton.jit
def descriptor_copy_kernel(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tile = in_desc.load([0, 0])
    out_desc.store([0, 0], tile)


@triton.jit
def make_tensor_descriptor_copy_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    in_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tile = in_desc.load([0, 0])
    out_desc.store([0, 0], tile)


@triton.jit
def reshape_trans_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr, TRANS_KIND: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.reshape(tl.load(x_ptr + offsets), 16, 16)
    y = tl.load(y_ptr + offsets).reshape(16, 16)
    if TRANS_KIND == "trans_method":
        a = x + y.trans(1, 0)
    elif TRANS_KIND == "tl_trans_separate":
        a = x + tl.trans(y, 1, 0)
    elif TRANS_KIND == "tl_trans_tuple":
        a = x + tl.trans(y, (1, 0))
    elif TRANS_KIND == "tl_trans":
        a = x + tl.trans(y)
    elif TRANS_KIND == "T":
        a = x + y.T
    else:
        a = x + tl.permute(y, (1, 0))
    a = a.reshape(256)
    tl.store(out_ptr + offsets, a)


BLOCK_SPLIT = tl.constexpr(256)


@triton.jit
def split_kernel(x_ptr, out_ptr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SPLIT + tl.arange(0, BLOCK_SPLIT)
    offsets2 = pid * 2 * BLOCK_SPLIT + tl.arange(0, 2 * BLOCK_SPLIT)
    s0, s1 = tl.reshape(tl.load(x_ptr + offsets2), BLOCK_SPLIT, 2).split()
    tl.store(out_ptr + offsets, s0 * 2 + s1)


@triton.jit
def cat_translation_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr, CAN_REORDER: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    z = tl.cat(x, y, can_reorder=CAN_REORDER)
    tl.store(out_ptr + tl.arange(0, 2 * BLOCK), z)


@triton.jit
def reduce_to_scalar_kernel(out_ptr):
    x = tl.arange(0, 16)
    x = tl.sum(x)
    tl.store(out_ptr, x)


@triton.jit
def extrema_reduce_kernel(x_ptr, max_ptr, min_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    x = tl.reshape(x, BLOCK // 2, 2)
    tl.store(max_ptr + tl.arange(0, BLOCK // 2), tl.max(x, axis=1))
    tl.store(min_ptr + tl.arange(0, BLOCK // 2), tl.min(x, axis=1))


@triton.jit
def num_threads_kernel(out_ptr):
    num_threads: tl.constexpr = tl.extra.cuda.num_threads()
    offs = tl.arange(0, num_threads)
    tl.store(out_ptr + offs, 1)


@triton.jit
def atomic_add_kernel(out_ptr, BLOCK: tl.constexpr):
    idx = tl.arange(0, BLOCK)
    scalar_mask = True
    tl.atomic_add(out_ptr + idx, idx, mask=scalar_mask, sem="release", scope="cta")


@triton.jit
def _combine_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def rows_kernel(x_ptr, out_ptr, stats_ptr, M: tl.constexpr, N: tl.constexpr):
    """Row softmax (tl.softmax: a library @jit function, translated with the kernel), a
    user combine function, sums by method, expand_dims by function and by index."""
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + tl.expand_dims(rows, 1) * N + cols[None, :])
    # keep_dims: Gluon broadcasts only between equal ranks ([M, 1] - not [M] - against [M, N]).
    y = tl.softmax(x, dim=1, keep_dims=True)
    tl.store(out_ptr + rows[:, None] * N + tl.expand_dims(cols, (0, )), y)
    row_max = tl.reduce(x, 1, _combine_max)
    total = x.sum(axis=1) + tl.sum(x, 1)
    tl.store(stats_ptr + rows, row_max + total)
    for i in tl.range(0, M, step=2, num_stages=2):
        tl.store(stats_ptr + M + i, tl.sum(tl.zeros((N, ), tl.float32) + i))


@triton.jit
def library_kernel(x_ptr, out_ptr, N: tl.constexpr, OP: tl.constexpr):
    """`tl` library functions (@jit ones are translated with the kernel) and builtins."""
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if OP == "cumsum":
        y = tl.cumsum(x, 0)
    elif OP == "argmax":
        y = (x * 0 + tl.argmax(x, 0)).to(tl.float32)
    elif OP == "flip":
        y = tl.flip(x, 0)
    elif OP == "sort":
        y = tl.sort(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "full":
        y = x + tl.full((N, ), 2.0, tl.float32) + tl.zeros_like(x)
    elif OP == "where":
        y = tl.where(x > 0, tl.exp(x), tl.clamp(x, -0.5, 0.5))
    elif OP == "static_range":
        y = x
        for i in tl.static_range(3):
            y = y * 2 + i
    elif OP == "join_ravel":
        y = tl.sum(tl.reshape(tl.ravel(tl.join(x, x * 2).permute(1, 0)), N, 2), 1)
    elif OP == "interleave":
        y = tl.sum(tl.interleave(x, x * 3).reshape(N, 2), 1)
    elif OP == "broadcast_to":
        y = tl.sum(tl.broadcast_to(x[None, :], (4, N)), 0)
    elif OP == "histogram":
        y = tl.histogram((tl.abs(x) * 20).to(tl.int32) % N, N, mask=x > -0.5).to(tl.float32)
    else:
        y = tl.rand(7, offs)
    tl.store(out_ptr + offs, y)


@triton.jit
def ragged_copy_kernel(src, dst, off, size, BM: tl.constexpr):
    """Ragged descriptors (triton.tools.ragged_tma's @jit helpers are translated too)."""
    row = tl.program_id(0) * BM
    tile = load_ragged(src, off, size, [row, 0])
    store_ragged(dst, off, size, [row, 0], tile * 2 + 1)


@triton.jit
def int_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    ks = tl.arange(0, K)
    c = tl.dot(input=tl.load(a_ptr + rows * K + ks[None, :]), other=tl.load(b_ptr + ks[:, None] * N + cols))
    tl.store(c_ptr + rows * N + cols, c)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def tuned_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)
    else:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
