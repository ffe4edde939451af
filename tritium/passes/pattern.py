"""Rewrite patterns, the rewriter, and the greedy worklist driver (MLIR's
applyPatternsGreedily): patterns and per-op fold hooks are applied until nothing changes,
trivially dead ops are erased on the way, and folded constants are uniqued and hoisted to
the top of their function.

Also the small IR queries every pass needs: memory effects, speculatability, constants.
"""
from __future__ import annotations

from collections import deque
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..ir.attrs import Attr, DenseElementsAttr, FloatAttr, IntegerAttr
from ..ir.builder import Builder
from ..ir.core import Block, Operation, Value
from ..ir.ops import lookup
from ..ir.types import TensorType, Type

# ---------------------------------------------------------------- IR queries

# Regions of these ops are kept self-contained: their combine bodies are lowered on their
# own, so constants are not hoisted out of them and CSE does not reach into them.
SCOPE_OPS = frozenset({"tt.reduce", "tt.scan", "tt.map_elementwise"})
_OPT_PURE = frozenset({"tt.extern_elementwise", "tt.elementwise_inline_asm"})
_DIV_OPS = frozenset({"arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                      "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi"})


def traits(op: Operation):
    return lookup(op.name).traits


def is_isolated_scope(op: Operation) -> bool:
    return "IsolatedFromAbove" in traits(op) or op.name in SCOPE_OPS


def is_effect_free(op: Operation) -> bool:
    """No memory effects, counting the ops nested in its regions."""
    t = traits(op)
    if "MemRead" in t or "MemWrite" in t:
        return False
    if "Pure" in t:
        return True
    if op.name in _OPT_PURE:
        return bool(op.attr("pure", False))
    if "HasRecursiveEffects" in t:
        return all(is_effect_free(o) for r in op.regions for b in r.blocks for o in b)
    return False  # unknown ops (tt.call, llvm.intr.assume, ...) may do anything


def may_write(op: Operation) -> bool:
    """Could this op (or anything nested) write memory? Unknown ops are assumed to."""
    t = traits(op)
    if "MemWrite" in t:
        return True
    if "MemRead" in t or "Pure" in t:
        return False
    if op.name in _OPT_PURE and op.attr("pure", False):
        return False
    if "HasRecursiveEffects" in t:
        return any(may_write(o) for r in op.regions for b in r.blocks for o in b)
    return True


def is_speculatable(op: Operation) -> bool:
    """Effect-free and safe to execute where it would not have run (LICM). Integer division
    is undefined for a zero divisor, so it moves only when the divisor is a known non-zero
    constant (MLIR's ConditionallySpeculatable rule)."""
    if not is_effect_free(op):
        return False
    if op.name in _DIV_OPS:
        d = splat_value(op.operand(1))
        if d is None or d == 0:
            return False
        if op.name in ("arith.divsi", "arith.ceildivsi", "arith.floordivsi") and d == -1:
            return False  # INT_MIN / -1 overflows
    return all(is_speculatable(o) for r in op.regions for b in r.blocks for o in b)


def only_reads(op: Operation) -> bool:
    """Effect-free or reading memory at most (a non-volatile load): removable when unused,
    as MLIR's isOpTriviallyDead allows."""
    t = traits(op)
    if "MemWrite" in t:
        return False
    if "MemRead" in t:
        return not op.attr("isVolatile", False) and all(
            only_reads(o) for r in op.regions for b in r.blocks for o in b)
    if "HasRecursiveEffects" in t:
        return all(only_reads(o) for r in op.regions for b in r.blocks for o in b)
    return is_effect_free(op)


def is_trivially_dead(op: Operation) -> bool:
    if op.has_uses() or "Terminator" in traits(op) or op.parent is None:
        return False
    return only_reads(op)


def constant_attr(v: Value) -> Optional[Attr]:
    op = v.owner_op
    if op is not None and op.name == "arith.constant":
        return op.attributes.get("value")
    return None


def splat_value(v: Value):
    """The Python number a scalar or splat-tensor constant holds, else None."""
    a = constant_attr(v)
    if isinstance(a, (IntegerAttr, FloatAttr, DenseElementsAttr)):
        return a.value
    return None


def defining(v: Value, name: str) -> Optional[Operation]:
    """The op defining `v` when it is named `name`."""
    op = v.owner_op
    return op if op is not None and op.name == name else None


def scope_block(op: Operation) -> Optional[Block]:
    """Entry block of the nearest isolated ancestor: where folded constants are hoisted."""
    block = op.parent
    while block is not None:
        region = block.parent
        owner = region.parent if region is not None else None
        if owner is None or is_isolated_scope(owner):
            return region.blocks[0] if region is not None else block
        block = owner.parent
    return None


def make_const_attr(value, type_: Type) -> Attr:
    if isinstance(type_, TensorType):
        return DenseElementsAttr(value, type_)
    from ..ir.types import FloatType
    if isinstance(type_, FloatType):
        return FloatAttr(float(value), type_)
    return IntegerAttr(int(value), type_)


# ---------------------------------------------------------------- patterns
class RewritePattern:
    """Subclass and implement `match_and_rewrite(op, rewriter) -> bool` (True = changed).
    `op_names` restricts it to ops of those names; `op_traits` to ops with all those
    traits; with neither it is offered every op. Higher `benefit` is tried first."""

    op_names: Tuple[str, ...] = ()
    op_traits: Tuple[str, ...] = ()
    benefit: int = 1

    def applies_to(self, name: str) -> bool:
        if self.op_names and name not in self.op_names:
            return False
        return all(t in lookup(name).traits for t in self.op_traits)

    def match_and_rewrite(self, op: Operation, rewriter: "Rewriter") -> bool:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__


class FnPattern(RewritePattern):
    """A pattern from a plain function, for small rules."""

    def __init__(self, fn, op_names=(), op_traits=(), benefit=1):
        self.fn, self.op_names, self.op_traits, self.benefit = fn, tuple(op_names), \
            tuple(op_traits), benefit

    def match_and_rewrite(self, op, rewriter):
        return bool(self.fn(op, rewriter))

    def __repr__(self):
        return self.fn.__name__


def pattern(*op_names: str, traits: Sequence[str] = (), benefit: int = 1):
    """Decorator turning `fn(op, rewriter) -> bool` into a RewritePattern."""
    def wrap(fn):
        return FnPattern(fn, op_names, traits, benefit)
    return wrap


# Fold hooks: fn(op, consts) -> None | IN_PLACE | list of (Value | Attr), one per result.
# `consts[i]` is the constant attribute of operand i, or None.
FOLD_HOOKS: Dict[str, Callable] = {}
IN_PLACE = object()


def register_fold(*names: str):
    def wrap(fn):
        for n in names:
            FOLD_HOOKS[n] = fn
        return fn
    return wrap


# ---------------------------------------------------------------- rewriter
class Rewriter(Builder):
    """A Builder that reports every change to the driver, so changed ops are revisited."""

    def __init__(self, driver: Optional["GreedyDriver"] = None):
        super().__init__()
        self.driver = driver

    def _add(self, op: Optional[Operation]) -> None:
        if self.driver is not None and op is not None:
            self.driver.push(op)

    def insert(self, op: Operation) -> Operation:
        super().insert(op)
        if self.driver is not None:
            for nested in op.walk():
                self.driver.push(nested)
        return op

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        for u in old.users:
            self._add(u)
        old.replace_all_uses_with(new)

    def replace_op(self, op: Operation, values: Union[Value, Sequence[Value]]) -> None:
        if isinstance(values, Value):
            values = [values]
        values = list(values)
        if len(values) != len(op.results):
            raise ValueError(f"replacing {op.name}: {len(values)} values for "
                             f"{len(op.results)} results")
        for r, v in zip(op.results, values):
            self.replace_all_uses_with(r, v)
        self.erase_op(op)

    def replace_op_with_new(self, op: Operation, name: str, operands: Sequence[Value],
                            result_types: Optional[Sequence[Type]] = None,
                            attributes=None) -> Operation:
        ip = self.get_insertion_point()
        self.set_insertion_point_before(op)
        new = self.create(name, operands,
                          op.result_types if result_types is None else result_types,
                          attributes, loc=op.loc)
        self.restore_insertion_point(ip)
        self.replace_op(op, new.results)
        return new

    def erase_op(self, op: Operation) -> None:
        if self.driver is not None:
            self.driver.notify_erased(op)
        op.erase()

    def set_operand(self, op: Operation, i: int, v: Value) -> None:
        old = op.operand(i)
        op.set_operand(i, v)
        self._add(old.owner_op)
        self.modified(op)

    def modified(self, op: Operation) -> None:
        """Call after changing an op in place (operands, attributes)."""
        self._add(op)
        for r in op.results:
            for u in r.users:
                self._add(u)

    def move_op_before(self, op: Operation, anchor: Operation) -> None:
        op.move_before(anchor)
        self._add(op)

    def inline_block_before(self, block: Block, anchor: Operation,
                            args: Sequence[Value] = ()) -> List[Value]:
        """Move `block`'s ops (terminator excluded) before `anchor`, with its arguments
        replaced by `args`; returns the terminator's operands."""
        for a, v in zip(block.args, args):
            self.replace_all_uses_with(a, v)
        term = block.last
        for op in list(block):
            if op is term:
                break
            op.move_before(anchor)
            for nested in op.walk():
                self._add(nested)
        return term.operands if term is not None else []


# ---------------------------------------------------------------- constant uniquing
class ConstantFolder:
    """One `arith.constant` per (scope, value, type), placed at the top of the scope's
    entry block, like MLIR's OperationFolder."""

    def __init__(self):
        self.table: Dict[Tuple[Block, Attr, Type], Operation] = {}
        self.hoisted: set = set()  # constants sitting in the head run of their scope block
        self.top: Dict[Block, Operation] = {}  # last of that run, per scope block

    def _seed(self, block: Block) -> None:
        # Constants already at the head of the block count as hoisted, in their order.
        if block in self.top:
            return
        last, cur = None, block.first
        while cur is not None and cur.name == "arith.constant":
            self.hoisted.add(cur)
            last, cur = cur, cur.next
        self.top[block] = last

    def _place(self, block: Block, op: Operation) -> None:
        last = self.top.get(block)
        if last is None or last.parent is not block or last is op:
            last, cur = None, block.first
            while cur is not None and cur in self.hoisted and cur is not op:
                last, cur = cur, cur.next
        if op.parent is not None:
            op.remove_from_parent()
        if last is None:
            block.prepend(op)
        else:
            block.insert_after(op, last)
        self.top[block] = op
        self.hoisted.add(op)

    def get_or_create(self, block: Block, attr: Attr, type_: Type, loc) -> Value:
        self._seed(block)
        key = (block, attr, type_)
        op = self.table.get(key)
        if op is not None and op.parent is block:
            return op.results[0]
        op = Operation("arith.constant", [], [type_], {"value": attr}, loc=loc)
        self._place(block, op)
        self.table[key] = op
        return op.results[0]

    def insert_known(self, op: Operation, rewriter: Rewriter) -> bool:
        """Unique and hoist an existing constant; True when the IR changed."""
        block = scope_block(op)
        if block is None:
            return False
        self._seed(block)
        key = (block, op.attributes.get("value"), op.results[0].type)
        try:
            known = self.table.get(key)
        except TypeError:  # an attribute without a hash (opaque text): leave it be
            return False
        if known is op:
            return False
        if known is not None and known.parent is block:
            rewriter.replace_op(op, known.results)
            return True
        self.table[key] = op
        if op in self.hoisted and op.parent is block:
            return False
        self._place(block, op)
        return True


# ---------------------------------------------------------------- the driver
class GreedyDriver:
    def __init__(self, patterns: Iterable[RewritePattern], fold: bool = True,
                 max_iterations: int = 10, max_rewrites: Optional[int] = None,
                 hoist_constants: bool = True):
        self.patterns = sorted(patterns, key=lambda p: -p.benefit)
        self.fold = fold
        self.max_iterations = max_iterations
        self.max_rewrites = max_rewrites
        self.hoist_constants = hoist_constants
        self._by_name: Dict[str, List[RewritePattern]] = {}
        self.worklist: deque = deque()
        self.in_list: set = set()
        self.root: Optional[Operation] = None
        self.rewriter = Rewriter(self)
        self.folder = ConstantFolder()
        self.num_rewrites = 0
        if fold:
            from . import folds  # noqa: F401  (registers the fold hooks)

    def candidates(self, name: str) -> List[RewritePattern]:
        c = self._by_name.get(name)
        if c is None:
            c = [p for p in self.patterns if p.applies_to(name)]
            self._by_name[name] = c
        return c

    def push(self, op: Operation) -> None:
        if op is not self.root and op not in self.in_list:
            self.in_list.add(op)
            self.worklist.append(op)

    def notify_erased(self, op: Operation) -> None:
        for v in op.operands:
            d = v.owner_op
            if d is not None:
                self.push(d)
        for nested in op.walk():
            for v in nested.operands:
                if v.owner_op is not None:
                    self.push(v.owner_op)

    def _alive(self, op: Operation) -> bool:
        while op is not self.root:
            block = op.parent
            if block is None or block.parent is None or block.parent.parent is None:
                return False
            op = block.parent.parent
        return True

    def run(self, root: Operation) -> bool:
        """Rewrite everything nested in `root` to a fixpoint. Returns True when it
        converged within `max_iterations` sweeps."""
        self.root = root
        for _ in range(self.max_iterations):
            self.worklist.clear()
            self.in_list.clear()
            for op in root.walk():
                self.push(op)
            budget = self.max_rewrites
            if budget is None:
                budget = 64 * (len(self.worklist) + 16)
            changed = False
            while self.worklist:
                op = self.worklist.popleft()
                self.in_list.discard(op)
                if not self._alive(op):
                    continue
                if self.process(op):
                    changed = True
                    self.num_rewrites += 1
                    budget -= 1
                    if budget <= 0:
                        return False
            if not changed:
                return True
        return False

    def process(self, op: Operation) -> bool:
        rw = self.rewriter
        if is_trivially_dead(op):
            rw.erase_op(op)
            return True
        if op.name == "arith.constant":
            return self.hoist_constants and self.folder.insert_known(op, rw)
        rw.set_insertion_point_before(op)
        rw.loc = op.loc
        if self.fold and self.try_fold(op):
            return True
        for p in self.candidates(op.name):
            rw.set_insertion_point_before(op)
            rw.loc = op.loc
            if p.match_and_rewrite(op, rw):
                if self._alive(op):
                    self.push(op)
                return True
        return False

    def try_fold(self, op: Operation) -> bool:
        hook = FOLD_HOOKS.get(op.name)
        if hook is None:
            return False
        consts = [constant_attr(v) for v in op.operands]
        res = hook(op, consts)
        if res is None:
            return False
        if res is IN_PLACE:
            self.rewriter.modified(op)
            return True
        values = []
        for r, x in zip(op.results, res):
            if isinstance(x, Attr):
                x = self.materialize(op, x, r.type)
            values.append(x)
        if all(v is r for v, r in zip(values, op.results)):
            return False
        self.rewriter.replace_op(op, values)
        return True

    def materialize(self, op: Operation, attr: Attr, type_: Type) -> Value:
        block = scope_block(op) if self.hoist_constants else None
        if block is None:
            return self.rewriter.create1("arith.constant", [], type_, {"value": attr})
        v = self.folder.get_or_create(block, attr, type_, op.loc)
        self.push(v.owner_op)
        return v


def apply_patterns_greedily(root: Operation, patterns: Iterable[RewritePattern], *,
                            fold: bool = True, max_iterations: int = 10,
                            max_rewrites: Optional[int] = None,
                            hoist_constants: bool = True) -> bool:
    """Apply `patterns` (and fold hooks when `fold`) under `root` until a fixpoint;
    returns whether it converged."""
    driver = GreedyDriver(patterns, fold, max_iterations, max_rewrites, hoist_constants)
    return driver.run(root)


def functions(module: Operation) -> List[Operation]:
    return [op for op in module.regions[0].entry if op.name == "tt.func"]


__all__ = ["RewritePattern", "FnPattern", "pattern", "Rewriter", "GreedyDriver",
           "apply_patterns_greedily", "register_fold", "FOLD_HOOKS", "IN_PLACE",
           "is_effect_free", "only_reads", "may_write", "is_speculatable", "is_trivially_dead",
           "constant_attr", "splat_value", "defining", "scope_block", "make_const_attr",
           "is_isolated_scope", "functions"]
