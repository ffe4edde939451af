"""What the attention loop costs per iteration, from the LLVM IR of its body (no GPU):
comparisons AxisInfo proves constant over aligned blocks are made once per block (the
`start_n + offs_n < N_CTX` mask: one `icmp` per 16 columns), and wgmma descriptors of one
shared buffer are one base descriptor plus a constant each. `bench/sass_loop_mix.py`
counts the SASS of the same loop for tritium and upstream."""
import os
import random
import re
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
sys.path.insert(0, os.path.dirname(__file__))

from nvl_util import compile_module  # noqa: E402
from tritium.backends.nvidia import toolchain  # noqa: E402
from tritium.backends.nvidia.lowering.context import REG, block_representatives  # noqa: E402
from tritium.gpu.layouts import parse_layout_attr  # noqa: E402

LAYOUTS = [
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], "
     "instrShape = [16, 64, 16]}>", (128, 64)),
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
     "instrShape = [16, 64, 16]}>", (1, 64)),
    ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
     "instrShape = [16, 8]}>", (64, 32)),
    ("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], "
     "order = [0, 1]}>", (128, 64)),
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
     "order = [1, 0]}>", (16, 256)),   # wraps: registers repeat the CTA tile
]


@pytest.mark.parametrize("layout,shape", LAYOUTS, ids=lambda x: str(x)[:24])
def test_block_representatives_stay_in_their_block(layout, shape):
    """For every thread and register, the representative register's element lies in the
    same aligned block (so a block-constant value may be read from it), and blocks
    covering several registers of a thread do share one."""
    ll = parse_layout_attr(layout).to_linear_layout(list(shape))
    rng = random.Random(0)
    outs = ll.out_dims
    nreg = ll.get_in_dim_size(REG)
    shared = False
    for _ in range(6):
        blocks = [1 << rng.randrange(0, s.bit_length()) for s in shape]
        reps = block_representatives(ll, blocks)
        assert len(reps) == nreg and all(0 <= j < nreg for j in reps)
        shared |= any(j != i for i, j in enumerate(reps))
        for lane in range(32):
            for warp in range(ll.get_in_dim_size("warp")):
                for r, j in enumerate(reps):
                    a = ll.apply({REG: r, "lane": lane, "warp": warp})
                    b = ll.apply({REG: j, "lane": lane, "warp": warp})
                    for d, blk in zip(outs, blocks):
                        assert a[d] // blk == b[d] // blk, (blocks, lane, warp, r, j)
    assert shared or nreg == 1


def _loop_body(D, n_ctx):
    from attn_kernels import attn_fwd
    from tritium.frontend.compiler import make_ttir
    from tritium.gpu.pipeline import make_ttgir
    q = torch.zeros((2, 256, D), dtype=torch.float16)
    _, spec, _ = attn_fwd.bind(q, q, q, q, 0.5, n_ctx, q.stride(0), q.stride(1), HEAD_DIM=D,
                               BLOCK_M=128, BLOCK_N=64, CAUSAL=True)
    mod, _ = make_ttir(attn_fwd, spec, None)
    mod = make_ttgir(mod, num_warps=4, num_stages=3)
    llir, _, ptx = compile_module(mod)
    assert toolchain.make_cubin(ptx, arch="sm_90a")
    blocks = re.split(r"\n(?=[\w.]+:)", llir)
    (body,) = [b for b in blocks if "wgmma.mma_async" in b and "icmp" in b]
    return body


def _n_ctx_compares(body):
    return len(re.findall(r"icmp slt i32 %[\w.]+, %arg5\b", body))


def test_mask_compare_once_per_constant_block():
    """With N_CTX divisible by 16 the mask `start_n + offs_n < N_CTX` is constant over 16
    columns: in the accumulator layout a thread's 16 columns are 4 blocks, so 4 compares
    instead of 16; without divisibility every column is compared."""
    aligned, ragged = _loop_body(64, 256), _loop_body(64, 255)
    assert _n_ctx_compares(ragged) - _n_ctx_compares(aligned) == 12


def test_wgmma_descriptors_are_base_plus_constant():
    """Three shared operands in the loop (Q, the K slot, the V slot): one address-to-
    descriptor conversion each, every other wgmma descriptor an `add i64` of a constant."""
    body = _loop_body(64, 256)
    assert body.count("wgmma.mma_async") == 16
    assert len(re.findall(r"lshr i32 %[\w.]+, 4\n", body)) == 3
    assert len(re.findall(r"add i64 %[\w.]+, \d+\n", body)) >= 10
