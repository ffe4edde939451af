"""`tl.dot_scaled` on the CPU backend against a float64 numpy model of the MX formats, its
errors, and the same kernel compiled for sm_90a (the upcast dot reaches wgmma)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from mx_kernels import mx_matmul_kernel, random_operand, reference  # noqa: E402

import tritium as triton  # noqa: E402
import tritium.language as tl  # noqa: E402


def _pack(fmt, kpack):
    return 2 if fmt == "e2m1" and kpack else 1, 2 if fmt == "e2m1" and not kpack else 1


def run_mx(rng, a_fmt, b_fmt, M, N, K, BM, BN, BK, a_scaled=True, b_scaled=True,
           a_kpack=True, b_kpack=True, fast_math=False, scales=None):
    a_pk, a_pm = _pack(a_fmt, a_kpack)
    b_pk, b_pn = _pack(b_fmt, b_kpack)
    a = random_operand(rng, a_fmt, M, K, 1 if a_kpack else 0)
    b = random_operand(rng, b_fmt, K, N, 0 if b_kpack else 1)
    a_s = rng.integers(118, 137, (M, K // 32), dtype=np.uint8) if a_scaled else None
    b_s = rng.integers(118, 137, (N, K // 32), dtype=np.uint8) if b_scaled else None
    if scales is not None:
        scales(a_s, b_s)
    c = np.full((M, N), 7.0, np.float32)
    dummy = np.zeros(1, np.uint8)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    mx_matmul_kernel[grid](
        a, dummy if a_s is None else a_s, b, dummy if b_s is None else b_s, c, M, N, K,
        a.shape[1], 1, b.shape[1], 1, A_FMT=a_fmt, B_FMT=b_fmt, A_PM=a_pm, A_PK=a_pk,
        B_PK=b_pk, B_PN=b_pn, HAS_A_SCALE=a_scaled, HAS_B_SCALE=b_scaled, A_KPACK=a_kpack,
        B_KPACK=b_kpack, FAST=fast_math, BM=BM, BN=BN, BK=BK)
    ref, mag = reference(a, a_fmt, a_s, b, b_fmt, b_s, a_kpack, b_kpack, fast_math)
    return c, ref, mag


def check(c, ref, mag):
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(np.isnan(c), np.isnan(ref))
    err = np.abs(c[finite] - ref[finite])
    assert np.all(err <= 1e-5 * mag[finite] + 1e-30), err.max()


@pytest.mark.parametrize("a_fmt,b_fmt", [
    ("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e2m1", "e4m3"), ("e5m2", "e2m1"),
    ("bf16", "e2m1"), ("e4m3", "bf16"), ("fp16", "e4m3"), ("bf16", "fp16")])
def test_formats(rng, a_fmt, b_fmt):
    """mxfp4 / mxfp8 / bf16 / fp16 on both sides, scaled, ragged M and N, two K blocks."""
    c, ref, mag = run_mx(rng, a_fmt, b_fmt, M=45, N=37, K=128, BM=32, BN=16, BK=64)
    check(c, ref, mag)


@pytest.mark.parametrize("a_scaled,b_scaled", [(False, False), (True, False), (False, True)])
def test_missing_scales_mean_one(rng, a_scaled, b_scaled):
    c, ref, mag = run_mx(rng, "e4m3", "e2m1", M=32, N=32, K=64, BM=32, BN=32, BK=64,
                         a_scaled=a_scaled, b_scaled=b_scaled)
    check(c, ref, mag)


@pytest.mark.parametrize("a_kpack,b_kpack", [(False, True), (True, False), (False, False)])
def test_fp4_packed_along_m_n(rng, a_kpack, b_kpack):
    c, ref, mag = run_mx(rng, "e2m1", "e2m1", M=64, N=32, K=96, BM=32, BN=32, BK=32,
                         a_kpack=a_kpack, b_kpack=b_kpack)
    check(c, ref, mag)


@pytest.mark.parametrize("fast_math", [False, True])
def test_nan_and_zero_scales(rng, fast_math):
    """0xFF makes its group NaN (inf with fast_math, so zeros give NaN, others inf); 0
    zeroes its group."""
    def poke(a_s, b_s):
        a_s[3, 1] = 0xFF
        a_s[5, 0] = 0
        b_s[2, 0] = 0xFF
    c, ref, mag = run_mx(rng, "e4m3", "e4m3", M=16, N=16, K=64, BM=16, BN=16, BK=64,
                         fast_math=fast_math, scales=poke)
    assert np.isnan(ref).any()
    if not fast_math:
        assert np.isnan(c[3]).all() and np.isnan(c[:, 2]).all()
    check(c, ref, mag)


def test_batched_3d(rng):
    """A 3-D dot_scaled (batch 2), both operands scaled."""
    @triton.jit
    def k3(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
           K: tl.constexpr):
        bb = tl.arange(0, B)[:, None, None]
        r = tl.arange(0, M)[None, :, None]
        kh = tl.arange(0, K // 2)[None, None, :]
        a = tl.load(a_ptr + bb * M * (K // 2) + r * (K // 2) + kh)
        s = tl.load(as_ptr + bb * M * (K // 32) + r * (K // 32)
                    + tl.arange(0, K // 32)[None, None, :])
        kk = tl.arange(0, K)[None, :, None]
        n = tl.arange(0, N)[None, None, :]
        b = tl.load(b_ptr + bb * K * N + kk * N + n)
        bs = tl.load(bs_ptr + bb * N * (K // 32) + tl.arange(0, N)[None, :, None] * (K // 32)
                     + tl.arange(0, K // 32)[None, None, :])
        out = tl.dot_scaled(a, s, "e2m1", b, bs, "e4m3")
        tl.store(c_ptr + bb * M * N + tl.arange(0, M)[None, :, None] * N + n, out)

    B, M, N, K = 2, 16, 32, 64
    a = np.stack([random_operand(rng, "e2m1", M, K, 1) for _ in range(B)])
    s = rng.integers(120, 135, (B, M, K // 32), dtype=np.uint8)
    b = np.stack([random_operand(rng, "e4m3", K, N, 0) for _ in range(B)])
    bs = rng.integers(120, 135, (B, N, K // 32), dtype=np.uint8)
    c = np.zeros((B, M, N), np.float32)
    k3[(1,)](a, s, b, bs, c, B=B, M=M, N=N, K=K)
    for i in range(B):
        ref, mag = reference(a[i], "e2m1", s[i], b[i], "e4m3", bs[i])
        check(c[i], ref, mag)


# ---------------------------------------------------------------------- errors
@triton.jit
def err_kernel(a_ptr, s_ptr, b_ptr, c_ptr, A_FMT: tl.constexpr, B_FMT: tl.constexpr,
               KA: tl.constexpr, KB: tl.constexpr, SK: tl.constexpr, KPACK: tl.constexpr,
               SR: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(b_ptr + tl.arange(0, KB)[:, None] * 16 + tl.arange(0, 16)[None, :])
    s = tl.load(s_ptr + tl.arange(0, SR)[:, None] * SK + tl.arange(0, SK)[None, :])
    out = tl.dot_scaled(a, s, A_FMT, b, None, B_FMT, lhs_k_pack=KPACK)
    tl.store(c_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], out)


@pytest.mark.parametrize("a_dt,a_fmt,b_fmt,ka,kb,sk,kpack,exc,msg", [
    (np.uint8, "e3m1", "e4m3", 32, 32, 1, True, ValueError, "Invalid float format: e3m1."),
    (np.uint8, "e2m3", "e4m3", 32, 32, 1, True, AssertionError, "NYI: lhs_format e2m3"),
    (np.int8, "e2m1", "e4m3", 32, 64, 2, True, AssertionError,
     "e2m1 format must be packed as uint8"),
    (np.uint16, "e4m3", "e4m3", 32, 32, 1, True, AssertionError,
     "Unexpected dtype for e4m3"),
    (np.uint8, "e4m3", "e4m3", 32, 32, 1, False, AssertionError,
     "only mxfp4 inputs can be packed along a dimension different than K"),
    (np.uint8, "e2m1", "e4m3", 32, 32, 1, True, AssertionError,
     "Reduction dimension should pack the same number of elements"),
    (np.uint8, "e4m3", "e4m3", 32, 32, 1, True, AssertionError, "lhs_scale must have shape"),
])
def test_errors(a_dt, a_fmt, b_fmt, ka, kb, sk, kpack, exc, msg):
    a = np.zeros((16, ka), a_dt)
    b = np.zeros((kb, 16), np.uint8)
    sr = 32 if "shape" in msg else 16
    s = np.zeros((sr, sk), np.uint8)
    c = np.zeros((16, 16), np.float32)
    with pytest.raises(Exception) as info:
        err_kernel[(1,)](a, s, b, c, A_FMT=a_fmt, B_FMT=b_fmt, KA=ka, KB=kb, SK=sk, KPACK=kpack,
                       SR=sr)
    text = str(info.value) + repr(info.value.__cause__)
    assert msg in text
    chain, e = [], info.value
    while e is not None:
        chain.append(type(e))
        e = e.__cause__
    assert any(issubclass(t, exc) for t in chain) or exc.__name__ in text


def test_out_dtype_must_be_float32():
    @triton.jit
    def k(a_ptr, c_ptr):
        a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
        b = tl.load(a_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
        out = tl.dot_scaled(a, None, "e4m3", b, None, "e4m3", out_dtype=tl.float16)
        tl.store(c_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], out)
    with pytest.raises(Exception, match="Only float32 is supported for out_dtype"):
        k[(1,)](np.zeros(512, np.uint8), np.zeros((16, 16), np.float16))


# ---------------------------------------------------------------------- sm_90a
@pytest.mark.parametrize("a_fmt,b_fmt,a_kpack,b_kpack", [
    ("e2m1", "e4m3", True, True), ("e5m2", "e2m1", True, False), ("bf16", "fp16", True, True)])
def test_compiles_to_wgmma_for_sm90a(a_fmt, b_fmt, a_kpack, b_kpack):
    """The upcast operands feed one warp_group_dot per K step: wgmma in the PTX, a cubin
    from ptxas."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
    from nvl_util import compile_module, ttgir_for
    from tritium.backends.nvidia import toolchain
    M, N, K = 128, 128, 128
    a_pk, a_pm = _pack(a_fmt, a_kpack)
    b_pk, b_pn = _pack(b_fmt, b_kpack)
    bits = {"bf16": np.uint16, "fp16": np.uint16}
    a = np.zeros((M // a_pm, K // a_pk), bits.get(a_fmt, np.uint8))
    b = np.zeros((K // b_pk, N // b_pn), bits.get(b_fmt, np.uint8))
    s = np.zeros((M, K // 32), np.uint8)
    c = np.zeros((M, N), np.float32)
    mod = ttgir_for(mx_matmul_kernel, (a, s, b, s, c, M, N, K, a.shape[1], 1, b.shape[1], 1),
                    dict(A_FMT=a_fmt, B_FMT=b_fmt, A_PM=a_pm, A_PK=a_pk, B_PK=b_pk, B_PN=b_pn,
                         HAS_A_SCALE=True, HAS_B_SCALE=True, A_KPACK=a_kpack, B_KPACK=b_kpack,
                         FAST=False, BM=128, BN=64, BK=64, num_warps=4), pipeline="real")
    text = str(mod)
    assert text.count("ttng.warp_group_dot") == 1 and "versionMajor = 3" in text
    compute = "f16" if "fp16" in (a_fmt, b_fmt) else "bf16"
    assert f"x{compute}, #ttg.nvmma_shared" in text or f"x{compute}, #shared" in text
    llir, meta, ptx = compile_module(mod)
    assert "wgmma.mma_async" in ptx and f".{compute}.{compute}" in ptx
    assert toolchain.make_cubin(ptx, arch="sm_90a")


def test_typed_fp8_and_bf16_operands(rng):
    """fp8 given as torch.float8_e5m2 and bf16 as torch.bfloat16 (no bit reinterpretation)."""
    torch = pytest.importorskip("torch")
    M, N, K = 32, 32, 64
    a_bits = random_operand(rng, "e5m2", M, K, 1)
    b_bits = random_operand(rng, "bf16", K, N, 0)
    a_s = rng.integers(118, 137, (M, K // 32), dtype=np.uint8)
    b_s = rng.integers(118, 137, (N, K // 32), dtype=np.uint8)
    a = torch.from_numpy(a_bits).view(torch.float8_e5m2)
    b = torch.from_numpy(b_bits.view(np.int16)).view(torch.bfloat16)
    c = torch.full((M, N), 7.0)
    mx_matmul_kernel[(1, 1)](a, torch.from_numpy(a_s), b, torch.from_numpy(b_s), c, M, N, K,
                             K, 1, N, 1, A_FMT="e5m2", B_FMT="bf16", A_PM=1, A_PK=1, B_PK=1,
                             B_PN=1, HAS_A_SCALE=True, HAS_B_SCALE=True, A_KPACK=True,
                             B_KPACK=True, FAST=False, BM=32, BN=32, BK=64)
    ref, mag = reference(a_bits, "e5m2", a_s, b_bits, "bf16", b_s)
    check(c.numpy(), ref, mag)
