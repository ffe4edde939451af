"""Arithmetic, bitwise and comparison operators (tests/language/test_e2e_arith.py's kernels)
on the GPU vs the CPU backend and NumPy: every operator on int32 and float32, a rotating
subset on every other dtype, mixed-dtype promotion, scalar operands, bf16."""
import numpy as np
import pytest

import tritium.language as tl

from e2e import NP, c_floordiv, c_mod, grid1, random_array
from harness import Out, assert_ref, assert_same, compare, run_both
from test_e2e_arith import (OPS, bf16_kernel, binary_kernel, np_name, pointer_arith_kernel,
                            reference, scalar_kernel, unary_kernel)

pytestmark = pytest.mark.gpu

BITWISE = ("&", "|", "^", "<<", ">>")
# Each dtype once (num_warps 4): all operators on int32/float32, the others on a subset that
# still gives every operator several integer widths and signednesses.
SUBSET = {
    "int8": ["*", "//", "<<"],
    "int16": [">>", "&", "max"],
    "int64": ["*", "//", "%", ">>"],
    "uint8": ["-", "//", "<"],
    "uint16": ["+", "%"],
    "uint32": ["*", ">>", "<="],
    "uint64": ["//", "%", "^"],
    "float16": ["+", "/", "%", "max"],
    "float64": ["-", "/", "%", "=="],
}
CASES = [(dt, op) for dt in ("int32", "float32") for op in OPS
         if not (dt == "float32" and (op in BITWISE or op == "//"))]
CASES += [(dt, op) for dt, ops in SUBSET.items() for op in ops]
NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod",
         "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr", "<": "lt", "<=": "le",
         ">": "gt", ">=": "ge", "==": "eq", "!=": "ne", "min": "min", "max": "max"}
MIXED = [("int8", "uint8", "+"), ("int16", "int64", "//"), ("uint32", "int32", "<"),
         ("int32", "float16", "*"), ("float16", "float32", "max"), ("uint8", "int64", "&"),
         ("int64", "float64", "+")]


def tolerance(op, ct):
    """The kind of agreement `x op y` in computation type `ct` must reach."""
    if np.dtype(ct).kind != "f" and op != "/":
        return "exact"
    if op in ("<", "<=", ">", ">=", "==", "!=", "min", "max"):
        return "exact"
    return {"/": "div", "%": "fmod"}.get(op, "arith")


def operands(rng, a, b, op, n):
    """Inputs as test_e2e_arith.run_binary makes them (no division by zero, shifts < 8)."""
    x = random_array(rng, a, n)
    y = random_array(rng, b, n)
    if op in ("//", "%"):
        y = np.where(y == 0, 3, y).astype(y.dtype)
    if op in ("<<", ">>"):
        y = (np.abs(y.astype(np.int64)) % 8).astype(y.dtype)
        if op == "<<":
            x = np.abs(x.astype(np.int64)).astype(x.dtype) % 16
    return x, y


def check_binary(rng, a, b, op, n=77, block=32):
    from semkit import Env
    comp = Env().sem.computation_type_impl(getattr(tl, a), False, getattr(tl, b), False,
                                           op in ("/", "//", "%"))
    x, y = operands(rng, a, b, op, n)
    want = reference(op, x, y, NP[np_name(comp)])
    cpu, gpu = run_both(binary_kernel, grid1(n, block), x, y, Out(n, want.dtype), n,
                        OP=op, BLOCK=block)
    kind = tolerance(op, NP[np_name(comp)])
    assert_same(cpu[0], gpu[0], kind=kind, err_msg=f"{a} {op} {b}")
    if kind == "exact":
        assert_ref(gpu[0], want, err_msg=f"{a} {op} {b}")
    else:
        assert_ref(gpu[0], want, rtol=1e-3 if want.dtype == np.float16 else 1e-6,
                   atol=1e-6, err_msg=f"{a} {op} {b}")


@pytest.mark.parametrize("dt,op", CASES, ids=[f"{d}-{NAMES[o]}" for d, o in CASES])
def test_binary_same_dtype(rng, dt, op):
    check_binary(rng, dt, dt, op)


@pytest.mark.parametrize("a,b,op", MIXED, ids=[f"{a}-{NAMES[o]}-{b}" for a, b, o in MIXED])
def test_binary_mixed_dtypes(rng, a, b, op):
    check_binary(rng, a, b, op)


@pytest.mark.parametrize("dt", ["int8", "int64"])
def test_scalar_operands(rng, dt):
    n = 50
    x = random_array(rng, dt, n, 1, 20)
    cpu, gpu = compare(scalar_kernel, grid1(n, 16), x, Out(n * 6, NP[dt]), n, BLOCK=16)
    o = gpu[0].reshape(n, 6).T
    assert_ref(o[3], c_floordiv(x, np.full(n, -3)))
    assert_ref(o[4], c_mod(np.full(n, -7), x))
    assert_ref(o[5], -x)


def test_unary_and_logical(rng):
    n = 100
    x = random_array(rng, "int32", n)
    cpu, gpu = compare(unary_kernel, grid1(n, 64), x, Out(n * 4, np.int32), n, BLOCK=64)
    o = gpu[0].reshape(n, 4).T
    assert_ref(o[0], ~x)
    assert_ref(o[3], np.where((x > 0) & (x < 50), x, 0))


def test_pointer_arithmetic(rng):
    x = random_array(rng, "float32", 20)
    cpu, gpu = compare(pointer_arith_kernel, (1,), x, Out(20, np.float32), 20, BLOCK=32)
    assert_ref(gpu[0], x[::-1])


def test_bfloat16_arithmetic(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(rng.uniform(-4, 4, 16).astype(np.float32)).to(torch.bfloat16)
    y = torch.from_numpy(rng.uniform(0.5, 4, 16).astype(np.float32)).to(torch.bfloat16)
    cpu, gpu = run_both(bf16_kernel, (1,), x, y, Out(16 * 4, np.float32), BLOCK=16)
    c, g = cpu[0].reshape(16, 4).T, gpu[0].reshape(16, 4).T
    assert_same(c[0], g[0], "bfloat16", "exact", err_msg="bf16 +")
    assert_same(c[1], g[1], "bfloat16", "exact", err_msg="bf16 * 2.0")
    assert_same(c[2], g[2], "float32", "div", err_msg="bf16 / (in fp32)")
    assert_same(c[3], g[3], "bfloat16", "exact", err_msg="bf16 maximum")
    assert_ref(g[0], (x + y).float().numpy())
    assert_ref(g[2], (x.float() / y.float()).numpy(), rtol=1e-6)
