"""The floating-point work of a kernel's `tl.dot`s for one launch: 2·M·N·K per dot (times the
batch of a 3-D dot) for each time a program runs it, summed over the grid.

How often a program runs a dot is read from the TTIR: the trip counts of the `scf.for` loops
around it and the conditions of the `scf.if`s around it, computed from the launch's scalar
arguments and program ids. The few scalar ops a loop bound is made of (`arith` integer ops,
`tt.get_program_id`, `tt.get_num_programs`) are evaluated for every program at once with
numpy. A bound that depends on anything else (a loaded value, an enclosing loop's induction
variable), or a dot inside an `scf.while`, cannot be known at launch: the count is then
reported as unknown, with the reason, rather than guessed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...ir import types as T
from ...ir.core import BlockArgument, Operation, Value
from ...ir.ops import CMPI_PREDICATES, INPUT_PRECISIONS
from ...backends.line_info import outermost

MAX_PROGRAMS = 1 << 22   # programs evaluated one by one (as numpy lanes) per launch
_PRECISION_NAMES = {v: k for k, v in INPUT_PRECISIONS.items()}


class Unknown(Exception):
    """A trip count or condition that the launch's arguments do not determine."""


@dataclass
class DotSite:
    op: Operation
    flops: int                 # per execution: 2·M·N·K (·batch)
    dtype: str                 # the A operand's element type: f16, bf16, f32, i8, f8E4M3FN...
    precision: str             # inputPrecision for f32 operands (tf32, ieee, ...)
    line: int = 0


@dataclass
class FlopCount:
    flops: float = 0.0
    known: bool = True
    why: str = ""              # why not known
    dots: List[DotSite] = field(default_factory=list)

    @property
    def dtype(self) -> str:
        """The operand type of the dot doing the most work (what the peak is quoted for)."""
        return self.dots[0].dtype if self.dots else ""

    @property
    def precision(self) -> str:
        return self.dots[0].precision if self.dots else ""


def dot_sites(func: Operation) -> List[DotSite]:
    """The `tt.dot` ops of a TTIR function, biggest first."""
    sites = []
    for op in func.walk():
        if op.name != "tt.dot":
            continue
        a, b = op.operands[0].type, op.operands[1].type
        *batch, m, k = a.shape
        n = b.shape[-1]
        elt = a.element_type
        prec = _PRECISION_NAMES.get(op.attr("inputPrecision", 0), "tf32") \
            if isinstance(elt, T.FloatType) and elt.name == "f32" else ""
        frame = outermost(op.loc)
        sites.append(DotSite(op, 2 * m * n * k * int(np.prod(batch or [1])), str(elt), prec,
                             frame.line if frame is not None else 0))
    sites.sort(key=lambda s: -s.flops)
    return sites


def kernel_func(module: Operation, name: str) -> Optional[Operation]:
    return next((op for op in module.regions[0].entry
                 if op.name == "tt.func" and op.attr("sym_name") == name), None)


def count(module: Operation, name: str, launches: Dict[tuple, int]) -> Optional[FlopCount]:
    """FLOPs of the dots of kernel `name` over `launches` ({(grid, runtime scalars): number of
    launches}; scalars are the tt.func's arguments in order, None for tensors). None when
    the kernel has no dot."""
    func = kernel_func(module, name)
    sites = dot_sites(func) if func is not None else []
    if not sites:
        return None
    out = FlopCount(dots=sites)
    for (grid, scalars), times in launches.items():
        try:
            out.flops += times * _launch_flops(func, sites, tuple(grid), scalars)
        except Unknown as e:
            out.known, out.why = False, str(e)
            break
    return out


def _launch_flops(func, sites, grid, scalars) -> float:
    grid = tuple(grid) + (1,) * (3 - len(grid))
    programs = grid[0] * grid[1] * grid[2]
    if programs == 0:
        return 0.0
    ev = _Scalars(func, grid, scalars)
    total = 0.0
    for site in sites:
        runs = ev.executions(site.op)
        total += site.flops * float(np.sum(runs) if np.ndim(runs) else runs * programs)
    return total


class _Scalars:
    """Integer scalars of one launch, each a Python int or a numpy array with one lane per
    program (`tt.get_program_id` is what makes a value per-program)."""

    def __init__(self, func, grid, scalars: Sequence):
        self.func, self.grid = func, grid
        args = func.regions[0].entry.args
        if len(args) != len(scalars):
            raise Unknown(f"the launch passed {len(scalars)} runtime arguments, the TTIR "
                          f"function takes {len(args)}")
        self.vals: Dict[Value, object] = dict(zip(args, scalars))
        self._pid = None

    def pids(self):
        if self._pid is None:
            gx, gy, gz = self.grid
            if gx * gy * gz > MAX_PROGRAMS:
                raise Unknown(f"a grid of {gx * gy * gz} programs (more than {MAX_PROGRAMS} "
                              "to evaluate per-program loop bounds)")
            lin = np.arange(gx * gy * gz, dtype=np.int64)
            self._pid = (lin % gx, lin // gx % gy, lin // (gx * gy))
        return self._pid

    def executions(self, op: Operation):
        """How many times each program runs `op` (an int, or one per program)."""
        runs = 1
        parent = op.parent_op
        while parent is not None and parent is not self.func:
            if parent.name == "scf.for":
                lb, ub, step = (self.value(v) for v in parent.operands[:3])
                trips = np.maximum(0, -(-(np.asarray(ub) - lb) // step))
                runs = runs * trips
            elif parent.name == "scf.if":
                # Only the region holding `op` runs when its condition says so.
                taken = np.asarray(self.value(parent.operands[0]), dtype=bool)
                runs = runs * (taken if _inside(op, parent.regions[0]) else ~taken)
            elif parent.name in ("scf.while",):
                raise Unknown("a tl.dot inside a while loop (its trip count is only known "
                              "when it runs)")
            parent = parent.parent_op
        return runs

    def value(self, v: Value):
        if v in self.vals:
            got = self.vals[v]
            if got is None or isinstance(got, float):
                raise Unknown("a loop bound or condition made from a "
                              + ("pointer" if got is None else "float") + " argument")
            return got
        if isinstance(v, BlockArgument):
            raise Unknown("a loop bound that depends on an enclosing loop's induction variable "
                          "or a value carried through a loop")
        op = v.owner_op
        name = op.name
        if name not in _INT_OPS and name not in _LEAVES:
            raise Unknown(f"a loop bound or condition computed with {name} (known only when "
                          "the kernel runs)")
        x = self._leaf(op) if name in _LEAVES else \
            _INT_OPS[name](op, *[self.value(o) for o in op.operands])
        self.vals[v] = x
        return x

    def _leaf(self, op: Operation):
        if op.name == "arith.constant":
            val = op.attr("value")
            if isinstance(op.results[0].type, T.TensorType) or isinstance(val, float):
                raise Unknown(f"a loop bound made from a {op.results[0].type} constant")
            return int(val)
        if op.name == "tt.get_program_id":
            return self.pids()[op.attr("axis", 0)]
        return self.grid[op.attr("axis", 0)]     # tt.get_num_programs


_LEAVES = ("arith.constant", "tt.get_program_id", "tt.get_num_programs")


def _inside(op: Operation, region) -> bool:
    p = op
    while p is not None:
        if p.parent_region is region:
            return True
        p = p.parent_op
    return False


def _div(a, b):   # C division (towards zero), as arith.divsi
    q = np.abs(a) // np.maximum(np.abs(b), 1)
    return np.where(np.sign(a) * np.sign(b) < 0, -q, q) if np.ndim(q) else \
        (-q if (a < 0) != (b < 0) else q)


def _binary(fn):
    return lambda op, a, b: fn(a, b)


def _unary(op, a):   # extensions, truncations and index casts: the value as an integer
    return a


def _cmpi(op, a, b):
    return _CMP[CMPI_PREDICATES[op.attr("predicate")]](a, b)


_CMP = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
        "sgt": np.greater, "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal,
        "ugt": np.greater, "uge": np.greater_equal}
_INT_OPS = {
    "arith.addi": _binary(lambda a, b: a + b), "arith.subi": _binary(lambda a, b: a - b),
    "arith.muli": _binary(lambda a, b: a * b), "arith.divsi": _binary(_div),
    "arith.divui": _binary(lambda a, b: a // b),
    "arith.remsi": _binary(lambda a, b: a - _div(a, b) * b),
    "arith.remui": _binary(lambda a, b: a % b),
    "arith.ceildivsi": _binary(lambda a, b: -(-a // b)),
    "arith.ceildivui": _binary(lambda a, b: -(-a // b)),
    "arith.floordivsi": _binary(lambda a, b: a // b),
    "arith.maxsi": _binary(np.maximum), "arith.minsi": _binary(np.minimum),
    "arith.maxui": _binary(np.maximum), "arith.minui": _binary(np.minimum),
    "arith.andi": _binary(lambda a, b: a & b), "arith.ori": _binary(lambda a, b: a | b),
    "arith.xori": _binary(lambda a, b: a ^ b), "arith.shli": _binary(lambda a, b: a << b),
    "arith.shrsi": _binary(lambda a, b: a >> b), "arith.shrui": _binary(lambda a, b: a >> b),
    "arith.extsi": _unary, "arith.extui": _unary, "arith.trunci": _unary,
    "arith.index_cast": _unary, "arith.index_castui": _unary,
    "arith.select": lambda op, c, a, b: np.where(c, a, b),
    "arith.cmpi": _cmpi,
}
