"""`tl.dot_scaled` on the H100 against torch: the operands are dequantised on the host in
float32 (fp8 through torch's float8 dtypes, fp4 through its value table) and multiplied by
torch in float32 (TF32 off)."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from mx_kernels import mx_matmul_kernel, random_operand  # noqa: E402

import tritium as triton  # noqa: E402

pytestmark = pytest.mark.gpu

FP4_VALUES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                           -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def dequant(bits: np.ndarray, fmt: str, pack_axis: int) -> torch.Tensor:
    t = torch.from_numpy(bits)
    if fmt == "e2m1":
        lo, hi = (t & 0xF).long(), (t >> 4).long()
        both = torch.stack([FP4_VALUES[lo], FP4_VALUES[hi]], dim=pack_axis + 1)
        shape = list(t.shape)
        shape[pack_axis] *= 2
        return both.reshape(shape)
    if fmt == "e4m3":
        return t.view(torch.float8_e4m3fn).float()
    if fmt == "e5m2":
        return t.view(torch.float8_e5m2).float()
    return t.view(torch.float16 if fmt == "fp16" else torch.bfloat16).float()


def scales(s: np.ndarray) -> torch.Tensor:
    return torch.exp2(torch.from_numpy(s).float() - 127.0).repeat_interleave(32, dim=1)


def _pack(fmt, kpack):
    return 2 if fmt == "e2m1" and kpack else 1, 2 if fmt == "e2m1" and not kpack else 1


@pytest.mark.parametrize("a_fmt,b_fmt", [
    ("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e2m1", "e4m3"), ("e4m3", "e2m1"),
    ("bf16", "e2m1"), ("e5m2", "bf16"), ("fp16", "e4m3")])
@pytest.mark.parametrize("shape", [(256, 256, 256), (200, 136, 320)])
@pytest.mark.parametrize("block,warps,stages", [((128, 128, 64), 4, 3), ((64, 64, 128), 8, 1),
                                                ((128, 64, 64), 8, 4)])
def test_dot_scaled_vs_torch(a_fmt, b_fmt, shape, block, warps, stages):
    rng = np.random.default_rng(hash((a_fmt, b_fmt, shape, block)) % 2 ** 31)
    M, N, K = shape
    BM, BN, BK = block
    a_pk, a_pm = _pack(a_fmt, True)
    b_pk, b_pn = _pack(b_fmt, True)
    a = random_operand(rng, a_fmt, M, K, 1)
    b = random_operand(rng, b_fmt, K, N, 0)
    a_s = rng.integers(120, 135, (M, K // 32), dtype=np.uint8)
    b_s = rng.integers(120, 135, (N, K // 32), dtype=np.uint8)
    da, db = dequant(a, a_fmt, 1) * scales(a_s), dequant(b, b_fmt, 0) * scales(b_s).T
    if "fp16" in (a_fmt, b_fmt):     # the compute type is then fp16
        da, db = da.half().float(), db.half().float()
    torch.backends.cuda.matmul.allow_tf32 = False
    ref = (da.cuda() @ db.cuda()).cpu()
    mag = (da.abs().cuda() @ db.abs().cuda()).cpu()
    dev = [torch.from_numpy(x).cuda() for x in (a, a_s, b, b_s)]
    c = torch.zeros((M, N), dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    mx_matmul_kernel[grid](dev[0], dev[1], dev[2], dev[3], c, M, N, K, a.shape[1], 1, b.shape[1],
                           1, A_FMT=a_fmt, B_FMT=b_fmt, A_PM=a_pm, A_PK=a_pk, B_PK=b_pk,
                           B_PN=b_pn, HAS_A_SCALE=True, HAS_B_SCALE=True, A_KPACK=True,
                           B_KPACK=True, FAST=False, BM=BM, BN=BN, BK=BK, num_warps=warps,
                           num_stages=stages)
    err = (c.cpu() - ref).abs()
    assert bool((err <= 4e-5 * mag + 1e-30).all()), float(err.max())


@pytest.mark.parametrize("a_kpack,b_kpack", [(False, True), (True, False)])
def test_fp4_packed_along_m_n_vs_torch(a_kpack, b_kpack):
    rng = np.random.default_rng(7 + a_kpack)
    M, N, K = 128, 128, 128
    a_pk, a_pm = _pack("e2m1", a_kpack)
    b_pk, b_pn = _pack("e2m1", b_kpack)
    a = random_operand(rng, "e2m1", M, K, 1 if a_kpack else 0)
    b = random_operand(rng, "e2m1", K, N, 0 if b_kpack else 1)
    a_s = rng.integers(120, 135, (M, K // 32), dtype=np.uint8)
    b_s = rng.integers(120, 135, (N, K // 32), dtype=np.uint8)
    da = dequant(a, "e2m1", 1 if a_kpack else 0) * scales(a_s)
    db = dequant(b, "e2m1", 0 if b_kpack else 1) * scales(b_s).T
    ref, mag = da @ db, da.abs() @ db.abs()
    dev = [torch.from_numpy(x).cuda() for x in (a, a_s, b, b_s)]
    c = torch.zeros((M, N), dtype=torch.float32, device="cuda")
    mx_matmul_kernel[(1, 2)](dev[0], dev[1], dev[2], dev[3], c, M, N, K, a.shape[1], 1,
                             b.shape[1], 1, A_FMT="e2m1", B_FMT="e2m1", A_PM=a_pm, A_PK=a_pk,
                             B_PK=b_pk, B_PN=b_pn, HAS_A_SCALE=True, HAS_B_SCALE=True,
                             A_KPACK=a_kpack, B_KPACK=b_kpack, FAST=False, BM=128, BN=64, BK=64)
    err = (c.cpu() - ref).abs()
    assert bool((err <= 4e-5 * mag + 1e-30).all()), float(err.max())
