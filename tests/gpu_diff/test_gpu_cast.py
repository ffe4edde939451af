"""Conversions (tests/language/test_e2e_cast.py's kernels) on the GPU vs the CPU backend,
NumPy and torch: every type to and from float32, integer narrowing/widening and signedness,
bool, fp16/fp64, bfloat16 and fp8 (rounding modes included), bitcasts, pointer <-> int.
Conversions are exact operations: every comparison here is bit for bit."""
import numpy as np
import pytest

import tritium.language as tl

from e2e import NP, grid1, random_array
from harness import Out, assert_ref, assert_same, compare, run_both
from test_e2e_cast import TL, TYPES, _bf16_rtne, cast_kernel, ptr_int_kernel, roundtrip_kernel
from test_e2e_memory import store_convert_kernel

pytestmark = pytest.mark.gpu

PAIRS = [(t, "float32") for t in TYPES if t != "float32"]
PAIRS += [("float32", t) for t in TYPES if t != "float32"]
PAIRS += [("int64", "int8"), ("uint64", "int16"), ("int32", "uint64"), ("int16", "bool"),
          ("float64", "float16"), ("float64", "int64")]


def cast_input(rng, src, dst, n):
    """test_cast_matrix's values: small, non-negative with unsigned types, exact edges."""
    low = 0 if ("uint" in src or "uint" in dst) else -100
    if src == "bool":
        return random_array(rng, "bool", n)
    x = random_array(rng, src, n, low, 100)
    if src.startswith("float"):
        x[:5] = [0.0, -0.0, 0.5, 1.0, 99.75][:5] if low == 0 else [0.0, -0.5, 2.5, -99.5, 7.0]
    return x


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_cast(rng, src, dst):
    n = 70
    x = cast_input(rng, src, dst, n)
    cpu, gpu = compare(cast_kernel, grid1(n, 32), x, Out(n, NP[dst]), n, DST=TL[dst],
                       BITCAST=False, BLOCK=32)
    assert_ref(gpu[0], (x != 0) if dst == "bool" else x.astype(NP[dst]))


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float16", "int16"), ("int8", "uint8")])
def test_bitcast(rng, src, dst):
    x = random_array(rng, src, 40)
    cpu, gpu = compare(cast_kernel, grid1(40, 16), x, Out(40, NP[dst]), 40, DST=TL[dst],
                       BITCAST=True, BLOCK=16)
    assert_ref(gpu[0], x.view(NP[dst]))


@pytest.mark.parametrize("src,dst", [("bfloat16", "float32"), ("bfloat16", "float16"),
                                     ("int32", "bfloat16")])
def test_bfloat16_casts(rng, src, dst):
    torch = pytest.importorskip("torch")
    n = 70
    x = (rng.standard_normal(n) * 50).astype(np.float32)
    if src == "int32":
        x = np.round(x).astype(np.int32)
    xt = torch.from_numpy(x).to(torch.bfloat16) if src == "bfloat16" else x
    out = Out(n, dst if dst == "bfloat16" else NP[dst])
    cpu, gpu = run_both(cast_kernel, grid1(n, 32), xt, out, n, DST=getattr(tl, dst),
                        BITCAST=False, BLOCK=32)
    assert_same(cpu[0], gpu[0], dst, "exact")
    src_t = xt if src == "bfloat16" else torch.from_numpy(x)
    want = src_t.to(getattr(torch, dst))
    assert_ref(gpu[0], want.float().numpy() if dst == "bfloat16" else want.numpy())


@pytest.mark.parametrize("rnd", ["rtz", "rtne"])
def test_fp16_rounding_modes(rng, rnd):
    x = rng.uniform(-10, 10, 300).astype(np.float32)
    cpu, gpu = compare(roundtrip_kernel, grid1(300, 128), x, Out(300, np.float32), 300,
                       MID=tl.float16, RND=rnd, BLOCK=128)
    r = x.astype(np.float16)
    if rnd == "rtz":
        r = np.where(np.abs(r.astype(np.float32)) > np.abs(x), np.nextafter(r, np.float16(0)), r)
    assert_ref(gpu[0], r.astype(np.float32))


def test_bf16_roundtrip(rng):
    x = rng.standard_normal(500).astype(np.float32) * 100
    cpu, gpu = compare(roundtrip_kernel, grid1(500, 128), x, Out(500, np.float32), 500,
                       MID=tl.bfloat16, RND=None, BLOCK=128)
    assert_ref(gpu[0], _bf16_rtne(x))


@pytest.mark.parametrize("fp8,torch_name", [(tl.float8e5, "float8_e5m2"),
                                            (tl.float8e4nv, "float8_e4m3fn")])
def test_fp8_roundtrip(rng, fp8, torch_name):
    torch = pytest.importorskip("torch")
    x = (rng.standard_normal(400) * 8).astype(np.float32)
    x[:4] = [0.0, 1e-3, -3e-3, 0.0078125]          # fp8 subnormals and zero
    cpu, gpu = compare(roundtrip_kernel, grid1(400, 128), x, Out(400, np.float32), 400,
                       MID=fp8, RND=None, BLOCK=128)
    want = torch.from_numpy(x).to(getattr(torch, torch_name)).to(torch.float32).numpy()
    assert_ref(gpu[0], want)


@pytest.mark.parametrize("fp8,torch_name", [(tl.float8e5, "float8_e5m2"),
                                            (tl.float8e4nv, "float8_e4m3fn")])
def test_fp8_buffers(rng, fp8, torch_name):
    """fp8 in memory: fp8 tensors in, fp32 out (the upcast), through cast_kernel."""
    torch = pytest.importorskip("torch")
    x = torch.from_numpy((rng.standard_normal(64) * 4).astype(np.float32)).to(
        getattr(torch, torch_name))
    cpu, gpu = compare(cast_kernel, (2,), x, Out(64, np.float32), 64, DST=tl.float32,
                       BITCAST=False, BLOCK=32)
    assert_ref(gpu[0], x.float().numpy())


def test_pointer_int_casts():
    x = np.arange(10, 20, dtype=np.int32)
    cpu, gpu = compare(ptr_int_kernel, (1,), x, Out(2, np.int32))
    assert_ref(gpu[0], [12, 11])


@pytest.mark.parametrize("dt", [np.float16, np.int32])
def test_store_converts_to_pointee_type(dt):
    cpu, gpu = compare(store_convert_kernel, (1,), Out(8, dt), BLOCK=8)
    assert_ref(gpu[0], (np.arange(8) * 0.5).astype(dt))
