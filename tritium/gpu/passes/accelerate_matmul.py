"""tritongpu-accelerate-matmul: choose how each `tt.dot` runs.

* **wgmma (mma v3)** on sm_90+: rank 2, a multiple of 4 warps, M a multiple of 64 per
  warpgroup column, N a multiple of 8, K a multiple of the instruction's K, and operand
  types the tensor cores take (fp16, bf16, tf32, fp8, int8). Operands go to shared memory
  in NVMMA (swizzled) layouts through `ttg.local_alloc`; the dot becomes
  `ttng.warp_group_dot` with an `#ttg.nvidia_mma<{versionMajor = 3}>` accumulator.
* **mma.sync (mma v2)** where wgmma cannot run the dot but tensor cores can (fewer than 4
  warps, M below 64, batched 3-D dots): operands in `#ttg.dot_op` register layouts of an
  `#ttg.nvidia_mma<{versionMajor = 2}>` accumulator.
* **FMA** otherwise (fp64, integer types other than int8, tiny or odd shapes, `ieee`
  precision): the dot stays `tt.dot` and its operands are converted to
  `#ttg.dot_op<{opIdx, parent = <the result's blocked layout>}>`, where every thread holds
  the whole K extent of the rows (columns) it accumulates.

Conversions to and from the accumulator layout are inserted around the dot; the
remove-layout-conversions pass that runs next carries the accumulator layout through loops.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ...ir import types as T
from ...ir.builder import Builder
from ...ir.core import Operation
from ...ir.ops import INPUT_PRECISIONS
from ...passes.diagnostics import remark
from ...passes.manager import Pass, register_pass
from ..layouts import NVMMASharedEncoding, get_order, nvmma_swizzle_width
from ..mma_layouts import DotOperandEncoding, NvidiaMmaEncoding
from .legality import insert_convert, with_encoding

__all__ = ["AccelerateMatmul", "accelerate_matmul", "mma_version", "nvmma_shared_for"]

_TF32 = INPUT_PRECISIONS["tf32"]


def _name(t: T.Type) -> str:
    e = t.element_type
    if isinstance(e, T.IntegerType):
        return f"i{e.width}"
    return e.name


def tensor_core_kind(a: T.Type, b: T.Type, c: T.Type, precision: int) -> Optional[str]:
    """The PTX type name of the operands when tensor cores can run this dot, else None."""
    ea, eb, ec = _name(a), _name(b), _name(c)
    if ea != eb:
        return None
    if ea in ("f16", "bf16") and ec == "f32" or ea == ec == "f16":
        return ea
    if ea == "f32" and ec == "f32" and precision == _TF32:
        return "tf32"
    if ea in ("f8E4M3FN", "f8E5M2") and ec == "f32":
        return "e4m3" if ea == "f8E4M3FN" else "e5m2"
    if ea == "i8" and ec == "i32":
        return "s8"
    return None


def instr_k(kind: str) -> int:
    return {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32}[kind]


def _capability(module: Operation) -> int:
    target = str(module.attr("ttg.target", "cuda:90") or "cuda:90")
    try:
        return int(target.split(":")[1])
    except (IndexError, ValueError):
        return 90


def wgmma_warps(m: int, n: int, num_warps: int) -> Tuple[int, int]:
    """Warps per CTA for a wgmma accumulator: whole warpgroups along M while M has rows
    left for them, the rest along N."""
    wm, wn = 4, 1
    while wm * wn < num_warps:
        if m > 16 * wm:
            wm *= 2
        else:
            wn *= 2
    return wm, wn


def mma_v2_warps(shape, num_warps: int) -> list:
    """Warps per CTA for mma.sync: the batch dim first, then whichever of M and N still has
    the most 16x8 tiles per warp (upstream's warpsPerTileV2)."""
    rank = len(shape)
    ret = [1] * rank
    left = num_warps
    if rank == 3:
        ret[0] = min(left, shape[0])
        left //= ret[0]
    m, n = shape[-2], shape[-1]
    while ret[-2] * ret[-1] < left:
        if m // (16 * ret[-2]) >= n // (8 * ret[-1]) and 16 * ret[-2] < m:
            ret[-2] *= 2
        elif 8 * ret[-1] < n:
            ret[-1] *= 2
        else:
            ret[-2] *= 2
    return ret


def _mma_v2(op: Operation, kind: str, num_warps: int):
    d = op.results[0].type
    m, n = d.dims[-2:]
    k = op.operand(0).type.dims[-1]
    if m % 16 or n % 8 or k % instr_k(kind) or (d.rank == 3 and d.dims[0] & (d.dims[0] - 1)):
        return 0, None
    return 2, NvidiaMmaEncoding(2, 0, mma_v2_warps(d.dims, num_warps), [16, 8] if d.rank == 2
                                else [1, 16, 8])


def mma_version(op: Operation, num_warps: int, capability: int) -> Tuple[int, object]:
    """(3, encoding) for wgmma, (2, encoding) for mma.sync, or (0, None) for FMA."""
    a, b, d = op.operand(0).type, op.operand(1).type, op.results[0].type
    kind = tensor_core_kind(a, b, d, int(op.attr("inputPrecision", _TF32)))
    if kind is None or capability < 80:
        return 0, None
    if capability < 90 or d.rank != 2 or num_warps % 4:
        return _mma_v2(op, kind, num_warps)
    m, n = d.dims
    k = a.dims[-1]
    wm, wn = wgmma_warps(m, n, num_warps)
    if m % (16 * wm) or m < 64 or n % (8 * wn) or k % instr_k(kind):
        return _mma_v2(op, kind, num_warps)
    n_per = n // wn
    instr_n = next(x for x in range(min(256, n_per), 7, -8) if n_per % x == 0)
    if kind in ("e4m3", "e5m2", "s8") and instr_n % 16:
        return _mma_v2(op, kind, num_warps)
    return 3, NvidiaMmaEncoding(3, 0, [wm, wn], [16, instr_n, instr_k(kind)])


def nvmma_shared_for(t: T.TensorType, op_idx: int, kind: str) -> Optional[NVMMASharedEncoding]:
    """The NVMMA shared layout of a wgmma operand. 16-bit operands may be K- or MN-major
    (whichever the registers are contiguous along, so the stores vectorise); other types
    must be K-major."""
    k_dim = 1 if op_idx == 0 else 0
    contig = get_order(t.encoding)[0] if t.encoding is not None else 1
    bits = t.element_type.bitwidth
    choices = [contig, k_dim] if kind in ("f16", "bf16") and contig != k_dim else [k_dim]
    for c in choices:  # an MN extent too narrow to swizzle falls back to K-major
        swizzle = nvmma_swizzle_width(t.dims[c] * bits // 8)
        if swizzle and t.dims[1 - c] >= 8:
            return NVMMASharedEncoding(swizzle, c == 0, bits)
    return None  # the lowering's descriptors need a swizzled layout


def _memdesc(t: T.TensorType, enc) -> T.MemDescType:
    return T.MemDescType(t.dims, t.element, enc, mutable=False)


def _loop_invariant_point(v, op: Operation) -> Operation:
    """Where to stage operand `v` of `op` in shared memory: before the outermost loop around
    `op` that does not compute `v` (a value fixed across iterations is stored once)."""
    point = op
    p = op.parent_op
    def_op = v.owner_op
    def_block = v.block if def_op is None else def_op.parent
    while p is not None and p.name in ("scf.for", "scf.while", "scf.if"):
        if p.is_ancestor_of(def_op) if def_op is not None else _block_in(def_block, p):
            break
        if p.name != "scf.if":
            point = p
        p = p.parent_op
    return point


def _block_in(block, op: Operation) -> bool:
    parent = block.parent_op if block is not None else None
    while parent is not None:
        if parent is op:
            return True
        parent = parent.parent_op
    return False


def _a_in_registers(a, op: Operation, kind: str) -> bool:
    """wgmma reads A from registers when A is computed in the loop (attention's P): storing
    it to shared memory every iteration would cost a round trip and two barriers."""
    if kind not in ("f16", "bf16"):
        return False
    d = a.owner_op
    return d is not None and d.name not in ("tt.load", "tt.descriptor_load") \
        and _loop_invariant_point(a, op) is op \
        and op.parent_op is not None and op.parent_op.name in ("scf.for", "scf.while")


def _stage(v, enc, op: Operation):
    bld = Builder()
    bld.set_insertion_point_before(_loop_invariant_point(v, op))
    bld.loc = op.loc
    return bld.create1("ttg.local_alloc", [v], _memdesc(v.type, enc))


def _to_wgmma(op: Operation, mma: NvidiaMmaEncoding) -> bool:
    a, b, c = op.operands
    d = op.results[0]
    kind = tensor_core_kind(a.type, b.type, d.type, int(op.attr("inputPrecision", _TF32)))
    enc_a = nvmma_shared_for(a.type, 0, kind)
    enc_b = nvmma_shared_for(b.type, 1, kind)
    if enc_a is None or enc_b is None:
        return False
    bld = Builder()
    bld.set_insertion_point_before(op)
    bld.loc = op.loc
    if _a_in_registers(a, op, kind):
        a_s = insert_convert(a, DotOperandEncoding(0, mma, 32 // a.type.element_type.bitwidth), op)
    else:
        a_s = _stage(a, enc_a, op)
    b_s = _stage(b, enc_b, op)
    acc = insert_convert(c, mma, op)
    attrs = {"inputPrecision": op.attributes.get("inputPrecision"),
             "maxNumImpreciseAcc": op.attributes.get("maxNumImpreciseAcc"),
             "isAsync": False}
    attrs = {k: v for k, v in attrs.items() if v is not None}
    new = bld.create("ttng.warp_group_dot", [a_s, b_s, acc], [with_encoding(d.type, mma)], attrs)
    back = bld.create1("ttg.convert_layout", [new.results[0]], d.type)
    d.replace_all_uses_with(back)
    op.erase()
    return True


def _to_mma_v2(op: Operation, mma: NvidiaMmaEncoding) -> None:
    a, b, c = op.operands
    d = op.results[0]
    k_width = 32 // a.type.element_type.bitwidth
    for i, v in ((0, a), (1, b)):
        op.set_operand(i, insert_convert(v, DotOperandEncoding(i, mma, k_width), op))
    op.set_operand(2, insert_convert(c, mma, op))
    old = d.type
    d.type = with_encoding(old, mma)
    bld = Builder()
    bld.set_insertion_point_after(op)
    bld.loc = op.loc
    back = bld.create1("ttg.convert_layout", [d], old)
    for u in list(d.uses):
        if u.owner is not back.owner_op:
            u.set(back)


def _to_fma(op: Operation) -> None:
    d = op.results[0].type
    parent = d.encoding
    for i in (0, 1):
        v = op.operand(i)
        if _is_fp8(v.type.element_type) and T.is_float(d):
            # The FMA units have no fp8: as upstream, the operand is upcast to the
            # accumulator's type first (exactly: every fp8 value is an f16/f32).
            b = Builder.before_op_at_its_loc(op)
            v = b.create1("tt.fp_to_fp", [v], T.TensorType(v.type.dims, d.element_type,
                                                             v.type.encoding))
            op.set_operand(i, v)
        want = DotOperandEncoding(i, parent, 0)
        if v.type.encoding != want:
            op.set_operand(i, insert_convert(v, want, op))


def _is_fp8(t: T.Type) -> bool:
    return isinstance(t, T.FloatType) and t.bitwidth == 8


def accelerate_matmul(module: Operation) -> int:
    """Rewrite every tt.dot; returns how many became wgmma."""
    num_warps = int(module.attr("ttg.num-warps", 4) or 4)
    cap = _capability(module)
    n = 0
    for op in [o for o in module.walk() if o.name == "tt.dot"]:
        version, mma = mma_version(op, num_warps, cap)
        if version == 3 and _to_wgmma(op, mma):
            n += 1
            continue
        if 90 <= cap < 100:  # as upstream's: Hopper could have used wgmma, say why not
            remark(op, "MMA version 3 acceleration not applied due to unsupported shapes or "
                   "data types.", [f"Target compute capability ({cap}) supports MMA v3."])
        if version == 2:
            _to_mma_v2(op, mma)
            continue
        _to_fma(op)
    return n


@register_pass
class AccelerateMatmul(Pass):
    name = "tritongpu-accelerate-matmul"
    aliases = ("accelerate-matmul",)
    description = "wgmma for the dots tensor cores can run, FMA operand layouts for the rest"

    def run(self, module: Operation) -> None:
        accelerate_matmul(module)
