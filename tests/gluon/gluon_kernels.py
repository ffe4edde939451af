"""Gluon kernels the tests run on the CPU (both paths), compile for sm_90a and launch on a
GPU. Layouts come in as constexpr arguments so one kernel is checked under several."""
from tritium.experimental import gluon
from tritium.experimental.gluon import language as gl


def blocked_1d(spt=1, num_warps=4):
    return gl.BlockedLayout([spt], [32], [num_warps], [0])


def blocked_2d(spt=(1, 4), tpw=(4, 8), wpc=(4, 1), order=(1, 0)):
    return gl.BlockedLayout(list(spt), list(tpw), list(wpc), list(order))


# The layouts the CPU and GPU tests both run their kernels in.
LAYOUTS_2D = [blocked_2d(), blocked_2d((4, 1), (8, 4), (1, 4), (0, 1)),
              blocked_2d((2, 2), (2, 16), (2, 2), (1, 0))]
SMEM_2D = [gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), gl.SwizzledSharedLayout(4, 2, 4, [1, 0]),
           gl.NVMMASharedLayout(64, 32, 2)]
OTHER_LAYOUTS = {  # a [32, 16] tile converted from LAYOUTS_2D[0] into each
    "mma_v3": gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 16, 16]),
    "mma_v2": gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]),
    "linear": gl.DistributedLinearLayout([[0, 1], [0, 2]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                         [[8, 0], [16, 0]], [], [32, 16]),
    "dot_operand_fma": gl.DotOperandLayout(0, LAYOUTS_2D[0], 0),
    "dot_operand_mma": gl.DotOperandLayout(1, gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2),
}


@gluon.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    pid = gl.program_id(0)
    offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask, other=0.0)
    y = gl.load(y_ptr + offs, mask=mask, other=1.0)
    z = gl.where(x > y, x * y - 1.5, gl.maximum(x, y) / (gl.abs(y) + 1.0))
    z = z + gl.exp(gl.minimum(x, 0.0)) + gl.sqrt(gl.abs(x))
    gl.store(out_ptr + offs, z.to(out_ptr.dtype.element_ty), mask=mask)


@gluon.jit
def tile_2d_kernel(x_ptr, out_ptr, row_ptr, col_ptr, M, N, stride_m,
                   BM: gl.constexpr, BN: gl.constexpr, layout: gl.constexpr):
    """out = 2x + row-broadcast of the column sums; rows' sums and columns' maxima out."""
    rows = gl.program_id(0) * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    r2 = gl.expand_dims(rows, 1)
    c2 = gl.expand_dims(cols, 0)
    mask = (r2 < M) & (c2 < N)
    x = gl.load(x_ptr + r2 * stride_m + c2, mask=mask, other=0.0)
    row_sum = gl.sum(x, axis=1)
    col_max = gl.max(gl.where(mask, x, -float("inf")), axis=0)
    y = 2 * x + gl.expand_dims(row_sum, 1)
    gl.store(out_ptr + r2 * stride_m + c2, y, mask=mask)
    gl.store(row_ptr + rows, row_sum, mask=rows < M)
    gl.store(col_ptr + gl.program_id(0) * BN + cols, col_max, mask=cols < N)


@gluon.jit
def convert_kernel(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr,
                   src: gl.constexpr, dst: gl.constexpr):
    """Load in `src`, convert to `dst`, store the transpose through `dst`'s offsets."""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, src))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
    x = gl.load(x_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))
    y = gl.convert_layout(x, dst)
    rows_d = gl.arange(0, M, layout=gl.SliceLayout(1, dst))
    cols_d = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
    gl.store(out_ptr + gl.expand_dims(cols_d, 0) * M + gl.expand_dims(rows_d, 1), y + 1)


@gluon.jit
def permute_reshape_kernel(x_ptr, t_ptr, r_ptr, M: gl.constexpr, N: gl.constexpr,
                           layout: gl.constexpr):
    """t = x.T (written through its own inferred layout), r = x reshaped to [M*N//2, 2]
    then split and joined back with the pair swapped."""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    offs = gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)
    x = gl.load(x_ptr + offs)
    t = gl.permute(x, (1, 0))
    gl.store(t_ptr + gl.permute(offs, (1, 0)) * 0 + gl.permute(
        gl.expand_dims(cols, 0) * M + gl.expand_dims(rows, 1), (1, 0)), t)
    # (split wants the pair in one thread's registers: only some layouts reshape so)
    pair_layout: gl.constexpr = gl.BlockedLayout([1, 2], [32, 1], [gl.num_warps(), 1], [1, 0])
    pairs = gl.convert_layout(gl.reshape(x, [M * N // 2, 2]), pair_layout)
    a, b = gl.split(pairs)
    swapped = gl.join(b, a)
    back = gl.reshape(swapped, [M, N])
    offs_back = gl.convert_layout(offs, back.type.layout)
    gl.store(r_ptr + offs_back, back)


@gluon.jit
def loop_kernel(x_ptr, out_ptr, n_chunks, BLOCK: gl.constexpr, UNROLL: gl.constexpr,
                layout: gl.constexpr):
    """out[i] = sum over chunks c of x[c, i] * (c % UNROLL + 1): a runtime loop carrying a
    block in the user's layout, a static one inside."""
    offs = gl.arange(0, BLOCK, layout=layout)
    acc = gl.zeros([BLOCK], gl.float32, layout)
    for c in range(0, n_chunks, UNROLL):
        for u in gl.static_range(UNROLL):
            v = gl.load(x_ptr + (c + u) * BLOCK + offs, mask=c + u < n_chunks, other=0.0)
            acc += v * (u + 1)
    gl.store(out_ptr + offs, acc)


@gluon.jit
def atomic_kernel(x_ptr, hist_ptr, n, BLOCK: gl.constexpr, BINS: gl.constexpr,
                  layout: gl.constexpr):
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    v = gl.load(x_ptr + offs, mask=mask, other=0)
    gl.atomic_add(hist_ptr + (v % BINS), gl.full_like(v, 1), mask=mask)


@gluon.jit
def atomic_scalar_kernel(x_ptr, out_ptr, BLOCK: gl.constexpr, MASK: gl.constexpr,
                         layout: gl.constexpr):
    """Scalars spread over the pointer's layout: a scalar mask (or none) and a scalar value."""
    offs = gl.arange(0, BLOCK, layout=layout)
    x = gl.load(x_ptr + offs)
    if MASK == "true":
        gl.atomic_add(out_ptr + offs, x, mask=True, sem="release", scope="cta")
    elif MASK == "none":
        gl.atomic_max(out_ptr + offs, x)
    else:
        gl.atomic_add(out_ptr + offs, 3, mask=offs < BLOCK // 2)


@gluon.jit
def auto_layout_kernel(x_ptr, out_ptr, BLOCK: gl.constexpr, layout: gl.constexpr):
    """`arange` without a layout, fixed later by `set_auto_layout`."""
    offs = gl.arange(0, BLOCK)
    offs = gl.set_auto_layout(offs, layout)
    x = gl.load(x_ptr + offs)
    gl.store(out_ptr + offs, x * 3)


@gluon.jit
def num_warps_kernel(out_ptr, BLOCK: gl.constexpr):
    """A layout built in the kernel from `gl.num_warps()`."""
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, BLOCK, layout=layout)
    gl.store(out_ptr + offs, gl.full([BLOCK], gl.num_warps(), gl.int32, layout) + offs)


@gluon.jit
def reduce_all_kernel(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    """Whole-tile reductions (axis=None), keep_dims, xor_sum and min."""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))
    total = gl.sum(x)
    mins = gl.min(x, axis=1, keep_dims=True)
    xs = gl.xor_sum(x.to(gl.int32), axis=0)
    gl.store(out_ptr, total)
    gl.store(out_ptr + 1 + rows, gl.sum(mins, axis=1))
    gl.store(out_ptr + 1 + M + cols, xs.to(gl.float32))



@gluon.jit
def arg_reduce_kernel(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    """max/min with return_indices (their index block starts without a layout) per row and
    per column: out = [argmax along 1 (M), max along 1 (M), argmin along 0 (N)]."""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))
    vmax, imax = gl.max(x, axis=1, return_indices=True)
    _, imin = gl.min(x, axis=0, return_indices=True)
    gl.store(out_ptr + rows, imax.to(gl.float32))
    gl.store(out_ptr + M + rows, vmax)
    gl.store(out_ptr + 2 * M + cols, imin.to(gl.float32))


@gluon.jit
def smem_roundtrip_kernel(x_ptr, out_ptr, outt_ptr, M: gl.constexpr, N: gl.constexpr,
                          src: gl.constexpr, dst: gl.constexpr, dst_t: gl.constexpr,
                          smem: gl.constexpr):
    """x through shared memory: allocated from a tensor and read back in another layout,
    overwritten by a store, read transposed through a permuted view.
    out = x + 2x, outt = (2x).T"""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, src))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
    x = gl.load(x_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))
    buf = gl.allocate_shared_memory(x.dtype, [M, N], smem, x)
    y = buf.load(dst)
    buf.store(x * 2)
    z = buf.load(dst)
    rows_d = gl.arange(0, M, layout=gl.SliceLayout(1, dst))
    cols_d = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
    gl.store(out_ptr + gl.expand_dims(rows_d, 1) * N + gl.expand_dims(cols_d, 0), y + z)
    t = buf.permute((1, 0)).load(dst_t)
    rows_t = gl.arange(0, N, layout=gl.SliceLayout(1, dst_t))
    cols_t = gl.arange(0, M, layout=gl.SliceLayout(0, dst_t))
    gl.store(outt_ptr + gl.expand_dims(rows_t, 1) * M + gl.expand_dims(cols_t, 0), t)


@gluon.jit
def smem_ring_kernel(x_ptr, out_ptr, half_ptr, n_tiles, BLOCK: gl.constexpr,
                     SLOTS: gl.constexpr, layout: gl.constexpr, smem: gl.constexpr):
    """A ring of SLOTS buffers: tile t goes into slot (t + 1) % SLOTS and the slot written
    one iteration earlier is read back, so out[t] = x[t - 1] (zeros for t = 0); half[t] is
    the second half of tile t read through a slice of its slot."""
    offs = gl.arange(0, BLOCK, layout=layout)
    half_layout: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    half_offs = gl.arange(0, BLOCK // 2, layout=half_layout)
    ring = gl.allocate_shared_memory(gl.float32, [SLOTS, BLOCK], smem)
    ring.index(1 % SLOTS).store(gl.zeros([BLOCK], gl.float32, layout))
    for t in range(n_tiles):
        cur = ring.index((t + 2) % SLOTS)
        cur.store(gl.load(x_ptr + t * BLOCK + offs))
        prev = ring.index((t + 1) % SLOTS).load(layout)
        gl.store(out_ptr + t * BLOCK + offs, prev)
        half = cur.slice(BLOCK // 2, BLOCK // 2).load(half_layout)
        gl.store(half_ptr + t * (BLOCK // 2) + half_offs, half)


@gluon.jit
def smem_views_kernel(x_ptr, flat_ptr, bits_ptr, M: gl.constexpr, N: gl.constexpr,
                      layout: gl.constexpr, flat: gl.constexpr):
    """A row-major buffer read flat through a reshaped view, and its float32 bits read
    as int32 through a reinterpreted one."""
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    x = gl.load(x_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))
    smem: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    buf = gl.allocate_shared_memory(gl.float32, [M, N], smem, x)
    offs = gl.arange(0, M * N, layout=flat)
    gl.store(flat_ptr + offs, buf.reshape([M * N]).load(flat))
    bits = buf._reinterpret(gl.int32, [M, N], smem).load(layout)
    gl.store(bits_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0), bits)


@gluon.jit
def _combine_absmax(a, b):
    return gl.maximum(gl.abs(a), gl.abs(b))


@gluon.jit
def _scaled(x, s):
    return x * s


@gluon.jit(noinline=True)
def _shifted(x, s):
    return x + s


@gluon.jit
def misc_kernel(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, layout: gl.constexpr):
    """A custom reduction, a scan, *_like makers, broadcast_to, clamp, casts, a barrier and
    calls (inlined and noinline) in one kernel. out rows: 0 absmax per column, 1 cumsum of
    row 0, 2 clamp(x[1]), 3 x[2] * 3 + 1, 4 ones_like + int cast of x[3]."""
    gl.static_assert(M >= 8, "needs 8 rows")
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, layout))
    offs = gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)
    x = gl.load(x_ptr + offs)
    absmax = gl.reduce(x, 0, _combine_absmax)
    gl.store(out_ptr + cols, absmax)
    csum = gl.associative_scan(x, 1, _add_combine)
    first = gl.sum(gl.where(gl.expand_dims(rows, 1) == 0, csum, gl.zeros_like(csum)), axis=0)
    gl.store(out_ptr + N + cols, first)
    gl.thread_barrier()
    row1 = gl.sum(gl.where(gl.expand_dims(rows, 1) == 1, x, 0.0), axis=0)
    gl.store(out_ptr + 2 * N + cols, gl.clamp(row1, -0.5, 0.5))
    row2 = gl.sum(gl.where(gl.expand_dims(rows, 1) == 2, x, 0.0), axis=0)
    gl.store(out_ptr + 3 * N + cols, _shifted(_scaled(row2, 3.0), 1.0))
    row3 = gl.sum(gl.where(gl.expand_dims(rows, 1) == 3, x, 0.0), axis=0)
    ones = gl.full_like(row3, 1, dtype=gl.int32)
    b = gl.broadcast_to(gl.expand_dims(ones + row3.to(gl.int32), 0), [M, N])
    gl.store(out_ptr + 4 * N + cols, gl.max(b, axis=0).to(gl.float32))


@gluon.jit
def _add_combine(a, b):
    return a + b


# -- tensor cores and mbarriers (gl.nvidia)
from tritium.experimental.gluon.language.nvidia import ampere, hopper  # noqa: E402
from tritium.experimental.gluon.language.nvidia.hopper import mbarrier  # noqa: E402


@gluon.jit
def _load_tile(ptr, R: gl.constexpr, C: gl.constexpr, layout: gl.constexpr):
    rows = gl.arange(0, R, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, C, layout=gl.SliceLayout(0, layout))
    return gl.load(ptr + gl.expand_dims(rows, 1) * C + gl.expand_dims(cols, 0))


@gluon.jit
def _store_tile(ptr, value, R: gl.constexpr, C: gl.constexpr, layout: gl.constexpr):
    rows = gl.arange(0, R, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, C, layout=gl.SliceLayout(0, layout))
    gl.store(ptr + gl.expand_dims(rows, 1) * C + gl.expand_dims(cols, 0), value)


@gluon.jit
def wgmma_kernel(a_ptr, b_ptr, c_ptr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr,
                 blocked: gl.constexpr, mma: gl.constexpr, IS_ASYNC: gl.constexpr,
                 A_IN_REGS: gl.constexpr):
    """c = a @ b + 1 on a warpgroup's tensor cores, operands staged in NVMMA shared memory
    (a from registers when A_IN_REGS), completion tracked by an mbarrier the kernel
    arrives on and waits for."""
    a = _load_tile(a_ptr, M, K, blocked)
    b = _load_tile(b_ptr, K, N, blocked)
    b_s = gl.allocate_shared_memory(b.dtype, [K, N],
                                    gl.NVMMASharedLayout.get_default_for([K, N], b.dtype), b)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, 1)
    hopper.fence_async_shared()
    acc = gl.full([M, N], 1.0, gl.float32, mma)
    if A_IN_REGS:
        a_r = gl.convert_layout(a, gl.DotOperandLayout(0, mma, 2))
        acc = hopper.warpgroup_mma(a_r, b_s, acc, is_async=IS_ASYNC)
    else:
        a_s = gl.allocate_shared_memory(a.dtype, [M, K],
                                        gl.NVMMASharedLayout.get_default_for([M, K], a.dtype), a)
        acc = hopper.warpgroup_mma(a_s, b_s, acc, is_async=IS_ASYNC)
    acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    mbarrier.arrive(bar)
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    _store_tile(c_ptr, gl.convert_layout(acc, blocked), M, N, blocked)


@gluon.jit
def mma_v2_kernel(a_ptr, b_ptr, c_ptr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr,
                  blocked: gl.constexpr, mma: gl.constexpr):
    """c = a @ b with mma.sync, operands converted into the dot-operand layouts."""
    a = gl.convert_layout(_load_tile(a_ptr, M, K, blocked), gl.DotOperandLayout(0, mma, 2))
    b = gl.convert_layout(_load_tile(b_ptr, K, N, blocked), gl.DotOperandLayout(1, mma, 2))
    acc = ampere.mma_v2(a, b, gl.zeros([M, N], gl.float32, mma))
    _store_tile(c_ptr, gl.convert_layout(acc, blocked), M, N, blocked)


@gluon.jit
def dot_fma_kernel(a_ptr, b_ptr, c_ptr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr,
                   blocked: gl.constexpr):
    """c = a @ b + c on the CUDA cores."""
    a = gl.convert_layout(_load_tile(a_ptr, M, K, blocked), gl.DotOperandLayout(0, blocked, 0))
    b = gl.convert_layout(_load_tile(b_ptr, K, N, blocked), gl.DotOperandLayout(1, blocked, 0))
    acc = gl.dot_fma(a, b, _load_tile(c_ptr, M, N, blocked))
    _store_tile(c_ptr, acc, M, N, blocked)


from tritium.experimental.gluon.language.nvidia.hopper import tma  # noqa: E402


@gluon.jit
def tma_copy_kernel(in_desc, out_desc, layout: gl.constexpr):
    """Each program moves its block in through TMA (completion on an mbarrier), adds one
    in registers and moves it out through TMA."""
    BM: gl.constexpr = in_desc.block_type.shape[0]
    BN: gl.constexpr = in_desc.block_type.shape[1]
    smem_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BN], in_desc.dtype)
    buf = gl.allocate_shared_memory(in_desc.dtype, [BM, BN], smem_layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, 1)
    hopper.fence_async_shared()
    m = gl.program_id(0) * BM
    n = gl.program_id(1) * BN
    mbarrier.expect(bar, BM * BN * in_desc.dtype.primitive_bitwidth // 8)
    tma.async_copy_global_to_shared(in_desc, [m, n], bar, buf)
    mbarrier.wait(bar, 0)
    x = buf.load(layout)
    buf.store(x + 1)
    hopper.fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [m, n], buf)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


@gluon.jit
def _tma_load_tile(desc, offsets, layout: gl.constexpr):
    """A block through shared memory in the descriptor's own layout (what the
    Triton-to-Gluon translator's helpers do)."""
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_shape, desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, offsets, bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    return smem.load(layout)


@gluon.jit
def _tma_store_tile(desc, offsets, value):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_shape, desc.layout, value)
    hopper.fence_async_shared()
    tma.async_copy_shared_to_global(desc, offsets, smem)
    tma.store_wait(0)


@gluon.jit
def device_desc_kernel(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr,
                       layout: gl.constexpr):
    """y = 2x through descriptors the kernel makes (maps written into global scratch)."""
    smem_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float16)
    xd = tma.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], smem_layout)
    yd = tma.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN], smem_layout)
    offs = [gl.program_id(0) * BM, gl.program_id(1) * BN]
    _tma_store_tile(yd, offs, _tma_load_tile(xd, offs, layout) * 2)


@gluon.jit
def arg_desc_kernel(in_desc, out_desc, layout: gl.constexpr):
    """out = in * 2 + 1 through the helpers, on kernel-argument descriptors."""
    offs = [gl.program_id(0) * in_desc.block_shape[0], gl.program_id(1) * in_desc.block_shape[1]]
    _tma_store_tile(out_desc, offs, _tma_load_tile(in_desc, offs, layout) * 2 + 1)


from tritium.language.extra.cuda import libdevice  # noqa: E402


@gluon.jit
def _square_plus(x, y):
    return x * x + y


@gluon.jit
def layout_keeping_kernel(x_ptr, idx_ptr, out_ptr, hist_ptr, N: gl.constexpr,
                          layout: gl.constexpr):
    """Ops whose result layout Gluon must supply: gather (the index's), histogram (named),
    map_elementwise and libdevice calls (their operands'); and a layout made linear by
    to_linear_layout. out rows: 0 gather, 1 map_elementwise, 2 libdevice pow."""
    offs = gl.arange(0, N, layout=layout)
    x = gl.load(x_ptr + offs)
    idx = gl.load(idx_ptr + offs)
    g = gl.gather(x, idx, 0)
    lin: gl.constexpr = gl.to_linear_layout(layout, [N])
    gl.store(out_ptr + gl.convert_layout(offs, lin), gl.convert_layout(g, lin))
    gl.store(out_ptr + N + offs, gl.map_elementwise(_square_plus, x, x))
    gl.store(out_ptr + 2 * N + offs, libdevice.pow(gl.abs(x), 1.5))
    h = gl.histogram(idx, 16, layout=gl.BlockedLayout([1], [32], [gl.num_warps()], [0]))
    gl.store(hist_ptr + gl.arange(0, 16, layout=gl.BlockedLayout([1], [32], [gl.num_warps()], [0])), h)


from tritium.experimental.gluon.language.nvidia.ampere import async_copy  # noqa: E402


@gluon.jit
def cp_async_kernel(x_ptr, out_ptr, M, N: gl.constexpr, BM: gl.constexpr, src: gl.constexpr,
                    dst: gl.constexpr, smem: gl.constexpr):
    """Tiles of rows copied into shared memory with cp.async (rows past M zero-filled by
    the mask), read back in another layout: out = x (0 past M), two buffers in flight."""
    bufs = gl.allocate_shared_memory(gl.float32, [2, BM, N], smem)
    rows = gl.arange(0, BM, layout=gl.SliceLayout(1, src))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
    rows_d = gl.arange(0, BM, layout=gl.SliceLayout(1, dst))
    cols_d = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
    base = gl.program_id(0) * 2 * BM
    for t in gl.static_range(2):
        r = base + t * BM + rows
        async_copy.async_copy_global_to_shared(
            bufs.index(t), x_ptr + gl.expand_dims(r, 1) * N + gl.expand_dims(cols, 0),
            mask=gl.expand_dims(r < M, 1))
        async_copy.commit_group()
    for t in gl.static_range(2):
        async_copy.wait_group(1 - t)
        v = bufs.index(t).load(dst)
        r = base + t * BM + rows_d
        gl.store(out_ptr + gl.expand_dims(r, 1) * N + gl.expand_dims(cols_d, 0), v)
