"""Explaining the fused-attention kernel (two chained wgmma dots, pipelined loads) costs
well under 3 s beyond its compile, and its page links the dots to wgmma instructions."""
import os
import sys
import time

import numpy as np
import pytest

from explain_util import ROOT
from tritium.backends.nvidia import toolchain

sys.path.insert(0, os.path.join(ROOT, "tests", "gpu_dot"))


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas")
def test_attention_page_is_fast_and_linked():
    from attn_kernels import attn_fwd
    from tritium.tools.explain import capture
    from tritium.tools.explain.render import kernel_page
    q = np.zeros((2, 256, 64), np.float16)
    s0, s1 = q.strides[0] // 2, q.strides[1] // 2
    _, spec, opts = attn_fwd.bind(q, q, q, q, 0.125, 256, s0, s1, HEAD_DIM=64, BLOCK_M=128,
                                  BLOCK_N=64, CAUSAL=False, num_warps=4, num_stages=3)
    t0 = time.perf_counter()
    rec = capture(attn_fwd, spec, opts, "sm_90a")
    page = kernel_page(rec)
    total_ms = (time.perf_counter() - t0) * 1e3
    assert rec.error is None, rec.error
    beyond = total_ms - rec.compile_ms
    print(f"attention: compile {rec.compile_ms:.0f} ms, page {beyond:.0f} ms, "
          f"{len(page) // 1024} KB")
    assert beyond < 3000
    dot_lines = {rec.first_line + i for i, l in enumerate(rec.source) if "tl.dot(" in l}
    assert len(dot_lines) == 2
    # the dot ops themselves (not their waits, which sit where the results are first used)
    for stage, needle in (("ttgir", 'ttng.warp_group_dot"('), ("ptx", "wgmma.mma_async")):
        m = rec.stages[stage]
        linked = {s for s, l in zip(m.src, m.lines) if needle in l}
        assert linked == dot_lines, (stage, linked)
    assert rec.resources["registers"] > 0 and rec.resources["shared"] > 0
