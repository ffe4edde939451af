"""libdevice's special-value branches stay branches (llvm.py `_pin_special_value_fmas`):
LLVM 22 speculates `logf`'s `fma(x, +inf, +inf)` branch into a select, making a loop body
one block in which ptxas hoists every load (a kl-divergence row loop: 82 registers against
upstream's 32). Compiled for sm_90a without a GPU; the numbers are checked on the GPU by
tests/gpu_diff (libdevice math against torch)."""
import re

import pytest

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia import toolchain
from tritium.compiler import ASTSource, compile

pytestmark = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")


@tritium.jit
def kl_rows(y_ptr, gt_ptr, loss_ptr, n_cols, eps, BLOCK: tl.constexpr):
    """Liger's `_kldiv_kernel_forward` (batchmean): a row's sum of t * (log(max(t, eps)) - y)."""
    row = tl.program_id(0).to(tl.int64)
    y_ptr += row * n_cols
    gt_ptr += row * n_cols
    acc = 0.0
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        m = offs < n_cols
        y = tl.load(y_ptr + offs, mask=m, other=0.0)
        t = tl.load(gt_ptr + offs, mask=m, other=0.0)
        acc += tl.sum(t * (tl.log(tl.maximum(t, eps)) - y), axis=0)
    tl.store(loss_ptr + row, acc)


def _compile():
    sig = {"y_ptr": "*fp32", "gt_ptr": "*fp32", "loss_ptr": "*fp32", "n_cols": "i32",
           "eps": "fp32", "BLOCK": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}
    return compile(ASTSource(kl_rows, sig, {"BLOCK": 16384}, attrs=attrs),
                   target=GPUTarget("cuda", 90, 32), options={"num_warps": 16})


def test_logf_inf_branch_is_kept_and_registers_stay_low():
    k = _compile()
    ptx = k.asm["ptx"]
    # the special-value fma is the pinned inline asm, under a branch of its own
    pinned = re.findall(r"// begin inline asm\s*\n\s*fma\.rn\.ftz\.f32[^\n]*\n\s*// end inline asm",
                        ptx)
    assert len(pinned) == 32  # one per element a thread holds (16384 / 512 threads)
    assert ptx.count("bra") >= 32
    # upstream: 32 registers; speculated into selects: 82
    assert k.n_regs <= 48, k.n_regs
