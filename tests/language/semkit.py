"""Drive `TritonSemantic` directly (no frontend): a block to emit into, typed arguments,
and the op names / text it produced."""
from __future__ import annotations

from tritium.ir.builder import Builder
from tritium.ir.core import Block
from tritium.ir.printer import print_op
from tritium.language import dtypes as tl
from tritium.language.core import tensor
from tritium.language.semantic import SemanticOptions, TritonSemantic


class Env:
    def __init__(self, **options):
        self.block = Block()
        self.builder = Builder(self.block)
        self.sem = TritonSemantic(self.builder, SemanticOptions(**options))

    def arg(self, ty, shape=None) -> tensor:
        """A kernel argument: scalar of `ty`, or a block of `shape` when given."""
        if shape:
            ty = tl.block_type(ty, shape)
        return tensor(self.block.add_argument(ty.to_ir()), ty)

    def ptr(self, elem, shape=None) -> tensor:
        return self.arg(tl.pointer_type(elem), shape)

    def ops(self):
        return [op.name for op in self.block]

    def text(self) -> str:
        return "\n".join(print_op(op) for op in self.block)

    def clear(self):
        for op in reversed(list(self.block)):
            op.remove_from_parent()


ALL_INTS = [tl.int1, tl.int8, tl.int16, tl.int32, tl.int64,
            tl.uint8, tl.uint16, tl.uint32, tl.uint64]
STD_FLOATS = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
FP8 = [tl.float8e5, tl.float8e4nv]
ALL_NUMERIC = ALL_INTS + FP8 + STD_FLOATS
