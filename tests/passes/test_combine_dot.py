"""combine's broadcast-multiply-sum → tt.dot (upstream's CombineBroadcastMulReducePattern),
on whole kernels: upstream's test_dot_mulbroadcasted kernel and variants run on the CPU
backend (both paths, through the rewritten TTIR) against numpy on fresh random data, the
TTIR/TTGIR holding a `tt.dot` where the pattern applies and the reduction where it does
not, and the sm_90a compile (no GPU) assembling. FileCheck: lit/combine.mlir."""
import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile

pytestmark = pytest.mark.usefixtures("private_cache")


@tritium.jit
def mulbroadcast(Z, X, Y, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SWAP: tl.constexpr):
    """upstream's test_dot_mulbroadcasted kernel (SWAP: the product written y * x)."""
    pidn = tl.program_id(1)
    pidm = tl.program_id(0)
    offm = tl.arange(0, BM)[:, None]
    offn = tl.arange(0, BN)[None, :]
    offak = tl.arange(0, BK)[None, :]
    offbk = tl.arange(0, BK)[:, None]
    acc = tl.full((BM, BN), 0.0, tl.float32)
    for ridx5 in range(0, K // BK):
        x = tl.load(X + ((pidm * K * BM) + (offm * K) + (ridx5 * BK) + offak))
        y = tl.load(Y + ((pidn * BN) + (offbk * N) + (ridx5 * N * BK) + offn))
        x = tl.expand_dims(x, axis=2)
        y = tl.expand_dims(y, axis=0)
        if SWAP:
            t = tl.sum(y * x, axis=1)
        else:
            t = tl.sum(x * y, axis=1)
        acc = t + acc
    tl.store(Z + ((pidm * BM * N) + (pidn * BN) + (offm * N) + offn), acc)


@tritium.jit
def mul_sum_axis(Z, X, Y, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr,
                 AXIS: tl.constexpr):
    """The same product summed along AXIS: only axis 1 is a matrix product."""
    x = tl.load(X + tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :])
    y = tl.load(Y + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
    p = x[:, :, None] * y[None, :, :]
    s = tl.sum(p, axis=AXIS)
    if AXIS == 0:
        tl.store(Z + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :], s)
    elif AXIS == 1:
        tl.store(Z + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], s)
    else:
        tl.store(Z + tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :], s)


CONSTS = ["M", "N", "K", "BM", "BN", "BK", "SWAP"]


def _ir(fn, consts, target, stage):
    sig = {"Z": "*fp32", "X": "*fp32", "Y": "*fp32", **{c: "constexpr" for c in consts}}
    return compile(ASTSource(fn, sig, consts, {k: [["tt.divisibility", 16]] for k in "ZXY"}),
                   target=target).asm[stage]


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("M,N,K,BM,BN,BK", [(256, 192, 160, 128, 32, 32),
                                            (64, 48, 48, 32, 16, 16), (32, 32, 64, 16, 16, 8)])
def test_mulbroadcast_is_a_dot_and_computes_the_product(rng, cpu_path, swap, M, N, K, BM, BN,
                                                        BK):
    consts = dict(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, SWAP=swap)
    ttir = _ir(mulbroadcast, consts, GPUTarget("cpu", 0, 32), "ttir")
    assert "tt.dot" in ttir and "inputPrecision = ieee" in ttir
    assert '"tt.reduce"' not in ttir and "arith.mulf" not in ttir
    x = rng.standard_normal((M, K)).astype(np.float32)
    y = rng.standard_normal((K, N)).astype(np.float32)
    z = np.full((M, N), np.nan, np.float32)
    mulbroadcast[(M // BM, N // BN)](z, x, y, **consts)
    np.testing.assert_allclose(z, x.astype(np.float64) @ y, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_other_axes_stay_reductions(rng, cpu_path, axis):
    BM, BK, BN = 16, 32, 16
    consts = dict(BM=BM, BK=BK, BN=BN, AXIS=axis)
    ttir = _ir(mul_sum_axis, consts, GPUTarget("cpu", 0, 32), "ttir")
    assert ("tt.dot" in ttir) == (axis == 1), ttir
    x = rng.standard_normal((BM, BK)).astype(np.float32)
    y = rng.standard_normal((BK, BN)).astype(np.float32)
    want = np.sum(x[:, :, None].astype(np.float64) * y[None, :, :], axis=axis)
    z = np.full(want.shape, np.nan, np.float32)
    mul_sum_axis[(1,)](z, x, y, **consts)
    np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-4)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_sm90_ttgir_holds_the_dot():
    """What upstream's test_dot_mulbroadcasted checks on the GPU: 'tt.dot' in the TTGIR."""
    ttgir = _ir(mulbroadcast, dict(M=256, N=192, K=160, BM=128, BN=32, BK=32, SWAP=False),
                GPUTarget("cuda", 90, 32), "ttgir")
    assert "tt.dot" in ttgir and '"tt.reduce"' not in ttgir
