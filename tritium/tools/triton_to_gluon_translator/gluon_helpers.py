"""Gluon functions that translated kernels call where a Triton operation has no one-line
Gluon form: mostly because Gluon wants the layout every tensor lives in spelled out.

The translator copies the definitions an output uses into it (so each is written to stand
alone: it reads only `gluon`, `gl`, `current_target` and the other helpers, by name), and
`translator_helpers` re-exports them for code that imports them.

One layout convention holds throughout: every tensor a translated kernel makes lives in
`default_blocked_layout(shape)` (one element per thread, a warp's 32 threads along the last
dimension, the warps along the first). Gluon ops whose result layout derives from their
input (a reduction's slice layout, a permute's permuted one) are followed by
`reset_to_default_layout`, so elementwise ops between any two tensors see equal layouts,
as in Triton where the compiler picks layouts itself. Correct everywhere, not fast.

Targets: NVIDIA (dots on wgmma for sm_90 tiles that fit one, else mma.sync from sm_80, else
FMAs; TMA descriptors from sm_90) and tritium's CPU backend (dots on FMAs). Each
tensor-core path is taken only where the Gluon in use has the instruction. AMD's
forms (warp size 64, MFMA/WMMA, TDM descriptors) and Blackwell-only ones (tcgen05, TMA
gather/scatter) are refused with a message.
"""
# Written for the translator to copy, hence the plain imports: they are the output's own.
import tritium.experimental.gluon as gluon
import tritium.experimental.gluon.language as gl
from tritium.language.target_info import current_target


@gluon.constexpr_function
def get_num_threads_per_warp(target=None):
    if target is None:
        target = current_target()
    if target is not None and target.backend == "hip":
        raise NotImplementedError("tritium's Triton-to-Gluon helpers support NVIDIA and CPU targets, not AMD")
    return 32


@gluon.jit
def get_num_threads_per_program():
    # (The translator writes `gl.num_warps() * get_num_threads_per_warp()` in place instead:
    # it must stay a constexpr, and a @gluon.jit function's result is a tensor in tritium.)
    return gl.num_warps() * get_num_threads_per_warp()


@gluon.constexpr_function
def default_blocked_layout(shape, num_warps, target=None):
    rank = len(shape)
    threads = [1] * rank
    threads[rank - 1] = get_num_threads_per_warp(target)
    warps = [1] * rank
    warps[0] = num_warps
    return gl.BlockedLayout(size_per_thread=[1] * rank, threads_per_warp=threads, warps_per_cta=warps,
                            order=list(range(rank - 1, -1, -1)))


@gluon.jit
def reset_to_default_layout(value):
    ty: gl.constexpr = value.type
    if isinstance(ty, gl.tuple_type):
        out = ()
        for i in gl.static_range(len(value)):
            out = out + (reset_to_default_layout(value[i]), )
        return out
    elif isinstance(value, gl.tensor) and isinstance(ty, gl.distributed_type):
        layout: gl.constexpr = default_blocked_layout(ty.shape, gl.num_warps())
        return gl.convert_layout(value, layout)
    else:
        return value


@gluon.jit
def tl_arange(start: gl.constexpr, end: gl.constexpr):
    layout: gl.constexpr = default_blocked_layout([end - start], gl.num_warps())
    return gl.arange(start, end, layout=layout)


@gluon.jit
def tl_full(shape, value, dtype):
    layout: gl.constexpr = default_blocked_layout(shape, gl.num_warps())
    return gl.full(shape, value, dtype, layout=layout)


@gluon.jit
def tl_zeros(shape, dtype):
    return tl_full(shape, 0, dtype)


@gluon.jit
def tl_histogram(input, num_bins: gl.constexpr, mask=None):
    layout: gl.constexpr = default_blocked_layout([num_bins], gl.num_warps())
    return gl.histogram(input, num_bins, mask=mask, layout=layout)


@gluon.constexpr_function
def cat_permute_order(rank, dim):
    # join puts the two inputs on a new last axis; moving it in front of `dim` and merging
    # the two makes `dim` hold all of the first input, then all of the second.
    order = list(range(rank))
    order.insert(dim, rank)
    return order


@gluon.constexpr_function
def cat_result_shape(shape, dim):
    shape = list(shape)
    shape[dim] *= 2
    return shape


@gluon.jit
def tl_cat(input, other, can_reorder=False, dim=0):
    joined = gl.join(input, other)
    order: gl.constexpr = cat_permute_order(len(input.shape), dim)
    shape: gl.constexpr = cat_result_shape(input.shape, dim)
    return reset_to_default_layout(gl.reshape(gl.permute(joined, order), shape))


@gluon.constexpr_function
def split_source_layout(shape, num_warps, target=None):
    # split takes the last axis (of size 2) apart in each thread: both halves of a pair must
    # sit in one thread's registers.
    rank = len(shape)
    threads = [1] * rank
    left = get_num_threads_per_warp(target)
    for dim in range(rank - 2, -1, -1):
        threads[dim] = min(shape[dim], left)
        left //= threads[dim]
    threads[0] *= left          # threads beyond the tensor's size repeat it
    warps = [1] * rank
    warps[0] = num_warps
    return gl.BlockedLayout(size_per_thread=[1] * (rank - 1) + [2], threads_per_warp=threads,
                            warps_per_cta=warps, order=list(range(rank - 1, -1, -1)))


@gluon.jit
def set_split_src_layout(value):
    layout: gl.constexpr = split_source_layout(value.type.shape, gl.num_warps())
    return gl.convert_layout(value, layout)


@gluon.constexpr_function
def build_expand_dims_layout(shape, expand_dims, num_warps):
    # The layout a tensor needs so that inserting size-1 axes at `expand_dims` (positions in
    # the result) gives a tensor in the default layout: slices of that layout.
    shape = list(shape.values if hasattr(shape, "values") else shape)
    rank = len(shape) + len(expand_dims)
    dims = sorted(d % rank for d in expand_dims)
    for dim in dims:
        shape.insert(dim, 1)
    layout = default_blocked_layout(shape, num_warps)
    for dim in reversed(dims):
        layout = gl.SliceLayout(dim, layout)
    return layout


@gluon.jit
def convert_to_expand_dims_layout(value, expand_dims: gl.constexpr):
    layout: gl.constexpr = build_expand_dims_layout(value.shape, expand_dims, gl.num_warps())
    return gl.convert_layout(value, layout)


@gluon.constexpr_function
def dot_precision(a_ty, input_precision, allow_tf32):
    # Triton's default for fp32 operands is tf32 unless told otherwise; other types have one.
    if input_precision is not None:
        return input_precision
    if a_ty.element_ty.primitive_bitwidth == 32 and a_ty.element_ty.is_floating():
        return "ieee" if allow_tf32 is False else "tf32"
    return None


@gluon.constexpr_function
def dot_result_dtype(a_ty, out_dtype):
    # As Triton: integer operands accumulate in int32 whatever out_dtype says.
    return gl.int32 if a_ty.element_ty.is_int() else out_dtype


@gluon.constexpr_function
def dot_uses_mma(target, a_ty, precision):
    # mma.sync (sm_80+, Hopper included) takes 2-d fp16/bf16/fp8/int8 operands, and fp32 ones
    # as tf32; anything else (the CPU backend included) takes the FMA path.
    if target is None or target.backend != "cuda" or target.arch < 80:
        return False
    if getattr(getattr(gl.nvidia, "ampere", None), "mma_v2", None) is None:
        return False    # a Gluon without mma_v2: the FMA path is still right
    bits = a_ty.element_ty.primitive_bitwidth
    return len(a_ty.shape) == 2 and (bits in (8, 16) or (bits == 32 and precision == "tf32"))


@gluon.constexpr_function
def mma_v2_layout(num_warps):
    return gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, 8])


@gluon.constexpr_function
def mma_v2_k_width(a_ty, b_ty):
    return max(32 // min(a_ty.element_ty.primitive_bitwidth, b_ty.element_ty.primitive_bitwidth), 1)


@gluon.jit
def tl_dot_mma_v2(a, b, acc, precision: gl.constexpr, out_dtype: gl.constexpr):
    layout: gl.constexpr = mma_v2_layout(gl.num_warps())
    k_width: gl.constexpr = mma_v2_k_width(a.type, b.type)
    a = gl.convert_layout(a, gl.DotOperandLayout(operand_index=0, parent=layout, k_width=k_width))
    b = gl.convert_layout(b, gl.DotOperandLayout(operand_index=1, parent=layout, k_width=k_width))
    if acc is None:
        start = gl.full([a.shape[0], b.shape[1]], 0, out_dtype, layout=layout)
    else:
        start = gl.convert_layout(acc, layout)
    result = gl.nvidia.ampere.mma_v2(a, b, start, precision)
    return reset_to_default_layout(result)


@gluon.constexpr_function
def dot_uses_wgmma(target, a_ty, b_ty, num_warps):
    # wgmma (sm_90 only: Blackwell has tcgen05 instead) on 2-d fp16/bf16 tiles the
    # instruction divides: 16 rows a warp, N a multiple of 8, K of 16.
    if target is None or target.backend != "cuda" or target.arch // 10 != 9:
        return False
    if getattr(getattr(gl.nvidia, "hopper", None), "warpgroup_mma", None) is None:
        return False    # a Gluon without wgmma: mma.sync is still right on Hopper
    if len(a_ty.shape) != 2 or a_ty.element_ty.primitive_bitwidth != 16 or not a_ty.element_ty.is_floating():
        return False
    m, k = a_ty.shape
    n = b_ty.shape[1]
    return num_warps % 4 == 0 and m % (16 * num_warps) == 0 and n % 8 == 0 and k % 16 == 0


@gluon.constexpr_function
def wgmma_layout(num_warps, a_ty, b_ty):
    # The widest instruction N (a multiple of 8, at most 256) that divides the tile's N.
    n = b_ty.shape[1]
    instr_n = next(c for c in range(min(n, 256), 7, -8) if n % c == 0)
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                     instr_shape=[16, instr_n, 256 // a_ty.element_ty.primitive_bitwidth])


@gluon.jit
def tl_dot_wgmma(a, b, acc, precision: gl.constexpr, out_dtype: gl.constexpr):
    # Both operands through NVMMA-swizzled shared memory, synchronously: correct, not pipelined.
    layout: gl.constexpr = wgmma_layout(gl.num_warps(), a.type, b.type)
    a_layout: gl.constexpr = default_nvmma_layout(a.type.shape, a.dtype)
    b_layout: gl.constexpr = default_nvmma_layout(b.type.shape, b.dtype)
    a_smem = gl.allocate_shared_memory(a.dtype, a.shape, a_layout, a)
    b_smem = gl.allocate_shared_memory(b.dtype, b.shape, b_layout, b)
    if acc is None:
        start = gl.full([a.shape[0], b.shape[1]], 0, out_dtype, layout=layout)
    else:
        start = gl.convert_layout(acc, layout)
    gl.nvidia.hopper.fence_async_shared()
    result = gl.nvidia.hopper.warpgroup_mma(a_smem, b_smem, start, precision=precision)
    return reset_to_default_layout(result)


@gluon.jit
def tl_dot_fma(a, b, acc, out_dtype: gl.constexpr):
    # Any target: CUDA-core FMAs in out_dtype (the operands converted to it first, as Triton's
    # FMA path does), the result straight in the default layout.
    layout: gl.constexpr = default_blocked_layout([a.shape[0], b.shape[1]], gl.num_warps())
    a = gl.convert_layout(a.to(out_dtype), gl.DotOperandLayout(operand_index=0, parent=layout, k_width=0))
    b = gl.convert_layout(b.to(out_dtype), gl.DotOperandLayout(operand_index=1, parent=layout, k_width=0))
    if acc is None:
        start = gl.full([a.shape[0], b.shape[1]], 0, out_dtype, layout=layout)
    else:
        start = gl.convert_layout(acc, layout)
    return gl.dot_fma(a, b, start)


@gluon.jit
def tl_dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
           out_dtype=gl.float32):
    # tl.dot's parameter names, so calls passing them by keyword translate as they are.
    gl.static_assert(max_num_imprecise_acc is None, "max_num_imprecise_acc has no Gluon translation here")
    gl.static_assert(len(input.shape) == 2 and len(other.shape) == 2,
                     "a batched (3-d) tl.dot has no Gluon translation here")
    precision: gl.constexpr = dot_precision(input.type, input_precision, allow_tf32)
    result_dtype: gl.constexpr = dot_result_dtype(input.type, out_dtype)
    if dot_uses_wgmma(current_target(), input.type, other.type, gl.num_warps()):
        return tl_dot_wgmma(input, other, acc, precision, result_dtype)
    elif dot_uses_mma(current_target(), input.type, precision):
        return tl_dot_mma_v2(input, other, acc, precision, result_dtype)
    else:
        return tl_dot_fma(input, other, acc, result_dtype)


@gluon.constexpr_function
def default_nvmma_layout(block_shape, dtype):
    # The layout convert_host_descriptor gives host descriptors, so both kinds load alike.
    return gl.NVMMASharedLayout.get_default_for(block_shape, dtype)


@gluon.jit
def tl_make_tensor_descriptor(base, shape, strides, block_shape, padding_option: gl.constexpr = "zero"):
    layout: gl.constexpr = default_nvmma_layout(block_shape, base.dtype.element_ty)
    return gl.nvidia.hopper.tma.make_tensor_descriptor(base, shape, strides, block_shape, layout, padding_option)


@gluon.jit
def tl_load_tensor_descriptor(desc, offsets):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_shape, desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], gl.nvidia.hopper.mbarrier.MBarrierLayout())
    gl.nvidia.hopper.mbarrier.init(bar, count=1)
    gl.nvidia.hopper.mbarrier.expect(bar, desc.block_type.nbytes)
    gl.nvidia.hopper.tma.async_copy_global_to_shared(desc, offsets, bar, smem)
    gl.nvidia.hopper.mbarrier.wait(bar, phase=0)
    gl.nvidia.hopper.mbarrier.invalidate(bar)
    layout: gl.constexpr = default_blocked_layout(desc.block_shape, gl.num_warps())
    return smem.load(layout)


@gluon.jit
def tl_store_tensor_descriptor(desc, offsets, value):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_shape, desc.layout, value)
    gl.nvidia.hopper.fence_async_shared()
    gl.nvidia.hopper.tma.async_copy_shared_to_global(desc, offsets, smem)
    # The copy reads `smem` until store_wait returns; nothing is allocated in between, so its
    # memory cannot be handed out again while the copy still reads it.
    gl.nvidia.hopper.tma.store_wait(0)


@gluon.jit
def tl_obj_load(obj, offsets):
    if isinstance(obj, gl.nvidia.hopper.tma.tensor_descriptor):
        return tl_load_tensor_descriptor(obj, offsets)
    else:
        return obj.load(offsets)


@gluon.jit
def tl_obj_store(obj, offsets, value):
    if isinstance(obj, gl.nvidia.hopper.tma.tensor_descriptor):
        tl_store_tensor_descriptor(obj, offsets, value)
    else:
        obj.store(offsets, value)


@gluon.jit
def tl_obj_gather(obj, x_offsets, y_offset):
    gl.static_assert(not isinstance(obj, gl.nvidia.hopper.tma.tensor_descriptor),
                     "descriptor gather needs Blackwell's TMA gather, which tritium's translator does not provide")
    return obj.gather(x_offsets, y_offset)


@gluon.jit
def tl_obj_scatter(obj, value, x_offsets, y_offset):
    gl.static_assert(not isinstance(obj, gl.nvidia.hopper.tma.tensor_descriptor),
                     "descriptor scatter needs Blackwell's TMA scatter, which tritium's translator does not provide")
    obj.scatter(value, x_offsets, y_offset)
