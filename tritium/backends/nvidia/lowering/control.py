"""Structured control flow (scf.for / scf.if / scf.while) -> LLVM basic blocks and phis.

A tensor value is a list of LLVM registers, so every tensor block argument or result
becomes one phi per register. Conditions of scf ops are scalars, uniform across the CTA, so
barriers inside the branches stay legal.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from ....ir import types as T
from .context import FunctionContext, LLVal, LoweringError, lowers, ltype


def flat_types(ctx: FunctionContext, types: Sequence[T.Type]) -> List[str]:
    out = []
    for t in types:
        out += [ltype(t)] * ctx.num_regs(t) if isinstance(t, T.TensorType) else [ltype(t)]
    return out


def flatten(ctx: FunctionContext, vals: Sequence[LLVal]) -> List[str]:
    out = []
    for v in vals:
        out += v if isinstance(v, list) else [v]
    return out


def unflatten(ctx: FunctionContext, types: Sequence[T.Type], flat: Sequence[str]) -> List[LLVal]:
    out, i = [], 0
    for t in types:
        if isinstance(t, T.TensorType):
            n = ctx.num_regs(t)
            out.append(list(flat[i:i + n]))
            i += n
        else:
            out.append(flat[i])
            i += 1
    return out


def _phis(names: Sequence[str], tys: Sequence[str], incoming: Sequence[Tuple[Sequence[str], str]]) -> str:
    lines = []
    for j, (n, t) in enumerate(zip(names, tys)):
        srcs = ", ".join(f"[ {vals[j]}, %{lab} ]" for vals, lab in incoming)
        lines.append(f"  {n} = phi {t} {srcs}")
    return "\n".join(lines)


@lowers("scf.for")
def _for(ctx: FunctionContext, op) -> None:
    e = ctx.e
    lb, ub, step = (ctx.get(v) for v in op.operands[:3])
    ivt = ltype(op.operands[0].type)
    init_types = [v.type for v in op.operands[3:]]
    inits = flatten(ctx, [ctx.get(v) for v in op.operands[3:]])
    tys = flat_types(ctx, init_types)
    pre = e.block
    header, body, exit_ = e.new_label("for_hdr"), e.new_label("for_body"), e.new_label("for_exit")
    e.br(header)
    e.start_block(header)
    iv = e.fresh("iv")
    phs = [e.fresh("arg") for _ in tys]
    slot = e.placeholder()
    cond = e.icmp("slt", ivt, iv, ub)
    e.cond_br(cond, body, exit_)
    e.start_block(body)
    blk = op.regions[0].entry
    ctx.values[blk.args[0]] = iv
    for a, v in zip(blk.args[1:], unflatten(ctx, init_types, phs)):
        ctx.values[a] = v
    term = ctx.lower_block(blk)
    ys = flatten(ctx, [ctx.get(v) for v in term.operands]) if term is not None else []
    nxt = e.bin("add", ivt, iv, step)
    latch = e.block
    e.br(header, ctx.mod.loop_md(op))
    e.fill(slot, _phis([iv] + phs, [ivt] + tys, [([lb] + inits, pre), ([nxt] + ys, latch)]))
    e.start_block(exit_)
    for r, v in zip(op.results, unflatten(ctx, init_types, phs)):
        ctx.values[r] = v


@lowers("scf.if")
def _if(ctx: FunctionContext, op) -> None:
    e = ctx.e
    cond = ctx.get(op.operands[0])
    if isinstance(cond, list):
        raise LoweringError("scf.if on a tensor condition")
    rtypes = [r.type for r in op.results]
    tys = flat_types(ctx, rtypes)
    then_l, merge = e.new_label("if_then"), e.new_label("if_end")
    has_else = len(op.regions) > 1 and op.regions[1].blocks and \
        (len(op.regions[1].entry) > 0 or op.results)
    else_l = e.new_label("if_else") if has_else else merge
    e.cond_br(cond, then_l, else_l)
    incoming = []
    for label, region in ((then_l, op.regions[0]), (else_l, op.regions[1] if has_else else None)):
        if region is None:
            continue
        e.start_block(label)
        term = ctx.lower_block(region.entry)
        ys = flatten(ctx, [ctx.get(v) for v in term.operands]) if term is not None else []
        incoming.append((ys, e.block))
        e.br(merge)
    e.start_block(merge)
    if op.results:
        names = [e.fresh("if") for _ in tys]
        e.lines.append(_phis(names, tys, incoming))
        for r, v in zip(op.results, unflatten(ctx, rtypes, names)):
            ctx.values[r] = v


@lowers("scf.while")
def _while(ctx: FunctionContext, op) -> None:
    e = ctx.e
    init_types = [v.type for v in op.operands]
    inits = flatten(ctx, [ctx.get(v) for v in op.operands])
    tys = flat_types(ctx, init_types)
    pre = e.block
    before, after, exit_ = e.new_label("while_cond"), e.new_label("while_body"), e.new_label("while_end")
    e.br(before)
    e.start_block(before)
    phs = [e.fresh("w") for _ in tys]
    slot = e.placeholder()
    bblk = op.regions[0].entry
    for a, v in zip(bblk.args, unflatten(ctx, init_types, phs)):
        ctx.values[a] = v
    cterm = ctx.lower_block(bblk)
    if cterm is None or cterm.name != "scf.condition":
        raise LoweringError("scf.while: the before region must end in scf.condition")
    cond = ctx.get(cterm.operands[0])
    fwd = [ctx.get(v) for v in cterm.operands[1:]]
    e.cond_br(cond, after, exit_)
    e.start_block(after)
    ablk = op.regions[1].entry
    for a, v in zip(ablk.args, fwd):
        ctx.values[a] = v
    yterm = ctx.lower_block(ablk)
    ys = flatten(ctx, [ctx.get(v) for v in yterm.operands]) if yterm is not None else []
    latch = e.block
    e.br(before, ctx.mod.loop_md(op))
    e.fill(slot, _phis(phs, tys, [(inits, pre), (ys, latch)]))
    e.start_block(exit_)
    for r, v in zip(op.results, fwd):
        ctx.values[r] = v
