"""`GluonSemantic`: Triton's typing rules with layouts made explicit, emitting TTGIR.

Everything a Triton kernel can do goes through `TritonSemantic`; Gluon changes only where a
block is made or reshaped, since that is where a layout has to come from:
  - blocks are made in a layout the user names (`arange`, `full`, `splat`), or in
    `AutoLayout` for the compiler to resolve;
  - operands of one op must already share a layout: there is no implicit conversion, and a
    mismatch names both layouts; a scalar is splat into its partner's layout;
  - `expand_dims` needs its operand in the `SliceLayout` of the result's parent along the
    new axis, and a reduction's result is in the `SliceLayout` of its operand's layout;
  - `reshape`, `permute`, `join`, `split` give the layout that keeps every element in its
    thread (inferred through linear layouts), so they cost no data movement.
"""
from __future__ import annotations

from math import prod
from typing import List, Sequence, Tuple

from ....ir import types as T
from ....language import dtypes as tl
from ....language.core import tensor
from ....language.semantic import TritonSemantic
from ._layouts import (AutoLayout, BlockedLayout, DistributedLayout, SharedLayout,
                       SliceLayout, layout_from_encoding)
from ._semantic_nvidia import NvidiaMixin
from ._types import distributed_type, shared_memory_descriptor

__all__ = ["GluonSemantic"]


def _check(cond: bool, message) -> None:
    if not cond:
        raise ValueError(message() if callable(message) else message)


class GluonSemantic(NvidiaMixin, TritonSemantic):
    """Triton's rules plus layouts. `num_warps`/`threads_per_warp` come from the module
    the code generator fills (its `ttg.num-warps`), so layouts are checked against them."""

    def __init__(self, builder, options=None):
        super().__init__(builder, options)
        self.num_warps_value = int(getattr(options, "num_warps", 4) or 4)
        self.threads_per_warp = 32

    # ------------------------------------------------------------------ layouts
    def check_layout(self, layout, shape=None) -> DistributedLayout:
        """A layout a tensor is about to get: distributed, covering this kernel's threads."""
        layout = self._unwrap(layout)
        _check(isinstance(layout, DistributedLayout),
               lambda: f"expected a distributed layout (BlockedLayout, SliceLayout, ...), got "
                       f"{layout!r}")
        base = layout
        while isinstance(base, SliceLayout):
            base = base.parent
        if isinstance(base, BlockedLayout):
            _check(prod(base.threads_per_warp) == self.threads_per_warp,
                   lambda: f"{layout}: threads_per_warp {base.threads_per_warp} must multiply "
                           f"to {self.threads_per_warp} (the threads of a warp)")
            _check(prod(base.warps_per_cta) == self.num_warps_value,
                   lambda: f"{layout}: warps_per_cta {base.warps_per_cta} must multiply to "
                           f"num_warps={self.num_warps_value}")
        return layout

    def _dist(self, scalar_ty, shape, layout) -> distributed_type:
        return distributed_type(scalar_ty, [self._unwrap(s) for s in shape],
                                self.check_layout(layout))

    def _with_encoding(self, handle, scalar_ty, shape, enc) -> tensor:
        """A result whose layout the compiler inferred (as a TTGIR encoding)."""
        layout = layout_from_encoding(enc)
        return tensor(handle, distributed_type(scalar_ty, shape, layout))

    @staticmethod
    def _layout_of(x):
        return x.type.layout if isinstance(x.type, distributed_type) else None

    # ------------------------------------------------------------------ block creation
    def arange(self, start, end, layout=None, *, ret_ty=None):
        start, end = self._unwrap(start), self._unwrap(end)
        layout = AutoLayout() if self._unwrap(layout) is None else layout
        if isinstance(start, int) and isinstance(end, int):
            ret_ty = self._dist(tl.int32, [end - start], layout)
        return super().arange(start, end, ret_ty=ret_ty)

    def splat(self, value: tensor, shape, layout=None) -> tensor:
        shape = [int(self._unwrap(s)) for s in shape]
        if not shape:
            return value
        _check(not value.type.is_block(), "Cannot splat a block tensor")
        _check(layout is not None, lambda: f"a scalar becomes a block of shape {shape} here "
                                           "but no layout says how: give it one")
        return self._emit("tt.splat", [value], self._dist(value.dtype, shape, layout))

    def full(self, shape, value, dtype, layout=None) -> tensor:
        layout = AutoLayout() if self._unwrap(layout) is None else layout
        return self.splat(self.make_scalar(value, dtype), shape, layout)

    def convert_layout(self, value: tensor, layout, assert_trivial: bool = False) -> tensor:
        ty = value.type
        _check(isinstance(ty, distributed_type),
               lambda: f"convert_layout needs a tensor with a layout, got {ty}")
        ret_ty = self._dist(ty.element_ty, ty.shape, layout)
        if assert_trivial and not _is_trivial(ty, ret_ty):
            raise TypeError(f"layout conversion from {ty.layout} to {ret_ty.layout} is not "
                            "trivial (it moves data between threads)")
        if ret_ty == ty:
            return value
        return self._emit("ttg.convert_layout", [value], ret_ty)

    def _adopt_layout(self, values: Sequence[tensor]) -> List[tensor]:
        """`values` with those in AutoLayout given the first concrete layout among them
        (operands of one op must agree; two concrete ones are the caller's to check)."""
        concrete = [self._layout_of(v) for v in values
                    if not isinstance(self._layout_of(v), AutoLayout)]
        if not concrete:
            return list(values)
        return [self.set_auto_layout(v, concrete[0])
                if isinstance(self._layout_of(v), AutoLayout) else v for v in values]

    def set_auto_layout(self, value: tensor, layout) -> tensor:
        _check(isinstance(self._layout_of(value), AutoLayout),
               lambda: f"set_auto_layout needs a tensor in AutoLayout, got "
                       f"{self._layout_of(value)}")
        return self.convert_layout(value, layout)

    # ------------------------------------------------------------------ shapes
    def expand_dims(self, input: tensor, axis: int) -> tensor:
        dst_shape = [self._unwrap(x) for x in input.shape]
        axis = int(self._unwrap(axis))
        if axis < 0:
            axis += len(dst_shape) + 1
        dst_shape.insert(axis, 1)
        _check(input.type.is_block(), "expand_dims of a scalar has no layout in Gluon: "
                                      "make a block with gl.full first")
        layout = self._layout_of(input)
        if isinstance(layout, AutoLayout):
            ret_ty = distributed_type(input.type.scalar, dst_shape, AutoLayout())
        else:
            _check(isinstance(layout, SliceLayout),
                   lambda: f"expand_dims along axis {axis} needs its operand in a "
                           f"SliceLayout(dim={axis}, parent=...), got {layout}")
            _check(layout.dim == axis,
                   lambda: f"expand_dims along axis {axis} needs its operand in a "
                           f"SliceLayout with dim={axis}, got dim={layout.dim} ({layout})")
            ret_ty = distributed_type(input.type.scalar, dst_shape, layout.parent)
        return self._emit("tt.expand_dims", [input], ret_ty, {"axis": axis})

    def broadcast_impl_shape(self, input: tensor, shape) -> tensor:
        # tl's rules (a scalar reaches splat, which wants a layout); the result keeps the
        # operand's layout
        out = super().broadcast_impl_shape(input, shape)
        return out if out is input or not input.type.is_block() else \
            self._relayout(out, input.type.layout)

    def broadcast_impl_value(self, lhs: tensor, rhs: tensor):
        if not lhs.type.is_block() or not rhs.type.is_block():
            return super().broadcast_impl_value(lhs, rhs)
        ls, rs = lhs.type.get_block_shapes(), rhs.type.get_block_shapes()
        _check(len(ls) == len(rs), lambda: f"Cannot broadcast, rank mismatch: {ls}, {rs}")
        lhs, rhs = self._adopt_layout([lhs, rhs])
        ll, rl = self._layout_of(lhs), self._layout_of(rhs)
        if ll != rl:
            raise ValueError(f"Layout mismatch in broadcast: {ll} vs {rl} (Gluon never "
                             "converts layouts implicitly: use gl.convert_layout)")
        shape = []
        for i, (a, b) in enumerate(zip(ls, rs)):
            if a == 1:
                shape.append(b)
            elif b == 1 or a == b:
                shape.append(a)
            else:
                raise ValueError(f"Cannot make_shape_compatible: incompatible dimensions at "
                                 f"index {i}: {a} and {b}")
        return self.broadcast_impl_shape(lhs, shape), self.broadcast_impl_shape(rhs, shape)

    def reshape(self, input: tensor, dst_shape, can_reorder: bool) -> tensor:
        _check(not can_reorder, "can_reorder is not supported in Gluon")
        dst_shape = [int(self._unwrap(s)) for s in dst_shape]
        _check(input.type.is_block(), "reshape of a scalar has no layout in Gluon")
        _check(input.type.numel == prod(dst_shape),
               "reshape() cannot change total number of elements in tensor")
        enc = self._infer("tt.reshape", input, dst_shape, {"allow_reorder": False})
        ret = self.builder.create1("tt.reshape", [input.handle], _ty(input, dst_shape, enc),
                                   {"allow_reorder": False})
        return self._with_encoding(ret, input.type.scalar, dst_shape, enc)

    def permute(self, input: tensor, dims) -> tensor:
        dims = [int(self._unwrap(d)) for d in dims]
        _check(sorted(dims) == list(range(len(input.shape))),
               lambda: f"permute dims must be a permutation of 0, 1, ..., n-1, but were {dims}")
        src = input.type.get_block_shapes()
        dst_shape = [src[d] for d in dims]
        from ....language.semantic_base import i32_array
        attrs = {"order": i32_array(dims)}
        enc = self._infer("tt.trans", input, dst_shape, attrs)
        ret = self.builder.create1("tt.trans", [input.handle], _ty(input, dst_shape, enc), attrs)
        return self._with_encoding(ret, input.type.scalar, dst_shape, enc)

    def _infer(self, name, input, dst_shape, attrs):
        """The result encoding under which `name` keeps every element in its thread."""
        src_enc = input.type.layout._to_encoding()
        from ....gpu.passes.resolve_auto_layouts import AutoEncoding
        if isinstance(src_enc, AutoEncoding):
            return src_enc
        from ....gpu.passes.layout_inference import infer_dst_layout
        from ....ir.core import Operation
        probe = Operation(name, [], [T.TensorType(dst_shape, input.type.scalar.to_ir())],
                          attrs)
        probe_src = _Probe(input.handle.type)
        enc = infer_dst_layout(_ProbeOp(probe, probe_src), src_enc)
        _check(enc is not None, lambda: f"no layout of the result of {name} keeps "
                                        f"{input.type.layout} in place")
        return enc

    def join(self, a: tensor, b: tensor) -> tensor:
        a, b = self.broadcast_impl_value(a, b)
        _check(a.type.is_block(), "Cannot join scalars in Gluon")
        shape = a.type.get_block_shapes() + [2]
        enc = _join_encoding(a.type.layout._to_encoding(), a.type.get_block_shapes())
        ret = self.builder.create1("tt.join", [a.handle, b.handle], _ty(a, shape, enc))
        return self._with_encoding(ret, a.type.scalar, shape, enc)

    def split(self, a: tensor) -> Tuple[tensor, tensor]:
        _check(a.type.is_block() and self._unwrap(a.shape[-1]) == 2,
               "split needs a tensor whose last dimension is 2")
        shape = a.type.get_block_shapes()[:-1]
        enc = _split_encoding(a.type.layout._to_encoding(), a.type.get_block_shapes())
        t = _ty(a, shape, enc)
        op = self.builder.create("tt.split", [a.handle], [t, t])
        return (self._with_encoding(op.results[0], a.type.scalar, shape, enc),
                self._with_encoding(op.results[1], a.type.scalar, shape, enc))

    def cat(self, lhs, rhs, can_reorder):
        raise ValueError("cat is not supported in Gluon: join and reshape instead")

    # ------------------------------------------------------------------ reductions
    def reduction(self, inputs: Sequence[tensor], axis, region_builder_fn):
        if axis is None:
            # No reordering reshape in Gluon: reduce the dimensions one by one.
            result = tuple(inputs)
            while result[0].type.is_block():
                result = self.reduction(result, len(result[0].shape) - 1, region_builder_fn)
            return result
        shape = inputs[0].type.get_block_shapes()
        axis = int(axis)
        _check(axis < len(shape), lambda: f"reduction axis must be < inputs rank ({len(shape)})")
        # (argmax's index block is an `arange` without a layout)
        inputs = self._adopt_layout(inputs)
        layout = self._layout_of(inputs[0])
        for t in inputs:
            _check(t.type.get_block_shapes() == shape,
                   "all reduction inputs must have the same shape")
            _check(self._layout_of(t) == layout,
                   lambda: f"Layout mismatch in reduce: {layout} vs {self._layout_of(t)}")
        ret_shape = [s for i, s in enumerate(shape) if i != axis]
        if ret_shape:
            out_layout = AutoLayout() if isinstance(layout, AutoLayout) else \
                SliceLayout(axis, layout)
            types = [distributed_type(t.type.scalar, ret_shape, out_layout) for t in inputs]
        else:
            types = [t.type.scalar for t in inputs]
        op = self.builder.create("tt.reduce", [t.handle for t in inputs],
                                 [t.to_ir() for t in types], {"axis": axis}, num_regions=1)
        region_builder_fn(op)
        return tuple(tensor(r, t) for r, t in zip(op.results, types))

    # ------------------------------------------------------------------ ops whose result
    # types `tl` builds from a shape alone: given the layout they must have
    def _relayout(self, value: tensor, layout) -> tensor:
        if not value.type.is_block():
            return value
        ty = distributed_type(value.type.scalar, value.type.get_block_shapes(), layout)
        value.handle.type = ty.to_ir()
        return tensor(value.handle, ty)

    def extern_elementwise(self, lib_name, lib_path, args, arg_type_symbol_dict, is_pure):
        out = super().extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict,
                                         is_pure)
        layouts = [self._layout_of(self.to_tensor(a)) for a in args
                   if isinstance(a, tensor) and a.type.is_block()]
        return self._relayout(out, layouts[0]) if layouts else out

    def map_elementwise(self, args, pack, scalar_fn):
        outs, single = super().map_elementwise(args, pack, scalar_fn)
        layouts = [self._layout_of(a) for a in args if isinstance(a, tensor) and a.type.is_block()]
        if layouts:
            outs = [self._relayout(o, layouts[0]) for o in outs]
        return outs, single

    def gather(self, src: tensor, index: tensor, axis: int) -> tensor:
        """`src` gathered along `axis` at `index`: the result is in the index's layout."""
        return self._relayout(super().gather(src, index, axis), index.type.layout)

    def histogram(self, input: tensor, num_bins: int, mask, layout=None) -> tensor:
        _check(layout is not None, "histogram needs the result's layout in Gluon: "
                                   "gl.histogram(x, num_bins, mask, layout=...)")
        return self._relayout(super().histogram(input, num_bins, mask),
                              self.check_layout(layout))

    # ------------------------------------------------------------------ shared memory
    def allocate_shared(self, element_ty, shape, layout, value=None):
        layout = self._unwrap(layout)
        _check(isinstance(element_ty, tl.dtype),
               lambda: f"expected a dtype for the shared memory's elements, got {element_ty}")
        shape = [int(self._unwrap(s)) for s in self._unwrap(shape)]
        _check(isinstance(layout, SharedLayout),
               lambda: f"expected a shared layout (SwizzledSharedLayout, NVMMASharedLayout), "
                       f"got {layout!r}")
        desc = shared_memory_descriptor(None, element_ty, shape, layout)
        operands = []
        if value is not None:
            _check(isinstance(value, tensor) and value.type.is_block(),
                   "allocate_shared_memory's value must be a tensor")
            _check(value.type.get_block_shapes() == shape,
                   lambda: f"value of shape {value.type.get_block_shapes()} does not fill "
                           f"shared memory of shape {shape}")
            _check(value.dtype == element_ty,
                   lambda: f"value of {value.dtype} stored into shared memory of {element_ty}")
            operands = [value.handle]
        desc.handle = self.builder.create1("ttg.local_alloc", operands, desc.type.to_ir())
        return desc

    def shared_load(self, desc, layout) -> tensor:
        ret_ty = self._dist(desc.dtype, desc.type.shape, layout)
        return self._emit("ttg.local_load", [desc.handle], ret_ty)

    def shared_store(self, desc, value) -> None:
        _check(isinstance(value, tensor) and value.type.is_block(),
               "a shared memory store needs a tensor")
        _check(value.type.get_block_shapes() == list(desc.type.shape),
               lambda: f"source shape {value.type.get_block_shapes()} and destination shape "
                       f"{list(desc.type.shape)} must match")
        _check(value.dtype == desc.dtype,
               lambda: f"source dtype {value.dtype} and destination dtype {desc.dtype} "
                       "must match")
        self.builder.create("ttg.local_store", [value.handle, desc.handle], [])

    def _view(self, name, desc, shape, layout, operands=(), attrs=None, alloc_shape=None):
        out = shared_memory_descriptor(None, desc.dtype, shape, layout,
                                       alloc_shape if alloc_shape is not None
                                       else desc.type.alloc_shape)
        out.handle = self.builder.create1(name, [desc.handle] + list(operands),
                                          out.type.to_ir(), attrs)
        return out

    def memdesc_index(self, desc, index):
        index = self.to_tensor(index)
        _check(not index.type.is_block() and index.dtype.is_int(),
               "a shared memory index must be a scalar integer")
        index = self.cast(index, tl.int32) if index.dtype != tl.int32 else index
        shape = list(desc.type.shape[1:])
        layout = desc.layout
        rank = getattr(layout, "rank", None)
        if rank is not None and rank == len(desc.type.shape):
            layout = _drop_leading_dim(layout)
        return self._view("ttg.memdesc_index", desc, shape, layout, [index.handle],
                          alloc_shape=desc.type.alloc_shape)

    def memdesc_slice(self, desc, start, length, dim):
        start, length, dim = (int(self._unwrap(x)) for x in (start, length, dim))
        shape = list(desc.type.shape)
        _check(0 <= dim < len(shape), lambda: f"dim {dim} out of range for rank {len(shape)}")
        _check(0 <= start and start + length <= shape[dim],
               lambda: f"slice [{start}, {start + length}) out of bounds of {shape[dim]}")
        _check_window(desc, start, dim)
        offsets = [0] * len(shape)
        offsets[dim] = start
        shape[dim] = length
        from ....language.semantic_base import i32_array
        return self._view("ttg.memdesc_subslice", desc, shape, desc.layout,
                          attrs={"offsets": i32_array(offsets)})

    def memdesc_trans(self, desc, order):
        order = [int(self._unwrap(o)) for o in order]
        shape = [desc.type.shape[o] for o in order]
        from ....language.semantic_base import i32_array
        layout = _permuted_shared(desc.layout, order)
        return self._view("ttg.memdesc_trans", desc, shape, layout,
                          attrs={"order": i32_array(order)})

    def memdesc_reshape(self, desc, shape):
        shape = [int(self._unwrap(s)) for s in shape]
        _check(prod(shape) == prod(desc.type.shape),
               "reshape() cannot change total number of elements")
        from ._layouts import SwizzledSharedLayout
        layout = desc.layout
        rank = len(desc.type.shape)
        # Only a row-major, unswizzled buffer keeps every element's offset under a reshape.
        _check(isinstance(layout, SwizzledSharedLayout) and layout.max_phase == 1
               and list(layout.order) == list(range(rank - 1, -1, -1)),
               lambda: f"reshape of shared memory needs a row-major unswizzled "
                       f"SwizzledSharedLayout, got {layout}")
        new = SwizzledSharedLayout(layout.vec, 1, 1, list(range(len(shape) - 1, -1, -1)))
        return self._view("ttg.memdesc_reshape", desc, shape, new, alloc_shape=shape)

    def memdesc_reinterpret(self, desc, dtype, shape, layout):
        shape = [int(self._unwrap(s)) for s in shape]
        out = shared_memory_descriptor(None, dtype, shape, self._unwrap(layout))
        out.handle = self.builder.create1("ttg.memdesc_reinterpret", [desc.handle],
                                          out.type.to_ir())
        return out

    def shared_dealloc(self, desc) -> None:
        self.builder.create("ttg.local_dealloc", [desc.handle], [])


class _Probe:
    def __init__(self, ty):
        self.type = ty


class _ProbeOp:
    """What `infer_dst_layout` reads of an op (name, attributes, operand and result types),
    without building one in the module."""

    def __init__(self, op, src):
        self.name, self._op, self._src = op.name, op, src
        self.results = op.results

    def operand(self, i):
        return self._src

    def attr(self, name, default=None):
        return self._op.attr(name, default) if default is not None else self._op.attr(name)


def _ty(like: tensor, shape, enc) -> T.TensorType:
    return T.TensorType(shape, like.type.scalar.to_ir(), enc)


def _is_trivial(src: distributed_type, dst: distributed_type) -> bool:
    shape = list(src.shape)
    try:
        a = src.layout._to_encoding().to_linear_layout(shape)
        b = dst.layout._to_encoding().to_linear_layout(shape)
    except Exception:
        return False
    return a == b


def _join_encoding(enc, shape):
    """Layout of `join(a, b)` with `a`, `b` in `enc`: the new last dim in each thread's
    registers (fastest), everything else where it was."""
    from ....gpu.passes.resolve_auto_layouts import AutoEncoding
    from ....gpu.layouts import BlockedEncoding
    from ....gpu.passes.layout_inference import encoding_for
    from ....gpu.linear_layout import LinearLayout
    if isinstance(enc, AutoEncoding):
        return enc
    if isinstance(enc, BlockedEncoding) and enc.cta_layout.is_default():
        r = enc.rank
        return BlockedEncoding(list(enc.size_per_thread) + [2], list(enc.threads_per_warp) + [1],
                               list(enc.warps_per_cta) + [1], [r] + list(enc.order))
    ll = enc.to_linear_layout(list(shape))
    rank = len(shape)
    bases = {}
    for d in ll.in_dims:
        vecs = [list(b) + [0] for b in ll.bases[d]]
        if d == "register":
            vecs = [[0] * rank + [1]] + vecs
        bases[d] = vecs
    out = [(f"dim{i}", s) for i, s in enumerate(list(shape) + [2])]
    new = encoding_for(LinearLayout(bases, out), list(shape) + [2])
    _check(new is not None, f"no layout for join of {enc}")
    return new


def _split_encoding(enc, shape):
    """Layout of the halves of `split(a)`: `a`'s last dim (of 2) must sit in registers."""
    from ....gpu.passes.resolve_auto_layouts import AutoEncoding
    from ....gpu.passes.layout_inference import encoding_for
    from ....gpu.linear_layout import LinearLayout
    if isinstance(enc, AutoEncoding):
        return enc
    ll = enc.to_linear_layout(list(shape))
    rank = len(shape)
    last = [0] * (rank - 1) + [1]
    regs = [list(b) for b in ll.bases["register"]]
    _check(last in regs, lambda: f"split needs the last dimension (of 2) held in each "
                                 f"thread's registers, but {enc} spreads it over threads")
    regs.remove(last)
    for d in ("lane", "warp", "block"):
        _check(all(b[-1] == 0 for b in ll.bases[d]),
               lambda: f"split needs the last dimension in registers, not in {d}s ({enc})")
    bases = {"register": [b[:-1] for b in regs]}
    for d in ("lane", "warp", "block"):
        bases[d] = [list(b)[:-1] for b in ll.bases[d]]
    out = [(f"dim{i}", s) for i, s in enumerate(shape[:-1])]
    new = encoding_for(LinearLayout(bases, out), list(shape[:-1]))
    _check(new is not None, f"no layout for split of {enc}")
    return new


def _check_window(desc, start: int, dim: int) -> None:
    """A window of a buffer is the buffer from a later row on, laid out as the buffer, only
    along the slowest dimension and at a whole swizzle period (what the lowering takes)."""
    from ._layouts import NVMMASharedLayout, SwizzledSharedLayout
    layout, shape = desc.layout, list(desc.type.shape)
    rank = len(shape)
    order = list(layout.order) if isinstance(layout, SwizzledSharedLayout) else \
        list(range(rank - 1, -1, -1))
    if start == 0:
        return
    _check(dim == order[-1], lambda: f"shared memory slices are supported along the slowest "
                                     f"dimension ({order[-1]}) only, not dim {dim}")
    row_bytes = prod(shape[d] for d in range(rank) if d != dim) * \
        desc.dtype.primitive_bitwidth // 8
    if isinstance(layout, SwizzledSharedLayout) and rank >= 2 and layout.max_phase > 1 \
            and dim == order[1]:
        period = layout.per_phase * layout.max_phase
        _check(start % period == 0, lambda: f"a slice of {layout} must start at a multiple "
                                            f"of its swizzle period ({period} rows)")
    if isinstance(layout, NVMMASharedLayout) and layout.swizzle_byte_width:
        _check(start * row_bytes % 1024 == 0,
               lambda: f"a slice of {layout} must start on a 1024-byte swizzle boundary")


def _drop_leading_dim(layout):
    from ._layouts import NVMMASharedLayout, SwizzledSharedLayout
    if isinstance(layout, SwizzledSharedLayout):
        order = [o - 1 for o in layout.order if o != 0]
        return SwizzledSharedLayout(layout.vec, layout.per_phase, layout.max_phase, order)
    if isinstance(layout, NVMMASharedLayout) and layout.rank > 2:
        return NVMMASharedLayout(layout.swizzle_byte_width, layout.element_bitwidth,
                                 layout.rank - 1, layout.transposed, layout.fp4_padded)
    return layout


def _permuted_shared(layout, order):
    from ._layouts import NVMMASharedLayout, SwizzledSharedLayout
    if isinstance(layout, SwizzledSharedLayout):
        where = {o: i for i, o in enumerate(order)}
        return SwizzledSharedLayout(layout.vec, layout.per_phase, layout.max_phase,
                                    [where[d] for d in layout.order])
    if isinstance(layout, NVMMASharedLayout) and list(order) == [1, 0]:
        return NVMMASharedLayout(layout.swizzle_byte_width, layout.element_bitwidth,
                                 layout.rank, not layout.transposed, layout.fp4_padded)
    return layout
