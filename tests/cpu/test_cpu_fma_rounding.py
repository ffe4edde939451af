"""`math.fma` on the CPU backend rounds once, like the GPU's fma.rn, for f32 and f16."""
from fractions import Fraction

import numpy as np
import pytest

from tritium.backends.cpu.ops_math import _fma


def correctly_rounded(x, y, z, dt):
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    c = dt(float(exact))
    cands = [np.nextafter(c, dt(-np.inf)), c, np.nextafter(c, dt(np.inf))]
    # nearest, ties to even
    return min(cands, key=lambda v: (abs(Fraction(float(v)) - exact),
                                     int(np.array(v).view(np.int32 if dt == np.float32 else np.int16)) & 1))


def test_double_rounding_case():
    # (1+2^-12)^2 = 1 + 2^-11 + 2^-24 is a tie in f32; the tiny addend breaks it upward.
    a = np.array([1 + 2 ** -12], np.float32)
    r = _fma(a, a, np.array([2.0 ** -80], np.float32))
    assert float(r[0]) == 1 + 2 ** -11 + 2 ** -23


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_fma_matches_exact_rounding(rng, dt):
    n = 3000
    x = rng.standard_normal(n).astype(dt)
    y = rng.standard_normal(n).astype(dt)
    z = (rng.standard_normal(n) * 1e-3).astype(dt)
    r = _fma(x, y, z)
    for i in range(n):
        assert r[i] == correctly_rounded(x[i], y[i], z[i], dt), i
