"""The catalogue of operations: names, traits, and the operand/attribute contract.

This table is the contract between the frontend (which creates ops), the passes (which
rewrite them) and the backends (which execute or lower them). Op names, attribute names and
enum encodings follow upstream Triton/MLIR so the printed TTIR reads like upstream's.

Traits:
  Pure          no side effects; CSE/DCE/LICM may move, merge or drop it
  Commutative   operands 0 and 1 may be swapped
  Elementwise   result[i] depends on operand[i] only (reorder-broadcast, layouts)
  SameType      result type equals the (first) operand type
  Terminator    ends a block
  ConstantLike  materialises a constant (`value` attribute)
  MemRead / MemWrite   touches global memory
  IsolatedFromAbove    its regions cannot use values defined outside
  HasRecursiveEffects  effects are those of the ops in its regions (scf.for/if/while)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet


@dataclass(frozen=True)
class OpDef:
    name: str
    traits: FrozenSet[str] = field(default_factory=frozenset)
    doc: str = ""


OPS: Dict[str, OpDef] = {}


def define(name: str, traits: str = "", doc: str = "") -> OpDef:
    d = OpDef(name, frozenset(traits.split()), doc)
    OPS[name] = d
    return d


_UNKNOWN = OpDef("<unknown>", frozenset())


def lookup(name: str) -> OpDef:
    return OPS.get(name, _UNKNOWN)


# Enum encodings (values as upstream's TableGen enums, so attributes print identically).
CMPI_PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF_PREDICATES = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                   "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
CACHE_MODIFIERS = {"": 1, ".ca": 2, ".cg": 3, ".wb": 4, ".cs": 5, ".wt": 6, ".cv": 7}  # NONE=1
EVICTION_POLICIES = {"": 1, "evict_first": 2, "evict_last": 3}  # upstream's EvictionPolicy enum (NORMAL=1)
ATOMIC_RMW_OPS = {"and": 1, "or": 2, "xor": 3, "add": 4, "fadd": 5, "max": 6, "min": 7,
                  "umax": 8, "umin": 9, "exch": 10}
MEM_SEMANTICS = {"relaxed": 1, "acquire": 2, "release": 3, "acq_rel": 4}
MEM_SCOPES = {"gpu": 1, "cta": 2, "sys": 3}
ROUNDING_MODES = {"rtz": 0, "rtne": 1}
PROGRAM_AXES = ["x", "y", "z"]
PADDING_OPTIONS = {"zero": 1, "nan": 2}  # PAD_ZERO=1, PAD_NAN=2
DESCRIPTOR_REDUCE_KINDS = {"none": 0, "add": 1, "min": 2, "max": 3, "inc": 4, "dec": 5,
                           "and": 6, "or": 7, "xor": 8}
INPUT_PRECISIONS = {"tf32": 0, "tf32x3": 1, "ieee": 2, "bf16x3": 3, "bf16x6": 4}
# `disable_licm=True` on `tl.range` / `tl.condition`: upstream's attribute of the scf loop,
# which the lowerings turn into LLVM's `llvm.licm.disable` loop metadata.
LOOP_ANNOTATION = "llvm.loop_annotation"
LICM_DISABLED = "#llvm.loop_annotation<licm = <disable = true>>"


def licm_disabled(loop) -> bool:
    return "licm = <disable = true>" in str(loop.attributes.get(LOOP_ANNOTATION, ""))

# ------------------------------------------------------------------ builtin
define("builtin.module", "IsolatedFromAbove", "one region, one block of tt.func ops; "
       "attrs: ttg.num-warps etc. at the TTGIR stage")
define("builtin.unrealized_conversion_cast", "Pure", "type glue between stages")

# ------------------------------------------------------------------ arith
define("arith.constant", "Pure ConstantLike",
       "attr value: IntegerAttr/FloatAttr for scalars, DenseElementsAttr (splat) for tensors")
define("ub.poison", "Pure",
       "no operands; a value of the result type that is never read before it is overwritten "
       "(the fused loop's carried prologue values before the first tile): lowered as zeros, "
       "AxisInfo's join identity")
_BIN_DOC = "operands (lhs, rhs) of one type; result of that type"
for _n in ["addi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui",
           "addf", "mulf", "maximumf", "minimumf", "maxnumf", "minnumf"]:
    define(f"arith.{_n}", "Pure Commutative Elementwise SameType", _BIN_DOC)
for _n in ["subi", "divsi", "divui", "remsi", "remui", "shli", "shrsi", "shrui",
           "subf", "divf", "remf", "ceildivsi", "ceildivui", "floordivsi"]:
    define(f"arith.{_n}", "Pure Elementwise SameType", _BIN_DOC)
define("arith.negf", "Pure Elementwise SameType", "operand x")
define("arith.cmpi", "Pure Elementwise",
       "operands (lhs, rhs); attr predicate: IntegerAttr i64 index into CMPI_PREDICATES; "
       "result i1 (tensor of i1)")
define("arith.cmpf", "Pure Elementwise",
       "operands (lhs, rhs); attr predicate: index into CMPF_PREDICATES; result i1")
define("arith.select", "Pure Elementwise",
       "operands (cond i1, true_value, false_value); cond may be a scalar with tensor values")
for _n in ["extsi", "extui", "trunci", "extf", "truncf", "sitofp", "uitofp", "fptosi",
           "fptoui", "bitcast", "index_cast"]:
    define(f"arith.{_n}", "Pure Elementwise", "operand x; result type is the target type")

# ------------------------------------------------------------------ math
for _n in ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
           "absf", "absi", "floor", "ceil", "erf", "trunc", "round", "roundeven", "log1p",
           "expm1", "atan", "asin", "acos", "sinh", "cosh", "cbrt"]:
    define(f"math.{_n}", "Pure Elementwise SameType", "operand x")
define("math.fma", "Pure Elementwise SameType", "operands (a, b, c): a*b+c, one rounding")
define("math.copysign", "Pure Elementwise SameType", "operands (mag, sign)")
define("math.powf", "Pure Elementwise SameType", "operands (x, y)")
define("math.atan2", "Pure Elementwise SameType", "operands (y, x)")

# ------------------------------------------------------------------ scf (structured control flow)
define("scf.for", "HasRecursiveEffects",
       "operands (lb, ub, step, *init_args); one region, one block with args (iv, *iter_args) "
       "ending in scf.yield; results = final iter_args; attrs tt.num_stages, "
       "tt.loop_unroll_factor, tt.disallow_acc_multi_buffer, tt.flatten, tt.warp_specialize")
define("scf.if", "HasRecursiveEffects",
       "operand cond (i1 scalar); regions (then, else); each ends in scf.yield with the "
       "results; the else region may be empty when the op has no results")
define("scf.while", "HasRecursiveEffects",
       "operands *inits; region 0 (before): args = carried values, ends in scf.condition; "
       "region 1 (after): args = values forwarded by scf.condition, ends in scf.yield")
define("scf.yield", "Pure Terminator", "operands: the values a region yields")
define("scf.condition", "Pure Terminator", "operands (cond i1, *forwarded)")

# ------------------------------------------------------------------ tt (Triton)
define("tt.func", "IsolatedFromAbove",
       "attrs sym_name (StringAttr), function_type (TypeAttr of FunctionType), "
       "sym_visibility ('public' | 'private'), arg_attrs (ArrayAttr of DictAttr, e.g. "
       "tt.divisibility = 16 : i32), noinline (BoolAttr); one region; entry args = params")
define("tt.return", "Pure Terminator", "operands: returned values")
define("tt.call", "", "attr callee (SymbolRefAttr); operands = args; results = returns")
define("tt.get_program_id", "Pure", "attr axis (i32 0..2); result i32")
define("tt.get_num_programs", "Pure", "attr axis (i32 0..2); result i32")
define("tt.make_range", "Pure", "attrs start, end (i32); result tensor<(end-start)xi32>")
define("tt.splat", "Pure", "operand scalar; result tensor of that scalar type")
define("tt.broadcast", "Pure", "operand tensor; result tensor of a shape where size-1 dims grew")
define("tt.expand_dims", "Pure", "operand tensor; attr axis (i32); result with a size-1 dim")
define("tt.reshape", "Pure", "operand tensor; attr allow_reorder (bool), efficient_layout "
       "(unit, optional); result tensor with the same numel")
define("tt.trans", "Pure", "operand tensor; attr order (DenseArrayAttr i32): result dim i "
       "is operand dim order[i]")
define("tt.join", "Pure", "operands (a, b) same type; result shape + [2] (new minor dim)")
define("tt.split", "Pure", "operand with last dim 2; results (a, b) without it")
define("tt.cat", "Pure", "operands (a, b); result concatenated along dim 0 (order may change)")
define("tt.addptr", "Pure Elementwise",
       "operands (ptr, offset int); result type = ptr type; offset counted in elements")
define("tt.int_to_ptr", "Pure Elementwise", "operand i64; result pointer")
define("tt.ptr_to_int", "Pure Elementwise", "operand pointer; result i64")
define("tt.bitcast", "Pure Elementwise", "operand x; result of same width (ptr<->ptr too)")
define("tt.fp_to_fp", "Pure Elementwise",
       "operand float; result float; attr rounding (i32 ROUNDING_MODES) when narrowing")
define("tt.load", "MemRead",
       "operands (ptr[, mask[, other]]); attrs cache (i32 CACHE_MODIFIERS), evict (i32 "
       "EVICTION_POLICIES), isVolatile (bool); result = pointee (tensor) type. On a block "
       "pointer (no mask/other): attrs boundaryCheck (DenseArrayAttr i32, the dims checked "
       "against the shape) and padding (i32 PADDING_OPTIONS, absent = unspecified)")
define("tt.store", "MemWrite",
       "operands (ptr, value[, mask]); attrs cache, evict; on a block pointer also "
       "boundaryCheck (out-of-bounds elements are not written)")
define("tt.make_tensor_ptr", "Pure",
       "operands (base !tt.ptr<elt>, *shape i64, *strides i64, *offsets i32), one of each "
       "per block dim; attr order (DenseArrayAttr i32, a permutation; order[0] is the "
       "fastest-varying dim); result !tt.ptr<tensor<block x elt>> (a block pointer)")
define("tt.advance", "Pure",
       "operands (block pointer, *offsets i32 per dim); result the same block pointer type, "
       "its offsets moved by the operands")
define("tt.make_tensor_descriptor", "Pure",
       "operands (base !tt.ptr<elt>, *shape i32, *strides i64), one per dim; attr padding "
       "(i32 PADDING_OPTIONS, default zero); result !tt.tensordesc<tensor<block x elt>>")
define("tt.descriptor_load", "MemRead",
       "operands (desc, *indices i32 per dim); attrs cache, evict; result the block tensor "
       "read at those element coordinates (out-of-bounds elements read as the padding)")
define("tt.descriptor_store", "MemWrite",
       "operands (desc, src block tensor, *indices i32); out-of-bounds elements are dropped")
define("tt.descriptor_reduce", "MemRead MemWrite",
       "operands (desc, src, *indices i32); attr kind (i32 DESCRIPTOR_REDUCE_KINDS): "
       "an atomic read-modify-write of the block, out-of-bounds elements dropped")
define("tt.descriptor_gather", "MemRead",
       "operands (2-D desc, x_offsets tensor<N x i32>, y_offset i32); result tensor<N x "
       "block[1] x elt>: row x_offsets[i], columns y_offset.. of the descriptor")
define("tt.descriptor_scatter", "MemWrite",
       "operands (2-D desc, x_offsets tensor<N x i32>, y_offset i32, src tensor<N x "
       "block[1] x elt>): the inverse of tt.descriptor_gather")
define("tt.atomic_rmw", "MemRead MemWrite",
       "operands (ptr, val[, mask]); attrs atomic_rmw_op (i32 ATOMIC_RMW_OPS), sem "
       "(MEM_SEMANTICS), scope (MEM_SCOPES); result = old values")
define("tt.atomic_cas", "MemRead MemWrite",
       "operands (ptr, cmp, val); attrs sem, scope; result = old values")
define("tt.reduce", "Pure",
       "operands: N tensors of one shape; attr axis (i32); one region whose block takes 2N "
       "scalar args (acc..., cur...) and ends in tt.reduce.return with N scalars; results: "
       "N tensors (or scalars) with dim `axis` removed")
define("tt.reduce.return", "Pure Terminator", "operands: combined scalars")
define("tt.scan", "Pure",
       "operands: N tensors; attrs axis (i32), reverse (bool); region like tt.reduce ending "
       "in tt.scan.return; results: N tensors of the operand shapes (inclusive scan)")
define("tt.scan.return", "Pure Terminator", "operands: combined scalars")
define("tt.map_elementwise", "Elementwise HasRecursiveEffects",
       "operands: N tensors of one shape (or N scalars); attr pack (i32 P); one region, one "
       "block taking P scalars per operand (operand i's j-th at i*P+j) and ending in "
       "tt.map_elementwise.return with P scalars per result (result k's j-th at k*P+j); "
       "results: tensors of the operands' shape (`tl.map_elementwise`)")
define("tt.map_elementwise.return", "Pure Terminator", "operands: the mapped scalars")
define("tt.dot", "Pure",
       "operands (a [M,K], b [K,N], c [M,N] accumulator); attrs inputPrecision (i32 "
       "INPUT_PRECISIONS), maxNumImpreciseAcc (i32); result [M,N] of c's type")
define("tt.precise_sqrt", "Pure Elementwise SameType", "operand x: IEEE-rounded sqrt")
define("tt.precise_divf", "Pure Elementwise SameType", "operands (x, y): IEEE division")
define("tt.mulhiui", "Pure Elementwise SameType Commutative",
       "operands (x, y) unsigned ints: high half of the full product")
define("tt.clampf", "Pure Elementwise SameType",
       "operands (x, min, max); attr propagateNan (i32 0=NONE, 0xFFFF=ALL)")
define("tt.extern_elementwise", "Elementwise",
       "operands: args; attrs libname, libpath, symbol (StringAttr), pure (BoolAttr)")
define("tt.elementwise_inline_asm", "Elementwise",
       "operands: args; attrs asm_string, constraints, pure, packed_element")
define("tt.histogram", "Pure", "operand int tensor; result tensor<NUM_BINSxi32>")
define("tt.gather", "Pure", "operands (src, indices); attr axis")
define("tt.print", "MemWrite",
       "operands: values; attrs prefix (StringAttr), hex (BoolAttr), isSigned "
       "(DenseArrayAttr i32, one per operand)")
define("tt.assert", "MemWrite", "operand cond (i1 tensor or scalar); attr message")
define("llvm.intr.assume", "", "operand i1: a fact the optimizer may use (upstream's `tl.assume` "
       "emits LLVM's assume op already in TTIR, printed `llvm.intr.assume %c : i1`)")

# ------------------------------------------------------------------ ttg (TritonGPU)
define("ttg.convert_layout", "Pure", "operand tensor; result same shape, another encoding")
define("ttg.local_alloc", "", "optional operand tensor; result !ttg.memdesc")
define("ttg.local_load", "MemRead", "operand memdesc; result tensor")
define("ttg.local_store", "MemWrite", "operands (value, memdesc)")
define("ttg.local_dealloc", "MemWrite", "operand memdesc")
define("ttg.barrier", "MemRead MemWrite", "block-wide barrier")
define("ttg.memdesc_index", "Pure",
       "operands (memdesc, i32 index): slot `index` of a multi-buffered allocation")
define("ttg.memdesc_trans", "Pure", "operand memdesc; attr order: a transposed view")
define("ttg.memdesc_subslice", "Pure",
       "operand memdesc; attr offsets (i32 array): a static window of the buffer (Gluon's "
       "`slice`; the lowering takes windows along the slowest dim)")
define("ttg.memdesc_reshape", "Pure",
       "operand memdesc: the same bytes viewed with another shape of as many elements")
define("ttg.memdesc_reinterpret", "Pure",
       "operand memdesc: the same bytes viewed as another element type, shape and layout")
define("ttg.async_copy_global_to_local", "MemRead MemWrite",
       "operands (ptr tensor, memdesc[, mask[, other]]); attrs cache, evict, isVolatile: "
       "cp.async of each element into the buffer (masked lanes write `other` or zero)")
define("ttg.async_commit_group", "MemRead MemWrite", "closes the thread's group of async copies")
define("ttg.async_wait", "MemRead MemWrite",
       "attr num (i32): wait until at most `num` groups of async copies are pending")
define("ttng.warp_group_dot", "MemRead",
       "operands (a memdesc or dot_op tensor, b memdesc, c tensor #mma v3[, useC i1: false "
       "drops c, wgmma's scale-d]); attrs "
       "inputPrecision, maxNumImpreciseAcc, isAsync (bool); result like c")
define("ttng.warp_group_dot_wait", "MemRead MemWrite",
       "operands: tensors in flight (returned unchanged as results); attr pendings (i32): "
       "wait until at most `pendings` wgmma groups are in flight")
define("ttng.fence_async_shared", "MemRead MemWrite",
       "attr bCluster (bool): order generic-proxy shared-memory writes before async-proxy "
       "reads (wgmma, TMA)")

# TMA and mbarriers (Hopper). A barrier is a `!ttg.memdesc<1xi64>` (or a slot of a ring of
# them); the copies take the descriptor, its coordinates (one i32 per dim) and a buffer.
define("ttng.init_barrier", "MemRead MemWrite",
       "operand barrier memdesc; attr count (i32): mbarrier.init with `count` arrivals")
define("ttng.inval_barrier", "MemRead MemWrite", "operand barrier memdesc: mbarrier.inval")
define("ttng.barrier_expect", "MemRead MemWrite",
       "operands (barrier, pred i1); attr size (i32): arrive, expecting `size` bytes")
define("ttng.arrive_barrier", "MemRead MemWrite",
       "operands (barrier, pred i1); attr count (i32): arrive `count` times on the barrier")
define("ttng.wait_barrier", "MemRead MemWrite",
       "operands (barrier, phase i32): wait until the barrier's phase `phase` completes")
define("ttng.async_tma_copy_global_to_local", "MemRead MemWrite",
       "operands (desc, coords..., buffer memdesc, barrier memdesc, pred i1): TMA load of "
       "the block at coords into the buffer, completing bytes on the barrier")
define("ttng.async_tma_copy_local_to_global", "MemRead MemWrite",
       "operands (desc, coords..., buffer memdesc): TMA store of the buffer (a bulk group)")
define("ttng.async_tma_reduce", "MemRead MemWrite",
       "operands (desc, coords..., buffer memdesc); attr kind (descriptor reduce kind)")
define("ttng.async_tma_store_wait", "MemRead MemWrite",
       "attr pendings (i32): wait until at most `pendings` TMA stores still read shared memory")

PURE_TRAIT = "Pure"


def is_pure(op) -> bool:
    return PURE_TRAIT in lookup(op.name).traits


def is_terminator(op) -> bool:
    return "Terminator" in lookup(op.name).traits
