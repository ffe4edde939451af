"""tests/gpu_diff: the language tests' kernels on the GPU, compared with the CPU backend.

Every test is marked `gpu` (tests/conftest.py skips them without a GPU). With
TRITIUM_GPU_DIFF_FAKE=1 the harness runs the "GPU" side on the CPU backend through torch
CPU tensors and the skip is lifted here, so the suite can be exercised anywhere:

    TRITIUM_GPU_DIFF_FAKE=1 python -m pytest tests/gpu_diff -q
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
# harness.py; the language tests' kernels and their helpers (e2e.py, semkit.py); examples.
for _p in (os.path.join(ROOT, "examples"), os.path.join(TESTS, "language"), HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from harness import FAKE, SPECIALISATIONS  # noqa: E402


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Faking: lift the skip tests/conftest.py put on this folder's `gpu` tests."""
    if not FAKE:
        return
    for item in items:
        if not str(item.path).startswith(HERE + os.sep):
            continue
        if item.get_closest_marker("gpu") is None:
            continue
        item.own_markers[:] = [m for m in item.own_markers if not (
            m.name == "skip" and str(m.kwargs.get("reason", "")).startswith("needs an NVIDIA GPU"))]


def pytest_report_header(config):
    if FAKE:
        return "gpu_diff: TRITIUM_GPU_DIFF_FAKE=1, the 'GPU' side runs on the CPU backend"
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if SPECIALISATIONS:
        kernels = len({k[:2] for k in SPECIALISATIONS})
        terminalreporter.write_line(
            f"gpu_diff: {len(SPECIALISATIONS)} kernel specialisations of {kernels} kernels "
            f"launched on the {'(fake) ' if FAKE else ''}GPU side")
