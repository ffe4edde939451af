"""Vector addition: the "hello world" of Triton. Runs on the GPU if there is one, else the CPU.

    python examples/vector_add.py
"""
import numpy as np

import tritium as triton
import tritium.language as tl
from _device import device, have_torch, to_numpy


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = np.empty_like(x) if isinstance(x, np.ndarray) else x.new_empty(x.shape)
    n = x.size if isinstance(x, np.ndarray) else x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    size = 98432
    xs, ys = rng.standard_normal(size, np.float32), rng.standard_normal(size, np.float32)
    if have_torch():
        import torch
        x, y = torch.from_numpy(xs).to(device()), torch.from_numpy(ys).to(device())
    else:
        x, y = xs, ys
    out = add(x, y)
    err = np.max(np.abs(to_numpy(out) - (xs + ys)))
    print(f"vector add of {size} fp32 on {device()}: max abs error {err:.3g}")
    assert err == 0
