"""Upstream's `JITFunction.device_caches` and `preload(specialization_data)`: what
`knobs.runtime.jit_cache_hook` is shown as `compile["specialization_data"]` compiles the
same kernel again (same hash) straight into the kernel cache, and the per-device cache
objects are the ones launches use (emptying one forces a compile; torch's post-compile
hooks find the new kernel in it under the hook's `key`)."""
import json

import numpy as np
import pytest

import tritium
import tritium.knobs as knobs
import tritium.language as tl


@tritium.jit
def _unary(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=m) * 2 + 1, mask=m)


@tritium.jit
def _apply(X, Y, n, fn: tl.constexpr, DT: tl.constexpr, pair, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Y + offs, (tl.load(X + offs, mask=m) * pair[0]).to(DT), mask=m)


@pytest.fixture
def hooks(monkeypatch):
    seen = []

    def cache_hook(*args, **kwargs):
        seen.append(("cache", kwargs))

    def post_hook(*args, **kwargs):
        k = kwargs["compile"]
        found = _apply.device_caches[k["device"]][0].get(kwargs["key"]) if \
            kwargs["fn"].jit_function is _apply else None
        seen.append(("post", kwargs, found))

    monkeypatch.setattr(knobs.runtime, "jit_cache_hook", cache_hook)
    monkeypatch.setattr(knobs.runtime, "jit_post_compile_hook", post_hook)
    yield seen
    knobs.runtime.jit_cache_hook = None
    knobs.runtime.jit_post_compile_hook = None


def test_clear_forces_a_compile_and_preload_gives_the_same_kernel(hooks):
    x = np.random.default_rng().standard_normal(50).astype(np.float32)
    y = np.zeros_like(x)
    _unary[(1,)](x, y, x.size, BLOCK=64)
    assert list(_unary.device_caches.keys()) == ["cpu"]
    cache = _unary.device_caches["cpu"][0]
    cache.clear()                                     # as upstream's test does
    hooks.clear()
    first = _unary.warmup(x, y, x.size, BLOCK=64, grid=(1,))
    assert [h[0] for h in hooks] == ["cache", "post"]
    data = hooks[0][1]["compile"]["specialization_data"]
    assert json.loads(data)["name"].endswith("_unary")
    cache.clear()
    again = _unary.preload(data)
    assert again is not None and again.hash == first.hash
    assert cache[hooks[0][1]["key"]] is again
    hooks.clear()
    _unary[(1,)](x, y, x.size, BLOCK=64)              # no compile: preload filled the cache
    assert hooks == []
    np.testing.assert_array_equal(y, x * 2 + 1)


def test_constants_of_every_kind_round_trip(hooks):
    x = np.random.default_rng().standard_normal(20).astype(np.float32)
    y = np.zeros(20, np.float16)
    _apply[(1,)](x, y, x.size, _unary, tl.float16, (3, tl.constexpr(4)), BLOCK=32)
    posts = [h for h in hooks if h[0] == "post"]
    assert posts and posts[-1][2] is not None        # found under the hook's key and device
    data = posts[-1][1]["compile"]["specialization_data"]
    _apply.device_caches["cpu"][0].clear()
    k = _apply.preload(data)
    assert k.hash == posts[-1][2].hash
    np.testing.assert_array_equal(y, (x * 3).astype(np.float16))


def test_preload_rejects_another_kernels_data(hooks):
    x = np.zeros(4, np.float32)
    _unary.device_caches["cpu"][0].clear()
    _unary[(1,)](x, x, 4, BLOCK=4)
    data = hooks[0][1]["compile"]["specialization_data"]
    with pytest.raises(RuntimeError, match="Specialization data is for .*_unary"):
        _apply.preload(data)
    bad = json.loads(data)
    bad["target"]["arch"] = 12345
    with pytest.raises(RuntimeError, match="trying to preload for"):
        _unary.preload(json.dumps(bad))


def test_device_caches_clear_forgets_every_device(hooks):
    x = np.random.default_rng().standard_normal(20).astype(np.float32)
    y = np.zeros_like(x)
    _unary[(1,)](x, y, x.size, BLOCK=32)
    assert len(_unary.device_caches) == 1
    _unary.device_caches.clear()                      # upstream's test_compilation_listener
    assert len(_unary.device_caches) == 0
    hooks.clear()
    y[:] = 0
    _unary[(1,)](x, y, x.size, BLOCK=32)              # compiled again
    assert [h[0] for h in hooks] == ["cache", "post"]
    np.testing.assert_array_equal(y, x * 2 + 1)


@tritium.jit
def _nested(t):
    tl.static_assert(t[1][0] == 2)


def test_scalar_only_kernel_on_a_gpu_machine_is_the_gpus(hooks, monkeypatch):
    """Upstream's test_tuple `..._with_constexpr_and_jit_hook` on the H100: a kernel given only
    a tuple of scalars compiles for the active driver's device (the GPU), so clearing
    `device_caches[torch.cuda.current_device()]` forces the compile the hook must see. (It
    compiled for the CPU, whose cache the test did not clear: no hook call.) The GPU is faked:
    only compiled for cuda:90, never launched."""
    from tritium.backends.compiler import GPUTarget
    from tritium.runtime import dispatch

    class FakeCudaDriver:
        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

    gpu = dispatch.Device(("cuda", 0), GPUTarget("cuda", 90, 32), FakeCudaDriver())
    monkeypatch.setattr(dispatch._GPU, "current", lambda: gpu)
    monkeypatch.setattr(type(dispatch._config), "active",
                        property(lambda self: FakeCudaDriver()))
    args = ((1,), (tl.constexpr(2),))
    _nested.warmup(args, grid=(1,))                    # as the test before it leaves things
    assert list(_nested.device_caches.keys()) == [0]
    _nested.device_caches[0][0].clear()
    hooks.clear()
    first = _nested.warmup(args, grid=(1,))
    assert first.metadata.target.backend == "cuda" and "ptx" in first.asm
    assert [h[0] for h in hooks] == ["cache", "post"]
    data = hooks[0][1]["compile"]["specialization_data"]
    assert hooks[0][1]["compile"]["device"] == 0
    again = _nested.preload(data)
    assert again is not None and again.hash == first.hash
