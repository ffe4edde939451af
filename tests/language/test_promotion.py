"""Type promotion against a reference written from Triton's documented rules: literal typing,
the scalar-kind rule, float and integer promotion, and the exact errors, for every pair of
dtypes and every operator, with tensors and Python scalars on either side."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tritium.language import dtypes as tl
from tritium.language.semantic_base import IncompatibleTypeErrorImpl

from semkit import ALL_INTS, ALL_NUMERIC, FP8, Env

SCALARS = {"int": 3, "float": 2.5, "bool": True}


# ---------------------------------------------------------------------- the reference
def lit_type(v):
    if isinstance(v, bool):
        return tl.int1
    if isinstance(v, int):
        return tl.int32
    return tl.float32


def kind(t):
    return 0 if t == tl.int1 else 1 if t.is_int() else 2


def c_int_promotion(a, b):
    """C's usual arithmetic conversions over Triton's ints (int1 counts as unsigned)."""
    ua, ub = a.is_int_unsigned(), b.is_int_unsigned()
    if ua == ub:
        return a if a.int_bitwidth > b.int_bitwidth else b
    u, s = (a, b) if ua else (b, a)
    return u if u.int_bitwidth >= s.int_bitwidth else s


class Err(Exception):
    def __init__(self, exc, msg):
        self.exc, self.msg = exc, msg


def computation_type(a, a_scalar, b, b_scalar, div):
    if a_scalar != b_scalar:
        s, t = (a, b) if a_scalar else (b, a)
        if kind(s) <= kind(t):
            return tl.float32 if div and t in (tl.float16, tl.bfloat16) else t
    pair = {a, b}
    if tl.float64 in pair:
        return tl.float64
    if tl.float32 in pair:
        return tl.float32
    if tl.float16 in pair:
        return tl.float32 if div else tl.float16
    if pair == {tl.bfloat16}:
        return tl.float32 if div else tl.bfloat16
    if tl.bfloat16 in pair:
        return tl.float32
    if a.is_fp8() and b.is_fp8():
        return a if a == b else tl.float16
    if a.is_floating() or b.is_floating():
        raise Err(TypeError, f"unexpected type {a} and {b}")
    if div and a.is_int_signed() != b.is_int_signed():
        raise Err(TypeError, "Cannot use /, #, or % with")
    return c_int_promotion(a, b)


def expected(op, a, a_scalar, b, b_scalar):
    if op in ("<", "=="):
        # Comparisons see Python scalars as tensors of their literal type.
        computation_type(a, False, b, False, False)
        return tl.int1
    div = op in ("/", "//", "%")
    ct = computation_type(a, a_scalar, b, b_scalar, div)
    if op == "/":
        return tl.float32 if ct.is_int() else ct
    if op == "//" and not ct.is_int():
        raise Err(TypeError, f"unexpected type {ct}")
    if op in ("&", "|", "^", "<<", ">>") and not ct.is_int():
        raise Err(IncompatibleTypeErrorImpl, "invalid operands of type")
    return ct


OPS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
       "&": "and_", "|": "or_", "^": "xor_", "<<": "shl", ">>": "rshift", "<": "less_than",
       "==": "equal"}


def apply(env, op, a, b):
    return getattr(env.sem, OPS[op])(a, b)


def check(op, a_ty, a_scalar, b_ty, b_scalar):
    """Compare the result dtype (or error) of `a op b` with the reference."""
    env = Env()
    a = SCALARS[a_scalar] if a_scalar else env.arg(a_ty, [8])
    b = SCALARS[b_scalar] if b_scalar else env.arg(b_ty, [8])
    a_ty = lit_type(a) if a_scalar else a_ty
    b_ty = lit_type(b) if b_scalar else b_ty
    try:
        want = expected(op, a_ty, bool(a_scalar), b_ty, bool(b_scalar))
    except Err as e:
        with pytest.raises(e.exc) as info:
            apply(env, op, a, b)
        assert str(info.value).startswith(e.msg), (op, a_ty, b_ty, str(info.value))
        return
    got = apply(env, op, a, b)
    assert got.dtype == want, (op, a_ty, a_scalar, b_ty, b_scalar, got.dtype, want)
    assert got.type.get_block_shapes() == [8]


@pytest.mark.parametrize("op", list(OPS))
def test_tensor_tensor_all_pairs(op):
    for a in ALL_NUMERIC:
        for b in ALL_NUMERIC:
            check(op, a, None, b, None)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("scalar", list(SCALARS))
def test_tensor_scalar_both_sides(op, scalar):
    for t in ALL_NUMERIC:
        if op in ("<<", ">>") and scalar == "float":
            continue  # covered by the bitwise error path below
        check(op, t, None, None, scalar)
        check(op, None, scalar, t, None)


# ---------------------------------------------------------------------- hand-checked cases
@pytest.mark.parametrize("a,b,op,want", [
    (tl.int8, tl.uint8, "+", tl.uint8),
    (tl.int16, tl.uint8, "+", tl.int16),
    (tl.int64, tl.uint32, "+", tl.int64),
    (tl.int32, tl.uint32, "*", tl.uint32),
    (tl.float16, tl.bfloat16, "+", tl.float16),
    (tl.bfloat16, tl.bfloat16, "+", tl.bfloat16),
    (tl.bfloat16, tl.bfloat16, "/", tl.float32),
    (tl.float16, tl.float16, "%", tl.float32),
    (tl.float8e5, tl.float8e4nv, "+", tl.float16),
    (tl.float8e5, tl.bfloat16, "+", tl.float32),
    (tl.int64, tl.float16, "+", tl.float16),
    (tl.int32, tl.int32, "/", tl.float32),
    (tl.int1, tl.int1, "+", tl.int1),
])
def test_documented_examples(a, b, op, want):
    env = Env()
    assert apply(env, op, env.arg(a, [4]), env.arg(b, [4])).dtype == want


@pytest.mark.parametrize("t,scalar,op,want", [
    (tl.float16, 2.5, "+", tl.float16),    # a float scalar does not widen a float tensor
    (tl.int8, 3, "+", tl.int8),           # nor an int scalar an int tensor
    (tl.uint8, 3, "*", tl.uint8),
    (tl.int64, 2.5, "+", tl.float32),     # a higher kind participates: int64 + 2.5 is fp32
    (tl.float16, 3, "/", tl.float32),     # fp16 division runs in fp32
    (tl.bfloat16, 3, "%", tl.float32),
    (tl.int1, 3, "+", tl.int32),
    (tl.float8e5, 1.5, "*", tl.float8e5),
])
def test_scalar_kind_rule(t, scalar, op, want):
    env = Env()
    assert apply(env, op, env.arg(t, [4]), scalar).dtype == want
    assert apply(env, op, scalar, env.arg(t, [4])).dtype == want


def test_comparison_with_scalar_promotes_like_tensors():
    env = Env()
    r = env.sem.greater_than(env.arg(tl.int8, [4]), 3)
    assert r.dtype == tl.int1
    cmp = [op for op in env.block if op.name == "arith.cmpi"][0]
    assert str(cmp.operand(0).type) == "tensor<4xi32>"  # both sides went to int32


# ---------------------------------------------------------------------- literal typing
@pytest.mark.parametrize("value,want", [
    (True, tl.int1), (0, tl.int32), (-2 ** 31, tl.int32), (2 ** 31 - 1, tl.int32),
    (2 ** 31, tl.uint32), (2 ** 32 - 1, tl.uint32), (2 ** 32, tl.int64), (-2 ** 31 - 1, tl.int64),
    (2 ** 63 - 1, tl.int64), (2 ** 63, tl.uint64), (2 ** 64 - 1, tl.uint64),
    (1.0, tl.float32), (0.0, tl.float32), (float("inf"), tl.float32), (float("nan"), tl.float32),
    (3.4e38, tl.float32), (1e39, tl.float64), (1e-39, tl.float64), (2.0 ** -126, tl.float32),
])
def test_literal_types(value, want):
    env = Env()
    assert env.sem.to_tensor(value).dtype == want


def test_nonrepresentable_integer():
    with pytest.raises(ValueError, match="Nonrepresentable integer 18446744073709551616."):
        Env().sem.to_tensor(2 ** 64)


# ---------------------------------------------------------------------- errors
def test_negative_scalar_with_unsigned():
    env = Env()
    with pytest.raises(ValueError, match="Cannot perform a binary operation between an unsigned "
                                         "tensor and a negative scalar"):
        env.sem.add(env.arg(tl.uint32, [4]), -1)


def test_scalar_out_of_range():
    env = Env()
    with pytest.raises(ValueError, match="Scalar 300 is out of range for type int8"):
        env.sem.add(env.arg(tl.int8, [4]), 300)
    with pytest.raises(ValueError, match="Scalar 3000000000 is out of range for type int32"):
        env.sem.add(3000000000, env.arg(tl.int32, [4]))


def test_mixed_signedness_division():
    env = Env()
    with pytest.raises(TypeError, match="Cannot use /, #, or % with triton.language.int32 and "
                                        "triton.language.uint32 because they have different "
                                        "signedness"):
        env.sem.floordiv(env.arg(tl.int32, [4]), env.arg(tl.uint32, [4]))


def test_pointer_arithmetic_errors():
    env = Env()
    p, q = env.ptr(tl.float32, [4]), env.ptr(tl.float32, [4])
    with pytest.raises(TypeError, match="cannot add pointers together"):
        env.sem.add(p, q)
    with pytest.raises(IncompatibleTypeErrorImpl, match="invalid operands of type"):
        env.sem.add(p, env.ptr(tl.float16, [4]))
    with pytest.raises(IncompatibleTypeErrorImpl):
        env.sem.add(p, 1.5)
    with pytest.raises(IncompatibleTypeErrorImpl):
        env.sem.mul(p, 2)
    with pytest.raises(IncompatibleTypeErrorImpl):
        env.sem.sub(2, p)


# ---------------------------------------------------------------------- properties
dtypes_st = st.sampled_from(ALL_NUMERIC)
ints_st = st.sampled_from(ALL_INTS)
sym_ops = st.sampled_from(["+", "*", "&", "|", "^", "==", "<"])


def result_or_error(op, a, a_scalar, b, b_scalar):
    env = Env()
    x = a if a_scalar else env.arg(a, [2])
    y = b if b_scalar else env.arg(b, [2])
    try:
        return apply(env, op, x, y).dtype
    except Exception as e:
        return type(e)


@settings(max_examples=300, deadline=None)
@given(a=dtypes_st, b=dtypes_st, op=sym_ops)
def test_result_type_is_commutative(a, b, op):
    assert result_or_error(op, a, False, b, False) == result_or_error(op, b, False, a, False)


@settings(max_examples=200, deadline=None)
@given(t=dtypes_st, v=st.sampled_from([3, 2.5, True]), op=st.sampled_from(["+", "*", "/", "%"]))
def test_scalar_side_does_not_matter_for_type(t, v, op):
    assert result_or_error(op, t, False, v, True) == result_or_error(op, v, True, t, False)


@settings(max_examples=300, deadline=None)
@given(a=ints_st, b=ints_st, c=ints_st)
def test_integer_promotion_is_a_join(a, b, c):
    sem = Env().sem
    p = sem.integer_promote_impl
    assert p(a, a) == a
    assert p(a, b) in (a, b)
    assert p(a, b).int_bitwidth == max(a.int_bitwidth, b.int_bitwidth)
    assert p(p(a, b), c) == p(a, p(b, c))


@settings(max_examples=300, deadline=None)
@given(a=dtypes_st, b=dtypes_st)
def test_float_promotion_stays_float(a, b):
    got = result_or_error("+", a, False, b, False)
    if a.is_floating() and b.is_floating():
        assert got in (a, b, tl.float16, tl.float32)
    elif a.is_floating() != b.is_floating():
        f = a if a.is_floating() else b
        if f.is_fp8():
            assert got is TypeError
        elif f == tl.bfloat16:
            assert got == tl.float32  # bf16 is kept only when both sides are bf16
        else:
            assert got == f


def test_fp8_with_int_is_an_error():
    env = Env()
    for f in FP8:
        with pytest.raises(TypeError, match=f"unexpected type {f} and int32"):
            env.sem.add(env.arg(f, [2]), env.arg(tl.int32, [2]))
