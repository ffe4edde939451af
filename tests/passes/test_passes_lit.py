"""Runs every FileCheck test in tests/passes/lit/ (see lit.py for the RUN-line format)."""
import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("tritium_passes_lit", Path(__file__).with_name("lit.py"))
lit = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = lit  # dataclasses look their module up while it executes
_spec.loader.exec_module(lit)

try:
    import tritium.ir.parser  # noqa: F401
    _PARSER = None
except ImportError as exc:  # the parser is written by another engineer
    _PARSER = f"tritium.ir.parser is not importable yet ({exc})"


@pytest.mark.skipif(_PARSER is not None, reason=str(_PARSER))
@pytest.mark.parametrize("path", lit.test_files(), ids=lambda p: p.name)
def test_lit(path):
    failures = lit.run_file(path)
    assert not failures, "\n".join(failures)
