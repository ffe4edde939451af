"""The TTGIR pipeline on real kernels: the contract holds after every pass, the listed
kernels end without a single ttg.convert_layout, the printed TTGIR round-trips, and the
CPU backend computes the same outputs from the TTGIR as from the TTIR."""
import os
import sys

import numpy as np
import pytest

import tritium.gpu.passes  # noqa: F401  (registers the passes)
from tritium.backends.cpu.launch import launch
from tritium.gpu.passes import check_ttgir_legality, count_converts
from tritium.gpu.pipeline import make_ttgir, ttgir_pipeline
from tritium.ir.parser import parse_module
from tritium.ir.printer import print_module
from tritium.ir.verifier import verify
from tritium.passes import PassManager, make_pass, parse_pipeline

sys.path.insert(0, os.path.dirname(__file__))
from ttgir_kernels import CASES  # noqa: E402

_TTIR = {}


def ttir(case):
    if case.name not in _TTIR:
        _TTIR[case.name] = print_module(case.ttir())
    return parse_module(_TTIR[case.name])


def run_checked(module, num_warps=4):
    """The pipeline pass by pass, with the verifier and the layout contract after each."""
    for name, opts in parse_pipeline(ttgir_pipeline(num_warps)):
        PassManager([make_pass(name, opts)]).run(module)
        verify(module)
        check_ttgir_legality(module)
    return module


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pipeline_is_legal_after_every_pass(case):
    module = run_checked(ttir(case))
    if case.zero_converts:
        assert count_converts(module) == 0, print_module(module)
    assert "ttg.shared" in module.attributes


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_ttgir_round_trips(case):
    module = make_ttgir(ttir(case), num_warps=4)
    text = print_module(module)
    again = parse_module(text)
    check_ttgir_legality(again)
    assert print_module(again) == text


@pytest.mark.parametrize("num_warps", [1, 2, 8])
@pytest.mark.parametrize("case", [c for c in CASES if c.zero_converts], ids=lambda c: c.name)
def test_other_warp_counts_stay_legal(case, num_warps):
    module = run_checked(ttir(case), num_warps)
    assert module.attr("ttg.num-warps") == num_warps
    assert count_converts(module) == 0, print_module(module)


def _run(module, case, rng_seed):
    args = case.make_args(np.random.default_rng(rng_seed))
    launch(module, case.fn.__name__, case.grid, args)
    return [args[i] for i in case.outputs]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_ttgir_computes_what_ttir_computes(case):
    want = _run(ttir(case), case, 7)
    got = _run(make_ttgir(ttir(case), num_warps=4), case, 7)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def test_vector_add_ttgir_text():
    case = next(c for c in CASES if c.name == "vadd_f32")
    text = print_module(make_ttgir(ttir(case), num_warps=4))
    assert text.startswith("#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = "
                           "[32], warpsPerCTA = [4], order = [0]}>\n")
    assert "tensor<1024xf32, #blocked>" in text
    assert "ttg.convert_layout" not in text


def test_make_ttgir_module_attributes():
    case = CASES[0]
    m = make_ttgir(ttir(case), num_warps=8, num_ctas=1, target="cuda:80")
    assert m.attr("ttg.num-warps") == 8
    assert m.attr("ttg.threads-per-warp") == 32
    assert m.attr("ttg.num-ctas") == 1
    assert m.attr("ttg.target") == "cuda:80"
    assert m.attr("ttg.shared") == 0


def test_slices_print_inline_like_upstream():
    """Upstream prints `#ttg.slice<{dim = 1, parent = #blocked}>` inline (slices have no
    alias); checked here so the printer change is noticed when it lands."""
    case = next(c for c in CASES if c.name == "softmax2d")
    text = print_module(make_ttgir(ttir(case), num_warps=4))
    if "#slice = " in text:
        pytest.xfail("tritium.ir.printer still gives #ttg.slice layouts their own alias")
    assert "tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>" in text
    assert print_module(parse_module(text)) == text
