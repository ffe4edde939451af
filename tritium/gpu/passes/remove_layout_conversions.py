"""tritongpu-remove-layout-conversions: delete the `ttg.convert_layout`s the earlier
passes scattered, without breaking the layout contract.

Three steps, each keeping the IR legal:

1. Forward propagation. Loads and atomics are anchors: coalesce chose their layout for
   memory bandwidth. Their layouts flow to every user whose layout follows its operands
   (elementwise ops, broadcast, converts, expand_dims of a matching slice, reductions as
   slices, tt.trans/tt.reshape in the layout that makes them free, scf.for/if/while
   carried values). A value reached by several layouts keeps the first. Values are then retyped in place and the contract is restored by converting
   operands where needed (stores keep the layout coalesce gave them).
2. Folding: convert(convert(x)), converts to the same type, and converts of splats,
   make_ranges and constants (which are recreated in the wanted layout).
3. Backward rematerialization: a convert whose source is computed only by cheap ops
   (elementwise ops, broadcast, expand_dims, splat, make_range, constants, free
   trans/reshape) is replaced by
   a copy of that computation in the destination layout, when the copies that stay alive
   next to the originals cost no more than the conversion itself.
"""
from __future__ import annotations

from collections import deque
from typing import Deque, Dict, List, Optional, Tuple

from ...ir import types as T
from ...ir.attrs import DenseElementsAttr
from ...ir.core import BlockArgument, Operation, Value
from ...passes.dce import dce
from ...passes.manager import Pass, register_pass
from ...passes.pattern import is_effect_free
from ..layouts import SliceEncoding
from ..mma_layouts import DotOperandEncoding
from .layout_inference import infer_dst_layout, infer_src_layout
from .legality import (MEMORY_OPS, encoding_of, is_elementwise, legalize_op, retype,
                       with_encoding)

__all__ = ["RemoveLayoutConversions", "remove_layout_conversions", "count_converts"]

CVT = "ttg.convert_layout"
# Ops that only relabel coordinates when their operand takes the inferred layout.
_RELABEL = ("tt.trans", "tt.reshape")


def count_converts(root: Operation) -> int:
    return sum(1 for op in root.walk() if op.name == CVT)


# ---------------------------------------------------------------- 1. forward propagation
def _tensor(v: Value) -> bool:
    return isinstance(v.type, T.TensorType)


def _slot(v: Value) -> Value:
    """Values that must share one type are keyed by one of them: loop-carried block
    arguments by the loop result they become."""
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op
        if parent is not None and parent.name == "scf.for" and v.index >= 1:
            return parent.results[v.index - 1]
        if parent is not None and parent.name == "scf.while" and \
                v.block is parent.regions[1].entry:
            return parent.results[v.index]
    return v


def _tied(slot: Value) -> List[Value]:
    op = slot.owner_op
    if op is not None and op.name == "scf.for":
        return [slot, op.regions[0].entry.args[slot.index + 1]]
    if op is not None and op.name == "scf.while":
        return [slot, op.regions[1].entry.args[slot.index]]
    return [slot]


# Conversions into these layouts are what a dot needs: nothing flows through them.
_FIXED_DST = ("DotOperandEncoding", "NvidiaMmaEncoding")


def _forward_targets(user: Operation, index: int, enc,
                     threads: int) -> List[Tuple[Value, object]]:
    """Values whose layout follows when operand `index` of `user` takes layout `enc`."""
    name = user.name
    if name == "tt.load" and index == 0 and not _is_anchor(user, threads):
        return [(user.results[0], enc)]  # a tiny load reads in its address's layout
    if name in MEMORY_OPS or name == "tt.splat":
        return []
    if name == CVT and type(encoding_of(user.results[0])).__name__ in _FIXED_DST:
        return []
    if name in (CVT, "tt.broadcast", "tt.scan") or (is_elementwise(user) and not user.regions):
        return [(r, enc) for r in user.results if _tensor(r)]
    if name == "tt.expand_dims":
        if isinstance(enc, SliceEncoding) and enc.dim == user.attr("axis"):
            return [(user.results[0], enc.parent)]
        return []
    if name in _RELABEL:
        dst = infer_dst_layout(user, enc)
        return [] if dst is None else [(user.results[0], dst)]
    if name == "tt.reduce":
        return [(r, SliceEncoding(user.attr("axis"), enc)) for r in user.results
                if _tensor(r)]
    if name == "scf.for" and index >= 3:
        return [(user.results[index - 3], enc)]
    if name == "scf.while":
        return [(user.regions[0].entry.args[index], enc)]
    if name == "scf.yield":
        parent = user.parent_op
        if parent is None:
            return []
        if parent.name in ("scf.for", "scf.if"):
            return [(parent.results[index], enc)]
        if parent.name == "scf.while":
            return [(parent.regions[0].entry.args[index], enc)]
    if name == "scf.condition" and index >= 1:
        parent = user.parent_op
        return [(parent.results[index - 1], enc)]
    return []


def _threads(func: Operation) -> int:
    module = func.parent_op
    attr = module.attr if module is not None else (lambda _k, d: d)
    return int(attr("ttg.num-warps", 4)) * int(attr("ttg.threads-per-warp", 32))


def _is_anchor(op: Operation, threads: int) -> bool:
    """Loads and atomics whose layout coalesce chose for bandwidth. One with fewer elements
    than the block has threads is no anchor (as upstream's isExpensiveLoadOrStore): every
    thread reads the same few addresses, any layout does, and as an anchor a per-row
    scalar's layout (threads along the rows) would flow through its broadcast into the
    row-wide values and give each thread the whole row."""
    return op.name in ("tt.load", "tt.atomic_rmw", "tt.atomic_cas") and \
        any(_tensor(r) and r.type.numel >= threads for r in op.results)


_DOT_ANCHORS = ("tt.dot", "ttng.warp_group_dot")


def _carried_and_always_converted(cvt: Operation) -> bool:
    """`cvt` converts a loop-carried argument of the scf.for whose body holds it, and
    every use of that argument is a conversion to the same layout or an op that moves
    the value along (address arithmetic feeding the next iteration)."""
    src = cvt.operand(0)
    if not isinstance(src, BlockArgument) or src.index < 1:
        return False
    loop = src.block.parent_op
    if loop is None or loop.name != "scf.for" or cvt.parent is not src.block:
        return False
    want = encoding_of(cvt.results[0])
    for use in src.uses:
        o = use.owner
        if o.name == CVT:
            if encoding_of(o.results[0]) != want:
                return False
        elif not (is_elementwise(o) or o.name == "scf.yield"):
            return False
    return True


def propagate_layouts(func: Operation) -> int:
    """Step 1; returns how many values changed layout."""
    cands: Dict[Value, List[object]] = {}
    work: Deque[Tuple[Value, object]] = deque()

    def add(v: Value, enc) -> None:
        if enc is None or not _tensor(v):
            return
        slot = _slot(v)
        lst = cands.setdefault(slot, [])
        if enc in lst:
            return
        lst.append(enc)
        for t in _tied(slot):
            work.append((t, enc))

    # Seeds, strongest first (a value reached by several layouts keeps the first):
    # tensor-core accumulators, then loop-carried values that a loop converts before
    # every use (the loop carries them in the layout they are used in, and the one
    # conversion moves to the loop's init), then the memory anchors.
    for op in func.walk():
        if op.name in _DOT_ANCHORS and type(encoding_of(op.results[0])).__name__ == "NvidiaMmaEncoding":
            add(op.results[0], encoding_of(op.results[0]))
    for op in func.walk():
        if op.name == CVT and _carried_and_always_converted(op):
            add(op.operand(0), encoding_of(op.results[0]))
    threads = _threads(func)
    for op in func.walk():
        if _is_anchor(op, threads):
            for r in op.results:
                add(r, encoding_of(r))
    while work:
        v, enc = work.popleft()
        for use in list(v.uses):
            for target, e in _forward_targets(use.owner, use.index, enc, threads):
                add(target, e)

    # Memory ops keep the layout coalesce gave them, whatever their operands become.
    refs = {op: encoding_of(op.operand(0)) for op in func.walk()
            if op.name in MEMORY_OPS and op.operands and _tensor(op.operand(0))
            and (op.name != "tt.load" or _is_anchor(op, threads))}
    changed = 0
    for slot, encs in cands.items():
        for v in _tied(slot):
            if v.type.encoding != encs[0]:
                retype(v, encs[0])
                changed += 1
    if changed:
        for op in list(func.walk()):
            legalize_op(op, ref=refs.get(op))
    return changed


# ---------------------------------------------------------------- 2. folding
_LEAVES = ("tt.splat", "tt.make_range", "arith.constant")


def _recreate(op: Operation, enc) -> Value:
    """A copy of `op` producing layout `enc`, right after it (so a constant hoisted out of
    a loop stays hoisted, and CSE finds copies side by side)."""
    t = with_encoding(op.results[0].type, enc)
    attrs = dict(op.attributes)
    if isinstance(attrs.get("value"), DenseElementsAttr):
        attrs["value"] = DenseElementsAttr(attrs["value"].value, t)
    new = Operation(op.name, op.operands, [t], attrs, loc=op.loc)
    op.parent.insert_after(new, op)
    return new.results[0]


def _is_leaf(op: Optional[Operation]) -> bool:
    if op is None or op.name not in _LEAVES:
        return False
    return op.name != "arith.constant" or isinstance(op.attributes.get("value"),
                                                     DenseElementsAttr)


def fold_converts(func: Operation) -> int:
    folded = 0
    again = True
    while again:
        again = False
        for op in list(func.walk()):
            if op.name != CVT or op.parent is None:
                continue
            src, res = op.operand(0), op.results[0]
            d = src.owner_op
            if src.type == res.type:
                res.replace_all_uses_with(src)
            elif d is not None and d.name == CVT:
                op.set_operand(0, d.operand(0))
                if not d.has_uses():
                    d.erase()
                folded += 1
                again = True
                continue
            elif _is_leaf(d):
                res.replace_all_uses_with(_recreate(d, res.type.encoding))
            else:
                continue
            op.erase()
            if d is not None and d.parent is not None and not d.has_uses() and \
                    is_effect_free(d):
                d.erase()
            folded += 1
            again = True
    return folded


# ---------------------------------------------------------------- 3. rematerialization
_FREE = ("tt.splat", "tt.make_range", "arith.constant", "tt.broadcast", "tt.expand_dims", CVT,
         "tt.trans", "tt.reshape")


def _rematerializable(op: Operation) -> bool:
    if op.regions or len(op.results) != 1 or not _tensor(op.results[0]):
        return False
    if op.name in ("tt.broadcast", "tt.expand_dims") or _is_leaf(op):
        return True
    if op.name in _RELABEL:
        return not op.attr("allow_reorder", False)
    return is_elementwise(op) and op.name not in MEMORY_OPS and is_effect_free(op)


def _broadcast_load(op: Operation, threads: int) -> bool:
    """A load of a broadcast pointer tile with no more distinct addresses than the block
    has threads (Inductor's epilogue bias, `tl.load(bias + tl.broadcast_to(idx_n, [M, N]))`)
    is read again in the layout its user wants rather than converted: in a tensor-core
    accumulator layout each thread reads its own columns straight from L1 (the rows it
    holds share addresses, so the lowering issues one load per column pair), where
    converting the loaded tile goes through shared memory and two barriers. Upstream
    keeps such a load an anchor and converts it."""
    if op.name != "tt.load" or op.attr("isVolatile", False) or not _tensor(op.results[0]):
        return False
    if len(list(op.results[0].uses)) != 1:  # read by others too: it would be read twice
        return False
    p = op.operand(0).owner_op
    return p is not None and p.name == "tt.broadcast" and _tensor(p.operand(0)) and \
        p.operand(0).type.numel <= threads


def _widening(op: Operation) -> bool:
    """A cast to a wider element type (what upstream hoists a conversion above)."""
    if op.name in ("arith.extf", "arith.extsi", "arith.extui"):
        return True
    if op.name == "tt.fp_to_fp" and _tensor(op.operand(0)):
        src = getattr(op.operand(0).type.element, "bitwidth", 0)
        return 0 < src < getattr(op.results[0].type.element, "bitwidth", 0)
    return False


def _operand_layout(op: Operation, enc):
    """The layout operand(s) of `op` need for its result to have layout `enc`."""
    if op.name == "tt.expand_dims":
        return SliceEncoding(op.attr("axis"), enc)
    if op.name in _RELABEL:
        return infer_src_layout(op, enc)
    return enc


def _convert_cost(cvt: Operation) -> int:
    """Rough cost, per element, of the conversion (0 when it only renames registers)."""
    src, dst = cvt.operand(0).type, cvt.results[0].type
    try:
        from ..scratch import conversion_plan  # the lowering's choice of mechanism
    except ImportError:
        from ..convert import plan_conversion as conversion_plan
    try:
        bits = getattr(src.element, "bitwidth", 64 if T.is_ptr(src) else 32)
        plan = conversion_plan(src.encoding.to_linear_layout(list(src.dims)),
                               dst.encoding.to_linear_layout(list(dst.dims)), max(bits, 8))
        return {"none": 0, "register": 0, "shuffle": 4}.get(plan.kind, 8)
    except Exception:  # layouts the planner does not know: assume shared memory
        return 8


class Rematerializer:
    """Step 3. `cache` remembers copies already made, so two converts of one value (or of
    values sharing a subexpression) reuse one copy."""

    def __init__(self):
        self.cache: Dict[Tuple[Value, object], Value] = {}
        # per try_remove: elements of the convert being removed (what counts as tiny), and
        # the tiny values _collect decided to convert where they are made
        self.limit = 0
        self.leaves: List[Tuple[Value, object]] = []
        self.ext_leaf: Optional[Tuple[Value, object]] = None  # the one hoisted-above cast
        self.threads = 128  # of the function being rewritten (rematerialize sets it)

    def lookup(self, v: Value, enc) -> Optional[Value]:
        if not _tensor(v) or v.type.encoding == enc:
            return v
        hit = self.cache.get((v, enc))
        if hit is not None and (hit.owner_op is None or hit.owner_op.parent is not None):
            return hit
        d = v.owner_op
        if d is not None and d.name == CVT:
            return self.lookup(d.operand(0), enc)
        return None

    def _collect(self, v: Value, enc, plan, seen, passed) -> bool:
        key = (v, enc)
        if key in seen:
            return seen[key]
        made = key in self.cache and self.lookup(v, enc) is not None
        if not _tensor(v) or v.type.encoding == enc or made:
            seen[key] = True
            return True
        op = v.owner_op
        if op is not None and op.name == CVT:
            passed.append(op)
            ok = self._collect(op.operand(0), enc, plan, seen, passed)
            seen[key] = ok
            return ok
        if op is not None and self._hoist_below_ext(op, enc, plan, seen, passed):
            seen[key] = True
            return True
        if op is None or not (_rematerializable(op) or _broadcast_load(op, self.threads)):
            # A tiny value (a row's scalar that a broadcast widens) is converted where it
            # is made: moving its few elements is cheaper than converting what grew from it.
            ok = v.type.numel * 4 <= self.limit
            if ok:
                self.leaves.append((v, enc))
            seen[key] = ok
            return ok
        seen[key] = True
        want = _operand_layout(op, enc)
        if want is None:
            seen[key] = False
            return False
        for x in op.operands:
            if _tensor(x) and not self._collect(x, want, plan, seen, passed):
                seen[key] = False
                return False
        plan.append((op, enc))
        return True

    def _hoist_below_ext(self, op: Operation, enc, plan, seen, passed) -> bool:
        """Upstream's hoistConvertOnTopOfExtOrBroadcast: when what a widening cast (extf,
        extsi/extui, an upcasting fp_to_fp) reads cannot be recomputed (a load), convert
        that narrower value and recompute the cast, rather than converting the wide result
        (an fp16 bias tile converted before `extf` moves half the bytes through shared
        memory). One such cast per convert, or the convert would be duplicated; not into
        dot-operand layouts (attention's heuristic upstream)."""
        if not _widening(op) or self.ext_leaf is not None or \
                isinstance(enc, DotOperandEncoding):
            return False
        src = op.operand(0)
        want = _operand_layout(op, enc)
        if want is None or not _tensor(src):
            return False
        mark = (len(plan), len(self.leaves), len(passed), dict(seen))
        if self._collect(src, want, plan, seen, passed):
            plan.append((op, enc))
            return True
        # roll back what the failed attempt planned, then convert the cast's operand
        del plan[mark[0]:], self.leaves[mark[1]:], passed[mark[2]:]
        seen.clear()
        seen.update(mark[3])
        self.ext_leaf = (src, want)
        self.leaves.append((src, want))
        plan.append((op, enc))
        return True

    def _cost(self, cvt: Operation, plan, passed) -> int:
        """Cost of the copies that stay alive beside the originals (a tiny value's
        conversion counts as one op)."""
        planned = {id(op): op for op, _ in plan}
        planned.update({id(op): op for op in passed})
        dying = {id(cvt)}
        changed = True
        while changed:
            changed = False
            for op in planned.values():
                if id(op) in dying:
                    continue
                if all(id(u.owner) in dying for r in op.results for u in r.uses):
                    dying.add(id(op))
                    changed = True
        # a load left alive would be issued twice: as dear as the conversion itself
        return len(self.leaves) + sum(0 if op.name in _FREE else 8 if op.name == "tt.load"
                                      else 1 for op, _ in plan if id(op) not in dying)

    def _convert_leaf(self, v: Value, enc) -> None:
        d = v.owner_op
        new = Operation(CVT, [v], [with_encoding(v.type, enc)], {},
                        loc=d.loc if d is not None else None)
        if d is None:
            v.block.prepend(new)
        else:
            d.parent.insert_after(new, d)
        self.cache[(v, enc)] = new.results[0]

    def try_remove(self, cvt: Operation) -> bool:
        target = cvt.results[0].type.encoding
        if self.cache.get((cvt.operand(0), target)) is cvt.results[0]:
            return False  # a tiny value's conversion made here: it is the copy
        plan: List[Tuple[Operation, object]] = []
        passed: List[Operation] = []
        self.limit, self.leaves, self.ext_leaf = cvt.results[0].type.numel, [], None
        if not self._collect(cvt.operand(0), target, plan, {}, passed):
            return False
        cost = self._cost(cvt, plan, passed)
        if cost and cost > _convert_cost(cvt):
            return False
        for v, enc in self.leaves:  # before the copies that read them
            if self.lookup(v, enc) is None:
                self._convert_leaf(v, enc)
        for op, enc in plan:
            if self.lookup(op.results[0], enc) is not None:
                continue
            want = _operand_layout(op, enc)
            new = _recreate(op, enc).owner_op
            for i, x in enumerate(op.operands):
                if _tensor(x):
                    new.set_operand(i, self.lookup(x, want))
            self.cache[(op.results[0], enc)] = new.results[0]
        value = self.lookup(cvt.operand(0), target)
        cvt.results[0].replace_all_uses_with(value)
        cvt.erase()
        return True


def rematerialize(func: Operation, remat: Optional[Rematerializer] = None) -> int:
    remat = remat or Rematerializer()
    remat.threads = _threads(func)
    n = 0
    for op in list(func.walk()):
        if op.name == CVT and op.parent is not None and remat.try_remove(op):
            n += 1
    return n


# ---------------------------------------------------------------- the pass
def remove_layout_conversions(module: Operation, max_rounds: int = 8) -> Operation:
    for func in list(module.regions[0].entry):
        if func.name != "tt.func" or not func.regions or not func.regions[0].blocks:
            continue
        fold_converts(func)
        propagate_layouts(func)
        remat = Rematerializer()
        for _ in range(max_rounds):
            n = fold_converts(func) + rematerialize(func, remat)
            dce(func)
            if not n:
                break
    return module


@register_pass
class RemoveLayoutConversions(Pass):
    name = "tritongpu-remove-layout-conversions"
    aliases = ("remove-layout-conversions",)
    description = "propagate anchor layouts and rematerialize cheap values to delete converts"

    def run(self, module: Operation) -> None:
        remove_layout_conversions(module)
