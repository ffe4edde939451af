"""`knobs.runtime.add_stages_inspection_hook`, upstream's protocol: the JIT calls it without
arguments for `(key, hash)` (the hash joins the kernel's cache key), and each backend's
`add_stages` calls it with `(backend, stages, options, language, capability)` so it can
wrap or replace stages."""
import numpy as np
import pytest

import tritium.knobs as knobs
import tritium.language as tl
from tritium import jit
from tritium.backends.compiler import GPUTarget, Language
from tritium.backends.nvidia.backend import CUDABackend


@jit
def _scale(x, o, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(o + offs, tl.load(x + offs, mask=offs < n) * 3, mask=offs < n)


class _Hook:
    def __init__(self, pipeline_hash):
        self.hash = pipeline_hash
        self.calls = []
        self.ran = []

    def __call__(self, backend=None, stages=None, options=None, language=None,
                 capability=None):
        if stages is None:
            return "my-pipeline", self.hash
        self.calls.append((type(backend).__name__, sorted(stages), language, capability))
        inner = stages["ttir"]

        def ttir(src, metadata):
            self.ran.append(self.hash)
            return inner(src, metadata)
        stages["ttir"] = ttir


def test_hook_wraps_stages_and_keys_the_cache(monkeypatch, rng, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # not an earlier run's kernels
    n = 50
    x = rng.standard_normal(n).astype(np.float32)
    o = np.zeros(n, np.float32)
    hook = _Hook("h1")
    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", hook)
    _scale[(1,)](x, o, n, B=64)
    np.testing.assert_allclose(o, x * 3, rtol=1e-6)
    assert hook.ran == ["h1"] and hook.calls[0][0] == "CPUBackend"
    assert hook.calls[0][2] == Language.TRITON and hook.calls[0][3] is None
    _scale[(1,)](x, o, n, B=64)                 # same hash: the cached kernel
    assert hook.ran == ["h1"]
    hook.hash = "h2"                             # another pipeline: compiled again
    o[:] = 0
    _scale[(1,)](x, o, n, B=64)
    assert hook.ran == ["h1", "h2"]
    np.testing.assert_allclose(o, x * 3, rtol=1e-6)


def test_nvidia_backend_calls_the_hook_with_its_capability(monkeypatch):
    hook = _Hook("h")
    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", hook)
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    stages = {}
    backend.add_stages(stages, backend.parse_options({}), Language.TRITON)
    assert hook.calls == [("CUDABackend", ["cubin", "llir", "ptx", "ttgir", "ttir"],
                           Language.TRITON, 90)]


def test_no_hook_no_call(monkeypatch):
    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", None)
    stages = {}
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    backend.add_stages(stages, backend.parse_options({}), Language.TRITON)
    assert "ttir" in stages


def test_pipeline_hash_keys_the_disk_cache(monkeypatch, tmp_path, rng):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITIUM_CPU_PATH", "compiled")
    lowered = []

    def hook(backend=None, stages=None, options=None, language=None, capability=None):
        if stages is None:
            return "k", hook.hash
        if "llir" in stages:
            inner = stages["llir"]
            stages["llir"] = lambda src, md: (lowered.append(hook.hash), inner(src, md))[1]

    monkeypatch.setattr(knobs.runtime, "add_stages_inspection_hook", hook)
    x = rng.standard_normal(8).astype(np.float32)
    o = np.zeros(8, np.float32)

    def run(h):
        hook.hash = h
        _scale.cache.clear()
        _scale._fast_cache.clear()
        _scale[(1,)](x, o, 8, B=8)
        np.testing.assert_allclose(o, x * 3, rtol=1e-6)

    run("a")
    run("a")          # from the disk cache: not lowered again
    run("b")          # another pipeline: lowered again
    assert lowered == ["a", "b"]
