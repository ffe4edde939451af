"""Every GPU test kernel goes TTIR -> TTGIR -> LLIR -> PTX here, and ptxas assembles the PTX
for sm_90a (skipped without ptxas). No GPU needed."""
import pytest
import torch

from nvl_kernels import CASES
from nvl_util import compile_module, ttgir_for

from tritium.backends.nvidia import toolchain


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_compile(case):
    g = torch.Generator().manual_seed(0)
    args = case.make_args(torch, g)
    module = ttgir_for(case.kernel, args, case.kwargs)
    llir, meta, ptx = compile_module(module)
    assert ".entry" in ptx
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx, arch="sm_90a")
        assert info.kernel.spill_stores == 0, f"spills: {info.kernel}"
