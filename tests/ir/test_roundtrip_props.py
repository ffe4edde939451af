"""Property tests: random types, attributes (weird floats included) and small elementwise
programs survive print -> parse -> print unchanged, and parse back to equal values."""
import math
import struct

from hypothesis import HealthCheck, given, settings, strategies as st

from tritium.ir import types as T
from tritium.ir.attr_parser import OpaqueEncoding, bits_to_float
from tritium.ir.attrs import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DictAttr,
                              FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr,
                              UnitAttr, float_bits)
from tritium.ir.builder import Builder, normalize_int
from tritium.ir.core import Block, make_module, module_body
from tritium.ir.parser import parse_attr, parse_module, parse_type
from tritium.ir.printer import print_module
from tritium.ir.verifier import verify

INT_TYPES = [T.IntegerType(w) for w in (1, 8, 16, 32, 64)]
FLOAT_TYPES = [T.f16, T.bf16, T.f32, T.f64]
ALL_FLOATS = [T.FloatType(n) for n in T.FLOAT_WIDTHS]

int_types = st.sampled_from(INT_TYPES) | st.integers(2, 128).map(T.IntegerType)
scalar_types = st.one_of(int_types, st.sampled_from(ALL_FLOATS))
pointer_types = st.builds(T.PointerType, scalar_types, st.sampled_from([1, 3]))
encodings = st.none() | st.sampled_from([
    OpaqueEncoding("#ttg.blocked_like<{a = [1, 2]}>", "blocked"),
    OpaqueEncoding("#foo.bar", "bar")])
tensor_types = st.builds(T.TensorType, st.lists(st.integers(1, 256), min_size=1, max_size=3)
                         .map(tuple), scalar_types | pointer_types, encodings)
types = st.recursive(scalar_types | pointer_types | tensor_types,
                     lambda inner: st.builds(T.FunctionType, st.lists(inner, max_size=3).map(tuple),
                                             st.lists(inner, max_size=2).map(tuple)), max_leaves=6)


def _f32_bits_ok(bits):  # signalling NaNs become quiet through a Python float
    return not ((bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF and not bits & 0x400000)


@st.composite
def weird_floats(draw, type_):
    """Values of `type_` from random bit patterns (subnormals, NaN, inf, -0.0 included)."""
    width = type_.bitwidth
    kind = draw(st.sampled_from(["bits", "special", "python"]))
    if kind == "special":
        return draw(st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1.0,
                                     0.1, 1 / 3, 65504.0, 2.0 ** -24, -(2.0 ** -14)]))
    if kind == "python":
        if width == 64:
            return draw(st.floats())
        return draw(st.floats(width=16 if type_.name == "f16" else 32))
    bits = draw(st.integers(0, 2 ** width - 1))
    if type_.name == "bf16":
        bits = bits if _f32_bits_ok(bits << 16) else 0x7FC0
    elif width == 32:
        bits = bits if _f32_bits_ok(bits) else 0x7FC00000
    return bits_to_float(bits, type_)


@st.composite
def float_attrs(draw):
    t = draw(st.sampled_from(FLOAT_TYPES))
    v = draw(weird_floats(t))
    if t.name in ("f16", "bf16", "f32") and math.isfinite(v):
        limit = {"f16": 65504.0, "bf16": 3.3e38, "f32": 3.4e38}[t.name]
        v = max(-limit, min(limit, v))
    return FloatAttr(v, t)


@st.composite
def int_attrs(draw):
    t = draw(int_types)
    if t.width == 1:
        return IntegerAttr(draw(st.integers(0, 1)), t)
    return IntegerAttr(draw(st.integers(-(2 ** (t.width - 1)), 2 ** t.width - 1)), t)


@st.composite
def dense_attrs(draw):
    shape = tuple(draw(st.lists(st.integers(1, 64), min_size=1, max_size=3)))
    a = draw(float_attrs() | int_attrs())
    return DenseElementsAttr(a.value, T.TensorType(shape, a.type))


identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_$.]{0,8}", fullmatch=True)
names = identifiers | st.text(max_size=8)
leaf_attrs = st.one_of(
    int_attrs(), float_attrs(), dense_attrs(), st.builds(BoolAttr, st.booleans()),
    st.builds(StringAttr, st.text(max_size=12)), st.just(UnitAttr()),
    st.builds(TypeAttr, types), st.builds(SymbolRefAttr, identifiers),
    st.builds(DenseArrayAttr, st.sampled_from([T.i32, T.i64]),
              st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), max_size=4).map(tuple)))
attrs = st.recursive(leaf_attrs, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda xs: ArrayAttr(tuple(xs))),
    st.lists(st.tuples(names, inner), max_size=3).map(lambda kv: DictAttr(tuple(kv)))),
    max_leaves=8)


def _canonical(a):
    """What a printed attribute reads back as: `i1` integers print as `true`/`false`."""
    if isinstance(a, IntegerAttr) and a.type == T.i1:
        return BoolAttr(bool(a.value))
    if isinstance(a, ArrayAttr):
        return ArrayAttr(tuple(_canonical(x) for x in a.value))
    if isinstance(a, DictAttr):
        return DictAttr(tuple((k, _canonical(v)) for k, v in a.value))
    return a


@given(types)
@settings(max_examples=200, deadline=None)
def test_types_roundtrip(t):
    assert parse_type(str(t)) == t
    assert str(parse_type(str(t))) == str(t)


@given(attrs)
@settings(max_examples=250, deadline=None)
def test_attributes_roundtrip(a):
    text = str(a)
    back = parse_attr(text)
    assert str(back) == text
    assert back == _canonical(a)


@given(float_attrs())
@settings(max_examples=250, deadline=None)
def test_float_constants_keep_their_bits(a):
    m = make_module()
    b = Builder(module_body(m))
    b.create1("arith.constant", [], a.type, {"value": a})
    b.create1("arith.constant", [], T.TensorType((2,), a.type),
              {"value": DenseElementsAttr(a.value, T.TensorType((2,), a.type))})
    text = print_module(m)
    m2 = parse_module(text)
    assert print_module(m2) == text
    got = [op.attributes["value"] for op in m2.walk() if op.name == "arith.constant"]
    assert float_bits(got[0].value, a.type) == float_bits(a.value, a.type)
    assert float_bits(got[1].value, a.type) == float_bits(a.value, a.type)


# ---------------------------------------------------------------- random elementwise programs
INT_BIN = ["arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
           "arith.maxsi", "arith.minui", "arith.divsi", "arith.remui", "arith.shli", "arith.shrsi"]
FLOAT_BIN = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf",
             "arith.minnumf", "math.powf", "math.atan2", "math.copysign"]
FLOAT_UN = ["arith.negf", "math.exp", "math.sqrt", "math.absf", "math.floor", "math.tanh"]
ELT_TYPES = [T.i1, T.i8, T.i32, T.i64, T.f16, T.bf16, T.f32, T.f64]


def _cast_op(src, dst):
    if isinstance(src, T.IntegerType) and isinstance(dst, T.IntegerType):
        return None if src.width == dst.width else (
            "arith.extsi" if dst.width > src.width else "arith.trunci")
    if isinstance(src, T.FloatType) and isinstance(dst, T.FloatType):
        if src.bitwidth == dst.bitwidth:
            return None
        return "arith.extf" if dst.bitwidth > src.bitwidth else "arith.truncf"
    if isinstance(src, T.IntegerType):
        return "arith.sitofp" if src.width > 1 else "arith.uitofp"
    return "arith.fptosi" if dst.width > 1 else None


@given(st.data())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_elementwise_programs(data):
    shape = data.draw(st.sampled_from([(), (16,), (4, 8)]))
    shaped = lambda elt: T.tensor_of(shape, elt)  # noqa: E731
    arg_elts = data.draw(st.lists(st.sampled_from(ELT_TYPES), min_size=1, max_size=4))
    m = make_module()
    b = Builder(module_body(m))
    fty = T.FunctionType(tuple(shaped(e) for e in arg_elts), ())
    f = b.create("tt.func", attributes={"sym_name": StringAttr("k"), "function_type": TypeAttr(fty)},
                 num_regions=1)
    blk = f.regions[0].add_block(Block(fty.inputs))
    b.set_insertion_point_to_end(blk)
    pool = list(blk.args)
    for _ in range(data.draw(st.integers(1, 25))):
        kind = data.draw(st.sampled_from(["const", "binary", "unary", "cmp", "select", "cast"]))
        v = data.draw(st.sampled_from(pool))
        elt = v.type.element_type
        if kind == "const":
            e = data.draw(st.sampled_from(ELT_TYPES))
            if isinstance(e, T.FloatType):
                value = data.draw(weird_floats(e))
                if e.name in ("f16", "bf16") and math.isfinite(value):
                    value = max(-60000.0, min(60000.0, value))
            else:
                value = normalize_int(data.draw(st.integers(-2 ** 64, 2 ** 64)), e.width)
            pool.append(b.constant(value, shaped(e)))
        elif kind == "binary" and elt != T.i1:
            op = data.draw(st.sampled_from(FLOAT_BIN if isinstance(elt, T.FloatType) else INT_BIN))
            w = data.draw(st.sampled_from([x for x in pool if x.type == v.type]))
            pool.append(b.create1(op, [v, w], v.type))
        elif kind == "unary" and isinstance(elt, T.FloatType):
            pool.append(b.create1(data.draw(st.sampled_from(FLOAT_UN)), [v], v.type))
        elif kind == "cmp" and elt != T.i1:
            is_f = isinstance(elt, T.FloatType)
            pred = data.draw(st.integers(0, 15 if is_f else 9))
            pool.append(b.create1("arith.cmpf" if is_f else "arith.cmpi", [v, v],
                                  shaped(T.i1), {"predicate": IntegerAttr(pred, T.i64)}))
        elif kind == "select":
            conds = [x for x in pool if x.type in (T.i1, shaped(T.i1))]
            if conds:
                c = data.draw(st.sampled_from(conds))
                pool.append(b.create1("arith.select", [c, v, v], v.type))
        elif kind == "cast":
            dst = data.draw(st.sampled_from(ELT_TYPES))
            op = _cast_op(elt, dst)
            if op is not None:
                pool.append(b.create1(op, [v], shaped(dst)))
    if shape == () and data.draw(st.booleans()):
        pool.append(b.create1("tt.splat", [pool[-1]], T.TensorType((8,), pool[-1].type)))
    b.create("tt.return")
    verify(m)
    text = print_module(m)
    m2 = parse_module(text)
    verify(m2)
    assert print_module(m2) == text
    assert print_module(m2, debug_info=True) == print_module(m, debug_info=True)
    # bit-exact constants
    c1 = [op.attributes["value"] for op in m.walk() if op.name == "arith.constant"]
    c2 = [op.attributes["value"] for op in m2.walk() if op.name == "arith.constant"]
    assert c1 == c2


def test_weird_float_helpers():
    assert _f32_bits_ok(0x7FC00001) and not _f32_bits_ok(0x7F800001)
    assert struct.pack("<f", bits_to_float(0x00000001, T.f32)) == b"\x01\x00\x00\x00"
