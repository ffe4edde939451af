"""`triton._C.libtriton.nvidia.cublas.CublasLt` (what upstream's tutorial 09 imports for its
cuBLAS baseline) through compat: C = A @ B.T with B given [N, K], against numpy."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def test_cublaslt_matmul_writes_a_times_b_transposed():
    import tritium.compat
    tritium.compat.install()
    from triton._C.libtriton import nvidia
    g = torch.Generator().manual_seed(int(np.random.SeedSequence().entropy % 2**31))
    for M, N, K in ((8, 4, 16), (33, 17, 5)):
        a, b = torch.randn(M, K, generator=g), torch.randn(N, K, generator=g)
        c = torch.full((M, N), float("nan"))
        blas = nvidia.cublas.CublasLt(torch.empty(1024, dtype=torch.uint8))
        assert blas.matmul(a, b, c) is c
        np.testing.assert_allclose(c.numpy(), a.numpy() @ b.numpy().T, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="B \\[N, K\\]"):
        blas.matmul(a, torch.randn(N, K + 1), c)
