"""loop-unroll: unroll scf.for loops that carry `tt.loop_unroll_factor = N`.

The loop becomes a main loop stepping N*step whose body holds N copies of the original
body (copy k sees iv + k*step), followed by the original loop as the remainder, started
where the main loop stopped and marked `tt.num_stages = 1` (upstream does not pipeline the
remainder). With constant bounds the split is computed here and an empty remainder is
dropped; otherwise the main loop's bound is lb + (ceildiv(ub - lb, step) / N) * N*step.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..ir.attrs import IntegerAttr
from ..ir.builder import Builder, normalize_int
from ..ir.core import Operation, Value
from ..ir.types import IntegerType
from .canonicalize import trip_count
from .manager import Pass, register_pass
from .pattern import splat_value

UNROLL_ATTR = "tt.loop_unroll_factor"
NUM_STAGES_ATTR = "tt.num_stages"


def unroll_for(loop: Operation, factor: int) -> Tuple[Optional[Operation], Optional[Operation]]:
    """Unroll `loop` by `factor`; returns (main loop, remainder loop), either may be None
    (a loop that cannot be split this way is left alone and returned as the remainder)."""
    loop.attributes.pop(UNROLL_ATTR, None)
    if factor <= 1:
        return None, loop
    lb, ub, step, *inits = loop.operands
    ity = lb.type
    if not isinstance(ity, IntegerType) or loop.attr("unsignedCmp", False):
        return None, loop
    w = ity.width
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc

    def const(v: int) -> Value:
        return b.constant(normalize_int(v, w), ity)

    tc = trip_count(loop)
    step_c = splat_value(step)
    if tc is not None:
        if tc <= 1:
            return None, loop
        factor = min(factor, tc)
        main_tc = tc // factor * factor
        lb_c = splat_value(lb)
        ub_main = const(lb_c + main_tc * step_c)
        new_step = const(step_c * factor)
        has_rest = main_tc != tc
    else:
        if step_c is not None and step_c <= 0:
            return None, loop
        cf = const(factor)
        span = b.create1("arith.subi", [ub, lb], ity)
        n = b.create1("arith.ceildivsi", [span, step], ity)
        chunks = b.create1("arith.divsi", [n, cf], ity)
        new_step = const(step_c * factor) if step_c is not None else \
            b.create1("arith.muli", [step, cf], ity)
        ub_main = b.create1("arith.addi", [lb, b.create1("arith.muli", [chunks, new_step],
                                                           ity)], ity)
        has_rest = True

    offsets = [None] + [const(k * step_c) if step_c is not None else
                        b.create1("arith.muli", [step, const(k)], ity) for k in range(1, factor)]

    main = b.create("scf.for", [lb, ub_main, new_step, *inits], loop.result_types,
                    dict(loop.attributes), num_regions=1)
    body = main.regions[0].add_block()
    iv = body.add_argument(ity)
    carried = [body.add_argument(t) for t in loop.result_types]
    old = loop.regions[0].entry
    term = old.last
    inner = Builder(body)
    for k in range(factor):
        inner.loc = loop.loc
        iv_k = iv if k == 0 else inner.create1("arith.addi", [iv, offsets[k]], ity)
        mapping: Dict[Value, Value] = {old.args[0]: iv_k}
        mapping.update(zip(old.args[1:], carried))
        for op in old:
            if op is term:
                break
            body.append(op.clone(mapping))
        carried = [mapping.get(v, v) for v in term.operands]
    body.append(Operation(term.name, carried, [], dict(term.attributes), loc=term.loc))

    if not has_rest:
        loop.replace_all_uses_with(main.results)
        loop.erase()
        return main, None
    loop.set_operand(0, ub_main)
    for i, r in enumerate(main.results):
        loop.set_operand(3 + i, r)
    loop.attributes[NUM_STAGES_ATTR] = IntegerAttr(1, IntegerType(32))
    return main, loop


def loop_unroll(module: Operation, default_factor: int = 1) -> int:
    """Unroll every annotated loop (and, when default_factor > 1, every other scf.for by
    that factor); returns how many loops were unrolled."""
    # Innermost first, so an unrolled outer body copies already-unrolled inner loops.
    loops = [op for op in module.walk(post_order=True) if op.name == "scf.for"]
    count = 0
    for loop in loops:
        factor = loop.attr(UNROLL_ATTR, default_factor)
        if UNROLL_ATTR not in loop.attributes and default_factor <= 1:
            continue
        main, _ = unroll_for(loop, int(factor))
        count += main is not None
    return count


@register_pass
class LoopUnroll(Pass):
    name = "loop-unroll"
    aliases = ("triton-loop-unroll",)
    description = "unroll scf.for loops annotated with tt.loop_unroll_factor"
    options = {
        "unroll-factor": (int, 1, "factor for loops without the attribute (1: leave them)"),
        "factor": (int, 1, "alias of unroll-factor"),
    }

    def run(self, module: Operation) -> None:
        loop_unroll(module, max(self.unroll_factor, self.factor))


__all__ = ["LoopUnroll", "loop_unroll", "unroll_for", "UNROLL_ATTR"]
