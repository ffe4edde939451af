"""`tt.map_elementwise` (`tl.map_elementwise`): a scalar region applied per element.

Every element (or group of `pack` consecutive elements, in row-major order) of every
program becomes a program of a child env, so the region's scalar control flow diverges per
element with the evaluator's usual machinery (`scf.if` on a subset, loops retiring
elements as they finish), still one numpy evaluation per op for all elements at once.
Values the region reads from outside are per-program; the child env repeats them for the
program's elements.
"""
from __future__ import annotations

import numpy as np

from .evaluator import Env, broadcast_programs, register, run_block


@register("tt.map_elementwise")
def _map_elementwise(pc, op):
    bp = pc.block_plan(op.regions[0].entry)
    pack = int(op.attr("pack", 1) or 1)
    shape = tuple(op.results[0].type.shape)
    numel = int(np.prod(shape)) if shape else 1
    if numel % pack:
        raise ValueError(f"map_elementwise: pack={pack} does not divide the {numel} elements "
                         f"(at {op.loc.file}:{op.loc.line})")
    groups = numel // pack
    nres = len(op.results)

    def run(env, *xs):
        P = env.P
        # element group g of program p is program p*groups+g of the child env
        sub = Env(len(env.vals), np.repeat(env.prog, groups), env.ctx, env,
                  np.repeat(np.arange(P), groups))
        args = []
        for x in xs:
            cols = broadcast_programs(x, P).reshape(P * groups, pack)
            args += [cols[:, j] for j in range(pack)]
        outs = run_block(bp, sub, args)
        res = []
        for k in range(nres):
            parts = [broadcast_programs(o, P * groups) for o in outs[k * pack:(k + 1) * pack]]
            res.append(np.stack(parts, axis=-1).reshape((P,) + shape))
        return res[0] if nres == 1 else res
    return run
