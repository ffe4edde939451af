"""Layer norm forward: one program per row, mean and variance by reductions over blocks.

    python examples/layer_norm.py
"""
import numpy as np

import tritium as triton
import tritium.language as tl


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, w, b, eps=1e-5):
    M, N = x.shape
    y = np.empty_like(x)
    mean = np.empty(M, np.float32)
    rstd = np.empty(M, np.float32)
    BLOCK = min(1024, triton.next_power_of_2(N))
    _layer_norm_fwd_fused[(M,)](x, y, w, b, mean, rstd, x.strides[0] // x.itemsize, N, eps,
                                BLOCK_SIZE=BLOCK)
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    M, N = 151, 1500
    x = rng.standard_normal((M, N), np.float32)
    w = rng.random(N, np.float32)
    b = rng.random(N, np.float32)
    y = layer_norm(x, w, b)
    xd = x.astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    err = np.max(np.abs(y - ref))
    print(f"layer norm {x.shape} fp32 on the CPU: max abs error {err:.2g}")
    assert err < 1e-4
