"""A Hopper matmul written in Gluon as a user would: TMA loads into a ring of NVMMA
buffers tracked by one mbarrier per slot, asynchronous wgmma keeping one group in
flight, the refill of a slot issued once the wgmma that read it has retired."""
from tritium.experimental import gluon
from tritium.experimental.gluon import language as gl
from tritium.experimental.gluon.language.nvidia import hopper
from tritium.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def _issue(a_desc, b_desc, a_bufs, b_bufs, bars, k_tile, k_tiles, off_m, off_n,
           STAGES: gl.constexpr):
    """Load tile `k_tile` (when it exists) into its slot, completing on the slot's barrier."""
    BK: gl.constexpr = a_desc.block_shape[1]
    s = k_tile % STAGES
    pred = k_tile < k_tiles
    bar = bars.index(s)
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes, pred=pred)
    tma.async_copy_global_to_shared(a_desc, [off_m, k_tile * BK], bar, a_bufs.index(s), pred)
    tma.async_copy_global_to_shared(b_desc, [k_tile * BK, off_n], bar, b_bufs.index(s), pred)


@gluon.jit
def matmul_kernel(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr,
                  mma: gl.constexpr, out_layout: gl.constexpr):
    """c = a @ b (fp32 out) for fp16/bf16 a [M, K], b [K, N]; one program per C tile."""
    BM: gl.constexpr = a_desc.block_shape[0]
    BK: gl.constexpr = a_desc.block_shape[1]
    BN: gl.constexpr = b_desc.block_shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BK, BN], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(bars.index(s), count=1)
    hopper.fence_async_shared()
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN
    k_tiles = gl.cdiv(K, BK)
    for t in gl.static_range(STAGES - 1):
        _issue(a_desc, b_desc, a_bufs, b_bufs, bars, t, k_tiles, off_m, off_n, STAGES)
    acc = gl.zeros([BM, BN], gl.float32, mma)
    for k in range(k_tiles):
        s = k % STAGES
        mbarrier.wait(bars.index(s), (k // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
        # One wgmma stays in flight: the one that read the slot refilled below has retired.
        acc = hopper.warpgroup_mma_wait(1, deps=[acc])
        _issue(a_desc, b_desc, a_bufs, b_bufs, bars, k + STAGES - 1, k_tiles, off_m, off_n,
               STAGES)
    acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    for s in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(s))
    rows = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, out_layout))
    cols = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, out_layout))
    mask = (gl.expand_dims(rows, 1) < M) & (gl.expand_dims(cols, 0) < N)
    gl.store(c_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0),
             gl.convert_layout(acc, out_layout), mask=mask)
