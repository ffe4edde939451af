"""`triton.tools.mxfp` (MXFP4Tensor, MXScaleTensor) against a numpy model of the OCP MX v1.0
formats: every bit pattern, round trips, round-to-nearest-even on random and tie values,
saturation, packing, E8M0 scales."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="triton.tools.mxfp works on torch tensors")

from tritium.tools.mxfp import MXFP4Tensor, MXScaleTensor  # noqa: E402

# E2M1 from its definition: exponent bits E (bias 1), mantissa bit M; E == 0 is subnormal.
def _e2m1_value(code: int) -> float:
    s, e, m = code >> 3, (code >> 1) & 3, code & 1
    mag = (m * 0.5) if e == 0 else (1 + m * 0.5) * 2.0 ** (e - 1)
    return -mag if s else mag


def _e2m1_encode(x: float) -> int:
    """Nearest magnitude, ties to the even mantissa, saturating at 6; sign kept."""
    sign = 8 if np.signbit(x) else 0
    a = 6.0 if np.isnan(x) else min(abs(x), 6.0)
    mags = [_e2m1_value(c) for c in range(8)]
    dist = [abs(a - v) for v in mags]
    best = min(dist)
    ties = [c for c in range(8) if dist[c] == best]
    code = min(ties, key=lambda c: (c & 1, c))
    return sign | code


def test_every_e2m1_code_decodes_to_its_value():
    t = MXFP4Tensor(size=16)
    t.data = torch.arange(16, dtype=torch.uint8)
    got = t.to(torch.float32).numpy()
    want = np.array([_e2m1_value(c) for c in range(16)], np.float32)
    np.testing.assert_array_equal(got, want)
    assert list(want[:8]) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert np.signbit(got[8]) and got[8] == 0  # 0b1000 is -0


def test_e2m1_round_trip_of_every_code():
    codes = torch.arange(16, dtype=torch.uint8)
    t = MXFP4Tensor(size=16)
    t.data = codes
    again = MXFP4Tensor(t.to(torch.float32))
    assert torch.equal(again.data, codes)


def test_e2m1_rounding_vs_numpy_model(rng):
    x = np.concatenate([rng.uniform(-8, 8, 3000), rng.normal(0, 1, 1000),
                        # every tie between neighbours, both signs, and the specials
                        [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -0.25, -1.75, -5.0, 7.0, 1e30,
                         -1e30, np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30]]).astype(np.float32)
    got = MXFP4Tensor(torch.from_numpy(x)).data.numpy()
    want = np.array([_e2m1_encode(float(v)) for v in x], np.uint8)
    np.testing.assert_array_equal(got, want)
    ties = MXFP4Tensor(torch.tensor([0.25, 0.75, 1.75, 2.5, 3.5, 5.0])).to(torch.float32)
    assert ties.tolist() == [0.0, 1.0, 2.0, 2.0, 4.0, 4.0]


def test_random_draws_every_code_and_keeps_shape():
    t = MXFP4Tensor(size=(64, 33)).random()
    assert t.data.shape == (64, 33) and t.data.dtype == torch.uint8
    assert set(t.data.unique().tolist()) == set(range(16))


@pytest.mark.parametrize("shape,dim", [((4, 6), 1), ((5, 7), 1), ((6, 3), 0), ((2, 3, 5), 2)])
def test_packing_low_nibble_first_and_unpack(shape, dim):
    t = MXFP4Tensor(size=shape).random()
    packed = t.to_packed_tensor(dim)
    codes = np.moveaxis(t.data.numpy(), dim, -1)
    if codes.shape[-1] % 2:
        codes = np.concatenate([codes, np.zeros(codes.shape[:-1] + (1,), np.uint8)], -1)
    want = codes[..., 0::2] | (codes[..., 1::2] << 4)
    np.testing.assert_array_equal(np.moveaxis(packed.numpy(), dim, -1), want)
    assert torch.equal(t.unpack_packed_tensor(packed, dim, shape), t.data)


def test_e8m0_codes_values_and_conversion(rng):
    s = MXScaleTensor(size=256)
    s.data = torch.arange(256, dtype=torch.uint8)
    v = s.to(torch.float32).numpy()
    assert np.isnan(v[255])
    np.testing.assert_array_equal(v[:255], np.ldexp(np.float32(1), np.arange(255) - 127))
    x = np.exp2(rng.uniform(-120, 120, 2000)).astype(np.float32)
    got = MXScaleTensor(torch.from_numpy(x)).data.numpy().astype(int)
    want = np.clip(np.floor(np.log2(x.astype(np.float64))).astype(int) + 127, 0, 254)
    np.testing.assert_array_equal(got, want)
    special = MXScaleTensor(torch.tensor([0.0, -1.0, float("inf"), float("nan"), 1.0, 0.75,
                                          1.5 * 2.0 ** 127, 1e-45])).data.tolist()
    assert special == [255, 255, 255, 255, 127, 126, 254, 0]
    # Powers of two round-trip exactly.
    p = torch.ldexp(torch.ones(200), torch.arange(-100, 100))
    assert torch.equal(MXScaleTensor(p).to(torch.float32), p)


def test_e8m0_random_range():
    s = MXScaleTensor(size=(1000,)).random(low=0.25, high=8)
    values = s.to(torch.float32)
    assert values.min() >= 0.25 and values.max() <= 8
    assert set(values.unique().tolist()) == {0.25, 0.5, 1.0, 2.0, 4.0, 8.0}
    with pytest.raises(ValueError, match="above high"):
        MXScaleTensor(size=3).random(low=8, high=1)


def test_tutorial10_reference_path_runs_on_the_cpu():
    """Tutorial 10's data preparation: fp4 data packed along K, E8M0 scales from floats."""
    M, K = 128, 64
    a_ref = MXFP4Tensor(size=(M, K), device="cpu").random()
    a = a_ref.to_packed_tensor(dim=1)
    assert a.shape == (M, K // 2) and a.dtype == torch.uint8
    scale = MXScaleTensor(torch.rand((1, K // 32 // 4, 32, 4, 4)) + 1e-8)
    assert scale.data.dtype == torch.uint8 and not torch.isnan(scale.to(torch.float32)).any()
