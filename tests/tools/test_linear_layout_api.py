"""`triton.tools.LinearLayout` (upstream's Python API over tritium's linear layouts): the
matrix view against `apply` on random layouts (GF(2) matrix-vector products), upstream's
constructors and spellings, and operations keeping the class."""
import random

import pytest

from tritium.tools import LinearLayout


def _random_layout(rng, in_dims, out_dims):
    bases = [(d, [[rng.randrange(s) for _, s in out_dims] for _ in range(n)])
             for d, n in in_dims]
    return LinearLayout.from_bases(bases, [n for n, _ in out_dims], [s for _, s in out_dims],
                                   require_surjective=False)


def _bits(d, n):
    return [(d >> i) & 1 for i in range(n)]


@pytest.mark.parametrize("trial", range(6))
def test_matrix_view_is_apply_over_gf2(trial):
    rng = random.Random(trial * 7919 + random.randrange(10**6))
    in_dims = [("reg", rng.randrange(0, 3)), ("lane", rng.randrange(1, 4))]
    out_dims = [("dim0", 1 << rng.randrange(1, 4)), ("dim1", 1 << rng.randrange(0, 3))]
    layout = _random_layout(rng, in_dims, out_dims)
    m = layout.get_matrix_view()
    n_in = sum(n for _, n in in_dims)
    n_out = sum(s.bit_length() - 1 for _, s in out_dims)
    assert len(m) == n_out and all(len(row) == n_in for row in m)
    for _ in range(20):
        ins = {d: rng.randrange(1 << n) for d, n in in_dims}
        x = _bits(ins["reg"], in_dims[0][1]) + _bits(ins["lane"], in_dims[1][1])
        y = [sum(a & b for a, b in zip(row, x)) % 2 for row in m]
        out = layout.apply(ins)
        w0 = out_dims[0][1].bit_length() - 1
        assert y[:w0] == _bits(out["dim0"], w0)
        assert y[w0:] == _bits(out["dim1"], n_out - w0)


def test_upstream_constructors_and_operations_keep_the_class():
    z = LinearLayout.zeros_1d(8, "i", "o", outDimSize=4)
    assert not z.is_surjective() and {z.apply({"i": v})["o"] for v in range(8)} == {0}
    s = LinearLayout.strided_1d(4, 2, "i", "o")
    assert s.get_matrix_view() == [[0, 0], [1, 0], [0, 1]]
    a = LinearLayout.identity_1d(8, "i", "o") * LinearLayout.identity_1d(4, "j", "p")
    for result in (a, a.invert(), a.compose(LinearLayout.identity_1d(8, "o", "o") *
                                            LinearLayout.identity_1d(4, "p", "p"))):
        assert type(result) is LinearLayout and result.get_matrix_view()
    inv = a.invert()
    for i in range(8):
        for j in range(4):
            assert inv.apply(a.apply({"i": i, "j": j})) == {"i": i, "j": j}
    with pytest.raises(ValueError):
        LinearLayout.from_bases([("i", [[0], [1]])], ["o"], [4])  # not onto size 4
    with pytest.raises(ValueError, match="one size per output dim"):
        LinearLayout.from_bases([("i", [[1]])], ["o"], [2, 2])
