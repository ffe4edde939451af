"""A numpy array's data address read from the object (`tritium._ndarray`) is the one numpy
reports, for every kind of array a launch can get; and launches through it specialise and
write as before."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium import _ndarray


class Sub(np.ndarray):
    pass


def _arrays():
    base = np.arange(64, dtype=np.float32)
    two = np.arange(48, dtype=np.float64).reshape(6, 8)
    return {
        "contiguous": base,
        "offset view": base[3:],
        "strided": base[1::3],
        "reversed": base[::-1],
        "column": two[:, 5],
        "fortran": np.asfortranarray(two),
        "0-d": np.array(2.5, np.float32),
        "empty": np.zeros(0, np.int8),
        "subclass": base.view(Sub)[5:],
        "memmap-like": np.frombuffer(bytearray(64), np.int16)[1:],
    }


@pytest.mark.parametrize("kind", list(_arrays()))
def test_address_is_numpys(kind):
    a = _arrays()[kind]
    assert _ndarray._FAST  # (CPython: else the test below checks only the fallback)
    assert _ndarray.address(a) == a.__array_interface__["data"][0]


@triton.jit
def _add_one(x, y, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + o, tl.load(x + o, mask=o < n) + 1, mask=o < n)


@pytest.mark.parametrize("shift", [0, 1, 4])
def test_launch_through_offset_views(rng, shift):
    # an offset of 1 float breaks 16-byte alignment (no "D" key), 4 restores it: each view
    # must read and write at its own address, not its base's
    x = rng.standard_normal(100).astype(np.float32)
    y = np.zeros(100, np.float32)
    _add_one[(4,)](x[shift:], y[shift:], 100 - shift, BLOCK=32)
    np.testing.assert_array_equal(y[shift:], x[shift:] + 1)
    assert (y[:shift] == 0).all()
