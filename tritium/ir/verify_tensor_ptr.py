"""Verification rules of block pointers and tensor descriptors (registered into
`verify_ops.RULES`): operand counts per block rank, index and shape types, block types."""
from __future__ import annotations

from . import types as T
from .ops import DESCRIPTOR_REDUCE_KINDS, PADDING_OPTIONS
from .verify_ops import fail, pointee_shaped, rule


def _typed(op, values, ty, what):
    for i, v in enumerate(values):
        if v.type != ty:
            fail(op, f"{what} #{i} must be {ty}, found {v.type}")


def _order_ok(order, rank) -> bool:
    return sorted(order) == list(range(rank))


@rule("tt.make_tensor_ptr")
def _make_tensor_ptr(op):
    ty = op.results[0].type
    if not T.is_block_ptr(ty):
        fail(op, f"result must be a block pointer !tt.ptr<tensor<...>>, found {ty}")
    r = ty.pointee.rank
    if op.num_operands != 1 + 3 * r:
        fail(op, f"a rank-{r} block pointer takes a base and {r} shape, {r} stride and {r} "
                 f"offset operands ({1 + 3 * r} in all), found {op.num_operands}")
    base = op.operand(0).type
    if base != T.PointerType(ty.pointee.element, ty.address_space):
        fail(op, f"base {base} must point to the block's element type {ty.pointee.element}")
    _typed(op, op.operands[1:1 + 2 * r], T.i64, "shape/stride operand")
    _typed(op, op.operands[1 + 2 * r:], T.i32, "offset operand")
    order = op.attr("order", ())
    if not _order_ok(list(order), r):
        fail(op, f"order {list(order)} must be a permutation of 0..{r - 1}")


@rule("tt.advance")
def _advance(op):
    ty = op.operand(0).type
    if not T.is_block_ptr(ty):
        fail(op, f"operand #0 must be a block pointer, found {ty}")
    if op.results[0].type != ty:
        fail(op, f"result type {op.results[0].type} must equal the operand type {ty}")
    if op.num_operands != 1 + ty.pointee.rank:
        fail(op, f"takes one offset per block dim ({ty.pointee.rank}), found "
                 f"{op.num_operands - 1}")
    _typed(op, op.operands[1:], T.i32, "offset")


def check_block_pointer_access(op) -> bool:
    """tt.load/tt.store on a block pointer: no mask or other, valid boundaryCheck and
    padding. Returns False when `op` does not access a block pointer."""
    ptr = op.operand(0).type
    if not T.is_block_ptr(ptr):
        if op.attr("boundaryCheck", ()) or op.attr("padding") is not None:
            fail(op, "boundaryCheck and padding apply to block pointers only")
        return False
    value = pointee_shaped(ptr)
    n = 1 if op.name == "tt.load" else 2
    if op.num_operands != n:
        fail(op, f"on a block pointer takes no mask or 'other' ({op.num_operands} operands)")
    if op.name == "tt.store" and op.operand(1).type != value:
        fail(op, f"value type {op.operand(1).type} should be {value}")
    rank = ptr.pointee.rank
    dims = list(op.attr("boundaryCheck", ()))
    if any(not 0 <= d < rank for d in dims) or len(set(dims)) != len(dims):
        fail(op, f"boundaryCheck {dims} must list distinct dims of 0..{rank - 1}")
    pad = op.attr("padding")
    if pad is not None and pad not in PADDING_OPTIONS.values():
        fail(op, f"padding {pad} is not one of {sorted(PADDING_OPTIONS.values())}")
    return True


@rule("tt.make_tensor_descriptor")
def _make_desc(op):
    ty = op.results[0].type
    if not isinstance(ty, T.TensorDescType):
        fail(op, f"result must be a !tt.tensordesc, found {ty}")
    r = ty.block.rank
    if op.num_operands != 1 + 2 * r:
        fail(op, f"a rank-{r} descriptor takes a base, {r} shape and {r} stride operands, "
                 f"found {op.num_operands}")
    base = op.operand(0).type
    if not isinstance(base, T.PointerType) or base.pointee != ty.block.element:
        fail(op, f"base {base} must be a pointer to {ty.block.element}")
    _typed(op, op.operands[1:1 + r], T.i32, "shape operand")
    _typed(op, op.operands[1 + r:], T.i64, "stride operand")
    if op.attr("padding", 1) not in PADDING_OPTIONS.values():
        fail(op, f"padding {op.attr('padding')} is not a padding option")


def _desc(op) -> T.TensorDescType:
    ty = op.operand(0).type
    if not isinstance(ty, T.TensorDescType):
        fail(op, f"operand #0 must be a !tt.tensordesc, found {ty}")
    return ty


def _same_block(op, ty, desc):
    if ty.shape != desc.block.shape or ty.element_type != desc.block.element:
        fail(op, f"block {ty} does not match the descriptor's {desc.block}")


@rule("tt.descriptor_load")
def _desc_load(op):
    desc = _desc(op)
    _same_block(op, op.results[0].type, desc)
    if op.num_operands != 1 + desc.block.rank:
        fail(op, f"takes one index per dim ({desc.block.rank}), found {op.num_operands - 1}")
    _typed(op, op.operands[1:], T.i32, "index")


@rule("tt.descriptor_store", "tt.descriptor_reduce")
def _desc_store(op):
    desc = _desc(op)
    _same_block(op, op.operand(1).type, desc)
    if op.num_operands != 2 + desc.block.rank:
        fail(op, f"takes one index per dim ({desc.block.rank}), found {op.num_operands - 2}")
    _typed(op, op.operands[2:], T.i32, "index")
    if op.name == "tt.descriptor_reduce" and \
            op.attr("kind") not in DESCRIPTOR_REDUCE_KINDS.values():
        fail(op, f"unknown reduce kind {op.attr('kind')}")


def _gather_types(op, desc, x, y, block):
    if desc.block.rank != 2:
        fail(op, f"needs a 2-D descriptor, found {desc}")
    if not isinstance(x, T.TensorType) or x.rank != 1 or x.element != T.i32:
        fail(op, f"x offsets must be a 1-D tensor of i32, found {x}")
    if y != T.i32:
        fail(op, f"y offset must be i32, found {y}")
    if block.shape != (x.shape[0], desc.block.shape[1]) or \
            block.element_type != desc.block.element:
        fail(op, f"block {block} should be tensor<{x.shape[0]}x{desc.block.shape[1]}x"
                 f"{desc.block.element}>")


@rule("tt.descriptor_gather")
def _desc_gather(op):
    desc = _desc(op)
    _gather_types(op, desc, op.operand(1).type, op.operand(2).type, op.results[0].type)


@rule("tt.descriptor_scatter")
def _desc_scatter(op):
    desc = _desc(op)
    _gather_types(op, desc, op.operand(1).type, op.operand(2).type, op.operand(3).type)
