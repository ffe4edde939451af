"""bf16 and fp8 emulation: encoders/decoders against reference bit patterns, rounding modes,
saturation, and conversions through the evaluator (tt.fp_to_fp, loads/stores)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from irkit import run_elementwise, bf16, f32, f64  # noqa: E402

from tritium.backends.cpu import dtypes as D  # noqa: E402
from tritium.ir import types as T  # noqa: E402
from tritium.ir.attrs import IntegerAttr  # noqa: E402

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
FP8 = {
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
}


def sample(n=20000):
    x = RNG.standard_normal(n) * 10.0 ** RNG.integers(-6, 5, n)
    return np.concatenate([x, [0.0, -0.0, 1.0, -1.0, 2.0 ** -20]]).astype(np.float32)


@pytest.mark.parametrize("name", sorted(FP8))
def test_fp8_encode_matches_torch_in_range(name):
    fmt = D.FORMATS[name]
    x = sample()
    x = x[np.abs(x) <= fmt.max_value]
    ref = torch.from_numpy(x).to(getattr(torch, FP8[name])).view(torch.uint8).numpy()
    np.testing.assert_array_equal(D.encode(x, fmt), ref)


@pytest.mark.parametrize("name", sorted(FP8))
def test_fp8_decode_all_codes(name):
    codes = np.arange(256, dtype=np.uint8)
    ref = torch.from_numpy(codes).view(getattr(torch, FP8[name])).float().numpy()
    np.testing.assert_array_equal(D.decode(codes, D.FORMATS[name]), ref)


@pytest.mark.parametrize("name", sorted(FP8) + ["f8E4M3B11FNUZ"])
def test_fp8_round_trip_every_code(name):
    fmt = D.FORMATS[name]
    codes = np.arange(256, dtype=np.uint8)
    vals = D.decode(codes, fmt)
    ok = ~np.isnan(vals)
    if fmt.kind == "fnuz":
        ok &= codes != 0x80
    np.testing.assert_array_equal(D.encode(vals[ok], fmt), codes[ok])


def test_fp8_overflow_rules():
    e4 = D.FORMATS["f8E4M3FN"]
    # no inf in E4M3FN: overflow and inf saturate to +-448 (cvt.rn.satfinite); NaN -> 0x7F
    np.testing.assert_array_equal(
        D.encode(np.float32([1e6, -1e6, np.inf, -np.inf, np.nan, 464, 465]), e4),
        [0x7E, 0xFE, 0x7E, 0xFE, 0x7F, 0x7E, 0x7E])
    e5 = D.FORMATS["f8E5M2"]
    # IEEE format: rounds to inf past max + half an ulp
    np.testing.assert_array_equal(
        D.encode(np.float32([57344, 61439, 61440, np.inf, np.nan]), e5),
        [0x7B, 0x7B, 0x7C, 0x7C, 0x7E])
    fnuz = D.FORMATS["f8E4M3FNUZ"]
    np.testing.assert_array_equal(D.encode(np.float32([-0.0, np.nan, 1e9, -1e-30]), fnuz),
                                  [0x00, 0x80, 0x7F, 0x00])


def test_rtz_rounding():
    e4 = D.FORMATS["f8E4M3FN"]
    # 1.0 + 0.9 ulp: nearest rounds up, rtz truncates
    x = np.float32([1.0 + 0.9 * 0.125, -(1.0 + 0.9 * 0.125), 1e6])
    np.testing.assert_array_equal(D.encode(x, e4, "rtz"), [0x38, 0xB8, 0x7E])
    np.testing.assert_array_equal(D.encode(x, e4, "rtne"), [0x39, 0xB9, 0x7E])
    e5 = D.FORMATS["f8E5M2"]
    assert D.encode(np.float32([1e6]), e5, "rtz")[0] == 0x7B     # rtz never overflows to inf


def test_bf16_matches_torch():
    x = np.concatenate([sample(), np.float32([np.inf, -np.inf, 3.4e38, -3.4e38, 1e-40])])
    ref = torch.from_numpy(x).bfloat16().view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(D.f32_to_bf16_bits(x), ref)
    assert np.isnan(D.bf16_bits_to_f32(D.f32_to_bf16_bits(np.float32([np.nan])))).all()
    # a NaN whose payload would carry into the sign bit when rounded stays a NaN
    weird = np.array([0x7FFFFFFF, 0xFFFFFFFF], np.uint32).view(np.float32)
    assert np.isnan(D.bf16_bits_to_f32(D.f32_to_bf16_bits(weird))).all()


def test_bf16_from_f64_rounds_once():
    # 1 + 2^-8 + 2^-40: exactly between two bf16 values after an f32 rounding, above the
    # midpoint before it: a single rounding from f64 must round up.
    x = np.float64([1 + 2.0 ** -8 + 2.0 ** -40])
    out = D.convert_float(x, T.bf16)
    assert out[0] == np.float32(1 + 2.0 ** -7)


@pytest.mark.parametrize("dst", sorted(FP8) + ["bf16", "f16"])
@pytest.mark.parametrize("mode", [0, 1])
def test_fp_to_fp_through_evaluator(dst, mode):
    x = sample(3 * 300)[: 3 * 300]
    dt = T.FloatType(dst)
    out = run_elementwise("tt.fp_to_fp", [f32], dt, [x], {"rounding": IntegerAttr(mode, T.i32)})
    fmt = D.FORMATS[dst]
    ref = D.encode(x, fmt, "rtz" if mode == 0 else "rtne")
    if dst == "f16":
        np.testing.assert_array_equal(out.view(np.uint16), ref)
    else:
        np.testing.assert_array_equal(out, ref)
    # and back up exactly
    back = run_elementwise("tt.fp_to_fp", [dt], f32, [out])
    np.testing.assert_array_equal(back, D.decode(ref, fmt))


def test_fp8_arithmetic_rounds_each_op():
    a = D.encode(sample(3 * 100)[:300] / 100, D.FORMATS["f8E5M2"])
    b = D.encode(sample(3 * 100)[:300] / 100, D.FORMATS["f8E5M2"])
    t = T.FloatType("f8E5M2")
    out = run_elementwise("arith.mulf", [t, t], t, [a, b])
    fmt = D.FORMATS["f8E5M2"]
    ref = D.encode(D.decode(a, fmt) * D.decode(b, fmt), fmt)
    np.testing.assert_array_equal(out, ref)


def test_bf16_extf_truncf():
    x = sample(300)[:300]
    bits = run_elementwise("arith.truncf", [f32], bf16, [x])
    np.testing.assert_array_equal(bits, D.f32_to_bf16_bits(x))
    back = run_elementwise("arith.extf", [bf16], f64, [bits])
    np.testing.assert_array_equal(back, D.bf16_bits_to_f32(bits).astype(np.float64))


def test_scalar_array_wraps():
    assert D.scalar_array(2 ** 31, T.i32)[0] == -(2 ** 31)
    assert D.scalar_array(-1, T.i64)[0] == -1
    assert D.scalar_array(1.1, T.bf16)[0] == D.bf16_bits_to_f32(
        D.f32_to_bf16_bits(np.float32([1.1])))[0]
