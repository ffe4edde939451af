"""FileCheck tests of the TTGIR passes (tests/gpu_passes/lit/*.mlir, RUN-line format of
tests/passes/lit.py). Each RUN pipeline is also replayed pass by pass with the layout
contract checked after every TTGIR pass."""
import importlib.util
import re
import sys
from pathlib import Path

import pytest

import tritium.gpu.passes  # noqa: F401  (registers the passes)
from tritium.gpu.passes import check_ttgir_legality
from tritium.ir.parser import parse_module
from tritium.passes import PassManager, make_pass, parse_pipeline

_spec = importlib.util.spec_from_file_location(
    "tritium_gpu_passes_lit", Path(__file__).parents[1] / "passes" / "lit.py")
lit = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = lit  # dataclasses look their module up while it executes
_spec.loader.exec_module(lit)

LIT_DIR = Path(__file__).with_name("lit")
FILES = sorted(LIT_DIR.glob("*.mlir"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_filecheck(path):
    failures = lit.run_file(path)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_contract_after_every_pass(path):
    text = path.read_text()
    for run in lit.run_lines(text):
        pieces = re.split(r"^//\s*-----\s*$", text, flags=re.M) if run.split else [text]
        for piece in pieces:
            module = parse_module(piece)
            if "ttg.num-warps" in module.attributes:
                check_ttgir_legality(module)
            for name, opts in parse_pipeline(run.pipeline):
                PassManager([make_pass(name, opts)]).run(module)
                if "ttg.num-warps" in module.attributes:
                    check_ttgir_legality(module)
