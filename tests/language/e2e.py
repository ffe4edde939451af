"""Helpers for end-to-end kernel tests on the CPU backend (numpy arrays in and out)."""
import numpy as np

import tritium as triton

NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
      "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
      "float16": np.float16, "float32": np.float32, "float64": np.float64, "bool": np.bool_}


def grid1(n, block):
    return (triton.cdiv(n, block),)


def random_array(rng, dtype, n, low=None, high=None):
    """Values of `dtype` that every test op handles without UB (no overflow in +,-,*)."""
    dt = np.dtype(NP[dtype] if isinstance(dtype, str) else dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = max(info.min, -100) if low is None else low
        hi = min(info.max, 100) if high is None else high
        return rng.integers(lo, hi + 1, n).astype(dt)
    lo = -4.0 if low is None else low
    hi = 4.0 if high is None else high
    return rng.uniform(lo, hi, n).astype(dt)


def c_floordiv(a, b):
    """Integer division truncating toward zero (C, and Triton's `//`)."""
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return np.where((a < 0) != (b < 0), -q, q)


def c_mod(a, b):
    """Remainder with the sign of the dividend (C, and Triton's `%`)."""
    return a.astype(np.int64) - c_floordiv(a, b) * b.astype(np.int64)
