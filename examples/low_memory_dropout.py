"""Low-memory dropout: the mask comes from a seed with tl.rand, never stored.

    python examples/low_memory_dropout.py
"""
import numpy as np

import tritium as triton
import tritium.language as tl


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = np.empty_like(x)
    n = x.size
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    _seeded_dropout[grid](x, output, n, p, seed, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000, np.float32)
    a = seeded_dropout(x, p=0.5, seed=123)
    b = seeded_dropout(x, p=0.5, seed=123)
    c = seeded_dropout(x, p=0.5, seed=512)
    kept = np.count_nonzero(a) / a.size
    assert (a == b).all() and not (a == c).all()
    assert np.allclose(a[a != 0], 2 * x[a != 0])
    print(f"dropout p=0.5 on the CPU: kept {kept:.3f} of the elements; same seed, same mask")
