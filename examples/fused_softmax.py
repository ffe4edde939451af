"""Fused row softmax: one program per row, the row kept in registers.

    python examples/fused_softmax.py
"""
import numpy as np

import tritium as triton
import tritium.language as tl
from _device import device, have_torch, to_numpy


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    y = np.empty_like(x) if isinstance(x, np.ndarray) else x.new_empty(x.shape)
    stride = x.strides[0] // x.itemsize if isinstance(x, np.ndarray) else x.stride(0)
    softmax_kernel[(n_rows,)](y, x, stride, stride, n_cols,
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((1823, 781), np.float32)
    x = xs
    if have_torch():
        import torch
        x = torch.from_numpy(xs).to(device())
    y = to_numpy(softmax(x))
    e = np.exp(xs - xs.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    err = np.max(np.abs(y - ref))
    print(f"softmax of {xs.shape} fp32 on {device()}: max abs error {err:.3g}")
    assert err < 1e-6
