"""Conversions run on the CPU backend vs NumPy (and torch for bf16/fp8 rounding)."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, grid1, random_array

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64"]
TL = {"bool": tl.int1, **{n: getattr(tl, n) for n in TYPES if n != "bool"}}


@triton.jit
def cast_kernel(x_ptr, o_ptr, n, DST: tl.constexpr, BITCAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(o_ptr + offs, x.to(DST, bitcast=BITCAST), mask=m)


@pytest.mark.parametrize("dst", TYPES)
@pytest.mark.parametrize("src", TYPES)
def test_cast_matrix(rng, src, dst):
    n = 70
    # Values every conversion defines: small, and non-negative when unsigned is involved.
    low = 0 if ("uint" in src or "uint" in dst) else -100
    x = random_array(rng, src, n, low, 100) if src != "bool" else random_array(rng, "bool", n)
    if src.startswith("float"):
        x[:5] = [0.0, -0.0, 0.5, 1.0, 99.75][:5] if low == 0 else [0.0, -0.5, 2.5, -99.5, 7.0]
    out = np.zeros(n, NP[dst])
    cast_kernel[grid1(n, 32)](x, out, n, DST=TL[dst], BITCAST=False, BLOCK=32)
    want = (x != 0) if dst == "bool" else x.astype(NP[dst])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int64", "float64"),
                                     ("float16", "int16"), ("uint32", "int32"), ("int8", "uint8")])
def test_bitcast(rng, src, dst):
    x = random_array(rng, src, 40)
    out = np.zeros(40, NP[dst])
    cast_kernel[grid1(40, 16)](x, out, 40, DST=TL[dst], BITCAST=True, BLOCK=16)
    np.testing.assert_array_equal(out, x.view(NP[dst]))


@triton.jit
def roundtrip_kernel(x_ptr, o_ptr, n, MID: tl.constexpr, RND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(o_ptr + offs, x.to(MID, fp_downcast_rounding=RND).to(tl.float32), mask=m)


def test_fp16_rtz_rounding(rng):
    x = rng.uniform(-10, 10, 300).astype(np.float32)
    out = np.zeros_like(x)
    roundtrip_kernel[grid1(300, 128)](x, out, 300, MID=tl.float16, RND="rtz", BLOCK=128)
    r = x.astype(np.float16)
    toward_zero = np.where(np.abs(r.astype(np.float32)) > np.abs(x), np.nextafter(r, np.float16(0)), r)
    np.testing.assert_array_equal(out, toward_zero.astype(np.float32))
    roundtrip_kernel[grid1(300, 128)](x, out, 300, MID=tl.float16, RND="rtne", BLOCK=128)
    np.testing.assert_array_equal(out, r.astype(np.float32))


def _bf16_rtne(x):
    b = x.view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return (b.astype(np.uint32) << 16).view(np.float32)


def test_bf16_roundtrip(rng):
    x = rng.standard_normal(500).astype(np.float32) * 100
    out = np.zeros_like(x)
    roundtrip_kernel[grid1(500, 128)](x, out, 500, MID=tl.bfloat16, RND=None, BLOCK=128)
    np.testing.assert_array_equal(out, _bf16_rtne(x))


@pytest.mark.parametrize("fp8,torch_name", [(tl.float8e5, "float8_e5m2"),
                                            (tl.float8e4nv, "float8_e4m3fn")])
def test_fp8_roundtrip(rng, fp8, torch_name):
    torch = pytest.importorskip("torch")
    x = (rng.standard_normal(400) * 8).astype(np.float32)
    out = np.zeros_like(x)
    roundtrip_kernel[grid1(400, 128)](x, out, 400, MID=fp8, RND=None, BLOCK=128)
    want = torch.from_numpy(x).to(getattr(torch, torch_name)).to(torch.float32).numpy()
    np.testing.assert_array_equal(out, want)


@triton.jit
def ptr_int_kernel(x_ptr, o_ptr):
    addr = x_ptr.to(tl.int64)
    p = (addr + 8).to(tl.pointer_type(tl.int32))  # two int32 further on
    tl.store(o_ptr, tl.load(p))
    byte_ptr = x_ptr.to(tl.pointer_type(tl.int8))  # pointer-to-pointer cast: tt.bitcast
    tl.store(o_ptr + 1, tl.load((byte_ptr + 4).to(tl.pointer_type(tl.int32))))


def test_pointer_int_casts():
    x = np.arange(10, 20, dtype=np.int32)
    out = np.zeros(2, np.int32)
    ptr_int_kernel[(1,)](x, out)
    np.testing.assert_array_equal(out, [12, 11])
