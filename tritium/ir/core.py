"""The SSA IR: values with use-lists, operations in blocks, blocks in regions.

Shaped after MLIR so the printed text is MLIR: an `Operation` has operands, results,
attributes, regions and a location; a `Block` has arguments (instead of phis) and a
doubly-linked list of operations; a `Region` is a list of blocks owned by one operation.
Use-lists make `replace_all_uses_with` and dead-code checks O(uses).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence

from .attrs import Attr, to_attr
from .types import Type


# ---------------------------------------------------------------- locations
@dataclass(frozen=True)
class Location:
    """`loc("file.py":12:5)`; `callsite` records where an inlined call came from."""

    file: str
    line: int
    col: int
    callsite: Optional["Location"] = None

    def __str__(self) -> str:
        from .attrs import escape_string
        own = f'"{escape_string(self.file)}":{self.line}:{self.col}'
        if self.callsite is not None:
            return f"callsite({own} at {self.callsite.inner()})"
        return own

    def inner(self) -> str:
        return str(self)


class _UnknownLoc:
    def __str__(self) -> str:
        return "unknown"

    def __repr__(self) -> str:
        return "UnknownLoc"

    callsite = None
    file = "<unknown>"
    line = 0
    col = 0


UnknownLoc = _UnknownLoc()


# ---------------------------------------------------------------- values
class Value:
    __slots__ = ("type", "uses", "name_hint", "__weakref__")

    def __init__(self, type_: Type):
        self.type = type_
        self.uses: List[OpOperand] = []
        self.name_hint: Optional[str] = None

    @property
    def owner_op(self) -> Optional["Operation"]:
        """The defining operation, or None for a block argument."""
        return None

    @property
    def parent_block(self) -> "Block":
        raise NotImplementedError

    def has_uses(self) -> bool:
        return bool(self.uses)

    @property
    def users(self) -> List["Operation"]:
        return [u.owner for u in self.uses]

    def replace_all_uses_with(self, new: "Value") -> None:
        if new is self:
            return
        for use in list(self.uses):
            use.set(new)

    def replace_uses_if(self, new: "Value", pred) -> None:
        for use in list(self.uses):
            if pred(use):
                use.set(new)


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type_: Type, op: "Operation", index: int):
        super().__init__(type_)
        self.op = op
        self.index = index

    @property
    def owner_op(self) -> "Operation":
        return self.op

    @property
    def parent_block(self) -> "Block":
        return self.op.parent

    def __repr__(self) -> str:
        return f"<result {self.index} of {self.op.name} : {self.type}>"


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type_: Type, block: "Block", index: int):
        super().__init__(type_)
        self.block = block
        self.index = index

    @property
    def parent_block(self) -> "Block":
        return self.block

    def __repr__(self) -> str:
        return f"<block arg {self.index} : {self.type}>"


class OpOperand:
    """One use of a value: slot `index` of operation `owner`."""

    __slots__ = ("owner", "index", "value")

    def __init__(self, owner: "Operation", index: int, value: Value):
        self.owner = owner
        self.index = index
        self.value = value
        value.uses.append(self)

    def set(self, new: Value) -> None:
        self.value.uses.remove(self)
        self.value = new
        new.uses.append(self)

    def drop(self) -> None:
        self.value.uses.remove(self)


# ---------------------------------------------------------------- operations
class Operation:
    __slots__ = ("name", "_operands", "results", "attributes", "regions", "loc",
                 "parent", "prev", "next", "__weakref__")

    def __init__(self, name: str, operands: Sequence[Value] = (),
                 result_types: Sequence[Type] = (), attributes: Optional[Dict[str, Attr]] = None,
                 num_regions: int = 0, loc=None):
        self.name = name
        self._operands: List[OpOperand] = []
        for v in operands:
            if not isinstance(v, Value):
                raise TypeError(f"{name}: operand {v!r} is not an IR value")
            self._operands.append(OpOperand(self, len(self._operands), v))
        self.results: List[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: Dict[str, Attr] = {}
        for k, v in (attributes or {}).items():
            self.attributes[k] = to_attr(v)
        self.regions: List[Region] = [Region(self) for _ in range(num_regions)]
        self.loc = loc if loc is not None else UnknownLoc
        self.parent: Optional[Block] = None
        self.prev: Optional[Operation] = None
        self.next: Optional[Operation] = None

    # -- operands
    @property
    def operands(self) -> List[Value]:
        return [o.value for o in self._operands]

    @property
    def op_operands(self) -> List[OpOperand]:
        return self._operands

    def operand(self, i: int) -> Value:
        return self._operands[i].value

    @property
    def num_operands(self) -> int:
        return len(self._operands)

    def set_operand(self, i: int, v: Value) -> None:
        self._operands[i].set(v)

    def set_operands(self, values: Sequence[Value]) -> None:
        for o in self._operands:
            o.drop()
        self._operands = [OpOperand(self, i, v) for i, v in enumerate(values)]

    def add_operand(self, v: Value) -> None:
        self._operands.append(OpOperand(self, len(self._operands), v))

    # -- results
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def result_types(self) -> List[Type]:
        return [r.type for r in self.results]

    def has_uses(self) -> bool:
        return any(r.uses for r in self.results)

    # -- attributes
    def attr(self, name: str, default=None):
        """The Python value of an attribute (or `default`)."""
        a = self.attributes.get(name)
        return default if a is None else a.value

    def set_attr(self, name: str, value) -> None:
        self.attributes[name] = to_attr(value)

    # -- structure
    @property
    def parent_region(self) -> Optional["Region"]:
        return self.parent.parent if self.parent is not None else None

    @property
    def parent_op(self) -> Optional["Operation"]:
        r = self.parent_region
        return r.parent if r is not None else None

    def is_ancestor_of(self, other: "Operation") -> bool:
        """True when `other` is this op or nested (at any depth) inside it."""
        while other is not None:
            if other is self:
                return True
            other = other.parent_op
        return False

    @property
    def opdef(self):
        from .ops import lookup
        return lookup(self.name)

    def has_trait(self, trait: str) -> bool:
        return trait in self.opdef.traits

    def walk(self, post_order: bool = False) -> Iterator["Operation"]:
        """Every op nested in this one (itself included). Safe against erasing the op
        just yielded, because the next op is read before yielding."""
        if not post_order:
            yield self
        for region in self.regions:
            for block in list(region.blocks):
                op = block.first
                while op is not None:
                    nxt = op.next
                    yield from op.walk(post_order)
                    op = nxt
        if post_order:
            yield self

    def remove_from_parent(self) -> "Operation":
        if self.parent is not None:
            self.parent._unlink(self)
        return self

    def drop_all_references(self) -> None:
        for o in self._operands:
            o.drop()
        self._operands = []
        for region in self.regions:
            for block in region.blocks:
                for op in list(block):
                    op.drop_all_references()

    def erase(self) -> None:
        """Unlink and drop operands; the results must be unused."""
        for r in self.results:
            if r.uses:
                users = ", ".join(sorted({u.owner.name for u in r.uses}))
                raise RuntimeError(f"erasing {self.name} whose result is still used by {users}")
        self.remove_from_parent()
        self.drop_all_references()

    def move_before(self, anchor: "Operation") -> None:
        self.remove_from_parent()
        anchor.parent.insert_before(self, anchor)

    def move_after(self, anchor: "Operation") -> None:
        self.remove_from_parent()
        anchor.parent.insert_after(self, anchor)

    def replace_all_uses_with(self, values: Sequence[Value]) -> None:
        for r, v in zip(self.results, values):
            r.replace_all_uses_with(v)

    def clone(self, mapping: Optional[Dict[Value, Value]] = None) -> "Operation":
        """Deep copy; operands are remapped through `mapping`, which is extended with the
        clone's results and block arguments."""
        mapping = {} if mapping is None else mapping
        new = Operation(self.name, [mapping.get(v, v) for v in self.operands],
                        self.result_types, dict(self.attributes), 0, self.loc)
        for old_r, new_r in zip(self.results, new.results):
            new_r.name_hint = old_r.name_hint
            mapping[old_r] = new_r
        for region in self.regions:
            new_region = Region(new)
            new.regions.append(new_region)
            region.clone_into(new_region, mapping)
        return new

    def __repr__(self) -> str:
        from .printer import print_op
        try:
            return print_op(self)
        except Exception:  # repr must never fail while debugging
            return f"<{self.name} with {self.num_operands} operands>"

    __str__ = __repr__


# ---------------------------------------------------------------- blocks and regions
class Block:
    __slots__ = ("args", "first", "last", "parent", "_len", "__weakref__")

    def __init__(self, arg_types: Sequence[Type] = ()):
        self.args: List[BlockArgument] = []
        self.first: Optional[Operation] = None
        self.last: Optional[Operation] = None
        self.parent: Optional[Region] = None
        self._len = 0
        for t in arg_types:
            self.add_argument(t)

    def add_argument(self, type_: Type) -> BlockArgument:
        a = BlockArgument(type_, self, len(self.args))
        self.args.append(a)
        return a

    def erase_argument(self, index: int) -> None:
        arg = self.args[index]
        if arg.uses:
            raise RuntimeError("erasing a block argument that is still used")
        del self.args[index]
        for i, a in enumerate(self.args):
            a.index = i

    def __iter__(self) -> Iterator[Operation]:
        op = self.first
        while op is not None:
            nxt = op.next
            yield op
            op = nxt

    def __len__(self) -> int:
        return self._len

    @property
    def ops(self) -> List[Operation]:
        return list(self)

    @property
    def terminator(self) -> Optional[Operation]:
        return self.last

    @property
    def parent_op(self) -> Optional[Operation]:
        return self.parent.parent if self.parent is not None else None

    def _link(self, op: Operation, prev: Optional[Operation], nxt: Optional[Operation]) -> None:
        if op.parent is not None:
            raise RuntimeError(f"{op.name} is already in a block")
        op.parent = self
        op.prev, op.next = prev, nxt
        if prev is None:
            self.first = op
        else:
            prev.next = op
        if nxt is None:
            self.last = op
        else:
            nxt.prev = op
        self._len += 1

    def _unlink(self, op: Operation) -> None:
        if op.prev is None:
            self.first = op.next
        else:
            op.prev.next = op.next
        if op.next is None:
            self.last = op.prev
        else:
            op.next.prev = op.prev
        op.parent = op.prev = op.next = None
        self._len -= 1

    def append(self, op: Operation) -> Operation:
        self._link(op, self.last, None)
        return op

    def prepend(self, op: Operation) -> Operation:
        self._link(op, None, self.first)
        return op

    def insert_before(self, op: Operation, anchor: Operation) -> Operation:
        self._link(op, anchor.prev, anchor)
        return op

    def insert_after(self, op: Operation, anchor: Operation) -> Operation:
        self._link(op, anchor, anchor.next)
        return op

    def index_of(self, op: Operation) -> int:
        for i, o in enumerate(self):
            if o is op:
                return i
        raise ValueError("op not in block")


class Region:
    __slots__ = ("blocks", "parent", "__weakref__")

    def __init__(self, parent: Optional[Operation] = None):
        self.blocks: List[Block] = []
        self.parent = parent

    def add_block(self, block: Optional[Block] = None) -> Block:
        block = block if block is not None else Block()
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def clone_into(self, dest: "Region", mapping: Dict[Value, Value]) -> None:
        new_blocks = []
        for block in self.blocks:
            nb = dest.add_block(Block())
            for a in block.args:
                mapping[a] = nb.add_argument(a.type)
            new_blocks.append(nb)
        # Control flow is structured (scf) all the way down to the backends, so no op names
        # a successor block and a plain op-by-op copy suffices.
        for block, nb in zip(self.blocks, new_blocks):
            for op in block:
                nb.append(op.clone(mapping))

    def walk(self) -> Iterator[Operation]:
        for block in list(self.blocks):
            for op in block:
                yield from op.walk()


def make_module(attributes: Optional[Dict[str, Attr]] = None, loc=None) -> Operation:
    """A `builtin.module` with one empty block."""
    m = Operation("builtin.module", attributes=attributes, num_regions=1, loc=loc)
    m.regions[0].add_block()
    return m


def module_body(module: Operation) -> Block:
    return module.regions[0].entry
