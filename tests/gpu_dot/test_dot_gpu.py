"""tl.dot on the H100 against torch (float64 reference on the same inputs): every dtype and
precision, ragged shapes through masks, 4 and 8 warps, transposed B, with and without an
accumulator input; wgmma and FMA paths alike."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from dot_kernels import matmul_kernel  # noqa: E402
import tritium as triton  # noqa: E402
import tritium.language as tl  # noqa: E402

pytestmark = pytest.mark.gpu

TL = {"float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32, "int32": tl.int32,
      "float64": tl.float64}
# relative Frobenius error allowed, by operand type (inputs are rounded to the operand
# type before the reference is computed, so this measures accumulation only)
TOL = {"float16": 1e-3, "bfloat16": 1e-3, "float32-tf32": 2e-3, "float32-ieee": 1e-5,
       "float8_e4m3fn": 1e-3, "float8_e5m2": 1e-3, "int8": 0, "float64": 1e-12,
       "float16-acc": 5e-3}


def _inputs(dt, M, N, K, trans_b, gen):
    t = getattr(torch, dt)
    if dt == "int8":
        a = torch.randint(-8, 8, (M, K), generator=gen, dtype=torch.int8)
        b = torch.randint(-8, 8, (N, K) if trans_b else (K, N), generator=gen, dtype=torch.int8)
    else:
        a = torch.randn((M, K), generator=gen, dtype=torch.float32).to(t)
        b = torch.randn((N, K) if trans_b else (K, N), generator=gen, dtype=torch.float32).to(t)
    a, b = a.cuda(), b.cuda()
    return a, (b.T if trans_b else b)


def run_dot(dt, acc, out, prec, BM, BN, BK, warps, trans_b, M, N, K, has_c, seed, num_stages=3):
    gen = torch.Generator().manual_seed(seed)
    a, b = _inputs(dt, M, N, K, trans_b, gen)
    c = torch.randn((M, N), generator=gen, dtype=torch.float32)
    c = (c * 4).round().to(getattr(torch, acc)).cuda()
    d = torch.full((M, N), float("nan") if out != "int32" else -7,
                   dtype=getattr(torch, out), device="cuda")
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul_kernel[grid](a, b, c, d, M, N, K, *a.stride(), *b.stride(), *c.stride(), *d.stride(),
                        BM=BM, BN=BN, BK=BK, PRECISION=prec, HAS_C=has_c, OUT=TL[out],
                        ACC=TL[acc], ZERO=0 if dt == "int8" else 0.0, num_warps=warps,
                        num_stages=num_stages)
    ref = a.double() @ b.double()
    if has_c:
        ref = ref + c.double()
    return d, ref


def check(d, ref, dt, prec, out, acc="float32"):
    key = f"{dt}-{prec}" if dt == "float32" else dt
    if acc == "float16":
        key = "float16-acc"
    got = d.double()
    assert not torch.isnan(got).any(), "unwritten or NaN outputs"
    if dt == "int8":
        assert torch.equal(got, ref)
        return
    ref = ref.to(getattr(torch, out)).double()  # the output cast rounds once more
    err = (got - ref).norm() / ref.norm()
    tol = TOL[key] + (4e-3 if out in ("float16", "bfloat16") else 0)
    assert err <= tol, f"relative error {err:.2e} > {tol:.0e}"


WGMMA_CASES = [
    ("float16", "float32", "float16", "tf32", 128, 128, 64, 4, False),
    ("float16", "float32", "float32", "tf32", 128, 256, 64, 8, False),
    ("float16", "float32", "float32", "tf32", 64, 64, 32, 4, True),
    ("float16", "float32", "float32", "tf32", 64, 8, 32, 4, False),  # B too narrow: K-major
    ("float16", "float32", "float32", "tf32", 128, 64, 16, 8, True),
    ("bfloat16", "float32", "bfloat16", "tf32", 128, 64, 32, 8, False),
    ("bfloat16", "float32", "float32", "tf32", 64, 128, 64, 4, True),
    ("float32", "float32", "float32", "tf32", 64, 128, 32, 4, False),
    ("float32", "float32", "float32", "tf32", 128, 64, 16, 8, True),
    ("int8", "int32", "int32", "tf32", 64, 64, 64, 4, True),
    ("int8", "int32", "int32", "tf32", 128, 128, 128, 8, True),
    ("float8_e4m3fn", "float32", "float16", "tf32", 64, 64, 64, 4, True),
    ("float8_e5m2", "float32", "float32", "tf32", 128, 128, 64, 8, True),
]
FMA_CASES = [
    ("float32", "float32", "float32", "ieee", 32, 32, 16, 4, False),
    ("float64", "float64", "float64", "ieee", 16, 16, 16, 4, False),
]
F16_ACC_CASES = [  # fp16 accumulation on the tensor cores (out_dtype=tl.float16)
    ("float16", "float16", "float16", "tf32", 32, 32, 32, 2, False),
    ("float16", "float16", "float16", "tf32", 128, 64, 32, 4, True),
    ("float16", "float16", "float32", "tf32", 64, 128, 64, 4, False),
]
MMA_V2_CASES = [
    ("float16", "float32", "float16", "tf32", 16, 16, 16, 4, True),
    ("float16", "float32", "float32", "tf32", 32, 64, 32, 2, True),
    ("bfloat16", "float32", "float32", "tf32", 32, 32, 16, 4, False),
    ("float32", "float32", "float32", "tf32", 32, 32, 16, 1, False),
    ("int8", "int32", "int32", "tf32", 32, 16, 64, 2, True),
    ("float8_e4m3fn", "float32", "float32", "tf32", 16, 32, 32, 2, True),
    ("float8_e5m2", "float32", "float16", "tf32", 32, 32, 32, 4, True),
]


@pytest.mark.parametrize("case", WGMMA_CASES + FMA_CASES + MMA_V2_CASES + F16_ACC_CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("shape", ["exact", "ragged"])
@pytest.mark.parametrize("has_c", [False, True])
def test_dot_matches_torch(case, shape, has_c):
    dt, acc, out, prec, BM, BN, BK, warps, trans_b = case
    M, N, K = (2 * BM, 2 * BN, 4 * BK) if shape == "exact" else (2 * BM - 3, BN + 5, 3 * BK - 7)
    seed = int.from_bytes(os.urandom(4), "little")
    d, ref = run_dot(dt, acc, out, prec, BM, BN, BK, warps, trans_b, M, N, K, has_c, seed)
    check(d, ref, dt, prec, out, acc)


@pytest.mark.parametrize("stages", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("case", [WGMMA_CASES[0], WGMMA_CASES[3], WGMMA_CASES[8], FMA_CASES[0]],
                         ids=lambda c: "-".join(map(str, c)))
def test_dot_num_stages(case, stages):
    """Pipelined loops (cp.async rings, async wgmma) give the same results at every depth,
    including loops shorter than the pipeline (K of one tile)."""
    dt, acc, out, prec, BM, BN, BK, warps, trans_b = case
    for K in (BK - 3, 5 * BK + 1):
        seed = int.from_bytes(os.urandom(4), "little")
        d, ref = run_dot(dt, acc, out, prec, BM, BN, BK, warps, trans_b, BM + 1, BN, K, True,
                         seed, num_stages=stages)
        check(d, ref, dt, prec, out)


@pytest.mark.parametrize("dt,acc", [("float16", "float32"), ("float32", "float32"),
                                    ("int8", "int32"), ("float64", "float64")])
@pytest.mark.parametrize("shape", [(2, 16, 16, 16), (4, 32, 16, 32), (2, 64, 32, 16)])
@pytest.mark.parametrize("warps", [1, 4])
def test_batched_dot(dt, acc, shape, warps):
    from dot_kernels import batched_dot_kernel
    B, M, N, K = shape
    if dt == "int8":
        K = max(K, 32)  # tl.dot's minimum K for 8-bit operands
    gen = torch.Generator().manual_seed(sum(shape) * warps)
    if dt == "int8":
        a = torch.randint(-8, 8, (B, M, K), generator=gen, dtype=torch.int8).cuda()
        b = torch.randint(-8, 8, (B, K, N), generator=gen, dtype=torch.int8).cuda()
    else:
        a = torch.randn((B, M, K), generator=gen).to(getattr(torch, dt)).cuda()
        b = torch.randn((B, K, N), generator=gen).to(getattr(torch, dt)).cuda()
    d = torch.full((B, M, N), -3, dtype=getattr(torch, acc), device="cuda")
    batched_dot_kernel[(1,)](a, b, d, B, M, N, K, ACC=TL[acc], num_warps=warps)
    ref = torch.bmm(a.double(), b.double())
    if dt == "int8":
        assert torch.equal(d.double(), ref)
    else:
        err = ((d.double() - ref).norm() / ref.norm()).item()
        assert err < (2e-3 if dt == "float32" else 1e-3 if dt == "float16" else 1e-12), err


@pytest.mark.parametrize("limit", [32, 64])
def test_fp8_max_num_imprecise_acc(limit):
    """fp8 dots with max_num_imprecise_acc: partial sums of `limit` K elements added into an
    fp32 accumulator are closer to the float64 product of the fp8 inputs than whole-K sums
    in the tensor cores' reduced-precision adder (Hopper's default; seen on the H100 with
    these inputs: 2.1e-4 whole-K, 4.3e-5 with 32, 7.5e-5 with 64)."""
    from dot_kernels import fp8_imprecise_kernel
    gen = torch.Generator().manual_seed(7 + limit)
    M = N = 64
    K = 256
    a = torch.randn((M, K), generator=gen).to(torch.float8_e4m3fn).cuda()
    b = torch.randn((N, K), generator=gen).to(torch.float8_e4m3fn).cuda().T
    ref = a.double() @ b.double()
    errs = {}
    for lim in (None, limit):
        d = torch.full((M, N), float("nan"), device="cuda")
        fp8_imprecise_kernel[(1,)](a, b, d, *a.stride(), *b.stride(), M=M, N=N, K=K,
                                   LIMIT=lim, num_warps=4)
        errs[lim] = ((d.double() - ref).norm() / ref.norm()).item()
    assert errs[None] < 2e-3, errs
    assert errs[limit] < 0.6 * errs[None] and errs[limit] < 1.5e-4, errs
