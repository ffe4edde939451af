"""pytest plugin that runs upstream Triton's unit tests against tritium.

Loaded by `bench/run_upstream_tests.py` as `-p upstream_tests_shim` (with `bench/` on
PYTHONPATH). Importing it installs `tritium.compat` before pytest collects anything, so the
tests' `import triton` is tritium. It also supplies, as fallbacks, the fixtures that
upstream's conftest files provide in some versions and not in others (a conftest's own
fixture of the same name wins over a plugin's), and a per-file time limit: once
TRITIUM_UPSTREAM_DEADLINE (a `time.time()` value, or `now+SECONDS` counted from when
pytest loads this plugin) has passed, the remaining tests are skipped with a reason that says so, so a slow file still ends with a junit report.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

import tritium.compat  # noqa: E402

tritium.compat.install()

TIME_LIMIT_REASON = "tritium runner: per-file time limit reached"


def _keep_exec_sources() -> None:
    """Upstream's `test_core.patch_kernel` (interpreter branch) builds kernels by `exec` of
    edited source text. Upstream's interpreter runs such a function as Python; tritium
    compiles it and needs its source, which `inspect` cannot find for an exec'd string.
    Sources passed to `exec` as text get a `<exec-N>` file name registered in `linecache`,
    so `inspect.getsource` finds them (a known difference, noted in docs/compat.md)."""
    import builtins
    import itertools
    import linecache
    real_exec = builtins.exec
    counter = itertools.count()

    def exec_with_source(source, globals=None, locals=None, **kwargs):
        if globals is None:  # exec's own default: the caller's namespaces, not ours
            caller = sys._getframe(1)
            globals = caller.f_globals
            locals = caller.f_locals if locals is None else locals
        if isinstance(source, str):
            name = f"<exec-{next(counter)}>"
            linecache.cache[name] = (len(source), None, source.splitlines(True), name)
            source = compile(source, name, "exec")
        return real_exec(source, globals, locals, **kwargs)

    builtins.exec = exec_with_source


_keep_exec_sources()


def pytest_configure(config):
    for name in ("interpreter", "cpu", "forked", "skip_in_ci"):
        config.addinivalue_line("markers", f"{name}: upstream Triton test marker")


def _spread(n: int, k: int) -> list:
    """k indices spread evenly over range(n), first and last included (all when n <= k)."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [0]
    return sorted({round(j * (n - 1) / (k - 1)) for j in range(k)})


def pytest_collection_modifyitems(session, config, items):
    """The runner's selection of a huge file (upstream's language/test_core.py on a GPU):
    TRITIUM_UPSTREAM_SAMPLE=K keeps at most K parametrizations of each test function,
    spread evenly over its list (first and last kept, so every function still runs);
    TRITIUM_UPSTREAM_SHARD=i/n then keeps every n-th of those from the i-th, so n
    processes share the file. What was kept is written to TRITIUM_UPSTREAM_SAMPLE_REPORT."""
    sample = int(os.environ.get("TRITIUM_UPSTREAM_SAMPLE", "0") or 0)
    shard = os.environ.get("TRITIUM_UPSTREAM_SHARD", "")
    if not sample and not shard:
        return
    keep = list(items)
    if sample > 0:
        groups = {}
        for item in keep:
            fn = getattr(item, "originalname", None) or item.name.split("[")[0]
            groups.setdefault((item.nodeid.split("::")[0], fn), []).append(item)
        chosen = set()
        for group in groups.values():
            chosen.update(id(group[i]) for i in _spread(len(group), sample))
        keep = [item for item in keep if id(item) in chosen]
    if shard:
        i, n = (int(x) for x in shard.split("/"))
        keep = keep[i::n]
    kept = {id(item) for item in keep}
    dropped = [item for item in items if id(item) not in kept]
    report = os.environ.get("TRITIUM_UPSTREAM_SAMPLE_REPORT")
    if report:
        import json
        with open(report, "w") as f:
            json.dump({"collected": len(items), "kept": len(keep)}, f)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _parse_deadline(text, now):
    if not text:
        return None
    if text.startswith("now+"):
        return now + float(text[4:])
    return float(text)


_DEADLINE = _parse_deadline(os.environ.get("TRITIUM_UPSTREAM_DEADLINE"), time.time())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if _DEADLINE is not None and time.time() > _DEADLINE:
        pytest.skip(TIME_LIMIT_REASON)


@pytest.fixture
def device(request):
    try:
        chosen = request.config.getoption("--device")
    except ValueError:
        chosen = None
    return chosen or os.environ.get("TRITIUM_UPSTREAM_DEVICE", "cpu")


@pytest.fixture
def fresh_triton_cache():
    with tempfile.TemporaryDirectory() as tmpdir:
        old = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = tmpdir
        try:
            yield tmpdir
        finally:
            if old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = old


@pytest.fixture
def with_allocator():
    """Global-memory scratch for kernels that ask for it (TMA descriptors, ...), from torch."""
    import torch
    import triton

    def alloc(size, align, stream):
        dev = os.environ.get("TRITIUM_UPSTREAM_DEVICE", "cpu")
        return torch.empty(size, dtype=torch.int8, device=dev)

    triton.set_allocator(alloc)
    try:
        yield
    finally:
        triton.set_allocator(None)


@pytest.fixture
def fresh_knobs():
    """Every knob group fresh for the test and put back afterwards (what upstream's conftest
    builds from `triton._internal_testing._fresh_knobs_impl`, which tritium provides)."""
    from triton._internal_testing import _fresh_knobs_impl
    fresh, reset = _fresh_knobs_impl()
    try:
        yield fresh()
    finally:
        reset()
