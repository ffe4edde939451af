"""Behaviours upstream's `test_core.py` relies on (found running it on the CPU backend):
each checked here against numpy or the error upstream raises."""
import warnings

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.errors import TritonError


@triton.jit
def _scale_by(ptr, n, rep, type: tl.constexpr):     # a parameter called `type`
    offs = tl.arange(0, 64)
    v = tl.load(ptr + offs, mask=offs < n)
    for i in range(1, rep):
        v = v * i if type == "mul" else v + i
    tl.store(ptr + offs, v, mask=offs < n)


def test_parameter_named_like_a_builtin(rng):
    x = rng.standard_normal(50).astype(np.float32)
    y = x.copy()
    _scale_by[(1,)](y, 50, 4, "mul")
    np.testing.assert_array_equal(y, x * 1 * 2 * 3)


def test_compilation_errors_are_triton_errors_with_their_cause():
    @triton.jit
    def bad(x):
        tl.program_id(20)

    with pytest.raises(TritonError) as info:
        bad[(1,)](np.zeros(1, np.float32))
    assert isinstance(info.value, triton.CompilationError)
    assert "program_id axis must be 0, 1, or 2 but got 20" in str(info.value.__cause__)


@triton.jit
def _ternary_store(R, XT, XF):
    pid = tl.program_id(0)
    tl.store(R + pid, tl.load(XT)) if pid % 2 == 0 else tl.store(R + pid, tl.load(XF))


def test_ternary_of_two_stores(rng):
    t, f = rng.standard_normal(2).astype(np.float32)
    r = np.zeros(5, np.float32)
    _ternary_store[(5,)](r, np.array([t]), np.array([f]))
    np.testing.assert_array_equal(r, [t, f, t, f, t])


@triton.jit
def _guarded(x):
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type) \
            and (x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)


def test_is_and_hasattr_on_tensors_at_compile_time():
    _guarded[(1,)](None)
    _guarded[(1,)](7)
    for value, dtype, want in [(100000, np.int32, 42), (7, np.int32, 7),
                               (100000, np.int64, 100000), (84.0, np.float32, 84.0)]:
        x = np.array([value], dtype)
        _guarded[(1,)](x)
        assert x[0] == want


@triton.jit
def _unsplat_if(x):
    condition = tl.load(x + tl.arange(0, 1)) > 42
    if condition:
        tl.store(x, 42)


def test_if_on_a_one_element_block_warns_and_unsplats(monkeypatch, tmp_path):
    # Compile here, not from a disk cache an earlier run filled: the warning comes from the
    # compile.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    _unsplat_if.cache.clear()
    _unsplat_if._fast_cache.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for value, want in [(41, 41), (43, 42)]:
            x = np.array([value], np.int32)
            _unsplat_if[(1,)](x)
            assert x[0] == want
    assert any("multidimensional Tensor" in str(w.message) for w in caught)


@triton.jit
def _cat2d(x, y, o, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr):
    a = tl.load(x + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    b = tl.load(y + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.cat(a, b, dim=DIM)
    if DIM == 0:
        tl.store(o + tl.arange(0, 2 * M)[:, None] * N + tl.arange(0, N)[None, :], c)
    else:
        tl.store(o + tl.arange(0, M)[:, None] * 2 * N + tl.arange(0, 2 * N)[None, :], c)


@triton.jit
def _cat1d(x, y, o, N: tl.constexpr):
    c = tl.cat(tl.load(x + tl.arange(0, N)), tl.load(y + tl.arange(0, N)))
    tl.store(o + tl.arange(0, 2 * N), c)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dt", [np.float32, np.int16])
def test_cat_keeps_order(rng, dim, dt):
    x = (rng.standard_normal((4, 8)) * 50).astype(dt)
    y = (rng.standard_normal((4, 8)) * 50).astype(dt)
    want = np.concatenate([x, y], dim)
    o = np.zeros(want.size, dt)
    _cat2d[(1,)](x, y, o, M=4, N=8, DIM=dim % 2)
    np.testing.assert_array_equal(o.reshape(want.shape), want)
    a, b = x.ravel()[:16].copy(), y.ravel()[:16].copy()
    o1 = np.zeros(32, dt)
    _cat1d[(1,)](a, b, o1, N=16)
    np.testing.assert_array_equal(o1, np.concatenate([a, b]))


def test_if_on_a_block_is_still_an_error():
    @triton.jit
    def bad(x):
        if tl.arange(0, 4) > 1:
            tl.store(x, 1)

    with pytest.raises(triton.CompilationError, match="ambiguous"):
        bad[(1,)](np.zeros(1, np.int32))


def test_pre_run_hook_sees_the_arguments_before_each_launch(rng):
    @triton.jit
    def add_two(a_ptr, n: tl.constexpr):
        offs = tl.arange(0, n)
        tl.store(a_ptr + offs, tl.load(a_ptr + offs) + 2)

    seen = []

    def hook(*args, **kwargs):
        seen.append(args[1])
        args[0][:] = 0

    add_two.add_pre_run_hook(hook)
    a = rng.integers(-50, 50, 8).astype(np.int32)
    add_two[(1,)](a, 8)
    np.testing.assert_array_equal(a, np.full(8, 2))
    a = rng.integers(-50, 50, 8).astype(np.int32)
    add_two.run(a, 8, grid=(1,), warmup=False)
    np.testing.assert_array_equal(a, np.full(8, 2))
    assert seen == [8, 8]
    with pytest.raises(TypeError, match="not callable"):
        add_two.add_pre_run_hook(3)
