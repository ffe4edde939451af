"""Evaluate a `tt.func` once for all programs of a grid at the same time.

Every SSA value is a numpy array whose leading axis indexes programs: `(P, *shape)`, or
`(1, *shape)` when it is the same in every program (constants, scalar arguments, anything
computed only from those), which numpy broadcasting then spreads for free.

A function is compiled once into a *plan*: per block, a list of steps
`(handler, operand slots, result slots, op)`, where each handler was specialised to its op
(dtypes, predicates, attributes resolved) by a factory registered for the op name. Running a
block is then a tight loop with no name dispatch. Values live in a flat list indexed by slot.

Divergent control flow runs a region on a subset of programs in a child `Env` whose values
from outer scopes are gathered for the subset lazily, on first use.
"""
from __future__ import annotations

import weakref
from typing import Callable, Dict, List, Optional

import numpy as np

from tritium.ir.core import Block, Operation, Value
from tritium.ir import types as T

from .waits import waits_on_others

Handler = Callable[..., object]
FACTORIES: Dict[str, Callable[["PlanContext", Operation], Handler]] = {}

TERMINATORS = {"scf.yield", "scf.condition", "tt.return", "tt.reduce.return",
               "tt.map_elementwise.return",
               "tt.scan.return"}


def register(*names: str):
    """Decorator: `factory(pc, op) -> handler(env, *operand_arrays) -> result(s)`."""
    def deco(factory):
        for n in names:
            FACTORIES[n] = factory
        return factory
    return deco


class LaunchContext:
    """What every handler of one launch may need: memory, grid, output, the kernel name."""

    def __init__(self, memory, grid, kernel: str, module_plan: "ModulePlan"):
        self.memory = memory
        self.grid = tuple(int(g) for g in grid)
        self.kernel = kernel
        self.module_plan = module_plan


class Env:
    """Values of one set of programs. `prog` are their linear program ids (sorted); `idx`
    maps this env's programs to positions in `parent`'s."""

    __slots__ = ("vals", "parent", "idx", "prog", "ctx")

    def __init__(self, nslots: int, prog: np.ndarray, ctx: LaunchContext,
                 parent: Optional["Env"] = None, idx: Optional[np.ndarray] = None):
        self.vals: List[Optional[np.ndarray]] = [None] * nslots
        self.prog = prog
        self.ctx = ctx
        self.parent = parent
        self.idx = idx

    @property
    def P(self) -> int:
        return len(self.prog)

    def fetch(self, slot: int) -> np.ndarray:
        p = self.parent
        if p is None:
            raise RuntimeError(f"CPU backend: value in slot {slot} used before it was defined")
        v = p.vals[slot]
        if v is None:
            v = p.fetch(slot)
        if self.idx is not None and v.shape[0] != 1:
            v = v[self.idx]
        self.vals[slot] = v
        return v

    def sub(self, idx: np.ndarray) -> "Env":
        """A child env for the programs at positions `idx` of this one."""
        return Env(len(self.vals), self.prog[idx], self.ctx, self, idx)


# ------------------------------------------------------------------ plans
class BlockPlan:
    __slots__ = ("steps", "args", "term", "block")

    def __init__(self, block: Block):
        self.block = block
        self.steps: list = []
        self.args: List[int] = []
        self.term: List[int] = []


class FuncPlan:
    def __init__(self, func: Operation):
        self.func = func
        self.name = func.attr("sym_name")
        self.nslots = 0
        self.entry: Optional[BlockPlan] = None
        self.max_numel = 1
        self.serial = False         # programs must run one at a time (see waits.py)


class PlanContext:
    """Builds the plan of one function; handler factories call back into it for regions."""

    def __init__(self, module_plan: "ModulePlan", fplan: FuncPlan):
        self.module_plan = module_plan
        self.fplan = fplan
        self.slots: Dict[Value, int] = {}

    @property
    def kernel(self) -> str:
        return self.fplan.name

    def slot(self, v: Value) -> int:
        s = self.slots.get(v)
        if s is None:
            s = self.slots[v] = len(self.slots)
            t = v.type
            if isinstance(t, T.TensorType):
                self.fplan.max_numel = max(self.fplan.max_numel, t.numel)
        return s

    def block_plan(self, block: Block) -> BlockPlan:
        bp = BlockPlan(block)
        bp.args = [self.slot(a) for a in block.args]
        for op in block:
            if op.name in TERMINATORS:
                bp.term = [self.slot(v) for v in op.operands]
                continue
            factory = FACTORIES.get(op.name)
            if factory is None:
                raise NotImplementedError(
                    f"CPU backend: no evaluator for '{op.name}' (at {op.loc.file}:{op.loc.line} "
                    f"in kernel '{self.kernel}')")
            fn = factory(self, op)
            ins = tuple(self.slot(v) for v in op.operands)
            outs = tuple(self.slot(r) for r in op.results)
            bp.steps.append((fn, ins, outs, op))
        return bp


class ModulePlan:
    """Per-module cache of function plans (built on first use, reused by every launch)."""

    def __init__(self, module: Operation):
        self.module = module
        self.funcs: Dict[str, Operation] = {}
        for op in module.regions[0].entry:
            if op.name == "tt.func":
                self.funcs[op.attr("sym_name")] = op
        self.plans: Dict[str, FuncPlan] = {}

    def plan(self, name: str) -> FuncPlan:
        fp = self.plans.get(name)
        if fp is not None:
            return fp
        func = self.funcs.get(name)
        if func is None:
            raise KeyError(f"CPU backend: no tt.func named '{name}' in the module "
                           f"(have: {', '.join(self.funcs) or 'none'})")
        _load_op_modules()
        fp = FuncPlan(func)
        self.plans[name] = fp        # before building: recursive tt.call finds it
        pc = PlanContext(self, fp)
        fp.entry = pc.block_plan(func.regions[0].entry)
        fp.nslots = len(pc.slots)
        fp.serial = fp.serial or waits_on_others(func, self.funcs)
        return fp


_MODULE_PLANS: "weakref.WeakKeyDictionary[Operation, ModulePlan]" = weakref.WeakKeyDictionary()


def module_plan(module: Operation) -> ModulePlan:
    mp = _MODULE_PLANS.get(module)
    if mp is None:
        mp = _MODULE_PLANS[module] = ModulePlan(module)
    return mp


def invalidate(module: Operation) -> None:
    """Forget the cached plans of a module (call after rewriting it in place)."""
    _MODULE_PLANS.pop(module, None)


_LOADED = False


def _load_op_modules() -> None:
    global _LOADED
    if not _LOADED:
        from . import (ops_arith, ops_math, ops_memory, ops_shape, ops_reduce,  # noqa: F401
                       ops_dot, ops_control, ops_tensor_ptr, ops_inline_asm, ops_map)
        _LOADED = True


# ------------------------------------------------------------------ running
def run_block(bp: BlockPlan, env: Env, args=()) -> List[np.ndarray]:
    """Run a block's steps in `env` with its arguments bound; return the terminator's
    operands."""
    vals = env.vals
    for s, a in zip(bp.args, args):
        vals[s] = a
    for fn, ins, outs, op in bp.steps:
        try:
            res = fn(env, *[vals[i] if vals[i] is not None else env.fetch(i) for i in ins])
        except Exception as e:
            _annotate(e, op, env)
            raise
        if outs:
            if len(outs) == 1:
                vals[outs[0]] = res
            else:
                for o, r in zip(outs, res):
                    vals[o] = r
    return [vals[i] if vals[i] is not None else env.fetch(i) for i in bp.term]


def _annotate(e: Exception, op: Operation, env: Env) -> None:
    if getattr(e, "_tritium_noted", False):
        return
    try:
        e._tritium_noted = True
        if not isinstance(e, AssertionError) and type(e).__name__ != "OutOfBoundsError":
            e.add_note(f"while evaluating {op.name} at {op.loc.file}:{op.loc.line} "
                       f"in kernel '{env.ctx.kernel}' on the CPU backend")
    except Exception:  # exceptions without a writable __dict__ keep their message as is
        pass


def call_function(fp: FuncPlan, env_like: Env, args: List[np.ndarray]) -> List[np.ndarray]:
    """Run function `fp` for the programs of `env_like` with argument arrays `args`."""
    env = Env(fp.nslots, env_like.prog, env_like.ctx)
    return run_block(fp.entry, env, args)


# ------------------------------------------------------------------ helpers for handlers
def broadcast_programs(x: np.ndarray, P: int) -> np.ndarray:
    """Give a uniform value a leading axis of P (a view)."""
    if x.shape[0] == P:
        return x
    return np.broadcast_to(x, (P,) + x.shape[1:])


def lead(x: np.ndarray, ndim: int) -> np.ndarray:
    """Reshape a per-program scalar (P,) so it broadcasts against (P, *shape) of rank ndim."""
    if x.ndim >= ndim:
        return x
    return x.reshape(x.shape + (1,) * (ndim - x.ndim))


def is_uniform(x: np.ndarray) -> bool:
    return x.shape[0] == 1
