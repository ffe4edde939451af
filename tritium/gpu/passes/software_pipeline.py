"""tritongpu-pipeline: multi-buffer the loads that feed wgmma dots in a loop.

For an `scf.for` whose body loads tiles that go, through `ttg.local_alloc`, only into
`ttng.warp_group_dot`s, with `num_stages` S > 1 (the loop's `tt.num_stages` or the
option): each such load becomes a `ttg.async_copy_global_to_local` (cp.async, zero-fill
for masked elements) into a ring of shared-memory slots, issued D = S-1 iterations ahead:

    prologue   copies for iterations 0..D-1 (each predicated on lb + s*step < ub), one
               commit group per dot, in the order the dots come
    loop i     per dot: async_wait(groups younger than its own) -> its tiles of iteration
               i have landed (+ barrier); wgmma on slot i % NB (async: wgmma(i-1) is waited
               for after wgmma(i) issues)
               barrier, copies for iteration i+D into slot (i+D) % NB, commits
    after      async_wait(0), warp_group_dot_wait(0) on the accumulators

A tile loaded through a kernel-parameter tensor descriptor (`tt.descriptor_load`, possibly
through `tt.trans`) rides TMA instead: the ring's slots take the descriptor block's own
NVMMA layout (gpu/tma.py; a `ttg.memdesc_trans` view hands the dot the transposed tile),
each slot has an mbarrier, thread 0 arms it with the slot's byte count and issues the
copies, and the dot waits on the slot's barrier (phase = how many times the ring wrapped,
mod 2) right where the tile was staged, so a second dot's tile (attention's V) keeps
landing while the first dot runs. Barriers are initialised before the prologue and
invalidated after the loop.

The loop-carried values the loads' addresses come from (pointer tensors advanced by
loop-invariant steps, or block offsets moved by what an index table says) are carried D
iterations ahead: the prologue runs their advance D times. Plain loads in those address and
advance computations (index-table reads) run ahead too, predicated, when the loop writes no
global memory; see pipeline_indirect.py. A carried value stays in place (D ahead, no copy)
only when nothing but the address computation reads it, in or after the loop. The ring has NB = S slots, so the slot refilled in iteration i is the one wgmma(i-1)
read: with async wgmma a barrier after the `warp_group_dot_wait(1)` of every warpgroup
orders the refill after all those reads (synchronous dots finished before the barrier at
the top of the iteration). Loops that do not match the pattern are left alone (and still
run correctly).

A loop with its own `num_stages` and no dot has its plain loads pipelined the same way (one
commit group per iteration, each tile read back by a `ttg.local_load`): pipeline_nodot.py.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from ...ir import types as T
from ...ir.attrs import BoolAttr, i64_attr
from ...ir.builder import Builder
from ...ir.core import Block, Operation, Value
from ...passes.manager import Pass, register_pass
from ..layouts import NVMMASharedEncoding, contig_per_thread, get_order
from .pipeline_branches import (branch_bytes, fold_acc_reset, is_zero_const, reads, top_op,
                                wait_in_branches)
from .pipeline_indirect import (clone_predicated, early_ops, early_outputs, slice_ops,
                                writes_global)
from .pipeline_nodot import has_dot, nodot_loads, nodot_ring_types

__all__ = ["SoftwarePipeline", "pipeline_loops"]

SMEM_BUDGET = 200 * 1024  # of the 227 KB a block may use: room for the epilogue's scratch
SMEM_LIMIT = 227 * 1024 - 1024  # sm_90's per-block limit, less room for barriers





def _block_args_used(ops: List[Operation], body: Block) -> Set[Value]:
    return {v for op in ops for v in reads(op) if v in body.args}


class _Candidate:
    """A load to pipeline: staged by `alloc` for `dot`, or (both None) a load of a dot-less
    loop, read back from its slot by a `ttg.local_load` (pipeline_nodot.py)."""

    def __init__(self, load: Operation, alloc: Optional[Operation], dot: Optional[Operation],
                 trans: Optional[Operation] = None):
        self.load, self.alloc, self.dot, self.trans = load, alloc, dot, trans
        self.tma = load.name == "tt.descriptor_load"

    @property
    def anchor(self) -> Operation:
        """Where the tile is consumed: its slot's view (and wait) go right before it."""
        return self.alloc if self.alloc is not None else self.load

    @property
    def addr_operands(self) -> List[Value]:
        """What the copy's source is computed from (pointers and mask, or coordinates)."""
        return list(self.load.operands[1:]) if self.tma else list(self.load.operands[:2])

    @property
    def ops(self) -> List[Operation]:
        return [self.load] + ([self.trans] if self.trans is not None else [])


def _tma_candidate(dot: Operation, i: int, alloc: Operation, body: Block) -> Optional[_Candidate]:
    """alloc(descriptor_load) or alloc(trans(descriptor_load)) of a TMA descriptor fixed
    across the loop (a kernel's, or one made on the device before it), when the block's TMA layout (or its transpose) is one wgmma can read."""
    from .accelerate_matmul import tensor_core_kind
    from ..tma import fixed_tma_descriptor, tma_block
    src = alloc.operand(0).owner_op
    trans = None
    if src is not None and src.name == "tt.trans" and src.parent is body \
            and len(src.results[0].uses) == 1 and src.results[0].type.rank == 2:
        trans, src = src, src.operand(0).owner_op
    if src is None or src.name != "tt.descriptor_load" or src.parent is not body \
            or len(src.results[0].uses) != 1:
        return None
    desc = src.operand(0)
    if not fixed_tma_descriptor(desc, body.parent_op):
        return None
    tb = tma_block(desc.type.block)
    if tb is None or not tb.swizzle or len(tb.dims) != 2:
        return None
    transposed = trans is not None     # the view the dot reads: contiguous along dim 1 unless
    k_major = (not transposed) if i == 0 else transposed
    a, b, c = dot.operands[:3]
    kind = tensor_core_kind(a.type, b.type, dot.results[0].type,
                            int(dot.attr("inputPrecision", 0) or 0))
    if kind not in ("f16", "bf16") and not k_major:
        return None
    return _Candidate(src, alloc, dot, trans)


def _copy_bits(load: Operation, info) -> int:
    """Bits one cp.async of this load can move per thread: the layout's run along the
    fastest dim cut by the pointers' contiguity and alignment and the mask's constancy."""
    ptr_t = load.operand(0).type
    order = get_order(ptr_t.encoding)
    d = order[0]
    bits = load.results[0].type.element_type.bitwidth
    vec = contig_per_thread(ptr_t.encoding, list(ptr_t.dims))[d]
    ai = info.get(load.operand(0))
    vec = min(vec, ai.contiguity[d], max(1, ai.divisibility[d] * 8 // bits))
    if load.num_operands > 1:
        vec = min(vec, info.get(load.operand(1)).constancy[d])
    return vec * bits


def _candidates(loop: Operation, info) -> List[_Candidate]:
    body = loop.regions[0].entry
    out = []
    for dot in body:
        if dot.name != "ttng.warp_group_dot" or dot.attr("isAsync", False):
            continue
        for i in (0, 1):
            alloc = dot.operand(i).owner_op
            if alloc is None or alloc.name != "ttg.local_alloc" or alloc.parent is not body \
                    or not alloc.operands or len(alloc.results[0].uses) != 1:
                continue
            tma = _tma_candidate(dot, i, alloc, body)
            if tma is not None:
                out.append(tma)
                continue
            load, trans = alloc.operand(0).owner_op, None
            if load is not None and load.name == "tt.trans" and load.parent is body \
                    and len(load.results[0].uses) == 1 and load.results[0].type.rank == 2 \
                    and isinstance(alloc.results[0].type.encoding, NVMMASharedEncoding):
                # K of attention loaded row-major and transposed for the dot: the ring holds
                # the tile as loaded, the dot reads a transposed view of its slot.
                trans, load = load, load.operand(0).owner_op
            if load is None or load.name != "tt.load" or load.parent is not body \
                    or len(load.results[0].uses) != 1:
                continue
            if load.num_operands > 2 and not is_zero_const(load.operand(2)):
                continue
            if _copy_bits(load, info) < 32:
                continue  # cp.async moves 4, 8 or 16 bytes
            enc = alloc.results[0].type.encoding
            if trans is not None:
                enc = _untransposed(enc)
            if get_order(load.operand(0).type.encoding)[0] != enc.order[0]:
                # Staged the other way round (an MN extent too narrow to swizzle goes
                # K-major): each copy would move one element, below cp.async's 4 bytes.
                continue
            out.append(_Candidate(load, alloc, dot, trans))
    return out


def _untransposed(enc: NVMMASharedEncoding) -> NVMMASharedEncoding:
    """The NVMMA layout of a tile whose transpose has layout `enc` (same bytes)."""
    return NVMMASharedEncoding(enc.swizzling_byte_width, not enc.transposed,
                               enc.element_bit_width)


def async_modes(loop: Operation, cands: List[_Candidate]) -> Dict[Operation, str]:
    """Which wgmma dots of the loop may stay in flight, and how they are waited for:

    * "chain": the accumulator is the loop-carried value itself (a matmul K loop):
      `warp_group_dot_wait(1)` right after the next dot issues, as upstream does;
    * "deferred": the accumulator is rescaled before the dot (attention's P @ V): the wait
      moves to the first use of the carried result in the next iteration, so the dot runs
      under the next iteration's load wait and first dot.

    Both need the result to feed only the yield, and every shared-memory operand to be a
    pipelined slot (refilled only after the barrier that follows the waits) or a buffer
    fixed across the loop: one written in the loop would be overwritten in flight."""
    body = loop.regions[0].entry
    piped = {(c.dot, i) for c in cands for i in (0, 1) if c.dot.operand(i) is c.alloc.results[0]}
    modes: Dict[Operation, str] = {}
    for dot in body:
        if dot.name != "ttng.warp_group_dot" or dot.attr("isAsync", False):
            continue
        uses = dot.results[0].uses
        to_yield = [u for u in uses if u.owner is body.last]
        # Besides the yield, a chained accumulator may be read in a branch after the dot
        # (the fused loop's epilogue, which waits for it there).
        if len(to_yield) != 1 or any(top_op(u.owner, body) is u.owner for u in uses
                                     if u.owner is not body.last):
            continue
        ok = True
        for i in (0, 1):
            v = dot.operand(i)
            if isinstance(v.type, T.MemDescType) and (dot, i) not in piped:
                d = v.owner_op
                ok &= d is not None and not loop.is_ancestor_of(d)
        if ok:
            mode = "chain" if dot.operand(2) in body.args else "deferred"
            if mode == "deferred" and len(uses) > 1:
                continue
            modes[dot] = mode
    return modes


def pipeline_loop(loop: Operation, num_stages: int, info, explicit: bool = False) -> bool:
    """`explicit`: the loop's own `tt.num_stages` set the count, which (as upstream) also
    pipelines the loads of a loop without dots."""
    if num_stages <= 1:
        return False
    body = loop.regions[0].entry
    term = body.last
    cands = _candidates(loop, info)
    nodot = not cands and explicit and not has_dot(loop)
    if nodot:
        cands = [_Candidate(ld, None, None) for ld in nodot_loads(loop, info, _copy_bits)]
    if not cands:
        return False
    iv = body.args[0]
    roots = [v for c in cands for v in c.addr_operands]
    # Index-table reads in the addresses run ahead with them, unless the loop writes memory
    # (a dot-less loop's loads read no loaded address: nodot_loads).
    loads_ok = not writes_global(body) and not nodot
    addr_ops = slice_ops(body, roots, loads_ok)
    if addr_ops is None:
        return False
    direct = {v for v in roots if v in body.args}
    carried_set = (_block_args_used(addr_ops, body) | direct) - {iv}
    # The carried values the addresses come from, closed over what their next values read
    # (a fused loop's tile counters and prologue values advance together).
    while True:
        nexts = [term.operand(c.index - 1) for c in carried_set]
        adv_ops = slice_ops(body, nexts, loads_ok)
        if adv_ops is None:
            return False
        more = (_block_args_used(adv_ops, body) | {v for v in nexts if v in body.args}) - {iv}
        if more <= carried_set:
            break
        carried_set |= more
    carried = sorted(carried_set, key=lambda a: a.index)
    # When nothing but the address computation reads them, the carried values themselves
    # run D iterations ahead; else ahead copies are carried beside them (the fused loop's
    # epilogue reads the current tile's).
    allowed = set(addr_ops) | set(adv_ops) | {term} | {o for x in cands for o in x.ops}
    in_place = all(top_op(u.owner, body) in allowed
                   for v in carried + [r for op in addr_ops + adv_ops for r in op.results]
                   for u in v.uses)
    # In place, the body's own advance runs on carried values D iterations ahead: it must
    # not read the induction variable, nor load (its loads would run unpredicated past the
    # loop's end). Else the advance is cloned onto the ahead copies with `iv + D*step`.
    in_place = in_place and not any(iv in reads(op) or op.name == "tt.load" for op in adv_ops)
    # ...and the loop's results would come out D iterations on: only when nothing reads them.
    in_place = in_place and not any(loop.results[c.index - 1].uses for c in carried)
    D = num_stages - 1
    tile_bytes = sum(c.load.results[0].type.numel * c.load.results[0].type.element_type.bitwidth // 8
                     for c in cands) + 8 * sum(c.tma for c in cands)
    NB = num_stages
    extra = branch_bytes(loop)
    if nodot:
        pass  # uncapped, as upstream: too many stages fail to load with OutOfResources
    elif extra:
        # A fused loop's epilogue (its TMA store buffer, its layout conversions) lives
        # beside the rings: fewer slots rather than a kernel that cannot launch.
        while NB > 2 and tile_bytes * NB + extra > SMEM_LIMIT:
            NB -= 1
        if tile_bytes * NB + extra > SMEM_LIMIT:
            return False
        D = NB - 1
    elif tile_bytes * NB > SMEM_BUDGET:
        return False
    modes = {} if nodot else async_modes(loop, cands)
    _rewrite(loop, cands, addr_ops, carried, adv_ops, in_place, D, NB, modes)
    return True


def _ring_types(c: _Candidate, NB: int):
    """(ring type, slot type, the dot's view type or None) of a candidate."""
    if c.dot is None:
        return nodot_ring_types(c.load, NB) + (None,)
    if c.tma:
        from ..tma import tma_block
        tb = tma_block(c.load.operand(0).type.block)
        elt = c.load.results[0].type.element_type
        slot = T.MemDescType(tb.dims, elt, tb.encoding, True, (NB,) + tb.dims)
        ring = T.MemDescType((NB,) + tb.dims, elt, tb.encoding, mutable=True)
        view = None
        if c.trans is not None:
            enc = tb.encoding
            tenc = type(enc)(enc.swizzling_byte_width, not enc.transposed, enc.element_bit_width)
            view = T.MemDescType(tb.dims[::-1], elt, tenc, True, (NB,) + tb.dims)
        return ring, slot, view
    v = c.alloc.results[0].type
    if c.trans is not None:
        dims, enc = tuple(c.load.results[0].type.dims), _untransposed(v.encoding)
        return (T.MemDescType((NB,) + dims, v.element, enc, mutable=True),
                T.MemDescType(dims, v.element, enc, True, (NB,) + dims),
                T.MemDescType(v.dims, v.element, v.encoding, True, (NB,) + dims))
    return (T.MemDescType((NB,) + v.dims, v.element, v.encoding, mutable=True),
            T.MemDescType(v.dims, v.element, v.encoding, True, (NB,) + v.dims), None)


def _rewrite(loop, cands, addr_ops, carried, adv_ops, in_place, D, NB, modes) -> None:
    from ..tma import tma_block
    from .tma_lowering import barrier_type
    body = loop.regions[0].entry
    term = body.last
    iv = body.args[0]
    lb, ub, step = loop.operands[:3]
    ity = iv.type
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc
    i32 = T.IntegerType(32)
    # Copies are issued in the order the dots use them, one cp.async group per dot, so each
    # dot waits only for its own tiles (attention's V keeps landing under Q K^T + softmax).
    pos = {op: i for i, op in enumerate(body)}
    cands = sorted(cands, key=lambda c: (pos[c.dot], c.dot.operand(0) is not c.alloc.results[0])
                   if c.dot is not None else (pos[c.load], False))
    tmas = [c for c in cands if c.tma]
    last_cp = {c.dot: c for c in cands if not c.tma}
    cp_dots = list(last_cp)
    has_cp = bool(cp_dots)

    def c32(v):
        return b.constant(v, i32)

    types = [_ring_types(c, NB) for c in cands]
    bufs = [b.create1("ttg.local_alloc", [], ring) for ring, _, _ in types]
    # One ring of barriers per TMA tile, so each dot waits only for its own operand.
    bars = {c: b.create1("ttg.local_alloc", [], barrier_type(NB)) for c in tmas}
    one_bar = barrier_type(1)
    # The rings reuse bytes an earlier op's scratch had (the allocator overlaps buffers
    # whose lifetimes do not), and that op ends with its loads, not a barrier: no copy or
    # barrier init may land before every warp is past them.
    b.create("ttg.barrier", [], [])
    for c in tmas:
        for k in range(NB):
            b.create("ttng.init_barrier", [b.create1("ttg.memdesc_index", [bars[c], c32(k)],
                                                     one_bar)], [], {"count": 1})
    if tmas:
        b.create("ttng.fence_async_shared", [], [], {"bCluster": False})
        b.create("ttg.barrier", [], [])

    # The index loads among the address ops (and what they read) run an iteration before the
    # copies they feed; their results `xs` are carried from one iteration to the next.
    early = early_ops(addr_ops)
    early_set = set(early)
    late = [op for op in addr_ops if op not in early_set]
    addr_set = set(addr_ops)
    xs = early_outputs(early, late + [op for op in adv_ops if op not in addr_set]
                       + [x.load for x in cands])
    xs += [v for v in (term.operand(c.index - 1) for c in carried)
           if v.owner_op in early_set and v not in xs]

    def issue(bld: Builder, mapping: Dict[Value, Value], pred: Value, slot: Value) -> None:
        for op in late:
            bld.insert(op.clone(mapping))
        for c, buf, (_, st, _) in zip(cands, bufs, types):
            view = bld.create1("ttg.memdesc_index", [buf, slot], st)
            if c.tma:
                bar = bld.create1("ttg.memdesc_index", [bars[c], slot], one_bar)
                nbytes = tma_block(c.load.operand(0).type.block).bytes
                bld.create("ttng.barrier_expect", [bar, pred], [], {"size": nbytes})
                coords = [mapping.get(v, v) for v in c.load.operands[1:]]
                bld.create("ttng.async_tma_copy_global_to_local",
                           [c.load.operand(0), *coords, view, bar, pred], [])
                continue
            ptr = mapping.get(c.load.operand(0), c.load.operand(0))
            shape_t = T.TensorType(ptr.type.dims, T.IntegerType(1), ptr.type.encoding)
            mask = bld.create1("tt.splat", [pred], shape_t)
            if c.load.num_operands > 1:
                mask = bld.create1("arith.andi", [mapping.get(c.load.operand(1), c.load.operand(1)),
                                                  mask], shape_t)
            bld.create("ttg.async_copy_global_to_local", [ptr, view, mask], [],
                       {k: v for k, v in c.load.attributes.items() if k in ("cache", "evict")})
            if c is last_cp.get(c.dot):
                bld.create("ttg.async_commit_group", [], [])

    def advance(bld: Builder, mapping: Dict[Value, Value], pred: Value) -> List[Value]:
        """The carried values one iteration on, from `mapping` (after `issue` used it)."""
        for op in adv_ops:
            if op not in addr_set:
                clone_predicated(bld, op, mapping, pred)
        return [mapping.get(term.operand(c.index - 1), term.operand(c.index - 1))
                for c in carried]

    def run_early(bld: Builder, mapping: Dict[Value, Value], pred: Value) -> List[Value]:
        for op in early:
            clone_predicated(bld, op, mapping, pred)
        return [mapping[x] for x in xs]

    def iv_at(bld: Builder, base: Value, s: int):
        """base + s*step and whether that iteration runs."""
        v = base if s == 0 else bld.create1("arith.addi", [base, bld.create1(
            "arith.muli", [step, bld.constant(s, ity)], ity)], ity)
        return v, bld.create1("arith.cmpi", [v, ub], T.IntegerType(1), {"predicate": i64_attr(2)})

    # prologue
    vals = {c: loop.operand(3 + c.index - 1) for c in carried}
    steps = [iv_at(b, lb, s) for s in range(D + bool(early))]
    x_vals = run_early(b, {iv: lb, **vals}, steps[0][1]) if early else []
    for s in range(D):
        iv_s, pred = steps[s]
        mapping: Dict[Value, Value] = {iv: iv_s, **vals, **dict(zip(xs, x_vals))}
        issue(b, mapping, pred, c32(s % NB))
        vals = dict(zip(carried, advance(b, mapping, pred)))
        if early:
            x_vals = run_early(b, {iv: steps[s + 1][0], **vals}, steps[s + 1][1])
    inits = list(loop.operands[3:])
    n_ahead = 0 if in_place else len(carried)
    if in_place:
        for c in carried:
            inits[c.index - 1] = vals[c]
    else:
        inits += [vals[c] for c in carried]
    inits += x_vals
    inits += [c32(0), c32(D % NB), c32(0)]
    new = b.create("scf.for", [lb, ub, step, *inits], [v.type for v in inits],
                   dict(loop.attributes), num_regions=1)
    nbody = new.regions[0].add_block()
    nargs = [nbody.add_argument(a.type) for a in body.args] + \
        [nbody.add_argument(c.type) for c in carried[:n_ahead]] + \
        [nbody.add_argument(x.type) for x in xs] + \
        [nbody.add_argument(i32) for _ in range(3)]
    ahead_args = nargs[len(body.args):len(body.args) + n_ahead]
    x_args = nargs[len(body.args) + n_ahead:len(body.args) + n_ahead + len(xs)]
    for old, na in zip(body.args, nargs):
        old.replace_all_uses_with(na)
    for op in list(body):
        op.remove_from_parent()
        nbody.append(op)
    ext, ins, phase = nargs[-3], nargs[-2], nargs[-1]
    iv = nargs[0]
    term = nbody.last
    ib = Builder()
    ib.set_insertion_point_before(nbody.first)
    ib.loc = loop.loc
    G = len(cp_dots)
    waited = set()
    loaded: List[Operation] = []
    for c, buf, (_, st, view_t) in zip(cands, bufs, types):
        if not c.tma and c.dot not in waited:
            # Groups younger than this dot's: later dots' of this iteration, and all of the
            # D-1 iterations issued ahead.
            waited.add(c.dot)
            first = min((x.anchor for x in cands if x.dot is c.dot and not x.tma), key=pos.get)
            Builder.before_op_at_its_loc(first).create(
                "ttg.async_wait", [], [], {"num": (G - 1 - cp_dots.index(c.dot)) + G * (D - 1)})
        # The tile's view (for TMA, after the wait on its slot's barrier) goes where the tile
        # was staged: later tiles keep landing under earlier dots.
        wb = Builder.before_op_at_its_loc(c.anchor)
        view = wb.create1("ttg.memdesc_index", [buf, ext], st)
        if c.tma:
            bar = wb.create1("ttg.memdesc_index", [bars[c], ext], one_bar)
            wb.create("ttng.wait_barrier", [bar, phase], [])
        if view_t is not None:
            view = wb.create1("ttg.memdesc_trans", [view], view_t, {"order": [1, 0]})
        if c.dot is None:
            # A dot-less load: its tile read back in its own layout (no barrier after it:
            # the slot is refilled an iteration later, after the next wait's barrier).
            got = wb.create1("ttg.local_load", [view], c.load.results[0].type)
            c.load.results[0].replace_all_uses_with(got)
            loaded.append(got.owner_op)
        else:
            c.alloc.results[0].replace_all_uses_with(view)
    dots = [op for op in nbody if op.name == "ttng.warp_group_dot"]
    # The next copies are issued after the last dot, or after the last tile read back.
    last = dots[-1] if dots else loaded[-1]
    for d, mode in modes.items():
        d.attributes["isAsync"] = BoolAttr(True)
        if mode == "chain":
            ib.set_insertion_point_after(d)
            w = ib.create("ttng.warp_group_dot_wait", [d.results[0]], [d.results[0].type],
                          {"pendings": 1})
            for u in list(d.results[0].uses):
                if u.owner is not w:
                    u.set(w.results[0])
            wait_in_branches(nbody, w.results[0])
            if d is last:
                last = w
        else:
            _defer_wait(nbody, d)
    ib.set_insertion_point_after(last)
    if modes or tmas:
        # The slot refilled next was read by wgmma(i-1): each warpgroup has now waited for
        # its own; the barrier makes sure every warpgroup has (and, with TMA and no
        # cp.async wait, that every thread is past its reads of the slot).
        ib.create("ttg.barrier", [], [])
    ahead = ib.create1("arith.addi", [iv, ib.create1("arith.muli", [step, ib.constant(D, ity)],
                                                        ity)], ity)
    pred = ib.create1("arith.cmpi", [ahead, new.operand(1)], T.IntegerType(1), {"predicate": i64_attr(2)})
    if in_place:
        issue(ib, {iv: ahead, **dict(zip(xs, x_args))}, pred, ins)
        nxt = []
        later = [term.operand(c.index - 1) for c in carried]
    else:
        mapping = {iv: ahead, **{nargs[c.index]: a for c, a in zip(carried, ahead_args)},
                   **dict(zip(xs, x_args))}
        issue(ib, mapping, pred, ins)
        nxt = advance(ib, mapping, pred)
        later = list(nxt)
    if early:
        # The index loads of the iteration after the one just issued, at the end of the
        # body: a whole iteration hides their latency.
        eb = Builder()
        eb.set_insertion_point_before(term)
        eb.loc = loop.loc
        iv_n, pred_n = iv_at(eb, ahead, 1)
        nxt += run_early(eb, {iv: iv_n, **{nargs[c.index]: v for c, v in zip(carried, later)}},
                         pred_n)
    one, nb = ib.constant(1, i32), ib.constant(NB, i32)
    wraps = []
    for x in (ext, ins):
        y = ib.create1("arith.addi", [x, one], i32)
        wraps.append(ib.create1("arith.cmpi", [y, nb], T.IntegerType(1), {"predicate": i64_attr(0)}))
        nxt.append(ib.create1("arith.select", [wraps[-1], ib.constant(0, i32), y], i32))
    # The consumer's phase flips each time its slot index wraps around the ring.
    flipped = ib.create1("arith.xori", [phase, one], i32)
    nxt.append(ib.create1("arith.select", [wraps[0], flipped, phase], i32))
    term.set_operands(list(term.operands) + nxt)
    for c in cands:
        if c.alloc is not None:
            c.alloc.erase()
        for op in reversed(c.ops):
            op.erase()
    # after the loop
    ab = Builder()
    ab.set_insertion_point_after(new)
    ab.loc = loop.loc
    if has_cp:
        ab.create("ttg.async_wait", [], [], {"num": 0})
    results = list(new.results[:len(loop.results)])
    if modes:
        for i, r in enumerate(results):
            # What a wgmma left in flight (the dot, or its wait(1)); other values in the mma
            # layout (flex attention's offs_n) need no wait.
            src = term.operand(i).owner_op
            if src is not None and src.name in ("ttng.warp_group_dot", "ttng.warp_group_dot_wait"):
                w = ab.create("ttng.warp_group_dot_wait", [r], [r.type], {"pendings": 0})
                results[i] = w.results[0]
    if tmas:
        ab.create("ttg.barrier", [], [])
        for c in tmas:
            for k in range(NB):
                ab.create("ttng.inval_barrier", [ab.create1(
                    "ttg.memdesc_index", [bars[c], ab.constant(k, i32)], one_bar)], [])
    for old_r, r in zip(loop.results, results):
        old_r.replace_all_uses_with(r)
    loop.erase()


def _defer_wait(body: Block, dot: Operation) -> None:
    """Wait for `dot` of the previous iteration where its carried result is first used."""
    term = body.last
    idx = next(u.index for u in dot.results[0].uses if u.owner is term)
    arg = body.args[idx + 1]
    first = next((op for op in body if any(v is arg for v in op.operands)), None)
    if first is None or first is term:
        return
    b = Builder()
    b.set_insertion_point_before(first)
    b.loc = dot.loc
    w = b.create("ttng.warp_group_dot_wait", [arg], [arg.type], {"pendings": 0})
    for u in list(arg.uses):
        if u.owner is not w:
            u.set(w.results[0])


def pipeline_loops(module: Operation, num_stages: int = 3) -> int:
    from ..axis_info import AxisInfoAnalysis
    n = 0
    loops = [op for op in module.walk(post_order=True) if op.name == "scf.for"]
    infos: Dict[Operation, object] = {}
    for loop in loops:
        func = loop.parent_op
        while func.name != "tt.func":
            func = func.parent_op
        if func not in infos:
            infos[func] = AxisInfoAnalysis(func)
        info = infos[func]
        if any(o.name == "scf.for" for o in loop.regions[0].entry):
            continue  # innermost loops only
        fold_acc_reset(loop.regions[0].entry)
        explicit = loop.attr("tt.num_stages", None) is not None
        stages = int(loop.attr("tt.num_stages", num_stages) or num_stages)
        n += pipeline_loop(loop, stages, info, explicit)
    return n


@register_pass
class SoftwarePipeline(Pass):
    name = "tritongpu-pipeline"
    aliases = ("pipeline",)
    description = "cp.async multi-buffering of the loads feeding wgmma, async wgmma"
    options = {"num-stages": (int, 3, "pipeline depth")}

    def run(self, module: Operation) -> None:
        pipeline_loops(module, self.num_stages)
