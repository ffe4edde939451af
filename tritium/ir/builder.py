"""Builder: creates operations at an insertion point, stamping the current location."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Optional, Sequence

from .attrs import Attr, DenseElementsAttr, FloatAttr, IntegerAttr
from .core import Block, Operation, UnknownLoc, Value
from .types import FloatType, IntegerType, TensorType, Type


class Builder:
    def __init__(self, block: Optional[Block] = None):
        self.block = block
        self.before: Optional[Operation] = None  # None: append at the end of `block`
        self.loc = UnknownLoc

    @classmethod
    def before_op_at_its_loc(cls, op: Operation) -> "Builder":
        """A builder inserting before `op`, stamping `op`'s location."""
        b = cls()
        b.set_insertion_point_before(op)
        b.loc = op.loc
        return b

    # -- insertion point
    def set_insertion_point_to_end(self, block: Block) -> None:
        self.block, self.before = block, None

    def set_insertion_point_to_start(self, block: Block) -> None:
        self.block, self.before = block, block.first

    def set_insertion_point_before(self, op: Operation) -> None:
        self.block, self.before = op.parent, op

    def set_insertion_point_after(self, op: Operation) -> None:
        self.block, self.before = op.parent, op.next

    def get_insertion_point(self):
        return (self.block, self.before)

    def restore_insertion_point(self, ip) -> None:
        self.block, self.before = ip

    @contextmanager
    def at_end(self, block: Block):
        ip = self.get_insertion_point()
        self.set_insertion_point_to_end(block)
        try:
            yield self
        finally:
            self.restore_insertion_point(ip)

    @contextmanager
    def before_op(self, op: Operation):
        ip = self.get_insertion_point()
        self.set_insertion_point_before(op)
        try:
            yield self
        finally:
            self.restore_insertion_point(ip)

    @contextmanager
    def location(self, loc):
        old = self.loc
        self.loc = loc
        try:
            yield
        finally:
            self.loc = old

    # -- creation
    def insert(self, op: Operation) -> Operation:
        if self.before is not None:
            self.block.insert_before(op, self.before)
        else:
            self.block.append(op)
        return op

    def create(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
               attributes: Optional[Dict[str, Attr]] = None, num_regions: int = 0,
               loc=None) -> Operation:
        op = Operation(name, operands, result_types, attributes, num_regions,
                       loc if loc is not None else self.loc)
        return self.insert(op)

    def create1(self, name: str, operands: Sequence[Value], result_type: Type,
                attributes: Optional[Dict[str, Attr]] = None) -> Value:
        """Create a single-result op and return the result value."""
        return self.create(name, operands, [result_type], attributes).results[0]

    # -- constants
    def constant(self, value, type_: Type) -> Value:
        """`arith.constant` of a Python number as a scalar or a splat tensor."""
        elt = type_.element_type
        if isinstance(elt, FloatType):
            value = float(value)
        elif isinstance(elt, IntegerType):
            value = normalize_int(int(value), elt.width)
        if isinstance(type_, TensorType):
            attr = DenseElementsAttr(value, type_)
        elif isinstance(type_, FloatType):
            attr = FloatAttr(value, type_)
        else:
            attr = IntegerAttr(value, type_)
        return self.create1("arith.constant", [], type_, {"value": attr})


def normalize_int(v: int, width: int) -> int:
    """Two's-complement wrap to a signed value of `width` bits (MLIR prints ints signed);
    i1 stays 0/1."""
    if width == 1:
        return v & 1
    v &= (1 << width) - 1
    if v >= 1 << (width - 1):
        v -= 1 << width
    return v
