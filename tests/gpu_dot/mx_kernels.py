"""A tiled `tl.dot_scaled` matmul and a numpy model of the microscaled formats, shared by the
CPU-backend, compile and GPU tests."""
import numpy as np

import tritium as triton
import tritium.language as tl


@triton.jit
def mx_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn,
                     A_FMT: tl.constexpr, B_FMT: tl.constexpr,
                     A_PM: tl.constexpr, A_PK: tl.constexpr, B_PK: tl.constexpr,
                     B_PN: tl.constexpr, HAS_A_SCALE: tl.constexpr, HAS_B_SCALE: tl.constexpr,
                     A_KPACK: tl.constexpr, B_KPACK: tl.constexpr, FAST: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A is stored [M / A_PM, K / A_PK], B [K / B_PK, N / B_PN]: packing divides one dim.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    am = pid_m * (BM // A_PM) + tl.arange(0, BM // A_PM)
    bn = pid_n * (BN // B_PN) + tl.arange(0, BN // B_PN)
    sm = pid_m * BM + tl.arange(0, BM)
    sn = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        ak = k0 * (BK // A_PK) + tl.arange(0, BK // A_PK)
        bk = k0 * (BK // B_PK) + tl.arange(0, BK // B_PK)
        a = tl.load(a_ptr + am[:, None] * stride_am + ak[None, :] * stride_ak,
                    mask=(am[:, None] < M // A_PM) & (ak[None, :] < K // A_PK), other=0.0)
        b = tl.load(b_ptr + bk[:, None] * stride_bk + bn[None, :] * stride_bn,
                    mask=(bk[:, None] < K // B_PK) & (bn[None, :] < N // B_PN), other=0.0)
        sk = k0 * (BK // 32) + tl.arange(0, BK // 32)
        if HAS_A_SCALE:
            a_scale = tl.load(a_scale_ptr + sm[:, None] * (K // 32) + sk[None, :],
                              mask=(sm[:, None] < M) & (sk[None, :] < K // 32), other=127)
        else:
            a_scale = None
        if HAS_B_SCALE:
            b_scale = tl.load(b_scale_ptr + sn[:, None] * (K // 32) + sk[None, :],
                              mask=(sn[:, None] < N) & (sk[None, :] < K // 32), other=127)
        else:
            b_scale = None
        acc = tl.dot_scaled(a, a_scale, A_FMT, b, b_scale, B_FMT, acc, fast_math=FAST,
                            lhs_k_pack=A_KPACK, rhs_k_pack=B_KPACK)
    tl.store(c_ptr + sm[:, None] * N + sn[None, :], acc, mask=(sm[:, None] < M) & (sn[None, :] < N))


# ---------------------------------------------------------------------- numpy model
_MINIFLOAT = {"e2m1": (2, 1, 1), "e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


def decode_minifloat(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Values of sign/exponent/mantissa codes (no NaN/inf codes expected)."""
    e_bits, m_bits, bias = _MINIFLOAT[fmt]
    bits = bits.astype(np.int64)
    sign = np.where((bits >> (e_bits + m_bits)) & 1, -1.0, 1.0)
    e = (bits >> m_bits) & ((1 << e_bits) - 1)
    m = (bits & ((1 << m_bits) - 1)) / float(1 << m_bits)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias), (1 + m) * 2.0 ** (e - bias))
    return sign * mag


def unpack_fp4(packed: np.ndarray, axis: int) -> np.ndarray:
    """Low nibble first, interleaved along `axis`."""
    lo, hi = packed & 0xF, packed >> 4
    both = np.stack([lo, hi], axis=axis + 1)
    shape = list(packed.shape)
    shape[axis] *= 2
    return decode_minifloat(both.reshape(shape), "e2m1")


def random_operand(rng, fmt: str, rows: int, cols: int, pack_axis: int) -> np.ndarray:
    """Stored bits (uint8/uint16) of a [rows, cols] operand in `fmt`; for e2m1 the packed
    axis is halved."""
    if fmt == "e2m1":
        shape = [rows, cols]
        shape[pack_axis] //= 2
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if fmt in ("e4m3", "e5m2"):
        bits = rng.integers(0, 256, (rows, cols), dtype=np.uint8)
        nan = (bits & 0x7F) == 0x7F if fmt == "e4m3" else (bits & 0x7C) == 0x7C
        return np.where(nan, bits & 0xF0, bits).astype(np.uint8)   # no NaN / inf codes
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    if fmt == "fp16":
        return x.astype(np.float16).view(np.uint16)
    return (x.view(np.uint32) >> 16).astype(np.uint16)             # bf16 by truncation


def decode_operand(bits: np.ndarray, fmt: str, pack_axis: int) -> np.ndarray:
    if fmt == "e2m1":
        return unpack_fp4(bits, pack_axis)
    if fmt in ("e4m3", "e5m2"):
        return decode_minifloat(bits, fmt)
    if fmt == "fp16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def to_fp16(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).astype(np.float64)


def scale_values(scale: np.ndarray, fast_math: bool) -> np.ndarray:
    """e8m0 as upstream's Hopper decomposition reads it: 0 -> 0.0, 0xFF -> NaN (inf with
    fast_math)."""
    s = scale.astype(np.int64)
    v = np.where(s == 0, 0.0, 2.0 ** (s - 127.0))
    return np.where(s == 0xFF, np.inf if fast_math else np.nan, v)


def reference(a_bits, a_fmt, a_scale, b_bits, b_fmt, b_scale, a_kpack=True, b_kpack=True,
              fast_math=False):
    """float64 model of dot_scaled: [M, K] x [K, N] with scales [M, K/32] and [N, K/32]."""
    a = decode_operand(a_bits, a_fmt, 1 if a_kpack else 0)
    b = decode_operand(b_bits, b_fmt, 0 if b_kpack else 1)
    fp16 = "fp16" in (a_fmt, b_fmt)
    if fp16:      # upstream computes in fp16 then: bf16 operands round to it
        a, b = to_fp16(a), to_fp16(b)
    with np.errstate(invalid="ignore", over="ignore"):
        if a_scale is not None:
            a = a * np.repeat(scale_values(a_scale, fast_math), 32, axis=1)
        if b_scale is not None:
            b = b * np.repeat(scale_values(b_scale, fast_math), 32, axis=1).T
        if fp16:
            a, b = to_fp16(a), to_fp16(b)
        return a @ b, np.abs(a) @ np.abs(b)
