"""IR verifier: structure, use-lists, dominance, terminators and per-op type rules.

`verify(op)` walks `op` and everything nested in it and raises `VerificationError` at the
first problem; the message names the location, the op and what is wrong, MLIR style:

    k.py:3:4: 'arith.addi' op operand #1 has type i64, expected i32 (the result type)

The per-op rules follow the contracts in `ops.py`. Ops that `ops.py` does not know get the
generic checks only (structure, use-lists, dominance, terminator placement).
"""
from __future__ import annotations

import re
from typing import Dict, List

from .core import BlockArgument, Block, Operation, OpResult, Value
from .ops import OPS, lookup
from .verify_ops import RULES, VerificationError, same_type

__all__ = ["verify", "VerificationError"]


def verify(op: Operation) -> None:
    """Raise `VerificationError` if `op` (with everything nested in it) is not valid IR."""
    _Verifier(op).run()


# ---------------------------------------------------------------- operand / result counts
_ANY = (0, None)
_COUNTS: Dict[str, tuple] = {  # name -> ((min, max) operands, (min, max) results)
    "builtin.module": ((0, 0), (0, 0)), "builtin.unrealized_conversion_cast": (_ANY, _ANY),
    "arith.constant": ((0, 0), (1, 1)), "arith.select": ((3, 3), (1, 1)),
    "arith.cmpi": ((2, 2), (1, 1)), "arith.cmpf": ((2, 2), (1, 1)),
    "math.fma": ((3, 3), (1, 1)), "tt.clampf": ((3, 3), (1, 1)),
    "scf.for": ((3, None), _ANY), "scf.if": ((1, 1), _ANY), "scf.while": (_ANY, _ANY),
    "scf.yield": (_ANY, (0, 0)), "scf.condition": ((1, None), (0, 0)),
    "tt.func": ((0, 0), (0, 0)), "tt.return": (_ANY, (0, 0)), "tt.call": (_ANY, _ANY),
    "tt.get_program_id": ((0, 0), (1, 1)), "tt.get_num_programs": ((0, 0), (1, 1)),
    "tt.make_range": ((0, 0), (1, 1)), "tt.split": ((1, 1), (2, 2)),
    "tt.load": ((1, 3), (1, 1)), "tt.store": ((2, 3), (0, 0)),
    "tt.atomic_rmw": ((2, 3), (1, 1)), "tt.atomic_cas": ((3, 3), (1, 1)),
    "tt.reduce": ((1, None), (1, None)), "tt.scan": ((1, None), (1, None)),
    "tt.reduce.return": (_ANY, (0, 0)), "tt.scan.return": (_ANY, (0, 0)),
    "tt.map_elementwise": (_ANY, _ANY), "tt.map_elementwise.return": (_ANY, (0, 0)),
    "tt.dot": ((3, 3), (1, 1)), "tt.gather": ((2, 2), (1, 1)),
    "tt.extern_elementwise": (_ANY, (1, 1)), "tt.elementwise_inline_asm": (_ANY, _ANY),
    "tt.print": (_ANY, (0, 0)), "tt.assert": ((1, 1), (0, 0)), "llvm.intr.assume": ((1, 1), (0, 0)),
    "ttg.local_alloc": ((0, 1), (1, 1)), "ttg.local_store": ((2, 2), (0, 0)),
    "ttg.local_dealloc": ((1, 1), (0, 0)), "ttg.barrier": ((0, 0), (0, 0)),
}
for _name, _d in OPS.items():  # the rest from the doc strings: "operand x", "operands (a, b)"
    _m = re.match(r"operands \(([^)\[*]*)\)", _d.doc)
    if _name not in _COUNTS and (_m or _d.doc.startswith("operand ")):
        _n = _m.group(1).count(",") + 1 if _m else 1
        _COUNTS[_name] = ((_n, _n), (1, 1))

_REGIONS = {"builtin.module": 1, "tt.func": 1, "scf.for": 1, "scf.if": 2, "scf.while": 2,
            "tt.reduce": 1, "tt.scan": 1}


# ---------------------------------------------------------------- the walk
class _Verifier:
    def __init__(self, root: Operation):
        self.root = root
        self.positions: Dict[Block, Dict[Operation, int]] = {}
        self.use_sets: Dict[Value, set] = {}
        self.seen: set = set()
        self.defined: List[OpResult] = []

    def run(self) -> None:
        self.check(self.root)
        for r in self.defined:
            for use in r.uses:
                if use.owner not in self.seen:
                    raise VerificationError(r.op, f"result #{r.index} is used by a "
                                            f"'{use.owner.name}' that is not in the IR "
                                            "(erased or detached without dropping its operands)")

    def check(self, op: Operation) -> None:
        self.seen.add(op)
        self.check_links(op)
        if op is not self.root or op.parent is not None:
            for i, operand in enumerate(op.op_operands):
                self.check_dominance(op, i, operand.value)
        self.check_counts(op)
        rule = RULES.get(op.name)
        if rule is not None:
            rule(op)
        if "SameType" in lookup(op.name).traits:
            same_type(op)
        for region_index, region in enumerate(op.regions):
            for block in region.blocks:
                self.check_block(op, region_index, block)

    # -- structure and use-lists
    def check_links(self, op: Operation) -> None:
        for i, r in enumerate(op.results):
            if r.op is not op or r.index != i:
                raise VerificationError(op, f"result #{i} does not point back to its op")
            if op is not self.root:
                self.defined.append(r)
        for i, operand in enumerate(op.op_operands):
            if operand.owner is not op or operand.index != i:
                raise VerificationError(op, f"operand #{i} has a stale owner or index")
            v = operand.value
            if not isinstance(v, Value):
                raise VerificationError(op, f"operand #{i} is not an IR value: {v!r}")
            ids = self.use_sets.get(v)
            if ids is None:
                ids = self.use_sets[v] = {id(u) for u in v.uses}
            if id(operand) not in ids:
                raise VerificationError(op, f"operand #{i} is missing from its value's use-list")
        for ri, region in enumerate(op.regions):
            if region.parent is not op:
                raise VerificationError(op, f"region #{ri} does not point back to its op")

    def check_block(self, parent: Operation, region_index: int, block: Block) -> None:
        if block.parent is not parent.regions[region_index]:
            raise VerificationError(parent, f"a block of region #{region_index} does not point "
                                    "back to its region")
        for i, a in enumerate(block.args):
            if a.block is not block or a.index != i:
                raise VerificationError(parent, f"block argument #{i} of region #{region_index} "
                                        "does not point back to its block")
        prev, count = None, 0
        op = block.first
        while op is not None:
            if op.parent is not block or op.prev is not prev:
                raise VerificationError(op, "is linked into a block it does not belong to")
            if op.next is not None and "Terminator" in lookup(op.name).traits:
                raise VerificationError(op, "is a terminator but is not the last op of its "
                                        "block")
            self.check(op)
            prev, op, count = op, op.next, count + 1
        if prev is not block.last or count != len(block):
            raise VerificationError(parent, f"the op list of a block in region #{region_index} "
                                    "is corrupt")
        if parent.name in _REGIONS and parent.name != "builtin.module":
            last = block.last
            if last is None or "Terminator" not in lookup(last.name).traits:
                found = f"'{last.name}'" if last is not None else "an empty block"
                raise VerificationError(parent, f"region #{region_index} must end with a "
                                        f"terminator, found {found}")

    # -- dominance
    def position(self, block: Block, op: Operation) -> int:
        table = self.positions.get(block)
        if table is None:
            table = self.positions[block] = {o: i for i, o in enumerate(block)}
        return table[op]

    def check_dominance(self, user: Operation, i: int, v: Value) -> None:
        if isinstance(v, OpResult):
            def_block = v.op.parent
            if def_block is None:
                raise VerificationError(user, f"operand #{i} is the result of a "
                                        f"'{v.op.name}' that is not in any block")
        elif isinstance(v, BlockArgument):
            def_block = v.block
        else:
            raise VerificationError(user, f"operand #{i} is a value with no definition "
                                    "(an unresolved placeholder?)")
        cur = user
        while cur.parent is not def_block:
            outer = cur.parent_op
            if outer is None:
                raise VerificationError(user, f"operand #{i} ({v.type}) is not defined in "
                                        "this op's block or any enclosing block, so its "
                                        "definition does not dominate the use")
            if "IsolatedFromAbove" in lookup(outer.name).traits:
                owner = v.op if isinstance(v, OpResult) else def_block.parent_op
                if owner is not None and outer.is_ancestor_of(owner):
                    raise VerificationError(user, f"operand #{i} ({v.type}) is defined in a "
                                            "block that does not dominate this use")
                raise VerificationError(user, f"operand #{i} ({v.type}) is defined outside "
                                        f"the enclosing '{outer.name}', which is "
                                        "isolated from above")
            cur = outer
        if isinstance(v, OpResult):
            if cur is v.op:
                raise VerificationError(user, f"operand #{i} is a result of the enclosing "
                                        f"'{cur.name}' itself")
            graph = def_block.parent_op is not None and def_block.parent_op.name == "builtin.module"
            if not graph and self.position(def_block, v.op) > self.position(def_block, cur):
                raise VerificationError(user, f"operand #{i} is defined by a later "
                                        f"'{v.op.name}': its definition does not dominate "
                                        "this use")

    # -- counts
    def check_counts(self, op: Operation) -> None:
        counts = _COUNTS.get(op.name)
        if counts is not None:
            for what, n, (lo, hi) in (("operands", op.num_operands, counts[0]),
                                      ("results", len(op.results), counts[1])):
                if n < lo or (hi is not None and n > hi):
                    want = str(lo) if lo == hi else (f"at least {lo}" if hi is None
                                                     else f"{lo} to {hi}")
                    raise VerificationError(op, f"expects {want} {what}, found {n}")
        want_regions = _REGIONS.get(op.name, 0 if op.name in OPS else None)
        if want_regions is not None and len(op.regions) != want_regions:
            raise VerificationError(op, f"expects {want_regions} regions, found {len(op.regions)}")
