"""Program ids, structured control flow, calls, print and assert.

Uniform control flow (a condition or bounds with a leading axis of 1, or equal in every
program) runs once in the current env. Divergent control flow runs a region on the subset of
programs that take it, in a child env (outer values are gathered lazily); results are
scattered back. Loops whose trip counts differ iterate while any program is active and
retire programs as they finish, so inactive programs never run a body (nor its side effects).
"""
from __future__ import annotations

import sys

import numpy as np

from ...errors import DeviceAssertionError
from .dtypes import compute_dtype, format_scalar as _fmt
from .evaluator import broadcast_programs, call_function, register, run_block

_ZERO_I32 = np.zeros(1, np.int32)
_ZERO_I32.setflags(write=False)


def program_coords(prog: np.ndarray, grid):
    """(x, y, z) of linear program ids; x is the slowest axis, as upstream's interpreter
    iterates (for x: for y: for z), so program order is the same."""
    gx, gy, gz = grid
    return prog // (gy * gz), (prog // gz) % gy, prog % gz


@register("tt.get_program_id")
def _program_id(pc, op):
    axis = int(op.attr("axis"))

    def run(env):
        grid = env.ctx.grid
        if grid[axis] == 1:
            return _ZERO_I32
        return program_coords(env.prog, grid)[axis].astype(np.int32)
    return run


@register("tt.get_num_programs")
def _num_programs(pc, op):
    axis = int(op.attr("axis"))
    return lambda env: np.array([env.ctx.grid[axis]], np.int32)


def _ret(n, vals):
    if n == 1:
        return vals[0]
    return vals


def _merge(P, parts):
    """Scatter per-subset results [(positions, array), ...] into arrays of P programs."""
    first = next(a for _, a in parts)
    out = np.empty((P,) + first.shape[1:], first.dtype)
    for pos, a in parts:
        out[pos] = a
    return out


def _uniform_bool(c: np.ndarray):
    """True/False when every program agrees, else None."""
    if c.shape[0] == 1:
        return bool(c[0])
    if c.all():
        return True
    if not c.any():
        return False
    return None


@register("scf.if")
def _if(pc, op):
    then_bp = pc.block_plan(op.regions[0].entry)
    else_bp = pc.block_plan(op.regions[1].entry) if op.regions[1].blocks else None
    nres = len(op.results)

    def run(env, cond):
        u = _uniform_bool(cond)
        if u is not None:
            bp = then_bp if u else else_bp
            return _ret(nres, run_block(bp, env) if bp is not None else [])
        it = np.flatnonzero(cond)
        ie = np.flatnonzero(~cond)
        rt = run_block(then_bp, env.sub(it))
        re = run_block(else_bp, env.sub(ie)) if else_bp is not None else []
        return _ret(nres, [_merge(env.P, [(it, a), (ie, b)]) for a, b in zip(rt, re)])
    return run


@register("scf.for")
def _for(pc, op):
    body = pc.block_plan(op.regions[0].entry)
    iv_dt = compute_dtype(op.operand(0).type)
    nres = len(op.results)
    loc = op.loc

    def run(env, lb, ub, step, *inits):
        if lb.shape[0] == 1 and ub.shape[0] == 1 and step.shape[0] == 1 or (
                (lb == lb[0]).all() and (ub == ub[0]).all() and (step == step[0]).all()):
            lo, hi, st = int(lb[0]), int(ub[0]), int(step[0])
            if st <= 0 and lo < hi:
                raise ValueError(f"scf.for with step {st} at {loc.file}:{loc.line} never ends")
            carried = list(inits)
            for i in range(lo, hi, st):
                carried = run_block(body, env, [np.array([i], iv_dt)] + carried)
            return _ret(nres, carried)
        return _ret(nres, _divergent_for(env, body, iv_dt, lb, ub, step, list(inits), loc))
    return run


def _divergent_for(env, body, iv_dt, lb, ub, step, carried, loc):
    P = env.P
    lb, ub, st = [broadcast_programs(x, P).astype(np.int64) for x in (lb, ub, step)]
    if ((st <= 0) & (lb < ub)).any():
        raise ValueError(f"scf.for with a non-positive step at {loc.file}:{loc.line} never ends")
    trips = np.where(ub > lb, (ub - lb + st - 1) // np.maximum(st, 1), 0)
    pos = np.arange(P)               # positions (in env) of the active programs
    parts = [[] for _ in carried]    # finished programs' results: (positions, values)
    sub = env
    for k in range(int(trips.max())):
        active = trips > k
        if not active.all():
            done = ~active
            for j, c in enumerate(carried):
                parts[j].append((pos[done], c if c.shape[0] == 1 else c[done]))
            carried = [c if c.shape[0] == 1 else c[active] for c in carried]
            pos, trips, lb, st = pos[active], trips[active], lb[active], st[active]
            sub = env.sub(pos)
        iv = (lb + k * st).astype(iv_dt)
        carried = run_block(body, sub, [iv] + carried)
    if not any(parts):
        if len(pos) == P:
            return carried
    for j, c in enumerate(carried):
        parts[j].append((pos, c))
    return [_merge(P, p) for p in parts]


@register("scf.while")
def _while(pc, op):
    before = pc.block_plan(op.regions[0].entry)
    after = pc.block_plan(op.regions[1].entry)
    nres = len(op.results)

    def run(env, *inits):
        P = env.P
        carried = list(inits)
        pos = None                   # None: all programs of env active
        sub = env
        parts = [[] for _ in range(nres)]
        while True:
            cond, *fwd = run_block(before, sub, carried)
            u = _uniform_bool(cond)
            if u is False:
                break
            if u is None:
                keep = cond if cond.shape[0] != 1 else np.ones(1, bool)
                cur = np.arange(P) if pos is None else pos
                for j, f in enumerate(fwd):
                    parts[j].append((cur[~keep], f if f.shape[0] == 1 else f[~keep]))
                fwd = [f if f.shape[0] == 1 else f[keep] for f in fwd]
                pos = cur[keep]
                sub = env.sub(pos)
            carried = run_block(after, sub, fwd)
        if pos is None:
            return _ret(nres, fwd)
        for j, f in enumerate(fwd):
            parts[j].append((pos, f))
        return _ret(nres, [_merge(P, p) for p in parts])
    return run


@register("tt.call")
def _call(pc, op):
    callee = op.attr("callee")
    fp = pc.module_plan.plan(callee)
    pc.fplan.max_numel = max(pc.fplan.max_numel, fp.max_numel)
    pc.fplan.serial = pc.fplan.serial or fp.serial
    nres = len(op.results)

    def run(env, *args):
        return _ret(nres, call_function(fp, env, list(args)))
    return run


# ------------------------------------------------------------------ print / assert
@register("tt.print")
def _print(pc, op):
    prefix = op.attr("prefix", "")
    hexa = bool(op.attr("hex", False))
    signed = list(op.attr("isSigned", ()) or ())

    def run(env, *vals):
        P = env.P
        xs, ys, zs = program_coords(env.prog, env.ctx.grid)
        out = sys.stdout
        if not vals:
            for p in range(P):
                out.write(f"pid ({xs[p]}, {ys[p]}, {zs[p]}){prefix}\n")
            return None
        for p in range(P):
            for k, v in enumerate(vals):
                row = broadcast_programs(v, P)[p]
                tag = f"(operand {k}) " if len(vals) > 1 else ""
                sg = bool(signed[k]) if k < len(signed) else True
                for ix in np.ndindex(row.shape):
                    where = f" idx ({', '.join(str(i) for i in ix)})" if ix else ""
                    out.write(f"pid ({xs[p]}, {ys[p]}, {zs[p]}){where}{prefix}{tag}"
                              f"{_fmt(row[ix], hexa, sg)}\n")
        return None
    return run


@register("tt.assert")
def _assert(pc, op):
    msg = op.attr("message", "")
    loc = op.loc

    def run(env, cond):
        if cond.all():
            return None
        P = env.P
        c = broadcast_programs(cond, P).reshape(P, -1)
        bad_p = int(np.flatnonzero(~c.all(axis=1))[0])
        flat = int(np.flatnonzero(~c[bad_p])[0])
        shape = cond.shape[1:]
        ix = np.unravel_index(flat, shape) if shape else ()
        x, y, z = (int(a[bad_p]) for a in program_coords(env.prog, env.ctx.grid))
        where = f", index ({', '.join(str(int(i)) for i in ix)})" if shape else ""
        raise DeviceAssertionError(
            f"{loc.file}:{loc.line}: kernel '{env.ctx.kernel}': Assertion `{msg}` failed in "
            f"program ({x}, {y}, {z}){where}: device-side assert triggered")
    return run

