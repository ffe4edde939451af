"""`triton.AsyncCompileMode`: inside the block the JIT hands compiles to the executor and
caches a FutureKernel at once (warm-ups return without waiting, one submission per
specialisation); launches wait for their kernel and compute the right thing; leaving the
block waits for every compile and raises the first compile error."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.compiler.errors import CompileTimeAssertionFailure
from tritium.runtime import _async_compile


class CountingPool(ThreadPoolExecutor):
    def __init__(self):
        super().__init__(2)
        self.submitted = 0

    def submit(self, fn, *args, **kwargs):
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def _kernel():
    @triton.jit
    def fill(Y, n, a: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        tl.store(Y + i, tl.full([BLOCK], a, Y.dtype.element_ty) + i, mask=i < n)
    return fill


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_warmups_compile_on_the_executor_and_launches_use_them(dtype):
    fill = _kernel()
    y = np.zeros(13, dtype)
    with CountingPool() as pool, triton.AsyncCompileMode(pool):
        for a in (0, 1, 2):
            k = fill.warmup(y, 13, a, BLOCK=16, grid=(1,))
            assert isinstance(k, _async_compile.FutureKernel)
        fill.warmup(y, 13, 1, BLOCK=16, grid=(1,))  # again: not submitted twice
        assert pool.submitted == 3
        assert len(fill.device_caches["cpu"][0]) == 3
        for a in (2, 0, 1):
            fill[(1,)](y, 13, a, BLOCK=16)
            np.testing.assert_array_equal(y, (a + np.arange(13)).astype(dtype))
    cached = list(fill.device_caches["cpu"][0].values())
    assert len(cached) == 3 and not any(isinstance(k, _async_compile.FutureKernel) for k in cached)
    assert _async_compile.active_mode.get() is None


def test_compile_errors_surface_when_the_block_ends():
    @triton.jit
    def bad(x: tl.constexpr):
        tl.static_assert(x == 2)

    with pytest.raises(CompileTimeAssertionFailure):
        with ThreadPoolExecutor(2) as pool, triton.AsyncCompileMode(pool):
            bad.warmup(1, grid=(1,))
    assert _async_compile.active_mode.get() is None
    with ThreadPoolExecutor(1) as pool, triton.AsyncCompileMode(pool, ignore_errors=True):
        bad.warmup(3, grid=(1,))
    with ThreadPoolExecutor(1) as pool, triton.AsyncCompileMode(pool):
        with pytest.raises(RuntimeError, match="already active"):
            triton.AsyncCompileMode(pool).__enter__()
