"""The NVIDIA parts of `GluonSemantic`: tensor-core dots (`dot_fma`, Ampere's `mma_v2`,
Hopper's `warpgroup_mma` and its wait), mbarriers and the async-proxy fence. Each emits
the TTGIR op tritium's lowering already takes (`tt.dot` with dot-operand layouts,
`ttng.warp_group_dot`, `ttng.*_barrier`); the checks are the layouts those need."""
from __future__ import annotations

from ....language import dtypes as tl
from ....language.core import tensor
from ._layouts import DotOperandLayout, NVMMADistributedLayout, NVMMASharedLayout
from ._types import distributed_type, shared_memory_descriptor


def _check(cond: bool, message) -> None:
    if not cond:
        raise ValueError(message() if callable(message) else message)


class NvidiaMixin:
    # ------------------------------------------------------------------ dots
    def _dot_result(self, a, b, acc):
        _check(isinstance(acc, tensor) and isinstance(acc.type, distributed_type),
               "the accumulator must be a tensor with a layout")
        ashape = list(a.type.shape)
        bshape = list(b.type.shape)
        cshape = acc.type.get_block_shapes()
        _check(len(ashape) == 2 and len(bshape) == 2 and ashape[1] == bshape[0]
               and cshape == [ashape[0], bshape[1]],
               lambda: f"dot shapes do not match: {ashape} x {bshape} -> {cshape}")

    def _dot_operands(self, a, b, acc, kind: str):
        for i, x in enumerate((a, b)):
            layout = self._layout_of(x)
            _check(isinstance(layout, DotOperandLayout) and layout.operand_index == i
                   and layout.parent == acc.type.layout,
                   lambda: f"{kind}: operand {'ab'[i]} must be in DotOperandLayout("
                           f"operand_index={i}, parent={acc.type.layout}), got {layout}")

    def dot_fma(self, a, b, acc) -> tensor:
        """`acc + a @ b` on the CUDA cores (each thread its own rows and columns)."""
        self._dot_result(a, b, acc)
        self._dot_operands(a, b, acc, "dot_fma")
        attrs = {"inputPrecision": self._str_to_dot_input_precision("ieee"),
                 "maxNumImpreciseAcc": 0}
        return self._emit("tt.dot", [a, b, acc], acc.type, attrs)

    def mma_v2(self, a, b, acc, input_precision=None) -> tensor:
        """`acc + a @ b` with mma.sync: `acc` in an NVMMADistributedLayout version 2."""
        self._dot_result(a, b, acc)
        layout = acc.type.layout
        _check(isinstance(layout, NVMMADistributedLayout) and layout.version[0] == 2,
               lambda: f"mma_v2 needs the accumulator in NVMMADistributedLayout(version="
                       f"[2, 0], ...), got {layout}")
        self._dot_operands(a, b, acc, "mma_v2")
        precision = self._str_to_dot_input_precision(
            input_precision or self._opt("default_dot_input_precision"))
        return self._emit("tt.dot", [a, b, acc], acc.type,
                          {"inputPrecision": precision, "maxNumImpreciseAcc": 0})

    def warpgroup_mma(self, a, b, acc, use_acc=True, precision=None,
                      max_num_imprecise_acc=None, is_async=False) -> tensor:
        """`acc + a @ b` with wgmma: `b` (and `a`, unless a register tensor in a dot
        operand layout) in NVMMA-swizzled shared memory, `acc` in NVMMADistributedLayout
        version 3."""
        self._dot_result(a, b, acc)
        layout = acc.type.layout
        _check(isinstance(layout, NVMMADistributedLayout) and layout.version[0] == 3,
               lambda: f"warpgroup_mma needs the accumulator in NVMMADistributedLayout("
                       f"version=[3, 0], ...), got {layout}")
        _check(isinstance(b, shared_memory_descriptor)
               and isinstance(b.layout, NVMMASharedLayout),
               lambda: f"warpgroup_mma's b must be shared memory in an NVMMASharedLayout, got "
                       f"{b}")
        if isinstance(a, shared_memory_descriptor):
            _check(isinstance(a.layout, NVMMASharedLayout),
                   lambda: f"warpgroup_mma's a must be in an NVMMASharedLayout, got {a.layout}")
        else:
            a_layout = self._layout_of(a)
            _check(isinstance(a_layout, DotOperandLayout) and a_layout.operand_index == 0
                   and a_layout.parent == layout,
                   lambda: f"warpgroup_mma's a in registers must be in DotOperandLayout("
                           f"operand_index=0, parent={layout}, ...), got {a_layout}")
        _check(a.dtype == b.dtype, lambda: f"operand dtypes differ: {a.dtype} and {b.dtype}")
        precision = self._str_to_dot_input_precision(
            precision or self._opt("default_dot_input_precision"))
        attrs = {"inputPrecision": precision,
                 "maxNumImpreciseAcc": int(max_num_imprecise_acc or 0),
                 "isAsync": bool(self._unwrap(is_async))}
        operands = [a.handle, b.handle, acc.handle]
        use_acc = self._unwrap(use_acc)
        if use_acc is not True:
            operands.append(self.to_tensor(use_acc).handle if not isinstance(use_acc, tensor)
                            else use_acc.handle)
        out = self.builder.create1("ttng.warp_group_dot", operands, acc.type.to_ir(), attrs)
        return tensor(out, acc.type)

    def warpgroup_mma_wait(self, num_outstanding=0, deps=()):
        """Wait until at most `num_outstanding` asynchronous wgmma groups are in flight;
        returns `deps` (the accumulators read after the wait)."""
        deps = [d for d in (deps or ())]
        op = self.builder.create("ttng.warp_group_dot_wait", [d.handle for d in deps],
                                 [d.handle.type for d in deps],
                                 {"pendings": int(self._unwrap(num_outstanding))})
        outs = [tensor(r, d.type) for r, d in zip(op.results, deps)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    # ------------------------------------------------------------------ mbarriers
    def _barrier(self, bar) -> None:
        _check(isinstance(bar, shared_memory_descriptor) and bar.dtype == tl.int64,
               lambda: f"an mbarrier is an int64 shared memory allocation, got {bar}")

    def _pred(self, pred):
        pred = self._unwrap(pred)
        return self.to_tensor(bool(pred) if not isinstance(pred, tensor) else pred) \
            if not isinstance(pred, tensor) else pred

    def mbarrier_init(self, bar, count) -> None:
        self._barrier(bar)
        self.builder.create("ttng.init_barrier", [bar.handle], [],
                            {"count": int(self._unwrap(count))})

    def mbarrier_invalidate(self, bar) -> None:
        self._barrier(bar)
        self.builder.create("ttng.inval_barrier", [bar.handle], [])

    def mbarrier_expect(self, bar, nbytes, pred=True) -> None:
        self._barrier(bar)
        self.builder.create("ttng.barrier_expect", [bar.handle, self._pred(pred).handle], [],
                            {"size": int(self._unwrap(nbytes))})

    def mbarrier_arrive(self, bar, count=1, pred=True) -> None:
        self._barrier(bar)
        self.builder.create("ttng.arrive_barrier", [bar.handle, self._pred(pred).handle], [],
                            {"count": int(self._unwrap(count))})

    def mbarrier_wait(self, bar, phase) -> None:
        self._barrier(bar)
        phase = self.to_tensor(self._unwrap(phase)) if not isinstance(phase, tensor) else phase
        phase = self.cast(phase, tl.int32) if phase.dtype != tl.int32 else phase
        self.builder.create("ttng.wait_barrier", [bar.handle, phase.handle], [])

    def fence_async_shared(self, cluster=False) -> None:
        from ....ir.attrs import BoolAttr
        self.builder.create("ttng.fence_async_shared", [], [],
                            {"bCluster": BoolAttr(bool(self._unwrap(cluster)))})

    # ------------------------------------------------------------------ TMA
    def _tma_check(self, desc, smem, what: str):
        from ....gpu.tma import tma_block
        from ....language.tensor_descriptor import tensor_descriptor_base
        _check(isinstance(desc, tensor_descriptor_base),
               lambda: f"{what} needs a tensor descriptor, got {desc!r}")
        _check(isinstance(smem, shared_memory_descriptor),
               lambda: f"{what} needs a shared memory buffer, got {smem!r}")
        _check(list(smem.type.shape) == list(desc.block_shape) and smem.dtype == desc.dtype,
               lambda: f"{what}: the buffer ({smem.dtype}{list(smem.type.shape)}) must match "
                       f"the descriptor's block ({desc.dtype}{desc.block_shape})")
        tb = tma_block(desc.block_type.to_ir())
        _check(tb is not None, lambda: f"TMA cannot move a block of {desc.block_type}")
        # The descriptor's map (made on the host from the compiled kernel's metadata) lands
        # the block in this layout: the buffer must be in it too.
        _check(isinstance(smem.layout, NVMMASharedLayout)
               and smem.layout._to_encoding() == tb.encoding,
               lambda: f"{what}: the buffer must be in the block's TMA layout "
                       f"NVMMASharedLayout(swizzle_byte_width={tb.swizzle}, element_bitwidth="
                       f"{tb.elem_bits}, rank={len(tb.dims)}), got {smem.layout}")
        return tb

    def _coords(self, desc, coord):
        coord = list(self._unwrap(coord))
        _check(len(coord) == len(desc.block_shape),
               lambda: f"expected {len(desc.block_shape)} coordinates, got {len(coord)}")
        out = []
        for c in coord:
            c = self.to_tensor(self._unwrap(c)) if not isinstance(c, tensor) else c
            out.append((self.cast(c, tl.int32) if c.dtype != tl.int32 else c).handle)
        return out

    def tma_load(self, desc, coord, barrier, result, pred=True) -> None:
        self._tma_check(desc, result, "async_copy_global_to_shared")
        self._barrier(barrier)
        self.builder.create("ttng.async_tma_copy_global_to_local",
                            [desc.handle] + self._coords(desc, coord)
                            + [result.handle, barrier.handle, self._pred(pred).handle], [])

    def tma_store(self, desc, coord, src) -> None:
        self._tma_check(desc, src, "async_copy_shared_to_global")
        self.builder.create("ttng.async_tma_copy_local_to_global",
                            [desc.handle] + self._coords(desc, coord) + [src.handle], [])

    def tma_store_wait(self, pendings) -> None:
        self.builder.create("ttng.async_tma_store_wait", [], [],
                            {"pendings": int(self._unwrap(pendings))})

    def make_gluon_tensor_descriptor(self, base, shape, strides, block_shape, layout,
                                     padding_option):
        from ....ir.attrs import BoolAttr
        from .nvidia.hopper.tma import tensor_descriptor
        _check(isinstance(layout, NVMMASharedLayout),
               lambda: f"a TMA descriptor's layout must be an NVMMASharedLayout, got {layout}")
        desc = self.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)
        # Kept as a TMA descriptor (its map written by the kernel), as the TTIR stage's
        # keep-tma-descriptors marks one for Triton kernels.
        desc.handle.owner_op.attributes["tt.tma"] = BoolAttr(True)
        return tensor_descriptor(desc.handle, list(desc.shape), list(desc.strides),
                                 desc.block_type, layout)

    # ------------------------------------------------------------------ cp.async
    def async_copy_global_to_shared(self, smem, pointer, mask, cache_modifier,
                                    eviction_policy, volatile) -> None:
        _check(isinstance(smem, shared_memory_descriptor),
               lambda: f"async_copy_global_to_shared needs a shared memory buffer, got {smem}")
        _check(isinstance(pointer, tensor) and pointer.type.is_block()
               and pointer.type.scalar.is_ptr(), "async_copy_global_to_shared needs a block "
                                                 "of pointers")
        _check(pointer.type.get_block_shapes() == list(smem.type.shape),
               lambda: f"pointer shape {pointer.type.get_block_shapes()} and buffer shape "
                       f"{list(smem.type.shape)} must match")
        _check(pointer.type.scalar.element_ty == smem.dtype,
               lambda: f"pointers to {pointer.type.scalar.element_ty} copied into a buffer of "
                       f"{smem.dtype}")
        operands = [pointer.handle, smem.handle]
        if mask is not None:
            mask = self.to_tensor(mask) if not isinstance(mask, tensor) else mask
            pointer, mask = self.broadcast_impl_value(pointer, mask)
            operands.append(mask.handle)
        attrs = {"cache": self._str_to_load_cache_modifier(cache_modifier or ""),
                 "evict": self._str_to_eviction_policy(eviction_policy or ""),
                 "isVolatile": bool(volatile)}
        self.builder.create("ttg.async_copy_global_to_local", operands, [], attrs)

    def async_commit_group(self) -> None:
        self.builder.create("ttg.async_commit_group", [], [])

    def async_wait_group(self, num_outstanding) -> None:
        self.builder.create("ttg.async_wait", [], [], {"num": int(num_outstanding)})
