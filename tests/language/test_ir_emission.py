"""The TTIR each language operation emits: op names, operand types and attributes."""
import warnings

import pytest

from tritium.ir.ops import ATOMIC_RMW_OPS, CMPF_PREDICATES, CMPI_PREDICATES
from tritium.language import dtypes as tl
from tritium import language as L

from semkit import Env


def last(env, name):
    return [op for op in env.block if op.name == name][-1]


def names(env):
    return [n for n in env.ops() if n not in ("arith.constant", "tt.splat")]


# ---------------------------------------------------------------------- arithmetic
@pytest.mark.parametrize("ty,op,want", [
    (tl.int32, "floordiv", "arith.divsi"), (tl.uint32, "floordiv", "arith.divui"),
    (tl.int32, "mod", "arith.remsi"), (tl.uint8, "mod", "arith.remui"),
    (tl.float32, "mod", "arith.remf"), (tl.int32, "truediv", "arith.divf"),
    (tl.int16, "add", "arith.addi"), (tl.float64, "sub", "arith.subf"),
    (tl.int64, "mul", "arith.muli"), (tl.uint32, "shl", "arith.shli"),
    (tl.int32, "rshift", "arith.shrsi"), (tl.uint32, "rshift", "arith.shrui"),
    (tl.int8, "and_", "arith.andi"), (tl.int8, "or_", "arith.ori"), (tl.int8, "xor_", "arith.xori"),
])
def test_binary_op_names(ty, op, want):
    env = Env()
    getattr(env.sem, op)(env.arg(ty, [16]), 3)
    assert names(env)[-1] == want


def test_int_tensor_floordiv_scalar():
    env = Env()
    r = env.sem.floordiv(env.arg(tl.int32, [16]), 7)
    assert env.ops() == ["arith.constant", "tt.splat", "arith.divsi"]
    assert r.dtype == tl.int32


def test_reflected_shift_uses_the_tensor_signedness():
    env = Env()
    env.sem.rshift(5, env.arg(tl.uint32, [4]))
    assert names(env) == ["arith.shrui"]
    env = Env()
    env.sem.rshift(5, env.arg(tl.int32, [4]))
    assert names(env) == ["arith.shrsi"]


def test_fp16_division_runs_in_fp32():
    env = Env()
    r = env.sem.truediv(env.arg(tl.float16, [8]), env.arg(tl.float16, [8]))
    assert env.ops() == ["arith.extf", "arith.extf", "arith.divf"]
    assert r.dtype == tl.float32
    assert str(last(env, "arith.divf").results[0].type) == "tensor<8xf32>"


def test_unary_ops():
    env = Env()
    env.sem.minus(env.arg(tl.float32, [4]))
    assert names(env) == ["arith.subf"]
    env = Env()
    env.sem.invert(env.arg(tl.int32, [4]))
    assert names(env) == ["arith.xori"]
    assert last(env, "arith.constant").attr("value") == -1
    env = Env()
    r = env.sem.not_(env.arg(tl.int1, [4]))
    assert names(env) == ["arith.xori"] and r.dtype == tl.int1
    with pytest.raises(ValueError, match=r"wrong type argument to unary minus \(pointer<fp32>\)"):
        env.sem.minus(env.ptr(tl.float32))
    with pytest.raises(ValueError, match=r"wrong type argument to unary invert"):
        env.sem.invert(env.arg(tl.float32))


@pytest.mark.parametrize("method,ty,pred", [
    ("not_equal", tl.float32, ("arith.cmpf", "une")), ("equal", tl.float32, ("arith.cmpf", "oeq")),
    ("less_than", tl.float16, ("arith.cmpf", "olt")), ("greater_equal", tl.float64, ("arith.cmpf", "oge")),
    ("less_than", tl.uint32, ("arith.cmpi", "ult")), ("less_than", tl.int32, ("arith.cmpi", "slt")),
    ("greater_than", tl.uint64, ("arith.cmpi", "ugt")), ("less_equal", tl.int8, ("arith.cmpi", "sle")),
    ("equal", tl.int32, ("arith.cmpi", "eq")), ("not_equal", tl.uint8, ("arith.cmpi", "ne")),
])
def test_comparison_predicates(method, ty, pred):
    env = Env()
    r = getattr(env.sem, method)(env.arg(ty, [4]), env.arg(ty, [4]))
    op = last(env, pred[0])
    table = CMPF_PREDICATES if pred[0] == "arith.cmpf" else CMPI_PREDICATES
    assert table[op.attr("predicate")] == pred[1]
    assert str(op.attributes["predicate"]).endswith(": i64")
    assert r.dtype == tl.int1 and r.type.get_block_shapes() == [4]


# ---------------------------------------------------------------------- pointers
def test_pointer_plus_unsigned_offset_is_zero_extended():
    env = Env()
    r = env.sem.add(env.ptr(tl.float32, [8]), env.arg(tl.uint32, [8]))
    assert env.ops() == ["arith.extui", "tt.addptr"]
    assert str(last(env, "tt.addptr").operand(1).type) == "tensor<8xi64>"
    assert r.type.scalar == tl.pointer_type(tl.float32)


def test_offset_plus_pointer_and_pointer_minus_int():
    env = Env()
    r = env.sem.add(env.arg(tl.int32, [8]), env.ptr(tl.float16))
    assert r.type.scalar == tl.pointer_type(tl.float16) and names(env) == ["tt.addptr"]
    env = Env()
    env.sem.sub(env.ptr(tl.float16), env.arg(tl.int64))
    assert names(env) == ["arith.subi", "tt.addptr"]


# ---------------------------------------------------------------------- casts
@pytest.mark.parametrize("src,dst,ops", [
    (tl.int8, tl.int32, ["arith.extsi"]), (tl.uint8, tl.int32, ["arith.extui"]),
    (tl.int1, tl.int32, ["arith.extui"]), (tl.int32, tl.int8, ["arith.trunci"]),
    (tl.int32, tl.uint32, []), (tl.int32, tl.int1, ["arith.cmpi"]),
    (tl.float32, tl.float16, ["arith.truncf"]), (tl.float16, tl.float32, ["arith.extf"]),
    (tl.float16, tl.float64, ["arith.extf", "arith.extf"]),
    (tl.bfloat16, tl.float16, ["arith.extf", "arith.truncf"]),
    (tl.float16, tl.int32, ["arith.extf", "arith.fptosi"]),
    (tl.float32, tl.float8e5, ["tt.fp_to_fp"]), (tl.float8e4nv, tl.float32, ["tt.fp_to_fp"]),
    (tl.int32, tl.float32, ["arith.sitofp"]), (tl.uint32, tl.float32, ["arith.uitofp"]),
    (tl.int1, tl.float32, ["arith.uitofp"]), (tl.float32, tl.int64, ["arith.fptosi"]),
    (tl.float32, tl.uint8, ["arith.fptoui"]), (tl.float32, tl.int1, ["arith.cmpf"]),
    (tl.pointer_type(tl.float32), tl.int64, ["tt.ptr_to_int"]),
    (tl.int64, tl.pointer_type(tl.float32), ["tt.int_to_ptr"]),
    (tl.pointer_type(tl.float32), tl.pointer_type(tl.int8), ["tt.bitcast"]),
    (tl.pointer_type(tl.float32), tl.int1, ["tt.ptr_to_int", "arith.cmpi"]),
])
def test_cast_ops(src, dst, ops):
    env = Env()
    r = env.sem.cast(env.arg(src, [4]), dst)
    assert names(env) == ops
    assert r.dtype == dst and r.type.get_block_shapes() == [4]


def test_fp_downcast_rounding():
    env = Env()
    env.sem.cast(env.arg(tl.float32, [4]), tl.float8e5)
    assert last(env, "tt.fp_to_fp").attr("rounding") == 1  # rtne by default
    env = Env()
    env.sem.cast(env.arg(tl.float32, [4]), tl.float16, "rtz")
    assert names(env) == ["tt.fp_to_fp"] and last(env, "tt.fp_to_fp").attr("rounding") == 0
    env = Env()
    env.sem.cast(env.arg(tl.float8e5, [4]), tl.float32)
    assert "rounding" not in last(env, "tt.fp_to_fp").attributes
    with pytest.raises(ValueError, match="fp_downcast_rounding should be set only for truncating "
                                         "fp conversions. Source scalar type is fp16 and "
                                         "destination type is fp32"):
        env.sem.cast(env.arg(tl.float16, [4]), tl.float32, "rtz")
    with pytest.raises(ValueError, match="Invalid rounding mode: rtp"):
        env.sem.cast(env.arg(tl.float32, [4]), tl.float16, "rtp")


def test_bitcast():
    env = Env()
    r = env.sem.bitcast(env.arg(tl.float32, [4]), tl.int32)
    assert names(env) == ["arith.bitcast"] and r.dtype == tl.int32
    with pytest.raises(ValueError, match="Cannot bitcast data-type of size 32 to data-type of size 16"):
        env.sem.bitcast(env.arg(tl.float32, [4]), tl.int16)


def test_fp8_to_int_is_rejected():
    env = Env()
    with pytest.raises(AssertionError, match="cannot cast"):
        env.sem.cast(env.arg(tl.float8e5, [4]), tl.int32)


# ---------------------------------------------------------------------- min / max / math
@pytest.mark.parametrize("ty,nan,fn,want", [
    (tl.float32, L.PropagateNan.ALL, "maximum", "arith.maximumf"),
    (tl.float32, L.PropagateNan.NONE, "maximum", "arith.maxnumf"),
    (tl.float16, L.PropagateNan.ALL, "minimum", "arith.minimumf"),
    (tl.float64, L.PropagateNan.NONE, "minimum", "arith.minnumf"),
    (tl.int32, L.PropagateNan.NONE, "maximum", "arith.maxsi"),
    (tl.uint32, L.PropagateNan.NONE, "minimum", "arith.minui"),
])
def test_min_max(ty, nan, fn, want):
    env = Env()
    getattr(L, fn)(env.arg(ty, [4]), env.arg(ty, [4]), propagate_nan=nan, _semantic=env.sem)
    assert names(env) == [want]


def test_bf16_min_max_promote_to_fp32():
    env = Env()
    r = L.maximum(env.arg(tl.bfloat16, [4]), env.arg(tl.bfloat16, [4]), _semantic=env.sem)
    assert r.dtype == tl.float32 and names(env) == ["arith.extf", "arith.extf", "arith.maxnumf"]


def test_clamp():
    env = Env()
    L.clamp(env.arg(tl.float32, [4]), 0.0, 1.0, propagate_nan=L.PropagateNan.ALL, _semantic=env.sem)
    assert names(env) == ["tt.clampf"] and last(env, "tt.clampf").attr("propagateNan") == 0xFFFF
    env = Env()
    L.clamp(env.arg(tl.int32, [4]), 0, 10, _semantic=env.sem)
    assert names(env) == ["arith.maxsi", "arith.minsi"]


@pytest.mark.parametrize("fn,want", [
    ("exp", "math.exp"), ("exp2", "math.exp2"), ("log", "math.log"), ("log2", "math.log2"),
    ("sin", "math.sin"), ("cos", "math.cos"), ("sqrt", "math.sqrt"), ("rsqrt", "math.rsqrt"),
    ("sqrt_rn", "tt.precise_sqrt"), ("erf", "math.erf"), ("floor", "math.floor"),
    ("ceil", "math.ceil"), ("abs", "math.absf"),
])
def test_math_unary(fn, want):
    env = Env()
    r = getattr(L, fn)(env.arg(tl.float32, [4]), _semantic=env.sem)
    assert names(env) == [want] and r.dtype == tl.float32


def test_math_binary_ternary():
    env = Env()
    L.div_rn(env.arg(tl.float32, [4]), 2.0, _semantic=env.sem)
    L.umulhi(env.arg(tl.uint32, [4]), env.arg(tl.uint32, [4]), _semantic=env.sem)
    L.fma(env.arg(tl.float32, [4]), env.arg(tl.float32, [4]), 1.0, _semantic=env.sem)
    L.fdiv(env.arg(tl.float32, [4]), env.arg(tl.float32, [4]), _semantic=env.sem)
    assert names(env) == ["tt.precise_divf", "tt.mulhiui", "math.fma", "arith.divf"]


def test_abs_by_type():
    env = Env()
    L.abs(env.arg(tl.int32, [4]), _semantic=env.sem)
    assert names(env) == ["math.absi"]
    env = Env()
    x = env.arg(tl.uint32, [4])
    assert L.abs(x, _semantic=env.sem) is x and env.ops() == []


def test_math_dtype_check():
    env = Env()
    with pytest.raises(ValueError, match=r"Expected dtype \['fp32', 'fp64'\] but got fp16"):
        L.exp(env.arg(tl.float16, [4]), _semantic=env.sem)
    with pytest.raises(ValueError, match=r"Expected dtype \['fp32'\] but got fp64"):
        L.sqrt_rn(env.arg(tl.float64, [4]), _semantic=env.sem)
    with pytest.raises(ValueError, match=r"Expected dtype \['int32', 'int64', 'uint32', 'uint64'\]"):
        L.umulhi(env.arg(tl.int8, [4]), env.arg(tl.int8, [4]), _semantic=env.sem)


# ---------------------------------------------------------------------- where / shapes
def test_where():
    env = Env()
    r = L.where(env.arg(tl.int1, [4, 1]), env.arg(tl.float16, [1, 8]), 0.0, _semantic=env.sem)
    assert r.dtype == tl.float16 and r.type.get_block_shapes() == [4, 8]
    assert env.ops()[-1] == "arith.select"
    env = Env()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        L.where(env.arg(tl.int32, [4]), 1, 2, _semantic=env.sem)
    assert "non-boolean condition is deprecated" in str(w[0].message)


def test_getitem():
    env = Env()
    x = env.arg(tl.int32, [8])
    assert env.sem.getitem(x, (None, slice(None))).type.get_block_shapes() == [1, 8]
    assert env.sem.getitem(x, (slice(None), None)).type.get_block_shapes() == [8, 1]
    assert env.sem.getitem(x, None).type.get_block_shapes() == [1, 8]
    with pytest.raises(ValueError, match="unsupported tensor index: 0"):
        env.sem.getitem(x, 0)
    with pytest.raises(ValueError, match="unsupported tensor index"):
        env.sem.getitem(x, slice(0, 4))


def test_shape_ops():
    env = Env()
    x = env.arg(tl.float32, [4, 8])
    t = env.sem.permute(x, (1, 0))
    assert t.type.get_block_shapes() == [8, 4]
    assert str(last(env, "tt.trans").attributes["order"]) == "array<i32: 1, 0>"
    j = env.sem.join(x, x)
    assert j.type.get_block_shapes() == [4, 8, 2]
    a, b = env.sem.split(j)
    assert a.type.get_block_shapes() == [4, 8]
    r = env.sem.reshape(x, [32], can_reorder=False)
    assert last(env, "tt.reshape").attr("allow_reorder") is False and r.type.get_block_shapes() == [32]
    c = env.sem.cat(r, r, True)
    assert c.type.get_block_shapes() == [64]
    s = env.sem.join(env.arg(tl.int32), env.arg(tl.int32))
    assert s.type.get_block_shapes() == [2]


def test_arange_and_program_id():
    env = Env()
    r = env.sem.arange(4, 20)
    op = last(env, "tt.make_range")
    assert (op.attr("start"), op.attr("end")) == (4, 20) and r.type.get_block_shapes() == [16]
    pid = env.sem.program_id(1)
    assert last(env, "tt.get_program_id").attr("axis") == 1 and pid.dtype == tl.int32
    env.sem.num_programs(2)
    assert last(env, "tt.get_num_programs").attr("axis") == 2


# ---------------------------------------------------------------------- memory
def test_load_attributes_and_mask_other():
    env = Env()
    p = env.ptr(tl.float16, [16])
    r = L.load(p, mask=env.arg(tl.int1, [16]), other=0.0, cache_modifier=".cg",
               eviction_policy="evict_first", volatile=True, _semantic=env.sem)
    op = last(env, "tt.load")
    assert op.num_operands == 3 and str(op.operand(2).type) == "tensor<16xf16>"
    assert (op.attr("cache"), op.attr("evict"), op.attr("isVolatile")) == (3, 2, True)  # EVICT_FIRST = 2, as upstream
    assert r.dtype == tl.float16


def test_load_bool_pointer_goes_through_int8():
    env = Env()
    r = L.load(env.ptr(tl.int1, [8]), _semantic=env.sem)
    assert names(env) == ["tt.bitcast", "tt.load", "arith.cmpi"] and r.dtype == tl.int1


def test_store_casts_to_pointee():
    env = Env()
    L.store(env.ptr(tl.float16, [8]), env.arg(tl.float32, [8]), mask=env.arg(tl.int1, [8]),
            cache_modifier=".wt", _semantic=env.sem)
    assert names(env) == ["arith.truncf", "tt.store"]
    op = last(env, "tt.store")
    assert op.num_operands == 3 and op.attr("cache") == 6
    env = Env()
    L.store(env.ptr(tl.int32, [8]), 7, _semantic=env.sem)
    assert last(env, "tt.store").num_operands == 2


def test_scalar_load_store():
    env = Env()
    v = L.load(env.ptr(tl.int64), _semantic=env.sem)
    assert not v.type.is_block() and v.dtype == tl.int64
    L.store(env.ptr(tl.int64), v, _semantic=env.sem)
    assert names(env) == ["tt.load", "tt.store"]


@pytest.mark.parametrize("fn,ty,kind", [
    ("atomic_add", tl.float32, "fadd"), ("atomic_add", tl.int32, "add"),
    ("atomic_add", tl.float16, "fadd"), ("atomic_max", tl.int32, "max"),
    ("atomic_max", tl.uint32, "umax"), ("atomic_min", tl.int64, "min"),
    ("atomic_min", tl.uint64, "umin"), ("atomic_and", tl.int32, "and"),
    ("atomic_or", tl.uint32, "or"), ("atomic_xor", tl.int64, "xor"),
    ("atomic_xchg", tl.float32, "exch"),
])
def test_atomic_rmw_kinds(fn, ty, kind):
    env = Env()
    r = getattr(L, fn)(env.ptr(ty, [8]), 1, sem="relaxed", scope="cta", _semantic=env.sem)
    op = last(env, "tt.atomic_rmw")
    assert op.attr("atomic_rmw_op") == ATOMIC_RMW_OPS[kind]
    assert (op.attr("sem"), op.attr("scope")) == (1, 2) and op.num_operands == 3
    assert r.dtype == ty


def test_atomic_float_max_uses_signed_and_unsigned_int_atomics():
    env = Env()
    r = L.atomic_max(env.ptr(tl.float32, [8]), env.arg(tl.float32, [8]), _semantic=env.sem)
    rmw = [op for op in env.block if op.name == "tt.atomic_rmw"]
    assert [op.attr("atomic_rmw_op") for op in rmw] == [ATOMIC_RMW_OPS["max"], ATOMIC_RMW_OPS["umin"]]
    assert rmw[0].attr("sem") == 4 and rmw[0].attr("scope") == 1  # acq_rel, gpu by default
    assert r.dtype == tl.float32


def test_atomic_cas():
    env = Env()
    r = L.atomic_cas(env.ptr(tl.int32), 0, 1, _semantic=env.sem)
    assert names(env) == ["tt.atomic_cas"] and r.dtype == tl.int32


# ---------------------------------------------------------------------- hints / debug / extern
def test_hints_set_attributes_on_the_defining_op():
    env = Env()
    x = env.sem.arange(0, 16)
    L.multiple_of(x, L.constexpr(16), _semantic=env.sem)
    L.max_contiguous(x, [L.constexpr(16)], _semantic=env.sem)
    L.max_constancy(x, [L.constexpr(1)], _semantic=env.sem)
    op = last(env, "tt.make_range")
    assert str(op.attributes["tt.divisibility"]) == "array<i32: 16>"
    assert op.attr("tt.contiguity") == (16,) and op.attr("tt.constancy") == (1,)


def test_device_print_and_assert():
    env = Env()
    L.device_print("x", env.arg(tl.int32, [4]), env.arg(tl.uint8), _semantic=env.sem)
    op = last(env, "tt.print")
    assert op.attr("prefix") == " x: " and op.attr("hex") is False
    assert op.attr("isSigned") == (1, 0)
    L.device_assert(env.arg(tl.int1, [4]), "boom", _semantic=env.sem)
    assert "tt.assert" not in env.ops()  # off unless debug
    env = Env(debug=True)
    L.device_assert(env.arg(tl.int1, [4]), "boom", _semantic=env.sem)
    assert last(env, "tt.assert").attr("message") == "boom"


def test_debug_barrier_and_assume():
    env = Env()
    L.debug_barrier(_semantic=env.sem)
    L.assume(env.arg(tl.int1), _semantic=env.sem)
    assert env.ops() == ["ttg.barrier", "llvm.intr.assume"]


def test_sanitize_overflow_only_in_debug():
    env = Env(debug=True)
    env.sem.add(env.arg(tl.int32, [4]), env.arg(tl.int32, [4]))
    assert "tt.assert" in env.ops() and "arith.extsi" in env.ops()
    env = Env()
    env.sem.add(env.arg(tl.int32, [4]), env.arg(tl.int32, [4]))
    assert env.ops() == ["arith.addi"]


def test_libdevice_dispatch():
    from tritium.language.extra import libdevice
    env = Env()
    r = libdevice.exp(env.arg(tl.float32, [4]), _semantic=env.sem)
    op = last(env, "tt.extern_elementwise")
    assert op.attr("symbol") == "__nv_expf" and op.attr("pure") is True and r.dtype == tl.float32
    libdevice.exp(env.arg(tl.float64), _semantic=env.sem)
    assert last(env, "tt.extern_elementwise").attr("symbol") == "__nv_exp"
    r = libdevice.pow(env.arg(tl.float32, [4]), env.arg(tl.int32), _semantic=env.sem)
    assert last(env, "tt.extern_elementwise").attr("symbol") == "__nv_powif"
    assert r.type.get_block_shapes() == [4]
    r = libdevice.isnan(env.arg(tl.float32, [4]), _semantic=env.sem)
    assert r.dtype == tl.int1
    with pytest.raises(ValueError, match="input arg type does not match"):
        libdevice.exp(env.arg(tl.float16, [4]), _semantic=env.sem)


def test_inline_asm():
    env = Env()
    a, b = L.inline_asm_elementwise("asm", "=r,=r,r,r", [env.arg(tl.uint8, [8]), env.arg(tl.float32)],
                                    dtype=(tl.int32, tl.float32), is_pure=True, pack=4,
                                    _semantic=env.sem)
    op = last(env, "tt.elementwise_inline_asm")
    assert op.attr("packed_element") == 4 and op.attr("asm_string") == "asm"
    assert a.dtype == tl.int32 and b.type.get_block_shapes() == [8]


# ---------------------------------------------------------------------- dot / reduce
def test_dot_ir():
    env = Env()
    r = L.dot(env.arg(tl.float16, [32, 16]), env.arg(tl.float16, [16, 64]), _semantic=env.sem)
    op = last(env, "tt.dot")
    assert op.attr("inputPrecision") == 0 and op.attr("maxNumImpreciseAcc") == 0
    assert r.dtype == tl.float32 and r.type.get_block_shapes() == [32, 64]
    r = L.dot(env.arg(tl.float32, [16, 16]), env.arg(tl.float32, [16, 16]),
              input_precision="ieee", _semantic=env.sem)
    assert last(env, "tt.dot").attr("inputPrecision") == 2
    r = L.dot(env.arg(tl.int8, [16, 32]), env.arg(tl.int8, [32, 16]), _semantic=env.sem)
    assert r.dtype == tl.int32
    r = L.dot(env.arg(tl.float16, [2, 16, 16]), env.arg(tl.float16, [2, 16, 16]),
              out_dtype=tl.float16, _semantic=env.sem)
    assert r.dtype == tl.float16 and r.type.get_block_shapes() == [2, 16, 16]
    r = L.dot(env.arg(tl.float32, [16, 16]), env.arg(tl.float32, [16, 16]), allow_tf32=False,
              _semantic=env.sem)
    assert last(env, "tt.dot").attr("inputPrecision") == 2


def test_reduce_region():
    env = Env()
    x = env.arg(tl.float32, [4, 8])
    r = L.reduce(x, 1, lambda a, b: env.sem.add(a, b), _semantic=env.sem)
    op = last(env, "tt.reduce")
    assert op.attr("axis") == 1 and r.type.get_block_shapes() == [4]
    block = op.regions[0].entry
    assert [str(a.type) for a in block.args] == ["f32", "f32"]
    assert [o.name for o in block] == ["arith.addf", "tt.reduce.return"]
    s = L.reduce(env.arg(tl.int32, [16]), 0, lambda a, b: env.sem.maximum(a, b), _semantic=env.sem)
    assert not s.type.is_block() and s.dtype == tl.int32
    k = L.reduce(x, None, lambda a, b: env.sem.add(a, b), keep_dims=True, _semantic=env.sem)
    assert k.type.get_block_shapes() == [1, 1]


def test_scan_region():
    env = Env()
    r = L.associative_scan(env.arg(tl.int32, [16]), 0, lambda a, b: env.sem.add(a, b),
                           reverse=True, _semantic=env.sem)
    op = last(env, "tt.scan")
    assert op.attr("reverse") is True and op.attr("axis") == 0
    assert [o.name for o in op.regions[0].entry] == ["arith.addi", "tt.scan.return"]
    assert r.type.get_block_shapes() == [16]


def test_gather_histogram():
    env = Env()
    g = L.gather(env.arg(tl.float32, [4, 8]), env.arg(tl.int32, [4, 2]), 1, _semantic=env.sem)
    assert g.type.get_block_shapes() == [4, 2] and last(env, "tt.gather").attr("axis") == 1
    h = L.histogram(env.arg(tl.int32, [16]), 8, _semantic=env.sem)
    assert h.type.get_block_shapes() == [8] and h.dtype == tl.int32
