"""Shared memory as values, for the CPU backend: a Gluon kernel's buffers
(`ttg.local_alloc` and its views) become SSA tensors, so both CPU paths run the kernel as
plain TTIR.

On the CPU a program's whole block is one value, so a buffer is just the value last
stored into it: `local_store` defines the buffer's new value, `local_load` reads the
current one, and loops and branches that store carry it (extra `scf.for` iter_args and
`scf.if` results). A buffer indexed by `memdesc_index` is one value per slot, chosen by
`arith.select`s on the index. Views are functions of their base: `memdesc_trans` a
`tt.trans`, `memdesc_reshape` a `tt.reshape`, `memdesc_reinterpret` a bitcast of equal
widths, `memdesc_subslice` a `tt.gather` of the window (stored back through a gather and a
select). What this cannot express (a store inside an `scf.while`, a buffer passed to a
call) is refused, naming the op.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.attrs import DenseArrayAttr, IntegerAttr, i64_attr
from ...ir.ops import CMPI_PREDICATES
from ...ir.builder import Builder
from ...ir.core import Operation

__all__ = ["promote_shared_memory"]

_VIEWS = ("ttg.memdesc_index", "ttg.memdesc_trans", "ttg.memdesc_reshape",
          "ttg.memdesc_reinterpret", "ttg.memdesc_subslice")
# Synchronisation a program running as one block needs none of (barriers on buffers,
# the async-proxy fence); erased.
_SYNC = ("ttng.init_barrier", "ttng.inval_barrier", "ttng.barrier_expect",
         "ttng.arrive_barrier", "ttng.wait_barrier", "ttng.fence_async_shared",
         "ttng.async_tma_store_wait", "ttg.async_commit_group", "ttg.async_wait")
_TMA = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
        "ttg.async_copy_global_to_local")
_MEM_OPS = ("ttg.local_alloc", "ttg.local_load", "ttg.local_store", "ttg.local_dealloc",
            "ttng.warp_group_dot", "ttng.warp_group_dot_wait") + _VIEWS + _SYNC + _TMA


class _View:
    def __init__(self, root, slot=None, transforms=()):
        self.root, self.slot, self.transforms = root, slot, list(transforms)


def _refuse(op, why: str):
    raise ValueError(f"the CPU backend cannot run `{op.name}` at {op.loc}: {why}")


def _tensor_type(t: T.MemDescType, dims=None) -> T.TensorType:
    return T.TensorType(tuple(t.dims if dims is None else dims), t.element)


class _Promoter:
    def __init__(self, func: Operation):
        self.views: Dict[int, _View] = {}
        self.slots: Dict[int, int] = {}      # root id -> slot count (indexed buffers)
        self.roots: Dict[int, Operation] = {}
        self.dead: List[Operation] = []
        for op in func.walk():
            if op.name == "ttg.local_alloc":
                self.roots[id(op.results[0])] = op
                self.views[id(op.results[0])] = _View(op)
            elif op.name in _VIEWS:
                base = self.views.get(id(op.operand(0)))
                if base is None:
                    _refuse(op, "a view of a buffer not allocated in this function")
                if op.name == "ttg.memdesc_index":
                    if base.transforms or base.slot is not None:
                        _refuse(op, "an index into a view (only into the allocation itself)")
                    self.slots[id(base.root)] = op.operand(0).type.dims[0]
                    self.views[id(op.results[0])] = _View(base.root, op.operand(1))
                else:
                    self.views[id(op.results[0])] = _View(base.root, base.slot,
                                                          base.transforms + [op])
            elif op.name == "tt.call" and any(isinstance(v.type, T.MemDescType)
                                              for v in op.operands):
                _refuse(op, "a shared memory buffer passed to a call")

    # -- keys of a root's values: one per slot, or one for the whole buffer
    def keys(self, root) -> List:
        n = self.slots.get(id(root))
        return [(id(root), None)] if n is None else [(id(root), k) for k in range(n)]

    def written_roots(self, op) -> List[Operation]:
        out = []
        for o in op.walk():
            if o.name in ("ttg.local_store", "ttng.async_tma_copy_global_to_local",
                          "ttg.async_copy_global_to_local"):
                where = 1 if o.name != "ttng.async_tma_copy_global_to_local" else \
                    1 + len(o.operand(0).type.block.dims)
                root = self.views[id(o.operand(where))].root
                if root not in out and not op.is_ancestor_of(root):
                    out.append(root)
        return out

    # -- the walk
    def block(self, block, env: Dict) -> None:
        for op in list(block.ops):
            name = op.name
            if name == "ttg.local_alloc":
                self.alloc(op, env)
            elif name == "ttg.local_load":
                b = _builder_before(op)
                op.results[0].replace_all_uses_with(self.load(b, op, env))
                self.dead.append(op)
            elif name == "ttg.local_store":
                self.store(_builder_before(op), op, env)
                self.dead.append(op)
            elif name in _VIEWS or name in _SYNC or name == "ttg.local_dealloc":
                self.dead.append(op)
            elif name == "ttng.warp_group_dot":
                self.wgmma(op, env)
            elif name in _TMA:
                self.tma(op, env)
            elif name == "ttng.warp_group_dot_wait":
                op.replace_all_uses_with(list(op.operands))
                self.dead.append(op)
            elif name == "scf.for":
                self.loop(op, env)
            elif name == "scf.if":
                self.branch(op, env)
            elif op.regions:
                if name == "scf.while" and self.written_roots(op):
                    _refuse(op, "a shared memory store inside a while loop")
                for region in op.regions:
                    for blk in region.blocks:
                        self.block(blk, env)

    def alloc(self, op, env) -> None:
        self.dead.append(op)
        mt = op.results[0].type
        b = _builder_before(op)
        if op.operands:
            if id(op) in self.slots:
                _refuse(op, "an indexed buffer allocated with a value")
            env[(id(op), None)] = op.operand(0)
            return
        # (a buffer read before any store reads zeros here; on a GPU, whatever was there)
        n = self.slots.get(id(op))
        dims = mt.dims if n is None else mt.dims[1:]
        for key in self.keys(op):
            env[key] = b.constant(0, _tensor_type(mt, dims))

    def base_value(self, b, view, env):
        keys = self.keys(view.root)
        if view.slot is None:
            if len(keys) != 1:
                _refuse(view.root, "an indexed buffer read or written whole")
            return env[keys[0]]
        const = _const_int(view.slot)
        if const is not None:
            return env[keys[const]]
        acc = env[keys[0]]
        for k in range(1, len(keys)):
            cond = _eq(b, view.slot, k)
            acc = b.create1("arith.select", [cond, env[keys[k]], acc], acc.type)
        return acc

    def load(self, b, op, env):
        view = self.views[id(op.operand(0))]
        value = self.base_value(b, view, env)
        for t in view.transforms:
            value = _forward(b, t, value)
        want = op.results[0].type
        if value.type.dims != want.dims:
            value = b.create1("tt.reshape", [value], want, {"allow_reorder": False})
        return value

    def value_of(self, b, v, env):
        """A dot operand's value: a tensor as it is, a buffer view as loaded."""
        if not isinstance(v.type, T.MemDescType):
            return v
        view = self.views[id(v)]
        value = self.base_value(b, view, env)
        for t in view.transforms:
            value = _forward(b, t, value)
        return value

    def wgmma(self, op, env) -> None:
        """A wgmma is the dot of its operands' values (`useC` false: of a zero acc)."""
        b = _builder_before(op)
        a = self.value_of(b, op.operand(0), env)
        bb = self.value_of(b, op.operand(1), env)
        acc = op.operand(2)
        if op.num_operands > 3:
            zero = b.constant(0, acc.type)
            acc = b.create1("arith.select", [op.operand(3), acc, zero], acc.type)
        attrs = {k: op.attributes[k] for k in ("inputPrecision", "maxNumImpreciseAcc")
                 if k in op.attributes}
        out = b.create1("tt.dot", [a, bb, acc], op.results[0].type, attrs)
        op.results[0].replace_all_uses_with(out)
        self.dead.append(op)

    def tma(self, op, env) -> None:
        """A TMA copy is a descriptor load into the buffer, or a store of its value (the
        CPU evaluates descriptors directly; the copy is complete when it returns)."""
        b = _builder_before(op)
        if op.name == "ttg.async_copy_global_to_local":
            # cp.async: a load of the pointers (masked-off elements zero) into the buffer.
            ptr, buf = op.operand(0), op.operand(1)
            pt = ptr.type
            elt = pt.element_type.pointee
            operands = [ptr]
            if op.num_operands > 2:
                operands += [op.operand(2), b.constant(0, T.TensorType(pt.dims, elt))]
            value = b.create1("tt.load", operands, T.TensorType(pt.dims, elt),
                              {"cache": 1, "evict": 1, "isVolatile": False})
            self.store_view(b, self.views[id(buf)], value, env)
            self.dead.append(op)
            return
        desc = op.operand(0)
        rank = len(desc.type.block.dims)
        coords = list(op.operands[1:1 + rank])
        buf = op.operand(1 + rank)
        attrs = {"cache": 1, "evict": 1}
        if op.name == "ttng.async_tma_copy_global_to_local":
            block = desc.type.block
            value = b.create1("tt.descriptor_load", [desc] + coords,
                              T.TensorType(block.dims, block.element), attrs)
            view = self.views[id(buf)]
            if len(op.operands) > 3 + rank and _const_int(op.operand(3 + rank)) != 1:
                pred = op.operand(3 + rank)
                value = b.create1("arith.select", [pred, value, self.load_view(b, view, env)],
                                  value.type)
            self.store_view(b, view, value, env)
        else:
            value = self.value_of(b, buf, env)
            b.create("tt.descriptor_store", [desc, value] + coords, [], attrs)
        self.dead.append(op)

    def load_view(self, b, view, env):
        value = self.base_value(b, view, env)
        for t in view.transforms:
            value = _forward(b, t, value)
        return value

    def store(self, b, op, env) -> None:
        self.store_view(b, self.views[id(op.operand(1))], op.operand(0), env)

    def store_view(self, b, view, value, env) -> None:
        chain = [self.base_value(b, view, env)] if any(
            t.name == "ttg.memdesc_subslice" for t in view.transforms) else None
        if chain is not None:
            for t in view.transforms[:-1]:
                chain.append(_forward(b, t, chain[-1]))
        for i in reversed(range(len(view.transforms))):
            old = chain[i] if chain is not None else None
            value = _inverse(b, view.transforms[i], value, old)
        keys = self.keys(view.root)
        if view.slot is None:
            env[keys[0]] = value
            return
        const = _const_int(view.slot)
        for k, key in enumerate(keys):
            if const is not None:
                if k == const:
                    env[key] = value
                continue
            env[key] = b.create1("arith.select", [_eq(b, view.slot, k), value, env[key]],
                                 env[key].type)

    def loop(self, op, env) -> None:
        keys = [k for root in self.written_roots(op) for k in self.keys(root)]
        if keys:
            op = _add_iter_args(op, [env[k] for k in keys])
        body = op.regions[0].entry
        n = len(body.args) - len(keys)
        inner = dict(env)
        for i, k in enumerate(keys):
            inner[k] = body.args[n + i]
        self.block(body, inner)
        if keys:
            term = body.terminator
            for k in keys:
                term.add_operand(inner[k])
            first = len(op.results) - len(keys)
            for i, k in enumerate(keys):
                env[k] = op.results[first + i]

    def branch(self, op, env) -> None:
        keys = [k for root in self.written_roots(op) for k in self.keys(root)]
        ends = []
        for region in op.regions:
            inner = dict(env)
            for blk in region.blocks:
                self.block(blk, inner)
            ends.append(inner)
        if not keys:
            return
        op = _add_if_results(op, [env[k].type for k in keys])
        for region, inner in zip(op.regions, ends):
            if not region.blocks:
                region.add_block()
                Builder(region.entry).create("scf.yield", [], [])
            term = region.entry.terminator
            for k in keys:
                term.add_operand(inner[k])
        first = len(op.results) - len(keys)
        for i, k in enumerate(keys):
            env[k] = op.results[first + i]


def _builder_before(op) -> Builder:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    return b


def _const_int(v) -> Optional[int]:
    op = v.owner_op
    if op is not None and op.name == "arith.constant":
        attr = op.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return int(attr.value)
    return None


def _eq(b, index, k):
    c = b.constant(k, index.type)
    return b.create1("arith.cmpi", [index, c], T.IntegerType(1), _pred("eq"))


def _pred(name: str) -> dict:
    return {"predicate": i64_attr(CMPI_PREDICATES.index(name))}


def _ints(attr) -> List[int]:
    values = attr.value if isinstance(attr, DenseArrayAttr) else attr
    return [int(getattr(x, "value", x)) for x in values]


def _forward(b, t: Operation, value):
    """The view `t` of a value of its base."""
    rt = t.results[0].type
    want = T.TensorType(rt.dims, rt.element)
    if t.name == "ttg.memdesc_trans":
        return b.create1("tt.trans", [value], want, {"order": t.attributes["order"]})
    if t.name == "ttg.memdesc_reshape":
        return b.create1("tt.reshape", [value], want, {"allow_reorder": False})
    if t.name == "ttg.memdesc_reinterpret":
        return _reinterpret(b, t, value, want)
    offsets = _ints(t.attributes["offsets"])
    out = value
    for d, start in enumerate(offsets):
        if rt.dims[d] != value.type.dims[d]:
            out = _window(b, out, d, start, rt.dims[d])
    return out


def _inverse(b, t: Operation, value, old):
    """The base's value after storing `value` through the view `t` (`old`: its value before)."""
    st = t.operand(0).type
    base = T.TensorType(st.dims, st.element)
    if t.name == "ttg.memdesc_trans":
        order = _ints(t.attributes["order"])
        inv = [0] * len(order)
        for i, o in enumerate(order):
            inv[o] = i
        return b.create1("tt.trans", [value], base, {"order": DenseArrayAttr(T.IntegerType(32),
                                                                             tuple(inv))})
    if t.name == "ttg.memdesc_reshape":
        return b.create1("tt.reshape", [value], base, {"allow_reorder": False})
    if t.name == "ttg.memdesc_reinterpret":
        return _reinterpret(b, t, value, base)
    offsets = _ints(t.attributes["offsets"])
    out = old
    rt = t.results[0].type
    for d, start in enumerate(offsets):
        if rt.dims[d] != st.dims[d]:
            out = _merge(b, old, value, d, start, rt.dims[d])
    return out


def _reinterpret(b, t, value, want):
    src = value.type
    if src.element != want.element:
        if _bits(src.element) != _bits(want.element):
            _refuse(t, "a reinterpretation to elements of another width")
        value = b.create1("tt.bitcast", [value], T.TensorType(src.dims, want.element))
    if value.type.dims != want.dims:
        value = b.create1("tt.reshape", [value], want, {"allow_reorder": False})
    return value


def _bits(t) -> int:
    width = getattr(t, "width", None)
    return width if width is not None else t.bitwidth


def _index_along(b, shape, d, start, clamp_to=None):
    """int32 tensor of `shape` whose entries are their coordinate along `d` plus `start`
    (clamped into [0, clamp_to) when given)."""
    i32 = T.IntegerType(32)
    n = shape[d]
    idx = b.create1("tt.make_range", [], T.TensorType((n,), i32), {"start": 0, "end": n})
    if start:
        idx = b.create1("arith.addi", [idx, b.constant(start, T.TensorType((n,), i32))],
                        idx.type)
    if clamp_to is not None:
        hi = b.constant(clamp_to - 1, T.TensorType((n,), i32))
        lo = b.constant(0, T.TensorType((n,), i32))
        idx = b.create1("arith.minsi", [b.create1("arith.maxsi", [idx, lo], idx.type), hi],
                        idx.type)
    for k in range(len(shape)):
        if k != d:
            dims = list(idx.type.dims)
            dims.insert(k, 1)
            idx = b.create1("tt.expand_dims", [idx], T.TensorType(tuple(dims), i32),
                            {"axis": k})
    return b.create1("tt.broadcast", [idx], T.TensorType(tuple(shape), i32))


def _window(b, value, d, start, length):
    shape = list(value.type.dims)
    shape[d] = length
    idx = _index_along(b, shape, d, start)
    return b.create1("tt.gather", [value, idx], T.TensorType(tuple(shape), value.type.element),
                     {"axis": d})


def _merge(b, old, value, d, start, length):
    shape = list(old.type.dims)
    idx = _index_along(b, shape, d, -start, clamp_to=length)
    moved = b.create1("tt.gather", [value, idx], old.type, {"axis": d})
    pos = _index_along(b, shape, d, 0)
    i1 = T.TensorType(tuple(shape), T.IntegerType(1))
    lo = b.create1("arith.cmpi", [pos, b.constant(start, pos.type)], i1, _pred("sge"))
    hi = b.create1("arith.cmpi", [pos, b.constant(start + length, pos.type)], i1,
                   _pred("slt"))
    inside = b.create1("arith.andi", [lo, hi], i1)
    return b.create1("arith.select", [inside, moved, old], old.type)


def _add_iter_args(loop: Operation, inits) -> Operation:
    b = _builder_before(loop)
    new = b.create("scf.for", list(loop.operands) + list(inits),
                   loop.result_types + [v.type for v in inits], dict(loop.attributes),
                   num_regions=1)
    body = loop.regions[0].entry
    nbody = new.regions[0].add_block()
    for a in body.args:
        a.replace_all_uses_with(nbody.add_argument(a.type))
    for v in inits:
        nbody.add_argument(v.type)
    for o in list(body):
        o.remove_from_parent()
        nbody.append(o)
    loop.replace_all_uses_with(new.results[:len(loop.results)])
    loop.erase()
    return new


def _add_if_results(op: Operation, types) -> Operation:
    b = _builder_before(op)
    new = b.create("scf.if", list(op.operands), op.result_types + list(types),
                   dict(op.attributes), num_regions=2)
    for old_r, new_r in zip(op.regions, new.regions):
        for blk in list(old_r.blocks):
            nblk = new_r.add_block()
            for o in list(blk):
                o.remove_from_parent()
                nblk.append(o)
    op.replace_all_uses_with(new.results[:len(op.results)])
    op.erase()
    return new


def promote_shared_memory(module: Operation) -> None:
    """Replace every shared-memory buffer of `module`'s functions by values, in place."""
    for func in [op for op in module.walk() if op.name == "tt.func"]:
        if not any(o.name in _MEM_OPS for o in func.walk()):
            continue
        p = _Promoter(func)
        p.block(func.regions[0].entry, {})
        for op in reversed(p.dead):
            for r in op.results:
                if r.uses:
                    _refuse(op, "a buffer used by an op the CPU cannot run on values")
            op.erase()
