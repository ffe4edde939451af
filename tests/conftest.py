"""Shared test setup: the `gpu` marker skips without an NVIDIA GPU; seeds are fresh per test
but printed so a failure can be replayed (TRITIUM_TEST_SEED=<n>)."""
import os
import random

import numpy as np
import pytest


def _gpu_available() -> bool:
    try:
        from tritium.backends.nvidia import driver
        return driver.is_available()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (run on the device machine)")
    for item in items:
        # The marker itself, not `item.keywords`: keywords include folder names (tests/gpu/).
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture
def rng(request):
    """A numpy Generator with a fresh seed per test (reported on failure)."""
    seed = int(os.environ.get("TRITIUM_TEST_SEED", random.randrange(2 ** 31)))
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for name, value in item.user_properties:
            if name == "seed":
                report.sections.append(("seed", f"TRITIUM_TEST_SEED={value}"))


# ------------------------------------------------------------------ the two CPU paths
# Kernels on CPU tensors run compiled (the default) or on the numpy evaluator. Every CPU
# test runs on either: `pytest --cpu-path=evaluator` (CI runs the CPU tests both ways), and
# tests that compare the two take the `cpu_path` fixture, which runs them once per path.
def pytest_addoption(parser):
    parser.addoption("--cpu-path", choices=("native", "evaluator"), default=None,
                     help="which CPU path runs kernels (sets TRITIUM_CPU_PATH)")


def pytest_configure(config):
    path = config.getoption("--cpu-path", default=None)
    if path:
        os.environ["TRITIUM_CPU_PATH"] = path


@pytest.fixture(params=["native", "evaluator"])
def cpu_path(request, monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", request.param)
    return request.param


@pytest.fixture
def native_only(monkeypatch):
    """For tests of what the compiled path does (its code, its choices): compiled even in
    the `--cpu-path=evaluator` run."""
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A test of its own TRITON_CACHE_DIR: compiles and autotuning results (which persist by
    default) stay out of the user's cache and out of other tests'. Modules take it with
    `pytestmark = pytest.mark.usefixtures("private_cache")`."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
