"""`triton.tools.mxfp`: host-side tensors of the OCP Microscaling (MX) v1.0 element and
scale formats, as upstream's tutorial 10 uses them.

* `MXFP4Tensor`: FP4 E2M1 elements, one per uint8 code (bit 3 sign, bits 2-1 exponent with
  bias 1, bit 0 mantissa). Magnitudes 0, 0.5 (the one subnormal), 1, 1.5, 2, 3, 4, 6; no
  Inf or NaN encodings.
* `MXScaleTensor`: E8M0 scales, one uint8 code each: 2**(code - 127), code 255 is NaN.

Conversions from float32 round to nearest, ties to even (even = mantissa bit 0), and
saturate: a magnitude above 6 (Inf and NaN too) becomes ±6. A scale is the power of two at
or below the value (floor(log2 x), clamped to codes 0..254); zero, negative, Inf and NaN
values have no E8M0 scale and become the NaN code 255.
"""
from __future__ import annotations

import torch

# E2M1 magnitudes by code (bits 2..0); the sign is bit 3.
_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
E8M0_NAN = 255
E8M0_BIAS = 127


def _size(size):
    return tuple(size) if isinstance(size, (tuple, list, torch.Size)) else (size,)


class _Codes:
    """uint8 codes of a format: built from float data (converted) or only a size (then
    `random()` fills them)."""

    def __init__(self, data=None, size=None, device=None):
        self.device = device
        if data is not None:
            if not isinstance(data, torch.Tensor):
                raise TypeError(f"{type(self).__name__}: data must be a torch tensor of "
                                "float values")
            self.device = data.device
            self.data = self._from_float(data)
            self.size = tuple(data.shape)
        elif size is not None:
            self.size = _size(size)
        else:
            raise ValueError(f"{type(self).__name__} needs data or size")


class MXFP4Tensor(_Codes):
    """E2M1 data: `MXFP4Tensor(data=float32 tensor)` converts, `MXFP4Tensor(size=..,
    device=..).random()` draws every code uniformly; `.data` holds the uint8 codes."""

    def random(self):
        """Every one of the 16 codes with equal probability (both zeros included)."""
        self.data = torch.randint(0, 16, self.size, dtype=torch.uint8, device=self.device)
        return self

    def to(self, dtype):
        """The values as float32 (the only conversion upstream offers)."""
        if dtype != torch.float32:
            raise ValueError(f"MXFP4Tensor.to: only torch.float32 is supported, not {dtype}")
        table = torch.tensor(_E2M1, dtype=torch.float32, device=self.data.device)
        magnitude = table[(self.data & 0x7).long()]
        negative = (self.data & 0x8) != 0
        return torch.where(negative, -magnitude, magnitude)

    def _from_float(self, values):
        values = values.to(torch.float32)
        table = torch.tensor(_E2M1, dtype=torch.float32, device=values.device)
        negative = torch.signbit(values)
        a = torch.abs(values)
        a = torch.where(torch.isnan(a), torch.full_like(a, 6.0), torch.clamp(a, max=6.0))
        # The representable magnitudes around a: lo <= a <= hi (codes lo_code, lo_code + 1).
        lo_code = torch.clamp(torch.searchsorted(table, a, right=True) - 1, 0, 7)
        hi_code = torch.clamp(lo_code + 1, max=7)
        d_lo = a - table[lo_code]
        d_hi = table[hi_code] - a
        take_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi_code % 2 == 0) & (hi_code != lo_code))
        code = torch.where(take_hi, hi_code, lo_code).to(torch.uint8)
        return code | (negative.to(torch.uint8) << 3)

    def to_packed_tensor(self, dim):
        """Two codes per byte along `dim`: element 2i in the low nibble, 2i+1 in the high
        one (an odd length is padded with a zero code)."""
        data = self.data
        if not 0 <= dim < data.ndim:
            raise ValueError(f"to_packed_tensor: dim {dim} is not a dimension of a "
                             f"{data.ndim}-d tensor")
        if data.shape[dim] % 2:
            pad = list(data.shape)
            pad[dim] = 1
            data = torch.cat([data, torch.zeros(pad, dtype=data.dtype, device=data.device)], dim)
        pairs = data.unflatten(dim, (data.shape[dim] // 2, 2))
        return (pairs.select(dim + 1, 1) << 4) | pairs.select(dim + 1, 0)

    def unpack_packed_tensor(self, packed_tensor, dim, original_shape):
        """The codes of a `to_packed_tensor` result, padding removed."""
        low, high = packed_tensor & 0xF, (packed_tensor >> 4) & 0xF
        data = torch.stack((low, high), dim=dim + 1).flatten(dim, dim + 1)
        return data.narrow(dim, 0, original_shape[dim]).to(torch.uint8)


class MXScaleTensor(_Codes):
    """E8M0 scales: `MXScaleTensor(data=float32 tensor)` converts, `MXScaleTensor(size=..,
    device=..).random(low, high)` draws codes; `.data` holds the uint8 codes."""

    def random(self, low=None, high=None):
        """Codes uniformly from those of the powers of two in [low, high] (default: every
        code but NaN)."""
        import math
        lo = 0 if low is None else max(0, math.floor(math.log2(low)) + E8M0_BIAS)
        hi = 254 if high is None else min(254, max(0, math.floor(math.log2(high)) + E8M0_BIAS))
        if lo > hi:
            raise ValueError(f"MXScaleTensor.random: low={low} is above high={high}")
        self.data = torch.randint(lo, hi + 1, self.size, dtype=torch.uint8, device=self.device)
        return self

    def to(self, dtype):
        if dtype != torch.float32:
            raise ValueError(f"MXScaleTensor.to: only torch.float32 is supported, not {dtype}")
        exponent = self.data.to(torch.int32) - E8M0_BIAS
        # ldexp(1, e) is exact down to 2**-127 (a float32 subnormal).
        value = torch.ldexp(torch.ones_like(exponent, dtype=torch.float32), exponent)
        return torch.where(self.data == E8M0_NAN, torch.full_like(value, float("nan")), value)

    def _from_float(self, values):
        values = values.to(torch.float32)
        invalid = ~torch.isfinite(values) | (values <= 0)
        # frexp: x = m * 2**e with m in [0.5, 1), so floor(log2(x)) = e - 1, exactly.
        _, e = torch.frexp(torch.where(invalid, torch.ones_like(values), values))
        code = torch.clamp(e.to(torch.int32) - 1 + E8M0_BIAS, 0, 254)
        return torch.where(invalid, torch.full_like(code, E8M0_NAN), code).to(torch.uint8)
