"""AxisInfo: what is known, per dimension, about the integers and pointers of a function.

For a value V (a scalar counts as rank 1, shape [1]) and each dimension d:

* contiguity C[d]: V splits along d into aligned groups of C elements (group starts at
  indices that are multiples of C) and inside a group V steps by +1 (pointers: by one
  element);
* divisibility D[d]: the largest power of two known to divide V at every group start
  (pointers: in bytes);
* constancy K[d]: V splits along d into aligned groups of K equal elements;
* constant: the value of every element, when known.

Coalescing reads the pointer's contiguity and divisibility (how wide a vector load may be)
and the mask's constancy (whether a whole vector is in or out); the LLVM lowering asks the
same questions through `get_ptr_contiguity` / `get_mask_alignment`.

The rules (axis_info_rules.py) follow upstream's AxisInfo.cpp, with a few made sound where
upstream is not: a divisibility is only carried to a coarser or finer grouping through
`AxisInfo.div_at`, comparisons and divisions by a constant reason per aligned block, and
`tt.load` takes its `other` operand into account. Like upstream, the division and
remainder rules assume non-negative index arithmetic, and overflow is ignored.

    info = AxisInfoAnalysis(func_op)
    info.get(value) -> AxisInfo
"""
from __future__ import annotations

from math import gcd
from typing import Dict, List, Optional, Sequence

from ..ir import types as T
from ..ir.core import Operation, Value
from .axis_info_rules import (KMAX, RULES, AxisInfo, elem_bytes, highest_pow2_divisor,
                              shape_of, with_hints)

__all__ = ["AxisInfo", "AxisInfoAnalysis", "KMAX", "highest_pow2_divisor", "module_axis_info",
           "contiguity_order", "elem_bytes"]


class AxisInfoAnalysis:
    """Forward dataflow over one `tt.func`: every integer/pointer value gets an AxisInfo;
    loops are iterated to a fixpoint (joins only descend, so this terminates)."""

    MAX_LOOP_ITERATIONS = 64

    def __init__(self, func_op: Operation):
        self.func = func_op
        self.info: Dict[Value, AxisInfo] = {}
        self._init_args()
        if func_op.regions and func_op.regions[0].blocks:
            self._visit_block(func_op.regions[0].entry)

    # -- queries
    def get(self, v: Value) -> AxisInfo:
        info = self.info.get(v)
        if info is None:
            info = AxisInfo.pessimistic(len(shape_of(v)))
        return info

    __getitem__ = get

    def order(self, v: Value) -> List[int]:
        """Dims fastest first: the layout's order when `v` has one, else by contiguity."""
        enc = getattr(v.type, "encoding", None)
        if enc is not None:
            try:
                from .layouts import get_order
                return list(get_order(enc))
            except (TypeError, AttributeError):
                pass
        return contiguity_order(self.get(v).contiguity)

    def get_ptr_alignment(self, ptr: Value) -> int:
        """Elements along the fastest dim that start at an address aligned to their whole
        run (upstream getAlignment): min(divisibility / element bytes, contiguity)."""
        if not isinstance(ptr.type, T.TensorType):
            return 1
        info = self.get(ptr)
        d = self.order(ptr)[0]
        multiple = info.divisibility[d]
        if T.is_ptr(ptr.type):  # pointers are measured in bytes
            multiple = max(1, multiple // elem_bytes(ptr.type))
        return max(1, min(multiple, info.contiguity[d], ptr.type.dims[d]))

    def get_ptr_contiguity(self, ptr: Value) -> int:
        """Elements one thread may access with one vector instruction: the alignment, cut
        to the run of consecutive elements the thread holds in its layout."""
        align = self.get_ptr_alignment(ptr)
        enc = getattr(ptr.type, "encoding", None)
        if enc is None:
            return align
        from .layouts import contig_per_thread
        try:
            contig = contig_per_thread(enc, ptr.type.dims)[self.order(ptr)[0]]
        except (TypeError, ValueError, AttributeError):
            return align
        return max(1, min(align, contig))

    def get_mask_alignment(self, mask: Optional[Value]) -> int:
        """Consecutive elements along the fastest dim that share their mask bit."""
        if mask is None or not isinstance(mask.type, T.TensorType):
            return KMAX if mask is None else 1
        return max(1, self.get(mask).constancy[self.order(mask)[0]])

    def get_mem_vector_width(self, op: Operation) -> int:
        """Vector width (elements) for a tt.load/tt.store/atomic: pointer contiguity,
        mask alignment and the 128-bit limit of one access."""
        ptr = op.operand(0)
        if not isinstance(ptr.type, T.TensorType):
            return 1
        vec = self.get_ptr_contiguity(ptr)
        mask_index = {"tt.load": 1, "tt.store": 2, "tt.atomic_rmw": 2}.get(op.name)
        if mask_index is not None and op.num_operands > mask_index:
            vec = min(vec, self.get_mask_alignment(op.operand(mask_index)))
        bits = elem_bytes(ptr.type) * 8
        return max(1, min(vec, 128 // bits))

    # -- propagation
    def _init_args(self) -> None:
        if not self.func.regions or not self.func.regions[0].blocks:
            return
        arg_attrs = self.func.attr("arg_attrs") or ()
        for i, a in enumerate(self.func.regions[0].entry.args):
            info = AxisInfo.pessimistic(len(shape_of(a)))
            if i < len(arg_attrs) and arg_attrs[i] is not None:
                d = arg_attrs[i]
                attrs = {k: v for k, v in (d.value if hasattr(d, "value") else ())}
                info = with_hints(info, attrs)
            self.info[a] = info

    def _set(self, v: Value, info: AxisInfo) -> None:
        self.info[v] = info

    def _visit_block(self, block) -> None:
        for op in block:
            self._visit_op(op)

    def _visit_op(self, op: Operation) -> None:
        special = getattr(self, "_visit_" + op.name.replace(".", "_"), None)
        if special is not None:
            special(op)
            return
        for region in op.regions:  # reduce/scan combiners: scalars, nothing known
            for block in region.blocks:
                for a in block.args:
                    self._set(a, AxisInfo.pessimistic(len(shape_of(a))))
                self._visit_block(block)
        if not op.results:
            return
        fn = RULES.get(op.name)
        shape = shape_of(op.results[0])
        info = None
        if fn is not None and len(op.results) == 1:
            info = fn(op, [self.get(v) for v in op.operands], shape)
        for r in op.results:
            res = info if info is not None and info.rank == len(shape_of(r)) else \
                AxisInfo.pessimistic(len(shape_of(r)))
            self._set(r, with_hints(res, op.attributes))

    def _join_all(self, values: Sequence[Value], infos: Sequence[AxisInfo],
                  news: Sequence[AxisInfo]) -> List[AxisInfo]:
        return [i.join(n, shape_of(v)) for v, i, n in zip(values, infos, news)]

    def _arg_hints(self, op: Operation, index: int, info: AxisInfo) -> AxisInfo:
        return with_hints(info, op.attributes, suffix=f"_arg{index}")

    def _visit_scf_for(self, op: Operation) -> None:
        lb, _ub, step, *inits = op.operands
        body = op.regions[0].entry
        iv = body.args[0]
        iv_div = gcd(self.get(lb).div_all((1,)), self.get(step).div_all((1,)))
        self._set(iv, self._arg_hints(op, 0, AxisInfo((1,), (iv_div,), (1,))))
        state = [self.get(v) for v in inits]
        for _ in range(self.MAX_LOOP_ITERATIONS):
            for i, (a, s) in enumerate(zip(body.args[1:], state)):
                self._set(a, self._arg_hints(op, i + 1, s))
            self._visit_block(body)
            yields = [self.get(v) for v in body.terminator.operands]
            new = self._join_all(body.args[1:], state, yields)
            if new == state:
                break
            state = new
        else:
            state = [AxisInfo.pessimistic(s.rank) for s in state]
            for i, (a, s) in enumerate(zip(body.args[1:], state)):
                self._set(a, self._arg_hints(op, i + 1, s))
            self._visit_block(body)
        for r, s in zip(op.results, state):
            self._set(r, s)

    def _visit_scf_if(self, op: Operation) -> None:
        yields = []
        for region in op.regions:
            if region.blocks:
                self._visit_block(region.entry)
                term = region.entry.terminator
                if term is not None and term.name == "scf.yield":
                    yields.append([self.get(v) for v in term.operands])
        for i, r in enumerate(op.results):
            infos = [y[i] for y in yields if i < len(y)]
            info = infos[0] if infos else AxisInfo.pessimistic(len(shape_of(r)))
            for other in infos[1:]:
                info = info.join(other, shape_of(r))
            self._set(r, with_hints(info, op.attributes))

    def _visit_scf_while(self, op: Operation) -> None:
        before, after = op.regions[0].entry, op.regions[1].entry
        state = [self.get(v) for v in op.operands]
        forwarded: List[AxisInfo] = []
        for it in range(self.MAX_LOOP_ITERATIONS + 1):
            if it == self.MAX_LOOP_ITERATIONS:
                state = [AxisInfo.pessimistic(s.rank) for s in state]
            for i, (a, s) in enumerate(zip(before.args, state)):
                self._set(a, self._arg_hints(op, i, s))
            self._visit_block(before)
            forwarded = [self.get(v) for v in before.terminator.operands[1:]]
            for a, f in zip(after.args, forwarded):
                self._set(a, f)
            self._visit_block(after)
            yields = [self.get(v) for v in after.terminator.operands]
            new = self._join_all(before.args, state, yields)
            if new == state or it == self.MAX_LOOP_ITERATIONS:
                break
            state = new
        for r, f in zip(op.results, forwarded):
            self._set(r, f)


def contiguity_order(contiguity: Sequence[int]) -> List[int]:
    """Dims by decreasing contiguity; ties keep the row-major default (last dim fastest)."""
    return sorted(reversed(range(len(contiguity))), key=lambda d: -contiguity[d])


def module_axis_info(module: Operation) -> Dict[str, AxisInfoAnalysis]:
    """One analysis per function of a module, keyed by function name."""
    out = {}
    for op in module.regions[0].entry:
        if op.name == "tt.func":
            out[op.attr("sym_name")] = AxisInfoAnalysis(op)
    return out
