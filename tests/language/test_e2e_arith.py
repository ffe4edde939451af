"""Arithmetic, bitwise and comparison operators run on the CPU backend vs NumPy, over dtype
pairs and ragged block edges (C semantics for // and %)."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, c_floordiv, c_mod, grid1, random_array

OPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=",
       "min", "max"]


@triton.jit
def binary_kernel(x_ptr, y_ptr, o_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    if OP == "+":
        r = x + y
    elif OP == "-":
        r = x - y
    elif OP == "*":
        r = x * y
    elif OP == "/":
        r = x / y
    elif OP == "//":
        r = x // y
    elif OP == "%":
        r = x % y
    elif OP == "&":
        r = x & y
    elif OP == "|":
        r = x | y
    elif OP == "^":
        r = x ^ y
    elif OP == "<<":
        r = x << y
    elif OP == ">>":
        r = x >> y
    elif OP == "<":
        r = x < y
    elif OP == "<=":
        r = x <= y
    elif OP == ">":
        r = x > y
    elif OP == ">=":
        r = x >= y
    elif OP == "==":
        r = x == y
    elif OP == "!=":
        r = x != y
    elif OP == "min":
        r = tl.minimum(x, y)
    else:
        r = tl.maximum(x, y)
    tl.store(o_ptr + offs, r, mask=m)


def np_name(t):
    return {"int1": "bool", "fp16": "float16", "fp32": "float32", "fp64": "float64"}.get(t.name, t.name)


def reference(op, x, y, ct):
    """`x op y` computed by NumPy in the computation type `ct`."""
    x, y = x.astype(ct), y.astype(ct)
    with np.errstate(all="ignore"):
        if op == "/":
            rt = np.float32 if np.dtype(ct).kind in "iub" else ct
            return x.astype(rt) / y.astype(rt)
        if op == "//":
            return c_floordiv(x, y).astype(ct)
        if op == "%":
            return np.fmod(x, y) if np.dtype(ct).kind == "f" else c_mod(x, y).astype(ct)
        fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
              "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift,
              ">>": np.right_shift, "min": np.minimum, "max": np.maximum, "<": np.less,
              "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
              "!=": np.not_equal}[op]
        return fn(x, y)


SAME = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16", "float32",
        "float64"]
MIXED = [("int8", "uint8"), ("int16", "int64"), ("uint32", "int32"), ("int32", "float16"),
         ("float16", "float32"), ("uint8", "int64"), ("int64", "float64")]


def run_binary(rng, a, b, op, n=77, block=32):
    from semkit import Env
    ta, tb = getattr(tl, a), getattr(tl, b)
    sem = Env().sem
    try:
        comp = sem.computation_type_impl(ta, False, tb, False, op in ("/", "//", "%"))
    except TypeError:
        pytest.skip(f"{a} {op} {b} is a type error (tested in test_promotion)")
    x = random_array(rng, a, n)
    y = random_array(rng, b, n)
    if op == "//" and comp.is_floating():
        with pytest.raises(triton.CompilationError, match="unexpected type"):
            binary_kernel[grid1(n, block)](x, y, np.zeros(n, np.float32), n, OP=op, BLOCK=block)
        return
    if op in ("//", "%"):
        y = np.where(y == 0, 3, y).astype(y.dtype)
    if op in ("<<", ">>"):
        y = (np.abs(y.astype(np.int64)) % 8).astype(y.dtype)
        if op == "<<":
            x = np.abs(x.astype(np.int64)).astype(x.dtype) % 16
    want = reference(op, x, y, NP[np_name(comp)])
    out = np.zeros(n, want.dtype)
    binary_kernel[grid1(n, block)](x, y, out, n, OP=op, BLOCK=block)
    np.testing.assert_array_equal(out, want, err_msg=f"{a} {op} {b}")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dt", SAME)
def test_same_dtype(rng, dt, op):
    if op in ("&", "|", "^", "<<", ">>") and dt.startswith("float"):
        pytest.skip("bitwise ops need integers")
    run_binary(rng, dt, dt, op)


@pytest.mark.parametrize("op", ["+", "-", "*", "<", "==", "max", "&", "//"])
@pytest.mark.parametrize("a,b", MIXED)
def test_mixed_dtypes(rng, a, b, op):
    if op in ("&",) and ("float" in a or "float" in b):
        pytest.skip("bitwise ops need integers")
    run_binary(rng, a, b, op)


@triton.jit
def scalar_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(o_ptr + offs * 6 + 0, x + 3, mask=m)
    tl.store(o_ptr + offs * 6 + 1, 10 - x, mask=m)
    tl.store(o_ptr + offs * 6 + 2, x * 2, mask=m)
    tl.store(o_ptr + offs * 6 + 3, x // -3, mask=m)
    tl.store(o_ptr + offs * 6 + 4, -7 % x, mask=m)
    tl.store(o_ptr + offs * 6 + 5, -x, mask=m)


@pytest.mark.parametrize("dt", ["int8", "int32", "int64"])
def test_scalar_operands_keep_tensor_type(rng, dt):
    n = 50
    x = random_array(rng, dt, n, 1, 20)
    out = np.zeros(n * 6, NP[dt])
    scalar_kernel[grid1(n, 16)](x, out, n, BLOCK=16)
    o = out.reshape(n, 6).T
    np.testing.assert_array_equal(o[0], x + 3)
    np.testing.assert_array_equal(o[1], 10 - x)
    np.testing.assert_array_equal(o[2], x * 2)
    np.testing.assert_array_equal(o[3], c_floordiv(x, np.full(n, -3)))
    np.testing.assert_array_equal(o[4], c_mod(np.full(n, -7), x))
    np.testing.assert_array_equal(o[5], -x)


@triton.jit
def unary_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(o_ptr + offs * 4 + 0, ~x, mask=m)
    tl.store(o_ptr + offs * 4 + 1, -x, mask=m)
    tl.store(o_ptr + offs * 4 + 2, (x > 0) & (x < 50), mask=m)
    tl.store(o_ptr + offs * 4 + 3, tl.where(x > 0 and x < 50, x, 0), mask=m)


def test_unary_and_logical(rng):
    n = 100
    x = random_array(rng, "int32", n)
    out = np.zeros(n * 4, np.int32)
    unary_kernel[grid1(n, 64)](x, out, n, BLOCK=64)
    o = out.reshape(n, 4).T
    np.testing.assert_array_equal(o[0], ~x)
    np.testing.assert_array_equal(o[1], -x)
    np.testing.assert_array_equal(o[2], (x > 0) & (x < 50))
    np.testing.assert_array_equal(o[3], np.where((x > 0) & (x < 50), x, 0))


@triton.jit
def pointer_arith_kernel(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    p = x_ptr + (n - 1 - offs).to(tl.uint32)  # reversed, through an unsigned offset
    tl.store(o_ptr + offs, tl.load(p, mask=m), mask=m)


def test_pointer_arithmetic(rng):
    x = random_array(rng, "float32", 20)
    out = np.zeros(20, np.float32)
    pointer_arith_kernel[(1,)](x, out, 20, BLOCK=32)
    np.testing.assert_array_equal(out, x[::-1])


@triton.jit
def bf16_kernel(x_ptr, y_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(o_ptr + offs * 4 + 0, x + y)          # bf16 + bf16 stays bf16
    tl.store(o_ptr + offs * 4 + 1, x * 2.0)        # a float scalar does not widen it
    tl.store(o_ptr + offs * 4 + 2, x / y)          # division runs in fp32
    tl.store(o_ptr + offs * 4 + 3, tl.maximum(x, y))


def test_bfloat16_arithmetic(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(rng.uniform(-4, 4, 16).astype(np.float32)).to(torch.bfloat16)
    y = torch.from_numpy(rng.uniform(0.5, 4, 16).astype(np.float32)).to(torch.bfloat16)
    out = torch.zeros(16 * 4, dtype=torch.float32)
    bf16_kernel[(1,)](x, y, out, BLOCK=16)
    o = out.reshape(16, 4).T
    torch.testing.assert_close(o[0], (x + y).float(), rtol=0, atol=0)
    torch.testing.assert_close(o[1], (x * 2).float(), rtol=0, atol=0)
    torch.testing.assert_close(o[2], x.float() / y.float(), rtol=0, atol=0)
    torch.testing.assert_close(o[3], torch.maximum(x, y).float(), rtol=0, atol=0)
