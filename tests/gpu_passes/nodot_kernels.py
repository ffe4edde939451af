"""Dot-less loops with an explicit `num_stages` (the pipeliner's pipeline_nodot.py case),
shared by the compile-only tests and the GPU test."""
import tritium
import tritium.language as tl


@tritium.jit
def row_sum_kernel(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   STAGES: tl.constexpr):
    """Y[m] = sum_n X[m, n], BLOCK_N columns an iteration."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(N, BLOCK_N), num_stages=STAGES):
        c = k * BLOCK_N + cols
        x = tl.load(X + rows[:, None] * stride + c[None, :],
                    mask=(rows[:, None] < M) & (c[None, :] < N))
        acc += x.to(tl.float32)
    tl.store(Y + rows, tl.sum(acc, axis=1), mask=rows < M)


@tritium.jit
def hooks_kernel(src, N, N_STAGES: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    """upstream's test_autotuner.py::test_hooks kernel: load and store back, block by block."""
    offsets = tl.arange(0, BLOCK_SIZE)
    max_iters = tl.cdiv(N, BLOCK_SIZE)
    for _ in tl.range(max_iters, num_stages=N_STAGES):
        x = tl.load(src + offsets, mask=offsets < N)
        tl.store(src + offsets, x, mask=offsets < N)
        offsets += BLOCK_SIZE


def row_sum_signature(dtype: str, aligned: bool):
    sig = {"X": f"*{dtype}", "Y": "*fp32", "M": "i32", "N": "i32", "stride": "i32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "STAGES": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in ((0, 1, 2, 3, 4) if aligned else (0, 1))}
    return sig, attrs
