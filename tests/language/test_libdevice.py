"""`tl.extra.libdevice`: every function dispatches to the right `__nv_*` symbol for each of
its overloads, and the common ones compute the right values on the CPU backend."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.cpu.ops_math import libdevice_function
from tritium.language.extra import libdevice
from tritium.language.extra.cuda.libdevice import TABLE

from semkit import Env


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_overload_dispatches(name):
    fn = getattr(libdevice, name)
    for arg_types, (symbol, ret) in TABLE[name].items():
        env = Env()
        args = [env.arg(t, [4]) for t in arg_types]
        r = fn(*args, _semantic=env.sem)
        ops = [op for op in env.block if op.name == "tt.extern_elementwise"]
        assert len(ops) == 1 and ops[0].attr("symbol") == symbol
        assert ops[0].attr("libname") == "" and ops[0].attr("pure") is True
        want = tl.int1 if name in ("isnan", "isinf", "finitef") else ret
        assert r.dtype == want and r.type.get_block_shapes() == [4]


def test_module_aliases():
    assert tl.extra.libdevice.exp is tl.extra.cuda.libdevice.exp
    import inspect
    assert list(inspect.signature(libdevice.fma).parameters)[:3] == ["arg0", "arg1", "arg2"]


def test_scalar_arguments_broadcast_and_promote():
    env = Env()
    r = libdevice.atan2(env.arg(tl.float32, [8]), 1.0, _semantic=env.sem)
    assert r.type.get_block_shapes() == [8] and r.dtype == tl.float32
    r = libdevice.pow(env.arg(tl.float64), env.arg(tl.float32), _semantic=env.sem)
    assert r.dtype == tl.float64  # no exact overload: promoted to (fp64, fp64)


@triton.jit
def lib1(x_ptr, o_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, FN(x))


@triton.jit
def lib2(x_ptr, y_ptr, o_ptr, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, FN(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


UNARY = {"exp": np.exp, "exp2": np.exp2, "exp10": lambda x: 10.0 ** x, "expm1": np.expm1,
         "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sin": np.sin,
         "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
         "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
         "atanh": np.arctanh, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
         "cbrt": np.cbrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
         "rint": np.rint, "nearbyint": np.rint, "fabs": np.abs, "sqrt_rn": np.sqrt,
         "rcp_rn": lambda x: 1 / x, "fast_expf": np.exp, "fast_logf": np.log, "erfc": None}
BINARY = {"atan2": np.arctan2, "pow": np.power, "fmod": np.fmod, "hypot": np.hypot,
          "fmin": np.fmin, "fmax": np.fmax, "copysign": np.copysign, "div_rn": np.divide,
          "nextafter": np.nextafter, "min": np.minimum, "max": np.maximum}


@pytest.mark.parametrize("name", sorted(n for n in UNARY if UNARY[n] is not None))
def test_unary_on_cpu(rng, name):
    dt = np.float32 if name.startswith(("fast_", "sqrt_rn", "rcp")) else np.float64
    x = rng.uniform(0.1, 0.9, 32).astype(dt)
    out = np.zeros_like(x)
    lib1[(1,)](x, out, FN=getattr(libdevice, name), BLOCK=32)
    np.testing.assert_allclose(out, UNARY[name](x.astype(np.float64)), rtol=2e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_on_cpu(rng, name):
    x = rng.uniform(-3, 3, 32).astype(np.float32)
    y = rng.uniform(0.5, 3, 32).astype(np.float32)
    if name == "pow":
        x = np.abs(x)
    out = np.zeros_like(x)
    lib2[(1,)](x, y, out, FN=getattr(libdevice, name), BLOCK=32)
    np.testing.assert_allclose(out, BINARY[name](x, y), rtol=2e-6)


@triton.jit
def predicates(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs * 3 + 0, libdevice.isnan(x).to(tl.int32))
    tl.store(o_ptr + offs * 3 + 1, libdevice.isinf(x).to(tl.int32))
    tl.store(o_ptr + offs * 3 + 2, libdevice.signbit(x) != 0)


def test_predicates_on_cpu():
    x = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, -2.0, 0.0, 3.0], np.float32)
    out = np.zeros(8 * 3, np.int32)
    predicates[(1,)](x, out, BLOCK=8)
    o = out.reshape(8, 3).T
    np.testing.assert_array_equal(o[0], np.isnan(x))
    np.testing.assert_array_equal(o[1], np.isinf(x))
    np.testing.assert_array_equal(o[2], np.signbit(x))


@triton.jit
def bits_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs * 3 + 0, libdevice.popc(x))
    tl.store(o_ptr + offs * 3 + 1, libdevice.clz(x))
    tl.store(o_ptr + offs * 3 + 2, libdevice.ffs(x))


def test_bit_functions_on_cpu(rng):
    x = rng.integers(-2 ** 31, 2 ** 31, 16).astype(np.int32)
    x[:3] = [0, 1, -1]
    out = np.zeros(16 * 3, np.int32)
    bits_kernel[(1,)](x, out, BLOCK=16)
    o = out.reshape(16, 3).T
    u = [int(v) & 0xFFFFFFFF for v in x]
    np.testing.assert_array_equal(o[0], [bin(v).count("1") for v in u])
    np.testing.assert_array_equal(o[1], [32 - v.bit_length() for v in u])
    np.testing.assert_array_equal(o[2], [(v & -v).bit_length() for v in u])


def test_cpu_backend_knows_the_common_symbols():
    missing = [n for n in ("exp", "log", "sin", "cos", "tanh", "erf", "pow", "fmod", "hypot",
                           "lgamma", "tgamma", "isnan", "popc", "brev", "umulhi", "div_rn")
               if all(libdevice_function(s) is None for s, _ in TABLE[n].values())]
    assert missing == []
