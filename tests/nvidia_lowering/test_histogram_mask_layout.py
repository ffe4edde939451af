"""A masked tl.histogram whose source load coalesce widened (upstream's
test_histogram_mask[256-512] on the H100): the mask kept the old layout, and the lowering
paired mask register r with source register r of another layout, so a thread tested the
mask of other elements (wrong bins). The layout passes now give the mask the source's
layout, which the lowering relies on."""
import re

import pytest

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.compiler import ASTSource


@tritium.jit
def _histogram_mask(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offset1 = tl.arange(0, 2 * M)
    offset2 = tl.arange(0, N)
    mask = offset1 < M
    x = tl.load(x_ptr + offset1)
    z = tl.histogram(x, N, mask)
    tl.store(z_ptr + offset2, z)


@pytest.mark.parametrize("M, N", [(256, 512), (1024, 128), (32, 512), (8, 2)])
def test_histogram_mask_has_the_source_layout(M, N):
    # pointers divisible by 16, as the JIT specialises them: the load becomes 4-wide
    div = [["tt.divisibility", 16]]
    k = tritium.compile(ASTSource(_histogram_mask, {"x_ptr": "*i32", "z_ptr": "*i32"},
                                  {"M": M, "N": N}, {"x_ptr": div, "z_ptr": div}),
                        target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    hist = [ln for ln in k.asm["ttgir"].splitlines() if "tt.histogram" in ln]
    assert len(hist) == 1
    src, mask = re.search(r":\s*tensor<[^,]+,\s*(#\w+)>,\s*tensor<[^,]+,\s*(#\w+)>", hist[0]).groups()
    assert src == mask, hist[0]
