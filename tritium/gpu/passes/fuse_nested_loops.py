"""tritongpu-fuse-nested-loops: flatten an outer `scf.for` marked `tt.flatten` (what
`tl.range(..., flatten=True)` records) and the one `scf.for` it holds into a single loop,
so the pipeliner can issue the next outer iteration's loads while this one's epilogue runs
(tutorial 09's persistent matmul: the next tile's TMA copies under this tile's store).

    for i in range(lbi, ubi, si):          lenJ = len(range(lbj, ubj, sj))
        prologue(i)                        if lenJ > 0:
        for j in range(lbj, ubj, sj):          for k in range(0, len(range(lbi..)) * lenJ):
            body(i, j)                             T = 0 if T == lenJ - 1 else T + 1
        epilogue(i)                                i = i + si if T == 0 else i
                                                   j = lbj + T * sj
                                                   pro = scf.if T == 0 {prologue(i)} else {pro}
                                                   args = select(T == 0, inits, args)
                                                   body(i, j)
                                                   scf.if T == lenJ - 1 {epilogue(i)}
                                           else:
                                               the outer loop, its inner loop gone (0 trips)

Inner bounds invariant to the outer loop (pure scalar computations of them in the outer
body are hoisted first) give the form above; the version on `lenJ > 0` keeps the fused
body free of a guard (a zero-trip inner loop still runs each outer iteration's prologue
and epilogue, in the fallback). Inner bounds that are pure scalar functions of the outer
index (triangular nests; upstream's FuseNestedLoops since PR 8132) are fused too: a loop
before the fused one sums each outer iteration's max(1, lenJ(i)), the prologue computes
the new i's bounds and last T (carried), and the body runs under `T < lenJ(i)` unless a
`tl.assume(ub > lb)` on the inner bounds says every inner loop runs. Bounds read from
memory or from carried values stay nested. Prologue results used later are carried through
the fused loop; the inner loop's carried values restart from their inits at T == 0 (a
`select`; the pipeliner turns an accumulator reset into wgmma's scale-d). Everything else
is left alone. The pass is written on `scf`/`arith` only, so it runs on TTIR too (the CPU
tests run fused kernels through `knobs.runtime.add_stages_inspection_hook`).
"""
from __future__ import annotations

from typing import List, Optional

from ...ir import types as T
from ...ir.attrs import i64_attr
from ...ir.builder import Builder
from ...ir.core import Operation, Value
from ...passes.manager import Pass, register_pass
from ...passes.pattern import is_effect_free

__all__ = ["FuseNestedLoops", "fuse_nested_loops", "fuse_loop_nest"]

_EQ, _SLT, _SGT = 0, 2, 4  # arith.cmpi predicates


def _inside(v: Value, op: Operation) -> bool:
    """`v` is defined in one of `op`'s regions."""
    p = v.parent_block.parent_op
    while p is not None:
        if p is op:
            return True
        p = p.parent_op
    return False


def _scalar_slice(outer: Operation, values: List[Value],
                  allow_iv: bool) -> Optional[List[Operation]]:
    """The pure scalar ops of `outer`'s body that compute `values` from values outside
    (and, if `allow_iv`, its induction variable), in body order; None if they read
    anything else (a carried value, a load, a tensor)."""
    body = outer.regions[0].entry
    iv = body.args[0]
    need: List[Operation] = []
    work = list(values)
    while work:
        v = work.pop()
        if (allow_iv and v is iv) or not _inside(v, outer):
            continue
        op = v.owner_op
        if op is None or op.parent is not body or op.regions or not is_effect_free(op) \
                or any(isinstance(t, T.TensorType) for t in op.result_types):
            return None
        if op not in need:
            need.append(op)
            work.extend(op.operands)
    return [o for o in body if o in need]


def _hoist_bounds(outer: Operation, values: List[Value]) -> bool:
    """Make `values` defined outside `outer`, moving pure scalar ops of the outer body that
    compute them (from values outside) before the loop. False (nothing moved) if they
    depend on the loop."""
    ops = _scalar_slice(outer, values, allow_iv=False)
    if ops is None:
        return False
    for op in ops:
        op.move_before(outer)
    return True


def _hoist_invariants(outer: Operation, inner: Operation) -> None:
    """Move pure prologue ops that read nothing of the loop before it: a value fixed across
    the nest need not be carried through the fused loop."""
    for op in list(outer.regions[0].entry):
        if op is inner:
            return
        if not op.regions and is_effect_free(op) and \
                not any(_inside(v, outer) for v in op.operands):
            op.move_before(outer)


def _poison(b: Builder, t: T.Type) -> Value:
    """A value of type `t` that is overwritten before it is read (ub.poison: zeros when
    lowered, and no constraint for AxisInfo, so the loads stay vectorised)."""
    return b.create1("ub.poison", [], t)


def _trip_count(b: Builder, lb: Value, ub: Value, step: Value) -> Value:
    ty = lb.type
    d = b.create1("arith.subi", [ub, lb], ty)
    n = b.create1("arith.ceildivsi", [d, step], ty)
    return b.create1("arith.maxsi", [n, b.constant(0, ty)], ty)


def _cmp(b: Builder, pred: int, x: Value, y: Value) -> Value:
    return b.create1("arith.cmpi", [x, y], T.IntegerType(1), {"predicate": i64_attr(pred)})


def _new_if(b: Builder, cond: Value, types) -> Operation:
    op = b.create("scf.if", [cond], list(types), {}, num_regions=2)
    op.regions[0].add_block()
    op.regions[1].add_block()
    return op


def _assumed_nonempty(outer: Operation, inner: Operation) -> bool:
    """`tl.assume(ub > lb)` on the inner loop's own bounds, with a positive constant step,
    in the outer body: every inner loop runs at least once (upstream's pattern match)."""
    lb, ub, step = inner.operands[:3]
    c = step.owner_op
    if c is None or c.name != "arith.constant" or int(c.attr("value")) <= 0:
        return False
    for op in outer.regions[0].entry:
        if op.name not in ("tt.assume", "llvm.intr.assume"):
            continue
        cmp = op.operand(0).owner_op
        if cmp is None or cmp.name != "arith.cmpi":
            continue
        pred, (x, y) = int(cmp.attr("predicate")), cmp.operands
        if (pred == _SGT and (x, y) == (ub, lb)) or (pred == _SLT and (x, y) == (lb, ub)):
            return True
    return False


def _len(b: Builder, lb: Value, ub: Value, step: Value) -> Value:
    """max(1, len(range(lb, ub, step))): the fused iterations one outer iteration takes (a
    zero-trip inner loop still runs its prologue and epilogue in one)."""
    return b.create1("arith.maxsi", [_trip_count(b, lb, ub, step), b.constant(1, lb.type)],
                     lb.type)


def _dependent_total(b: Builder, outer: Operation, inner: Operation,
                     bound_ops: List[Operation]) -> Value:
    """sum over the outer iterations of max(1, len_j(i)): a loop running the bounds'
    slice, before the fused loop (upstream's FuseNestedLoops for dependent bounds)."""
    ity = outer.regions[0].entry.args[0].type
    zero = b.constant(0, ity)
    loop = b.create("scf.for", [*outer.operands[:3], zero], [ity], {}, num_regions=1)
    blk = loop.regions[0].add_block()
    i, acc = blk.add_argument(ity), blk.add_argument(ity)
    lb_ = Builder(blk)
    lb_.loc = outer.loc
    mapping = {outer.regions[0].entry.args[0]: i}
    for op in bound_ops:
        lb_.insert(op.clone(mapping))
    lbj, ubj, sj = (mapping.get(v, v) for v in inner.operands[:3])
    n = _len(lb_, lbj, ubj, sj)
    lb_.create("scf.yield", [lb_.create1("arith.addi", [acc, n], ity)], [])
    return loop.results[0]


def fuse_loop_nest(outer: Operation) -> bool:
    """Fuse `outer` with the one `scf.for` directly in its body; False if it cannot.
    Inner bounds invariant to the outer loop give len(i) * len(j) iterations, versioned on
    len(j) > 0; bounds computed from the outer induction variable (a triangular nest) give
    the sum of each outer iteration's max(1, len(j)), counted by a loop before the fused
    one, each outer iteration's inner bounds computed in its prologue, and the inner body
    under `T < len(j)` unless `tl.assume(ub > lb)` says it always runs."""
    body = outer.regions[0].entry
    inners = [op for op in body if op.name == "scf.for"]
    if len(inners) != 1:
        return False
    inner = inners[0]
    ity = body.args[0].type
    if not isinstance(ity, T.IntegerType) or inner.regions[0].entry.args[0].type != ity:
        return False
    dependent = not _hoist_bounds(outer, list(inner.operands[:3]))
    if dependent and _scalar_slice(outer, list(inner.operands[:3]), allow_iv=True) is None:
        return False
    _hoist_invariants(outer, inner)
    bound_ops = _scalar_slice(outer, list(inner.operands[:3]), allow_iv=True) if dependent else []
    guarded = dependent and not _assumed_nonempty(outer, inner)
    ops = list(body)
    k = ops.index(inner)
    pro_ops, epi_ops, oyield = ops[:k], ops[k + 1:-1], ops[-1]
    pro_set = set(pro_ops)
    # prologue results read outside the prologue: carried through the fused loop
    pro_outs = [r for op in pro_ops for r in op.results
                if any(not _within_ops(u.owner, pro_set) for u in r.uses)]
    b = Builder()
    b.set_insertion_point_before(outer)
    b.loc = outer.loc
    zeros = [_poison(b, r.type) for r in pro_outs]
    ibody = inner.regions[0].entry
    n_in = len(inner.results)
    in_zero = [v if not _inside(v, outer) else _poison(b, v.type) for v in inner.operands[3:]]

    lbi, ubi, si = outer.operands[:3]
    lbj, ubj, sj = inner.operands[:3]
    if dependent:
        # no version: the fused loop goes where the nest was
        tb = b
        total = _dependent_total(b, outer, inner, bound_ops)
    else:
        len_i = _trip_count(b, lbi, ubi, si)
        len_j = _trip_count(b, lbj, ubj, sj)
        version = _new_if(b, _cmp(b, _SGT, len_j, b.constant(0, ity)), outer.result_types)
        # else: the original nest; its inner loop runs no iteration, so its results are its
        # inits
        fallback = outer.clone()
        fallback.attributes.pop("tt.flatten", None)
        version.regions[1].entry.append(fallback)
        fin = next(op for op in fallback.regions[0].entry if op.name == "scf.for")
        fin.replace_all_uses_with(fin.operands[3:])
        fin.erase()
        Builder(version.regions[1].entry).create("scf.yield", list(fallback.results), [])
        tb = Builder(version.regions[0].entry)
        tb.loc = outer.loc
    one, zero = tb.constant(1, ity), tb.constant(0, ity)
    if dependent:
        # T and the previous outer iteration's last T start equal: the first iteration wraps
        last_t = zero
        extra = [zero, zero, zero, zero]  # last T, lb(j), step(j), len(j) of the current i
    else:
        last_t = tb.create1("arith.subi", [len_j, one], ity)
        total = tb.create1("arith.muli", [len_i, len_j], ity)
        extra = []
    i_init = tb.create1("arith.subi", [lbi, si], ity)
    outer_inits = list(outer.operands[3:])
    inits = [last_t, i_init] + extra + zeros + in_zero + outer_inits
    fattrs = {**{k: v for k, v in outer.attributes.items() if k != "tt.flatten"},
              **inner.attributes}
    fused = tb.create("scf.for", [zero, total, one, *inits], [v.type for v in inits], fattrs,
                      num_regions=1)
    fb = fused.regions[0].add_block()
    fb.add_argument(ity)
    args = [fb.add_argument(v.type) for v in inits]
    t_prev, i_prev = args[0], args[1]
    dep_prev, args = args[2:2 + len(extra)], args[:2] + args[2 + len(extra):]
    pro_prev = args[2:2 + len(pro_outs)]
    in_prev = args[2 + len(pro_outs):2 + len(pro_outs) + n_in]
    out_args = args[2 + len(pro_outs) + n_in:]
    bb = Builder(fb)
    bb.loc = outer.loc
    wrap = _cmp(bb, _EQ, t_prev, dep_prev[0] if dependent else last_t)
    t = bb.create1("arith.select", [wrap, zero, bb.create1("arith.addi", [t_prev, one], ity)], ity)
    first = _cmp(bb, _EQ, t, zero)
    i = bb.create1("arith.select", [first, bb.create1("arith.addi", [i_prev, si], ity), i_prev],
                   ity)
    if not dependent:
        j = bb.create1("arith.addi", [lbj, bb.create1("arith.muli", [t, sj], ity)], ity)
    # The outer loop's own values: its induction variable and carried arguments.
    body.args[0].replace_all_uses_with(i)
    for a, na in zip(body.args[1:], out_args):
        a.replace_all_uses_with(na)
    # prologue under T == 0 (with a dependent inner loop: also its bounds for this i)
    dep_types = [ity] * len(extra)
    pro_if = _new_if(bb, first, [r.type for r in pro_outs] + dep_types)
    for op in pro_ops:
        op.remove_from_parent()
        pro_if.regions[0].entry.append(op)
    pb = Builder(pro_if.regions[0].entry)
    pb.loc = outer.loc
    dep_now = []
    if dependent:
        lbj, ubj, sj = inner.operands[:3]  # the outer induction variable now reads `i`
        n_j = _trip_count(pb, lbj, ubj, sj)
        last = pb.create1("arith.subi", [pb.create1("arith.maxsi", [n_j, pb.constant(1, ity)],
                                                      ity), pb.constant(1, ity)], ity)
        dep_now = [last, lbj, sj, n_j]
    pb.create("scf.yield", pro_outs + dep_now, [])
    Builder(pro_if.regions[1].entry).create("scf.yield", list(pro_prev) + list(dep_prev), [])
    for r, nr in zip(pro_outs, pro_if.results):
        r.replace_uses_if(nr, lambda use: not pro_if.is_ancestor_of(use.owner))
    dep_cur = pro_if.results[len(pro_outs):]
    if dependent:
        last_t = dep_cur[0]
        j = bb.create1("arith.addi", [dep_cur[1], bb.create1("arith.muli", [t, dep_cur[2]],
                                                             ity)], ity)
    # the inner body: its carried values restart at the tile's first iteration
    ibody.args[0].replace_all_uses_with(j)
    restarted = []
    for a, init, prev in zip(ibody.args[1:], inner.operands[3:], in_prev):
        v = bb.create1("arith.select", [first, init, prev], a.type)
        a.replace_all_uses_with(v)
        restarted.append(v)
    iyield = ibody.last
    dest = fb
    if guarded:
        # a zero-trip inner loop still takes one fused iteration (its prologue and
        # epilogue): the body runs only while T < len(j)
        g = _new_if(bb, _cmp(bb, _SLT, t, dep_cur[3]), inner.result_types)
        dest = g.regions[0].entry
        Builder(g.regions[1].entry).create("scf.yield", restarted, [])
    for op in list(ibody)[:-1]:
        op.remove_from_parent()
        dest.append(op)
    in_out = list(iyield.operands)
    if guarded:
        Builder(dest).create("scf.yield", in_out, [])
        in_out = list(g.results)
    inner.replace_all_uses_with(in_out)
    # epilogue under T == lenJ - 1
    bb = Builder(fb)
    bb.loc = outer.loc
    epi_if = _new_if(bb, _cmp(bb, _EQ, t, last_t), outer.result_types)
    for op in epi_ops:
        op.remove_from_parent()
        epi_if.regions[0].entry.append(op)
    Builder(epi_if.regions[0].entry).create("scf.yield", list(oyield.operands), [])
    Builder(epi_if.regions[1].entry).create("scf.yield", list(out_args), [])
    carried = [t, i, *dep_cur, *pro_if.results[:len(pro_outs)], *in_out, *epi_if.results]
    bb.create("scf.yield", carried, [])
    nfused = len(outer.results)
    results = list(fused.results[-nfused:]) if nfused else []
    if not dependent:
        Builder(version.regions[0].entry).create("scf.yield", results, [])
        results = list(version.results)
    outer.replace_all_uses_with(results)
    inner.erase()
    outer.erase()
    return True


def _within_ops(op: Operation, ops) -> bool:
    while op is not None:
        if op in ops:
            return True
        op = op.parent_op
    return False


def _stages(loop: Operation, default: int) -> int:
    return int(loop.attr("tt.num_stages", default) or default)


def fuse_nested_loops(module: Operation, num_stages: int = 3) -> int:
    """Fuse every loop nest whose outer loop is marked `tt.flatten`; the number fused. A
    nest that will not be pipelined (1 stage) is left nested: fused, it would only pay the
    fused loop's bookkeeping, with no loads to overlap with the epilogue."""
    n = 0
    for loop in [op for op in module.walk() if op.name == "scf.for" and "tt.flatten" in op.attributes]:
        inner = [op for op in loop.regions[0].entry if op.name == "scf.for"]
        stages = _stages(inner[0], _stages(loop, num_stages)) if len(inner) == 1 else 0
        if stages > 1:
            n += fuse_loop_nest(loop)
    return n


@register_pass
class FuseNestedLoops(Pass):
    name = "tritongpu-fuse-nested-loops"
    aliases = ("fuse-nested-loops",)
    description = "flatten a tt.flatten loop and its inner loop into one loop"
    options = {"num-stages": (int, 3, "pipeline depth (a 1-stage nest is not fused)")}

    def run(self, module: Operation) -> None:
        fuse_nested_loops(module, self.num_stages)
