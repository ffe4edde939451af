"""Reductions, scans, gather, histogram and dot (part of `TritonSemantic`)."""
from __future__ import annotations

import os
import warnings
from typing import Callable, List, Optional, Sequence, Tuple

from ..ir.core import Block
from ..ir.ops import INPUT_PRECISIONS
from . import dtypes as tl
from .core import tensor


class ReduceMixin:
    def wrap_tensor(self, handle, scalar_ty: tl.dtype, ret_shape) -> tensor:
        ret_shape = [self._unwrap(s) for s in ret_shape]
        return tensor(handle, tl.block_type(scalar_ty, ret_shape) if ret_shape else scalar_ty)

    # ------------------------------------------------------------------ combine regions
    def build_combine_region(self, op, scalar_types: Sequence[tl.dtype],
                             combine: Callable[[List[tensor]], object], return_op: str) -> None:
        """Fill `op`'s region with one block taking (acc..., cur...) scalars; `combine` is
        called on those as tensors with the insertion point inside the block, and what it
        returns is yielded by `return_op`."""
        param_types = list(scalar_types) * 2
        block = op.regions[0].add_block(Block([t.to_ir() for t in param_types]))
        ip = self.builder.get_insertion_point()
        self.builder.set_insertion_point_to_end(block)
        try:
            args = [tensor(a, t) for a, t in zip(block.args, param_types)]
            results = combine(args)
            if isinstance(results, tensor):
                results = [results]
            results = [self.to_tensor(r) for r in results]
            if len(results) != len(scalar_types):
                raise ValueError(f"combine_fn returned {len(results)} values, expected "
                                 f"{len(scalar_types)}")
            results = [self.cast(r, t) if r.type != t else r for r, t in zip(results, scalar_types)]
            self.builder.create(return_op, [r.handle for r in results], [])
        finally:
            self.builder.restore_insertion_point(ip)

    def map_elementwise(self, args: Sequence[tensor], pack: int,
                        scalar_fn: Callable[[List[tensor]], object]):
        """`tl.map_elementwise`: `scalar_fn` is called once, on scalar block arguments (`pack`
        per input, input i's j-th at i*pack+j), to build the region; it returns `pack`
        scalars per output (output k's j-th at k*pack+j), which give the result types.
        Returns the result tensors and whether `scalar_fn` returned a single value."""
        if not args:
            raise ValueError("map_elementwise needs at least one tensor argument")
        args = list(self.broadcast_tensors(*[self.to_tensor(a) for a in args]))
        in_types = [a.type.scalar for a in args]
        param_types = [t for t in in_types for _ in range(pack)]
        # The region's block is filled before its op exists: the op's result types are
        # what the scalar function returns.
        block = Block([t.to_ir() for t in param_types])
        ip = self.builder.get_insertion_point()
        self.builder.set_insertion_point_to_end(block)
        try:
            results = scalar_fn([tensor(a, t) for a, t in zip(block.args, param_types)])
            single = not isinstance(results, (tuple, list)) and not hasattr(results, "values")
            results = [results] if single else list(getattr(results, "values", results))
            results = [self.to_tensor(r) for r in results]
            if len(results) % pack:
                raise ValueError(f"map_elementwise with pack={pack}: the function returned "
                                 f"{len(results)} values, not a multiple of {pack}")
            for r in results:
                if r.type.is_block():
                    raise ValueError("map_elementwise's function must return scalars, got "
                                     f"{r.type}")
            out_types = [r.type for r in results[::pack]]
            for k, t in enumerate(out_types):
                got = [r.type for r in results[k * pack:(k + 1) * pack]]
                if any(g != t for g in got):
                    raise ValueError(f"map_elementwise with pack={pack}: output {k}'s "
                                     f"values have different types {[str(g) for g in got]}")
            self.builder.create("tt.map_elementwise.return", [r.handle for r in results], [])
        finally:
            self.builder.restore_insertion_point(ip)
        shape = args[0].type.get_block_shapes() if args[0].type.is_block() else []
        res_types = [tl.block_type(t, shape) if shape else t for t in out_types]
        op = self.builder.create("tt.map_elementwise", [a.handle for a in args],
                                 [t.to_ir() for t in res_types], {"pack": pack}, num_regions=1)
        op.regions[0].add_block(block)
        return [tensor(r, t) for r, t in zip(op.results, res_types)], single

    def reduction(self, inputs: Sequence[tensor], axis: Optional[int], region_builder_fn
                  ) -> Tuple[tensor, ...]:
        if axis is None:
            inputs = tuple(self.reshape(t, [t.numel.value], can_reorder=True) for t in inputs)
            axis = 0
        shape = inputs[0].type.get_block_shapes()
        rank = len(shape)
        assert axis < rank, f"reduction axis must be < inputs rank ({rank})"
        ret_shape = [s for i, s in enumerate(shape) if i != axis]
        assert all(t.type.get_block_shapes() == shape for t in inputs), \
            "all reduction inputs must have the same shape"
        result_types = [tl.block_type(t.type.scalar, ret_shape) if ret_shape else t.type.scalar
                        for t in inputs]
        op = self.builder.create("tt.reduce", [t.handle for t in inputs],
                                 [t.to_ir() for t in result_types], {"axis": axis}, num_regions=1)
        region_builder_fn(op)
        return tuple(tensor(r, t) for r, t in zip(op.results, result_types))

    def associative_scan(self, inputs: Sequence[tensor], axis: int, region_builder_fn,
                         reverse: bool) -> Tuple[tensor, ...]:
        shape = inputs[0].type.get_block_shapes()
        rank = len(shape)
        assert -rank <= axis < rank, f"scan axis {axis} must be < inputs rank ({rank})"
        if axis < 0:
            axis += rank
        for t in inputs:
            assert t.type.get_block_shapes() == shape, "all scan inputs must have the same shape"
        op = self.builder.create("tt.scan", [t.handle for t in inputs],
                                 [t.type.to_ir() for t in inputs],
                                 {"axis": axis, "reverse": bool(reverse)}, num_regions=1)
        region_builder_fn(op)
        return tuple(tensor(r, t.type) for r, t in zip(op.results, inputs))

    # ------------------------------------------------------------------ gather / histogram
    def gather(self, src: tensor, index: tensor, axis: int) -> tensor:
        assert index.dtype.is_int(), "index must be an integer tensor"
        rank = len(src.type.get_block_shapes())
        assert len(index.type.get_block_shapes()) == rank, \
            "source and index tensors must have the same rank"
        assert -rank <= axis < rank, f"gather axis {axis} must be < source rank ({rank})"
        if axis < 0:
            axis += rank
        src_shape, idx_shape = src.type.get_block_shapes(), index.type.get_block_shapes()
        for d in range(rank):
            if d != axis:
                assert idx_shape[d] == src_shape[d], \
                    f"index dim {axis} must match the corresponding source dim"
        return self._emit("tt.gather", [src, index], tl.block_type(src.type.scalar, idx_shape),
                          {"axis": axis})

    def histogram(self, input: tensor, num_bins: int, mask: Optional[tensor]) -> tensor:
        assert len(input.shape) == 1, "histogram only supports 1D input"
        assert input.dtype.is_int(), "histogram only supports integer input"
        operands = [input]
        if mask is not None:
            mask = self.broadcast_impl_shape(mask, input.type.get_block_shapes())
            if not mask.type.scalar.is_bool():
                raise ValueError("Mask must have boolean scalar type")
            operands.append(mask)
        return self._emit("tt.histogram", operands, tl.block_type(tl.int32, [num_bins]))

    # ------------------------------------------------------------------ dot
    def default_input_precision(self, allow_tf32=None) -> str:
        """What `tl.dot` uses when the caller names no precision: `TRITON_F32_DEFAULT`, else
        tf32 when the target allows it and `allow_tf32` does not forbid it."""
        from ..runtime import knobs
        env = knobs.fp32_default()
        if env:
            return env
        supports_tf32 = "tf32" in self._opt("allowed_dot_input_precisions")
        return "tf32" if supports_tf32 and (allow_tf32 or allow_tf32 is None) else "ieee"

    def _str_to_dot_input_precision(self, input_precision: str) -> int:
        allowed = self._opt("allowed_dot_input_precisions")
        assert input_precision.lower() in allowed, \
            f"input_precision must be one of {allowed}. Got {input_precision}"
        return INPUT_PRECISIONS[input_precision.lower()]

    def _batched_dot(self, lhs, rhs, acc, input_precision, max_num_imprecise_acc, out_dtype):
        """A dot of 4 or more dims: the batch dims, which must match, folded into one (an
        order-keeping reshape), a 3D dot, and the batch dims unfolded again."""
        lshape, rshape = lhs.type.get_block_shapes(), rhs.type.get_block_shapes()
        assert list(lshape[:-2]) == list(rshape[:-2]), \
            f"Batch dims of the dot inputs must match (lhs: {lhs.shape} vs rhs: {rhs.shape})"
        batch = 1
        for d in lshape[:-2]:
            batch *= d
        lhs3 = self.reshape(lhs, [batch] + list(lshape[-2:]), False)
        rhs3 = self.reshape(rhs, [batch] + list(rshape[-2:]), False)
        acc3 = None
        if acc is not None:
            ashape = acc.type.get_block_shapes()
            acc3 = self.reshape(acc, [batch] + list(ashape[-2:]), False)
        out = self.dot(lhs3, rhs3, acc3, input_precision, max_num_imprecise_acc, out_dtype)
        return self.reshape(out, list(lshape[:-2]) + list(out.type.get_block_shapes()[-2:]),
                            False)

    def dot(self, lhs: tensor, rhs: tensor, acc: Optional[tensor], input_precision: Optional[str],
            max_num_imprecise_acc: Optional[int], out_dtype: tl.dtype) -> tensor:
        assert lhs.type.is_block() and rhs.type.is_block()
        supported = (tl.int8, tl.uint8, tl.float16, tl.bfloat16, tl.float32, tl.float64)
        if not (lhs.dtype.is_fp8() and rhs.dtype.is_fp8()):
            assert lhs.dtype in supported, f"Unsupported lhs dtype {lhs.dtype}"
            assert rhs.dtype in supported, f"Unsupported rhs dtype {rhs.dtype}"
            assert lhs.dtype == rhs.dtype, \
                f"Both operands must be same dtype. Got {lhs.dtype} and {rhs.dtype}"
        if lhs.dtype.is_fp8e4b15() or rhs.dtype.is_fp8e4b15():
            if "fp8e4b15" in self._opt("deprecated_fp8_dot_operand_dtypes"):
                warnings.warn("the use of fp8e4b15 is deprecated on Hopper and later "
                              "architectures and can cause significant slow down. It will be "
                              "removed in a future triton release")
            lhs, rhs = self.cast(lhs, tl.float16), self.cast(rhs, tl.float16)
        if input_precision is None:
            input_precision = self._opt("default_dot_input_precision")
        precision = self._str_to_dot_input_precision(input_precision)

        lhs_rank, rhs_rank = len(lhs.shape), len(rhs.shape)
        assert lhs_rank == rhs_rank >= 2, \
            f"Both inputs must have the same rank, 2 or more; (lhs: {lhs.shape} vs rhs: {rhs.shape})"
        if lhs_rank > 3:
            return self._batched_dot(lhs, rhs, acc, input_precision, max_num_imprecise_acc,
                                     out_dtype)
        lshape, rshape = lhs.type.get_block_shapes(), rhs.type.get_block_shapes()
        assert lshape[-1] == rshape[-2], (
            f"First input shape ({lhs.shape}) and second input shape {rhs.shape} are not "
            f"compatible for matmul (second index of first shape ({lshape[-1]}) must be equal "
            f"to first index of second shape ({rshape[-2]})")
        min_m, min_n, min_k = self._opt("min_dot_size")(lhs.type, rhs.type)
        assert lshape[-2] >= min_m and lshape[-1] >= min_k and rshape[-1] >= min_n, \
            f"Input shapes should have M >= {min_m}, N >= {min_n} and K >= {min_k}"

        if lhs.type.scalar.is_int():
            assert lhs.type.scalar == tl.int8, "only int8 supported!"
            ret_sca, zero = tl.int32, 0
        elif out_dtype.is_bf16():
            raise ValueError("out_dtype=bfloat16 is unsupported. Please use "
                             "out_dtype=float32/float16 and cast with `.to(tl.bfloat16)`")
        elif lhs.type.scalar.is_fp32() or lhs.type.scalar.is_bf16():
            ret_sca, zero = tl.float32, 0.0
        elif lhs.type.scalar.is_fp64():
            ret_sca, zero = tl.float64, 0.0
        else:
            ret_sca, zero = out_dtype, 0.0
        M, N, K = lshape[-2], rshape[-1], lshape[-1]
        B = lshape[0] if lhs_rank == 3 else None
        ret_ty = tl.block_type(ret_sca, [B, M, N] if B else [M, N])
        if acc is None:
            acc = self.splat(self._constant(zero, ret_sca), ret_ty.get_block_shapes())
        else:
            assert acc.type.get_block_shapes() == ret_ty.get_block_shapes() and \
                acc.type.scalar == out_dtype, \
                f"acc of type {acc.type} does not match the dot result {ret_ty} / out_dtype {out_dtype}"
        both_fp8 = lhs.dtype.is_fp8() and rhs.dtype.is_fp8()
        if max_num_imprecise_acc is None:
            max_num_imprecise_acc = self._opt("max_num_imprecise_acc_default") if both_fp8 else 0
        elif both_fp8 and max_num_imprecise_acc > K:
            raise ValueError(f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K ({K})")
        attrs = {"inputPrecision": precision, "maxNumImpreciseAcc": int(max_num_imprecise_acc)}
        return self._emit("tt.dot", [lhs, rhs, acc], ret_ty, attrs)
