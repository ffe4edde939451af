"""What a kernel's `cache_key` depends on, as upstream's DependenciesFinder: a `@jit` function
passed as a constexpr argument keyed by its source, globals that disagree between a kernel
and a callee refused, plain Python functions refused."""
import math

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@triton.jit
def _offset_fn(x):
    return x + 3


@triton.jit
def _apply(x_ptr, y_ptr, n, FUNC: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, FUNC(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@pytest.mark.parametrize("n", [1, 37, 300])
def test_jit_function_argument_is_keyed_by_its_source(rng, n):
    """Editing a function passed as a constexpr argument recompiles its caller (upstream's
    compute_cache_key / JITCallable.__hash__); the old source's kernel comes back."""
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    y = np.full(n, -7, np.int32)
    grid = (triton.cdiv(n, 128),)
    _apply[grid](x, y, n, _offset_fn, BLOCK=128)
    np.testing.assert_array_equal(y, x + 3)
    old = _offset_fn.src
    try:
        _offset_fn._unsafe_update_src(old.replace("x + 3", "x * 5 - 2"))
        _apply[grid](x, y, n, _offset_fn, BLOCK=128)
        np.testing.assert_array_equal(y, x * 5 - 2)
        # through the slow path too (options in the launch)
        _apply[grid](x, y, n, _offset_fn, BLOCK=128, num_warps=2)
        np.testing.assert_array_equal(y, x * 5 - 2)
    finally:
        _offset_fn._unsafe_update_src(old)
    compiled = len(_apply.cache["cpu"])
    _apply[grid](x, y, n, _offset_fn, BLOCK=128)
    np.testing.assert_array_equal(y, x + 3)
    assert len(_apply.cache["cpu"]) == compiled  # the first kernel, not a new one


SHARED_GLOBAL = tl.constexpr(0)


@triton.jit
def _reads_shared(p):
    tl.store(p, SHARED_GLOBAL)


def test_conflicting_global_between_kernel_and_callee():
    global SHARED_GLOBAL

    @triton.jit
    def first(p):
        tl.store(p + 1, SHARED_GLOBAL)
        _reads_shared(p)

    @triton.jit
    def second(p):
        tl.store(p + 1, SHARED_GLOBAL + 1)
        _reads_shared(p)

    x = np.full(2, -1, np.int32)
    first[(1,)](x)
    np.testing.assert_array_equal(x, [0, 0])
    SHARED_GLOBAL = tl.constexpr(5)
    try:
        with pytest.raises(RuntimeError, match=r"Global variable SHARED_GLOBAL has value "
                           r"constexpr\[5\] when compiling .*second, but inner kernel "
                           r"_reads_shared has conflicting value constexpr\[0\] from when it "
                           r"was first compiled"):
            second[(1,)](x)
        np.testing.assert_array_equal(x, [0, 0])  # nothing ran
    finally:
        SHARED_GLOBAL = tl.constexpr(0)
    second[(1,)](x)  # the values agree again
    np.testing.assert_array_equal(x, [0, 1])


def _plain_helper():
    return 4


@triton.constexpr_function
def _constexpr_calls_plain():
    return _plain_helper()


@triton.constexpr_function
def _constexpr_uses_math(v):
    return math.ceil(math.log2(v))


def test_unsupported_function_referenced():
    with pytest.raises(RuntimeError, match="Unsupported function referenced: <function "
                       "_plain_helper"):
        _constexpr_calls_plain.cache_key

    @triton.jit
    def kernel(p):
        tl.store(p, _plain_helper())

    with pytest.raises(RuntimeError, match="Unsupported function referenced"):
        kernel.cache_key
    with pytest.raises(RuntimeError, match="Unsupported function referenced"):
        kernel[(1,)](np.zeros(1, np.int32))  # refused at launch, before code generation


def test_supported_references_are_keyed(rng):
    """Modules of the language and math, classes, constexpr functions and @jit callees
    are fine; a constexpr function's key covers its own callees."""
    assert len(_constexpr_uses_math.cache_key) == 64

    @triton.jit
    def kernel(p, N: tl.constexpr):
        tl.store(p + tl.arange(0, N), tl.full((N,), _constexpr_uses_math(N), tl.int32))

    n = int(rng.integers(3, 9))
    x = np.zeros(2 ** n, np.int32)
    kernel[(1,)](x, 2 ** n)
    assert (x == n).all()


def test_every_language_function_has_a_cache_key():
    """The language's own `@jit` and constexpr functions reference nothing `cache_key`
    refuses (a kernel importing one by name hashes it: `target_info`'s helpers once did)."""
    import importlib
    import pkgutil

    from tritium.frontend.jit import JITFunction
    from tritium.language.builtins import ConstexprFunction
    checked = {}
    for info in pkgutil.walk_packages(tl.__path__, "tritium.language."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, (JITFunction, ConstexprFunction)):
                checked[id(value)] = (f"{info.name}.{name}", value)
    assert len(checked) > 40
    for name, fn in checked.values():
        assert len(fn.cache_key) == 64, name
