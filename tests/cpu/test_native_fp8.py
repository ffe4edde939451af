"""fp8 on the compiled path (native/fp8.py) against the evaluator's emulation, bit for bit:
every 8-bit pattern decoded, floats rounded to every format (both rounding modes,
overflow, NaN, infinities, signed zeros, ties, subnormals, random values), fp8 values
stored to and loaded from memory, bitcasts, and a dot with fp8 operands."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.tensor_wrapper import reinterpret

FORMATS = {"float8e5": tl.float8e5, "float8e4nv": tl.float8e4nv, "float8e4b8": tl.float8e4b8,
           "float8e4b15": tl.float8e4b15, "float8e5b16": tl.float8e5b16}


def _both(monkeypatch, launch, out):
    """`out` after `launch()` compiled, and after it evaluated (the same start contents)."""
    start = out.copy()
    got = []
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        out[...] = start
        k = launch()
        if path == "native":
            assert k.function.native(k.metadata) is not None, k.metadata.get("cpu_fallback")
        got.append(out.copy())
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    return got


def _floats(rng, n):
    """Values that exercise every branch of the encoder."""
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30, 3e38, 1e-30, -1e-45,
               448.0, 464.0, 480.0, 57344.0, 61440.0, 65536.0, 240.0, 0.0009765625,
               2.0 ** -10, 2.0 ** -17, 1.5 * 2.0 ** -16, 0.3, 1.0625, 1.125, 1.1875, -2.75]
    ties = (np.arange(1, 64) + 0.5) * 2.0 ** rng.integers(-20, 12, 63)  # halfway cases
    scales = 2.0 ** rng.uniform(-22, 18, n)
    vals = np.concatenate([special, ties, rng.standard_normal(n) * scales])
    return vals.astype(np.float32)


@triton.jit
def _round_trip(x_ptr, o_ptr, bits_ptr, n, DT: tl.constexpr, RTZ: tl.constexpr,
                BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if RTZ:
        y = x.to(DT, fp_downcast_rounding="rtz")
    else:
        y = x.to(DT)
    tl.store(bits_ptr + offs, y, mask=m)                 # an fp8 store: its bit pattern
    tl.store(o_ptr + offs, y.to(tl.float32), mask=m)


@pytest.mark.parametrize("rtz", [False, True])
@pytest.mark.parametrize("name", sorted(FORMATS))
def test_rounding_to_fp8_matches_the_evaluator(rng, monkeypatch, name, rtz):
    x = _floats(rng, 3000)
    n = x.size
    out = rng.standard_normal(n).astype(np.float32)
    bits = rng.integers(0, 256, n).astype(np.uint8)
    dt = FORMATS[name]
    outs = []
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        o, b = out.copy(), bits.copy()
        k = _round_trip[(triton.cdiv(n, 256),)](x, o, reinterpret(b, dt), n, DT=dt, RTZ=rtz,
                                                BLOCK=256)
        if path == "native":
            assert k.function.native(k.metadata) is not None, k.metadata.get("cpu_fallback")
        outs.append((o, b))
    (o1, b1), (o2, b2) = outs
    np.testing.assert_array_equal(b1, b2)
    np.testing.assert_array_equal(o1.view(np.uint32), o2.view(np.uint32))


@triton.jit
def _decode_all(bits_ptr, o_ptr, back_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(bits_ptr + offs)                          # fp8 load: decode
    tl.store(o_ptr + offs, v.to(tl.float32) * 2)
    tl.store(back_ptr + offs, v)                          # and encode again
    tl.store(i_ptr + offs, v.to(tl.uint8, bitcast=True))  # the pattern as an integer


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_pattern_decodes_as_the_evaluator(monkeypatch, name):
    dt = FORMATS[name]
    codes = np.arange(256, dtype=np.uint8)
    outs = []
    for path in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path)
        o = np.zeros(256, np.float32)
        back, ints = np.zeros(256, np.uint8), np.zeros(256, np.uint8)
        k = _decode_all[(1,)](reinterpret(codes, dt), o, reinterpret(back, dt), ints, BLOCK=256)
        if path == "native":
            assert k.function.native(k.metadata) is not None
        outs.append((o, back, ints))
    np.testing.assert_array_equal(outs[0][0].view(np.uint32), outs[1][0].view(np.uint32))
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    np.testing.assert_array_equal(outs[0][2], outs[1][2])
    num = ~np.isnan(outs[1][0])       # NaNs come back as the format's one NaN (per sign)
    assert num.sum() >= 250
    np.testing.assert_array_equal(outs[0][2][num], codes[num])
    np.testing.assert_array_equal(outs[0][1][num], codes[num])


@triton.jit
def _fp8_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("name", ["float8e5", "float8e4nv"])
def test_dot_of_fp8_operands(rng, monkeypatch, name):
    import torch
    M, N, K = 32, 32, 32
    tdt = {"float8e5": torch.float8_e5m2, "float8e4nv": torch.float8_e4m3fn}[name]
    a = torch.from_numpy(rng.standard_normal((M, K)).astype(np.float32)).to(tdt)
    b = torch.from_numpy(rng.standard_normal((K, N)).astype(np.float32)).to(tdt)
    au, bu = a.view(torch.uint8).numpy(), b.view(torch.uint8).numpy()
    dt = FORMATS[name]
    c = rng.standard_normal((M, N)).astype(np.float32)
    got, want = _both(monkeypatch, lambda: _fp8_dot[(1,)](reinterpret(au, dt),
                                                          reinterpret(bu, dt), c, M=M, N=N, K=K), c)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, (a.float() @ b.float()).numpy(), rtol=1e-5, atol=1e-5)
