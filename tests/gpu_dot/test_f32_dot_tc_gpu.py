"""fp32 dots split into tensor-core dots (tritongpu-F32DotTC) on the H100, against a float64
reference: tf32x3 reaches fp32 accuracy where plain tf32 does not; bf16x6 likewise, bf16x3 in
between; infinities in an operand stay infinities (the NaN guard on the small terms)."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from dot_kernels import matmul_kernel  # noqa: E402
import tritium as triton  # noqa: E402
import tritium.language as tl  # noqa: E402

pytestmark = pytest.mark.gpu

# relative Frobenius error bounds: (must be below, must be above)
BOUNDS = {"tf32x3": (1e-5, 0.0), "bf16x6": (1e-5, 0.0), "bf16x3": (1e-4, 0.0),
          "tf32": (5e-3, 1e-5), "ieee": (1e-5, 0.0)}


def run(prec, M, N, K, BM, BN, BK, warps, stages, seed, a=None, b=None):
    gen = torch.Generator().manual_seed(seed)
    if a is None:
        a = torch.randn((M, K), generator=gen, dtype=torch.float32)
        b = torch.randn((K, N), generator=gen, dtype=torch.float32)
    c = torch.randn((M, N), generator=gen, dtype=torch.float32)
    a, b, c = a.cuda(), b.cuda(), c.cuda()
    d = torch.full((M, N), float("nan"), dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul_kernel[grid](a, b, c, d, M, N, K, *a.stride(), *b.stride(), *c.stride(), *d.stride(),
                        BM=BM, BN=BN, BK=BK, PRECISION=prec, HAS_C=True, OUT=tl.float32,
                        ACC=tl.float32, num_warps=warps, num_stages=stages)
    ref = a.double() @ b.double() + c.double()
    return d.double().cpu(), ref.cpu()


def rel_frobenius(d, ref) -> float:
    return float(torch.linalg.norm(d - ref) / torch.linalg.norm(ref))


@pytest.mark.parametrize("prec", ["tf32x3", "bf16x3", "bf16x6", "tf32", "ieee"])
@pytest.mark.parametrize("BM,BN,BK,warps,stages", [(128, 128, 32, 4, 3), (64, 128, 32, 8, 2),
                                                   (32, 32, 16, 2, 1)])
def test_accuracy_k512(prec, BM, BN, BK, warps, stages):
    d, ref = run(prec, 256, 256, 512, BM, BN, BK, warps, stages, seed=hash(prec) % 1000)
    err = rel_frobenius(d, ref)
    below, above = BOUNDS[prec]
    assert err < below, f"{prec}: relative Frobenius error {err:.3g} >= {below}"
    assert err > above, f"{prec}: error {err:.3g} is suspiciously small for {prec}"


@pytest.mark.parametrize("prec", ["tf32x3", "bf16x6"])
def test_split_beats_plain_tf32_ragged(prec):
    """Ragged edges (masks on every side) and the gap to tf32 measured on the same data."""
    d, ref = run(prec, 197, 131, 300, 128, 64, 32, 4, 3, seed=11)
    d_tf32, _ = run("tf32", 197, 131, 300, 128, 64, 32, 4, 3, seed=11)
    err, err_tf32 = rel_frobenius(d, ref), rel_frobenius(d_tf32, ref)
    assert err < 1e-5 and err_tf32 > 10 * err, (err, err_tf32)


@pytest.mark.parametrize("prec", ["tf32x3", "bf16x3", "bf16x6"])
def test_infinity_in_an_operand_stays_infinite(prec):
    """A row of A holding +inf against a positive B: the residual of inf is NaN, which must
    not leak; the big x big term carries +inf."""
    gen = torch.Generator().manual_seed(5)
    M = N = 128
    K = 64
    a = torch.randn((M, K), generator=gen)
    b = torch.rand((K, N), generator=gen) + 0.5
    a[7, 3] = float("inf")
    d, ref = run(prec, M, N, K, 128, 128, 32, 4, 3, seed=5, a=a, b=b)
    assert torch.isinf(d[7]).all() and (d[7] > 0).all()
    rows = torch.arange(M) != 7
    assert not torch.isnan(d).any()
    assert rel_frobenius(d[rows], ref[rows]) < 1e-4
