"""Every GPU test kernel goes TTIR -> TTGIR -> LLIR -> PTX here, and ptxas assembles the PTX
for sm_90a (skipped without ptxas). No GPU needed."""
import pytest
import torch

from nvl_kernels import CASES
from nvl_util import compile_module, real_make_ttgir, ttgir_for

from tritium.backends.nvidia import toolchain

PIPELINES = ["helper"] + (["real"] if real_make_ttgir() is not None else [])


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_compile(case, pipeline):
    g = torch.Generator().manual_seed(0)
    args = case.make_args(torch, g)
    module = ttgir_for(case.kernel, args, case.kwargs, pipeline=pipeline)
    llir, meta, ptx = compile_module(module)
    assert ".entry" in ptx
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx, arch="sm_90a")
        assert info.kernel.spill_stores == 0, f"spills: {info.kernel}"


from nvl_layout_cases import LAYOUT_CASES  # noqa: E402


@pytest.mark.parametrize("case", LAYOUT_CASES, ids=lambda c: c.name)
def test_compile_layout_case(case):
    from tritium.ir.parser import parse_module
    llir, meta, ptx = compile_module(parse_module(case.text))
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx, arch="sm_90a")
        assert info.kernel.spill_stores == 0
