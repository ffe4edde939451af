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

Only loops whose inner bounds are invariant to the outer loop are fused (pure scalar
computations of them in the outer body are hoisted first); the version on `lenJ > 0` keeps
the fused body free of a guard (a zero-trip inner loop still runs each outer iteration's
prologue and epilogue, in the fallback). Prologue results used later are carried through
the fused loop; the inner loop's carried values restart from their inits at T == 0 (a
`select`; the pipeliner turns an accumulator reset into wgmma's scale-d). Everything else
is left alone. The pass is written on `scf`/`arith` only, so it runs on TTIR too (the CPU
tests run fused kernels through `knobs.runtime.add_stages_inspection_hook`).
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.attrs import i64_attr
from ...ir.builder import Builder
from ...ir.core import Operation, Value
from ...passes.manager import Pass, register_pass
from ...passes.pattern import is_effect_free

__all__ = ["FuseNestedLoops", "fuse_nested_loops", "fuse_loop_nest"]

_EQ, _SGT = 0, 4  # arith.cmpi predicates


def _inside(v: Value, op: Operation) -> bool:
    """`v` is defined in one of `op`'s regions."""
    p = v.parent_block.parent_op
    while p is not None:
        if p is op:
            return True
        p = p.parent_op
    return False


def _hoist_bounds(outer: Operation, values: List[Value]) -> bool:
    """Make `values` defined outside `outer`, moving pure scalar ops of the outer body that
    compute them (from values outside) before the loop. False (nothing moved) if they
    depend on the loop."""
    body = outer.regions[0].entry
    need: List[Operation] = []
    work = list(values)
    while work:
        v = work.pop()
        if not _inside(v, outer):
            continue
        op = v.owner_op
        if op is None or op.parent is not body or op.regions or not is_effect_free(op) \
                or any(isinstance(t, T.TensorType) for t in op.result_types):
            return False
        if op not in need:
            need.append(op)
            work.extend(op.operands)
    for op in [o for o in body if o in need]:
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


def fuse_loop_nest(outer: Operation) -> bool:
    """Fuse `outer` with the one `scf.for` directly in its body; False if it cannot."""
    body = outer.regions[0].entry
    inners = [op for op in body if op.name == "scf.for"]
    if len(inners) != 1:
        return False
    inner = inners[0]
    ity = body.args[0].type
    if not isinstance(ity, T.IntegerType) or inner.regions[0].entry.args[0].type != ity:
        return False
    if not _hoist_bounds(outer, list(inner.operands[:3])):
        return False
    _hoist_invariants(outer, inner)
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
    len_i = _trip_count(b, lbi, ubi, si)
    len_j = _trip_count(b, lbj, ubj, sj)
    version = _new_if(b, _cmp(b, _SGT, len_j, b.constant(0, ity)), outer.result_types)
    # else: the original nest; its inner loop runs no iteration, so its results are its inits
    fallback = outer.clone()
    fallback.attributes.pop("tt.flatten", None)
    version.regions[1].entry.append(fallback)
    fin = next(op for op in fallback.regions[0].entry if op.name == "scf.for")
    fin.replace_all_uses_with(fin.operands[3:])
    fin.erase()
    Builder(version.regions[1].entry).create("scf.yield", list(fallback.results), [])

    # then: the fused loop
    tb = Builder(version.regions[0].entry)
    tb.loc = outer.loc
    one, zero = tb.constant(1, ity), tb.constant(0, ity)
    last_t = tb.create1("arith.subi", [len_j, one], ity)
    total = tb.create1("arith.muli", [len_i, len_j], ity)
    i_init = tb.create1("arith.subi", [lbi, si], ity)
    outer_inits = list(outer.operands[3:])
    inits = [last_t, i_init] + zeros + in_zero + outer_inits
    fattrs = {**{k: v for k, v in outer.attributes.items() if k != "tt.flatten"},
              **inner.attributes}
    fused = tb.create("scf.for", [zero, total, one, *inits], [v.type for v in inits], fattrs,
                      num_regions=1)
    fb = fused.regions[0].add_block()
    fb.add_argument(ity)
    args = [fb.add_argument(v.type) for v in inits]
    t_prev, i_prev = args[0], args[1]
    pro_prev = args[2:2 + len(pro_outs)]
    in_prev = args[2 + len(pro_outs):2 + len(pro_outs) + n_in]
    out_args = args[2 + len(pro_outs) + n_in:]
    bb = Builder(fb)
    bb.loc = outer.loc
    wrap = _cmp(bb, _EQ, t_prev, last_t)
    t = bb.create1("arith.select", [wrap, zero, bb.create1("arith.addi", [t_prev, one], ity)], ity)
    first = _cmp(bb, _EQ, t, zero)
    i = bb.create1("arith.select", [first, bb.create1("arith.addi", [i_prev, si], ity), i_prev],
                   ity)
    j = bb.create1("arith.addi", [lbj, bb.create1("arith.muli", [t, sj], ity)], ity)
    # The outer loop's own values: its induction variable and carried arguments.
    body.args[0].replace_all_uses_with(i)
    for a, na in zip(body.args[1:], out_args):
        a.replace_all_uses_with(na)
    # prologue under T == 0
    pro_if = _new_if(bb, first, [r.type for r in pro_outs])
    for op in pro_ops:
        op.remove_from_parent()
        pro_if.regions[0].entry.append(op)
    Builder(pro_if.regions[0].entry).create("scf.yield", pro_outs, [])
    Builder(pro_if.regions[1].entry).create("scf.yield", list(pro_prev), [])
    for r, nr in zip(pro_outs, pro_if.results):
        r.replace_uses_if(nr, lambda use: not pro_if.is_ancestor_of(use.owner))
    # the inner body: its carried values restart at the tile's first iteration
    ibody.args[0].replace_all_uses_with(j)
    for a, init, prev in zip(ibody.args[1:], inner.operands[3:], in_prev):
        a.replace_all_uses_with(bb.create1("arith.select", [first, init, prev], a.type))
    iyield = ibody.last
    for op in list(ibody)[:-1]:
        op.remove_from_parent()
        fb.append(op)
    in_out = list(iyield.operands)
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
    bb.create("scf.yield", [t, i, *pro_if.results, *in_out, *epi_if.results], [])
    nfused = len(outer.results)
    Builder(version.regions[0].entry).create("scf.yield", list(fused.results[-nfused:]) if nfused
                                             else [], [])
    outer.replace_all_uses_with(list(version.results))
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
