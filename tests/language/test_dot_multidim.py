"""`tl.dot` of 4 to 6 dims (the batch dims folded into one, as upstream's test_dot_multidim
expects) and `tl.trans` without dims on a batch (its last two dims swapped), on the CPU
backend vs NumPy; the same kernels compiled for sm_90a (wgmma), assembled by ptxas."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.compiler import ASTSource


@triton.jit
def multidim_dot(X, Y, Z, RANK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr,
                 ACC: tl.constexpr):
    x = tl.load(X + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(Y + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    if TRANS_A:
        x = tl.trans(x)
    if TRANS_B:
        y = tl.trans(y)
    if ACC:
        z = tl.dot(x, y, acc=x.to(tl.float32))
    else:
        z = tl.dot(x, y)
    tl.store(Z + tl.arange(0, 256 << RANK), z.reshape([256 << RANK]))


@pytest.mark.parametrize("rank", [2, 3, 4, 6])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True),
                                             (True, True)])
def test_multidim_dot_cpu(rng, rank, trans_a, trans_b):
    shape = (2,) * (rank - 2) + (32, 32)
    a = rng.integers(-4, 5, shape).astype(np.float16)
    b = rng.integers(-4, 5, shape).astype(np.float16)
    c = np.zeros(shape, np.float32)
    acc = rank == 4
    multidim_dot[(1,)](a, b, c, rank, trans_a, trans_b, acc)
    aa = np.swapaxes(a, -1, -2) if trans_a else a
    bb = np.swapaxes(b, -1, -2) if trans_b else b
    want = aa.astype(np.float32) @ bb.astype(np.float32)
    if acc:
        want += aa.astype(np.float32)
    np.testing.assert_array_equal(c, want)


def test_dot_batch_dims_must_match():
    @triton.jit
    def bad(X, Z):
        x = tl.load(X + tl.arange(0, 4096)).reshape([2, 2, 32, 32])
        y = tl.load(X + tl.arange(0, 4096)).reshape([4, 1, 32, 32])
        tl.store(Z + tl.arange(0, 4096), tl.dot(x, y).reshape([4096]))

    x = np.ones(4096, np.float16)
    with pytest.raises(triton.CompilationError, match="Batch dims"):
        bad[(1,)](x, np.zeros(4096, np.float32))


@pytest.mark.parametrize("rank", [4, 5])
def test_multidim_dot_compiles_for_sm90(rank):
    src = ASTSource(multidim_dot, {"X": "*fp16", "Y": "*fp16", "Z": "*fp32", "RANK": "constexpr",
                                   "TRANS_A": "constexpr", "TRANS_B": "constexpr",
                                   "ACC": "constexpr"},
                    {"RANK": rank, "TRANS_A": True, "TRANS_B": False, "ACC": False})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    assert "tt.dot" in k.asm["ttir"] and "x32x32x" in k.asm["ttir"]
    assert "mma" in k.asm["ptx"]
