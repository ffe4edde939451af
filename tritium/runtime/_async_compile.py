"""`triton.AsyncCompileMode` (upstream's `triton.runtime._async_compile`): inside
`with AsyncCompileMode(executor):`, a kernel the JIT has to compile is handed to `executor`
and the kernel cache holds a `FutureKernel` for it at once, so `warmup` of many
specialisations returns immediately and they compile side by side. A launch, or any
attribute read on the `FutureKernel`, waits for its compile. Leaving the block waits for all
of them and raises the first compile error (unless `ignore_errors=True`). The same
specialisation is submitted once.
"""
from __future__ import annotations

from concurrent.futures import Executor, Future, as_completed
from contextvars import ContextVar
from typing import Callable, Optional

active_mode: ContextVar[Optional["AsyncCompileMode"]] = ContextVar("async_compile_active_mode",
                                                                   default=None)


class FutureKernel:
    """A kernel being compiled: `result()` waits for it (then `finalize(kernel)` runs once,
    putting it in the kernel cache); other attributes are the compiled kernel's."""

    def __init__(self, finalize: Callable, future: Future):
        self.finalize_compile = finalize
        self.future = future
        self.kernel = None

    def result(self, ignore_errors: bool = False):
        if self.kernel is None:
            try:
                kernel = self.future.result()
            except Exception:
                if ignore_errors:
                    return None
                raise
            self.finalize_compile(kernel)
            self.kernel = kernel
        return self.kernel

    def __getattr__(self, name):
        return getattr(self.result(), name)


class AsyncCompileMode:
    def __init__(self, executor: Executor, *, ignore_errors: bool = False):
        self.executor = executor
        self.ignore_errors = ignore_errors
        self.raw_futures: list = []
        self.future_kernels: dict = {}

    def submit(self, key, compile_fn: Callable, finalize_fn: Callable) -> FutureKernel:
        """`compile_fn` on the executor, once per `key`."""
        if key in self.future_kernels:
            return self.future_kernels[key]
        future = self.executor.submit(compile_fn)
        self.raw_futures.append(future)
        fk = self.future_kernels[key] = FutureKernel(finalize_fn, future)
        future._tritium_key = key
        return fk

    def __enter__(self):
        if active_mode.get() is not None:
            raise RuntimeError("Another AsyncCompileMode is already active")
        active_mode.set(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        active_mode.set(None)
        for future in as_completed(self.raw_futures):
            self.future_kernels[future._tritium_key].result(self.ignore_errors)
