"""Shared-memory scratch each TTGIR op needs, and the data-movement geometry behind it.

`scratch_bytes(op)` is what the allocation pass reserves for an op (at `allocation.offset`);
the NVIDIA lowering computes its shared-memory addressing from the same functions here, so
the two always agree:

* `ttg.convert_layout` and the generic data movement of `tt.trans/reshape/join/split/cat`:
  `conversion_plan(src, dst, bits)` (convert.py's plan; a shuffle schedule that is not
  affine in the lane id falls back to shared memory) — bytes of its swizzled buffer;
* `tt.reduce` across warps: one partial per (output element, warp along the axis);
* `tt.scan` across warps: one block total per (block, warp along the axis);
* `tt.gather`: the whole source tensor; `tt.histogram`: the bins;
* scalar `tt.atomic_rmw/cas` whose result is used: one element (broadcast of the result);
* `tt.make_tensor_descriptor` marked `tt.tma`: the 128-byte tensor map it fills in before
  copying it out to global memory (128-byte aligned, `scratch_alignment`).

Every region starts 16-byte aligned; several operands are laid out one after another.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass
from math import prod
from typing import List, Sequence, Tuple

from ..ir import types as T
from .convert import ConversionPlan, SharedPlan, _cost, optimal_swizzling, plan_conversion
from .linear_layout import LinearLayout, gf2_rank

REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"

__all__ = ["scratch_bytes", "conversion_plan", "conversion_scratch_bytes", "elem_bytes",
           "reduce_geometry", "scan_geometry", "ReduceGeometry", "ScanGeometry",
           "shape_op_conversions", "align16", "layout_of", "scratch_alignment"]


def align16(n: int) -> int:
    return (n + 15) & ~15


def elem_bytes(t: T.Type) -> int:
    t = t.element_type if isinstance(t, T.TensorType) else t
    if isinstance(t, T.PointerType):
        return 8
    return max(1, t.bitwidth // 8)


def layout_of(t: T.Type) -> LinearLayout:
    return t.encoding.to_linear_layout(list(t.dims))


# ------------------------------------------------------------------ conversions
def _affine_in_lane(table: Sequence[int]) -> bool:
    base = table[0]
    for l, v in enumerate(table):
        x = base
        for i in range(5):
            if (l >> i) & 1:
                x ^= table[1 << i] ^ base
        if x != v:
            return False
    return True


def _plain_shared(src: LinearLayout, bits: int) -> SharedPlan:
    """A row-major, unswizzled, scalar scratch layout (always correct, maybe conflicted)."""
    outs = [(d, src.get_out_dim_size(d)) for d in src.out_dims]
    total = 1
    for _, n in outs:
        total *= n
    flat = LinearLayout({"vector": [], "bank": [[1 << i] for i in range(total.bit_length() - 1)],
                         "segment": [], "reps": []}, [("flat", total)])
    smem = flat.reshape_outs(outs)
    return SharedPlan(smem, 1, 1, 0, 0, bits)


def _usable(sp: SharedPlan) -> bool:
    try:
        sp.smem.invert()
        return True
    except ValueError:
        return False


@functools.lru_cache(maxsize=4096)
def conversion_plan(src: LinearLayout, dst: LinearLayout, bits: int) -> ConversionPlan:
    """convert.py's plan, with non-affine shuffle schedules moved to shared memory and a
    plain row-major scratch layout where the swizzled one is not a bijection. Memoised:
    layout-conversion removal costs the same pairs again and again, and the lowering and
    the shared-memory allocation ask for them once more (plans are frozen)."""
    plan = plan_conversion(src, dst, bits)
    if plan.kind == "shuffle":
        s = plan.shuffle
        ok = len(s.src_lane[0]) == 32 and all(
            _affine_in_lane(t) for tabs in (s.send_reg, s.src_lane, s.dst_reg) for t in tabs)
        if not ok:
            plan = ConversionPlan("shared", plan.cvt, shared=optimal_swizzling(src, dst, bits))
    if plan.kind == "shared" and not _usable(plan.shared):
        plan = ConversionPlan("shared", plan.cvt, shared=_plain_shared(src, bits))
    if plan.kind == "shared" and bits == 16 and plan.shared.vec_src < 8:
        view = stmatrix_view(src)
        if view is not None:
            sp = optimal_swizzling(view, dst, bits)
            if sp.vec_src == 8 and _usable(sp) and _cost(sp) < _cost(plan.shared) and \
                    _rows_in_order(view, sp):
                plan = ConversionPlan("shared", plan.cvt, shared=sp, stmatrix=True)
    return plan


def _rows_in_order(view: LinearLayout, sp: SharedPlan) -> bool:
    """stmatrix writes column c of a row from register bit 0 = c bit 0 and lane bits 0-1 =
    c bits 1-2: the view's first three register bits must be scratch offsets 1, 2, 4."""
    flat = view.compose(sp.smem.invert()).flatten_outs()
    return [b[0] for b in flat.bases[REG][:3]] == [1, 2, 4]


def stmatrix_view(src: LinearLayout):
    """`src` as `stmatrix.sync.aligned.m8n8.x4.b16` stores it, or None. The instruction
    stores register i (two 16-bit elements: register bit 0) of lane l at row l/4, columns
    2*(l%4)+{0,1} of matrix i, and lane 8i+r gives the address of row r of matrix i: it
    is a 16-byte vector store by a layout whose register bits are (register bit 0, lane
    bits 0 and 1), whose lane bits are (lane bits 2-4, register bits 1 and 2), the other
    register bits counting instructions. Where the smem plan of that layout stores
    8-element vectors, a tensor-core accumulator whose registers share no bits with the
    destination's beyond the first (8 warps along M, or 64-row tiles) is stored 16 bytes
    at a time instead of 4."""
    b = src.bases
    regs, lanes = b.get(REG, []), b.get(LANE, [])
    if len(regs) < 3 or len(lanes) != 5 or not all(any(v) for v in regs + lanes):
        return None
    b[REG] = [regs[0], lanes[0], lanes[1]] + regs[3:]
    b[LANE] = [lanes[2], lanes[3], lanes[4], regs[1], regs[2]]
    view = LinearLayout(b, [(d, src.get_out_dim_size(d)) for d in src.out_dims])
    # every register of the view a distinct element (the lowering stores each group whole)
    flat = [v[0] for v in view.flatten_outs().bases[REG]]
    return view if gf2_rank(flat) == len(flat) else None


def conversion_scratch_bytes(src: LinearLayout, dst: LinearLayout, bits: int) -> int:
    plan = conversion_plan(src, dst, bits)
    if plan.kind != "shared":
        return 0
    return align16(plan.shared.scratch_elems * max(1, bits // 8))


# ------------------------------------------------------------------ relabelled layouts
def _ll(bases, outs) -> LinearLayout:
    return LinearLayout(bases, outs)


def trans_layout(src: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """`src` seen through tt.trans: result dim i is source dim order[i]."""
    sizes = [src.get_out_dim_size(f"dim{d}") for d in range(len(order))]
    bases = {d: [[b[o] for o in order] for b in v] for d, v in src.bases.items()}
    return _ll(bases, [(f"dim{i}", sizes[o]) for i, o in enumerate(order)])


def reshape_layout(src: LinearLayout, new_shape: Sequence[int]) -> LinearLayout:
    """`src` seen through a row-major tt.reshape."""
    n = len(src.out_dims)
    rev = src.transpose_outs([f"dim{d}" for d in reversed(range(n))])
    m = len(new_shape)
    out = rev.reshape_outs([(f"dim{d}", int(new_shape[d])) for d in reversed(range(m))])
    return out.transpose_outs([f"dim{d}" for d in range(m)])


def join_layout(src: LinearLayout) -> LinearLayout:
    """Two tensors of layout `src` joined along a new minor dim (registers of b after a)."""
    n = len(src.out_dims)
    bases = {d: [list(b) + [0] for b in v] for d, v in src.bases.items()}
    bases[REG] = bases.get(REG, []) + [[0] * n + [1]]
    bases = {d: bases[d] for d in src.in_dims}
    outs = [(d, src.get_out_dim_size(d)) for d in src.out_dims] + [(f"dim{n}", 2)]
    return _ll(bases, outs)


def cat_layout(src: LinearLayout) -> LinearLayout:
    """Two tensors of layout `src` concatenated along dim0 (registers of b after a)."""
    s0 = src.get_out_dim_size("dim0")
    n = len(src.out_dims)
    bases = {d: [list(b) for b in v] for d, v in src.bases.items()}
    bases[REG] = bases.get(REG, []) + [[s0] + [0] * (n - 1)]
    bases = {d: bases[d] for d in src.in_dims}
    outs = [(d, src.get_out_dim_size(d) * (2 if d == "dim0" else 1)) for d in src.out_dims]
    return _ll(bases, outs)


def shape_op_conversions(op) -> List[Tuple[LinearLayout, LinearLayout, int]]:
    """(source layout relabelled to the result's coordinates, destination layout, bits) of
    the data movement a shape op performs."""
    name = op.name
    bits = elem_bytes(op.operands[0].type) * 8
    if name == "ttg.convert_layout":
        return [(layout_of(op.operands[0].type), layout_of(op.result.type), bits)]
    if name == "tt.trans":
        order = [int(x) for x in op.attr("order")]
        return [(trans_layout(layout_of(op.operands[0].type), order), layout_of(op.result.type), bits)]
    if name == "tt.reshape":
        rt = op.result.type
        return [(reshape_layout(layout_of(op.operands[0].type), rt.dims), layout_of(rt), bits)]
    if name == "tt.join":
        return [(join_layout(layout_of(op.operands[0].type)), layout_of(op.result.type), bits)]
    if name == "tt.cat":
        return [(cat_layout(layout_of(op.operands[0].type)), layout_of(op.result.type), bits)]
    if name == "tt.split":
        return [(layout_of(op.operands[0].type), join_layout(layout_of(op.results[0].type)), bits)]
    return []


# ------------------------------------------------------------------ reduce / scan geometry
def _classify(ll: LinearLayout, axis: int):
    """Per in-dim, per bit: 'free' (duplicate data), 'axis' (pure step along the axis) or
    'other'. Mixed bases are rejected (no blocked/slice layout has them)."""
    free = ll.free_variable_masks()
    cls = {}
    for dim in (REG, LANE, WARP):
        out = []
        for i, b in enumerate(ll.bases.get(dim, [])):
            if (free.get(dim, 0) >> i) & 1 or not any(b):
                out.append("free")
                continue
            a = b[axis]
            other = any(x for j, x in enumerate(b) if j != axis)
            if a and other:
                raise NotImplementedError("reduce/scan over a layout that mixes the axis "
                                          "with other dims in one basis")
            out.append("axis" if a else "other")
        cls[dim] = out
    return cls, free


@dataclass
class ReduceGeometry:
    ll: LinearLayout
    axis: int
    shape: Tuple[int, ...]
    reg_axis: List[int]
    lane_axis: List[int]
    warp_axis: List[int]
    reg_free: int
    numel_out: int

    @property
    def num_warp_parts(self) -> int:
        return 1 << len(self.warp_axis)

    def scratch_elems(self) -> int:
        return self.numel_out * self.num_warp_parts if self.warp_axis else 0


def reduce_geometry(ll: LinearLayout, axis: int, shape: Sequence[int]) -> ReduceGeometry:
    cls, free = _classify(ll, axis)
    pick = lambda d: [i for i, c in enumerate(cls[d]) if c == "axis"]
    numel_out = prod(shape) // shape[axis]
    return ReduceGeometry(ll, axis, tuple(shape), pick(REG), pick(LANE), pick(WARP),
                          free.get(REG, 0), numel_out)


@dataclass
class ScanStep:
    kind: str            # "reg" | "lane" | "warp"
    bits: List[int]      # in-dim bit positions, in increasing significance
    sigs: List[int]      # axis bit significances


@dataclass
class ScanGeometry:
    ll: LinearLayout
    axis: int
    shape: Tuple[int, ...]
    steps: List[ScanStep]
    reg_free: int

    def warp_scratch_elems(self, step: ScanStep) -> int:
        top = step.sigs[-1]
        return (prod(self.shape) >> (top + 1)) * (1 << len(step.bits))

    def scratch_elems(self) -> int:
        return max([self.warp_scratch_elems(s) for s in self.steps if s.kind == "warp"], default=0)


def scan_geometry(ll: LinearLayout, axis: int, shape: Sequence[int]) -> ScanGeometry:
    cls, free = _classify(ll, axis)
    sig_of = {}
    for dim in (REG, LANE, WARP):
        for i, c in enumerate(cls[dim]):
            if c != "axis":
                continue
            v = ll.bases[dim][i][axis]
            if v & (v - 1):
                raise NotImplementedError("scan over a layout whose axis bases are not powers of two")
            s = v.bit_length() - 1
            if s in sig_of:
                raise NotImplementedError("scan over a layout with repeated axis bases")
            sig_of[s] = (dim, i)
    n = shape[axis].bit_length() - 1
    if sorted(sig_of) != list(range(n)):
        raise NotImplementedError("scan layout does not cover the axis")
    kinds = {REG: "reg", LANE: "lane", WARP: "warp"}
    steps: List[ScanStep] = []
    for s in range(n):
        dim, bit = sig_of[s]
        k = kinds[dim]
        last = steps[-1] if steps else None
        if last is not None and last.kind == k and (
                k == "warp" or (k == "lane" and bit == last.bits[-1] + 1)
                or (k == "reg" and len(steps) == 1 and last.sigs[0] == 0)):
            last.bits.append(bit)
            last.sigs.append(s)
        else:
            steps.append(ScanStep(k, [bit], [s]))
    return ScanGeometry(ll, axis, tuple(shape), steps, free.get(REG, 0))


# ------------------------------------------------------------------ the allocator's entry
def scratch_alignment(op) -> int:
    """Alignment (bytes) of an op's scratch: 16, or 128 for a tensor map."""
    return 128 if op.name == "tt.make_tensor_descriptor" else 16


def scratch_bytes(op) -> int:
    """Shared-memory scratch (bytes) the NVIDIA lowering of `op` uses; 0 if none."""
    name = op.name
    try:
        if name in ("ttg.convert_layout", "tt.trans", "tt.reshape", "tt.join", "tt.cat",
                    "tt.split"):
            if not all(isinstance(v.type, T.TensorType) and v.type.encoding is not None
                       for v in list(op.operands) + list(op.results)):
                return 0
            return max([conversion_scratch_bytes(s, d, b) for s, d, b in shape_op_conversions(op)],
                       default=0)
        if name == "tt.reduce":
            t = op.operands[0].type
            if not isinstance(t, T.TensorType):
                return 0
            g = reduce_geometry(layout_of(t), int(op.attr("axis")), t.dims)
            n = g.scratch_elems()
            return sum(align16(n * elem_bytes(v.type)) for v in op.operands) if n else 0
        if name == "tt.scan":
            t = op.operands[0].type
            g = scan_geometry(layout_of(t), int(op.attr("axis")), t.dims)
            n = g.scratch_elems()
            return sum(align16(n * elem_bytes(v.type)) for v in op.operands) if n else 0
        if name == "tt.gather":
            t, it, rt = op.operands[0].type, op.operands[1].type, op.result.type
            staged = align16(t.numel * elem_bytes(t))
            moved = 0
            if it.encoding != rt.encoding:
                moved = conversion_scratch_bytes(layout_of(it), layout_of(rt), elem_bytes(t) * 8)
            return max(staged, moved)
        if name == "tt.histogram":
            return align16(op.result.type.numel * 4)
        if name == "tt.make_tensor_descriptor":
            return 128 if op.attr("tt.tma") else 0
        if name in ("tt.atomic_rmw", "tt.atomic_cas"):
            if not isinstance(op.operands[0].type, T.TensorType) and op.result.has_uses():
                return align16(elem_bytes(op.result.type))
            return 0
    except NotImplementedError:
        return 0
    return 0
