"""`tt.print` and `tt.assert` on the host: compiled code calls back into Python.

A print formats the values exactly as the evaluator does (same lines, same order: kernels
that print run their programs on one thread, in program order). A failed assert (a
`tl.device_assert` or the overflow sanitizer's check, both only with `debug=True`) reports
its program and first failing element, and that program's thread stops there, so the
accesses the assert guards never run; the launch then raises `DeviceAssertionError` with
the evaluator's message. Asserts keep every core busy: a passing check is one loop over the
condition, fused with what computes it.

The callbacks are the external symbols `tritium_cpu_print` and `tritium_cpu_assert`, bound to
ctypes functions at run time; the kernel's sites travel as a launch id in the argument
buffer, so cached object code holds no process-specific address. (The evaluator, which
`TRITON_INTERPRET=1` selects, also checks every memory access.)
"""
from __future__ import annotations

import contextlib
import ctypes
import itertools
import math
import sys
from typing import Dict

import numpy as np

from .context import TV, Ctx, lowers, lty

_HOOK_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_int32, ctypes.c_void_p)
_ASSERT_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                             ctypes.c_int32, ctypes.c_int32, ctypes.c_int64)


class Sites:
    """One kernel's print and assert sites (from its metadata)."""

    def __init__(self, prints=(), asserts=()):
        self.prints = list(prints)
        self.asserts = list(asserts)

    def __bool__(self) -> bool:
        return bool(self.prints or self.asserts)


class _Launch:
    """One launch of a kernel with sites: what its programs report back."""

    def __init__(self, sites: Sites):
        self.sites = sites
        self.failed: list = []   # (site, x, y, z, element) of every program that failed


_LAUNCHES: Dict[int, _Launch] = {}
_ids = itertools.count(1)
_DT = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "half": np.float16, "float": np.float32, "double": np.float64, "ptr": np.int64}


def _hook(launch, site, x, y, z, data):
    from ..dtypes import format_scalar as _fmt
    prefix, hexa, signed, operands = _LAUNCHES[launch].sites.prints[site]
    out = sys.stdout
    if not operands:
        out.write(f"pid ({x}, {y}, {z}){prefix}\n")
        return
    ptrs = (ctypes.c_void_p * len(operands)).from_address(data)
    for k, (shape, ty) in enumerate(operands):
        dt = np.dtype(_DT[ty])
        n = math.prod(shape)
        raw = (ctypes.c_char * (n * dt.itemsize)).from_address(ptrs[k])
        vals = np.frombuffer(bytes(raw), dt).reshape(shape)
        tag = f"(operand {k}) " if len(operands) > 1 else ""
        sg = bool(signed[k]) if k < len(signed) else True
        for ix in np.ndindex(vals.shape):
            where = f" idx ({', '.join(str(i) for i in ix)})" if ix else ""
            out.write(f"pid ({x}, {y}, {z}){where}{prefix}{tag}{_fmt(vals[ix], hexa, sg)}\n")


def _assert_hook(launch, site, x, y, z, element):
    _LAUNCHES[launch].failed.append((site, x, y, z, element))


_HOOK = _HOOK_T(_hook)
_ASSERT_HOOK = _ASSERT_T(_assert_hook)
_bound = False


def bind_symbols() -> None:
    global _bound
    if not _bound:
        import llvmlite.binding as llvm
        llvm.add_symbol("tritium_cpu_print", ctypes.cast(_HOOK, ctypes.c_void_p).value)
        llvm.add_symbol("tritium_cpu_assert", ctypes.cast(_ASSERT_HOOK, ctypes.c_void_p).value)
        # LLVM turns copy and fill loops (and large struct moves) into calls of these; the
        # JIT's symbol search does not always see libc's.
        libc = ctypes.CDLL(None)
        for name in ("memcpy", "memmove", "memset"):
            if not llvm.address_of_symbol(name) and hasattr(libc, name):
                llvm.add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
        _bound = True


@contextlib.contextmanager
def launch_id(sites: Sites, kernel: str):
    """The id a launch passes its programs (0 without sites); afterwards, a failed assert is
    raised: of the failing programs that ran, the lowest, as the evaluator reports it."""
    if not sites:
        yield 0
        return
    lid = next(_ids)
    launch = _LAUNCHES[lid] = _Launch(sites)
    try:
        yield lid
    finally:
        del _LAUNCHES[lid]
    if launch.failed:
        raise _assert_error(kernel, sites, min(launch.failed, key=lambda f: f[1:4]))


def _assert_error(kernel: str, sites: Sites, failure):
    from ....errors import DeviceAssertionError
    site, x, y, z, element = failure
    msg, file, line, shape = sites.asserts[site]
    where = ""
    if shape:
        ix = np.unravel_index(element, shape)
        where = f", index ({', '.join(str(int(i)) for i in ix)})"
    return DeviceAssertionError(f"{file}:{line}: kernel '{kernel}': Assertion `{msg}` failed "
                                f"in program ({x}, {y}, {z}){where}: device-side assert "
                                "triggered")


@lowers("tt.print")
def _print(cx: Ctx, op):
    cx.flush_pending()
    vals = [cx.get(v) for v in op.operands]
    ops, ptrs = [], []
    for v, x in zip(op.operands, vals):
        t = v.type
        if isinstance(x, TV):
            cx.materialize(x)
            ptrs.append(x.buf)
            ops.append((x.shape, lty(t)))
        else:
            slot = cx.alloca(lty(t))
            cx.do(f"store {lty(t)} {x}, ptr {slot}")
            ptrs.append(slot)
            ops.append(((), lty(t)))
    arr = cx.alloca("ptr", max(1, len(ptrs)))
    for i, p in enumerate(ptrs):
        q = cx.emit(f"getelementptr ptr, ptr {arr}, i32 {i}")
        cx.do(f"store ptr {p}, ptr {q}")
    site = len(cx.print_sites)
    cx.print_sites.append((op.attr("prefix", ""), bool(op.attr("hex", False)),
                           list(op.attr("isSigned", ()) or ()), ops))
    cx.declare("tritium_cpu_print",
               "declare void @tritium_cpu_print(i64, i32, i32, i32, i32, ptr)")
    cx.do(f"call void @tritium_cpu_print(i64 {cx.launch_id}, i32 {site}, i32 {cx.pid[0]}, "
          f"i32 {cx.pid[1]}, i32 {cx.pid[2]}, ptr {arr})")


_ALL_PASS = 0x7FFFFFFF  # the first failing element's index when none failed


@lowers("tt.assert")
def _assert(cx: Ctx, op):
    c = cx.get(op.operands[0])
    cx.flush_pending(keep=[c])
    if c == "true":
        return
    shape = c.shape if isinstance(c, TV) else ()
    if isinstance(c, TV):
        # The common case, every element holds: one pass AND-ing the condition.
        def both(idx, acc):
            return cx.emit(f"and i8 {acc}, {cx.emit(f'zext i1 {c.at(cx, idx)} to i8')}")
        holds = cx.emit(f"icmp ne i8 {cx.fold(shape, 'i8', '1', both)}, 0")
    else:
        holds = c
    fail, ok = cx.label("assert_failed"), cx.label("assert_held")
    cx.do(f"br i1 {holds}, label %{ok}, label %{fail}")
    cx.start_block(fail)
    cx.memo.append({})
    first = "0"
    if isinstance(c, TV):
        # Failed: find the first failing element (row-major), as the evaluator names it.
        def lowest(idx, cur):
            bad = cx.emit(f"select i1 {c.at(cx, idx)}, i32 {_ALL_PASS}, "
                          f"i32 {cx.linear(shape, idx)}")
            return cx.emit(f"select i1 {cx.emit(f'icmp ult i32 {bad}, {cur}')}, i32 {bad}, "
                           f"i32 {cur}")
        first = cx.fold(shape, "i32", str(_ALL_PASS), lowest)
    loc = op.loc
    site = len(cx.assert_sites)
    cx.assert_sites.append((op.attr("message", ""), getattr(loc, "file", "?"),
                            getattr(loc, "line", 0), list(shape)))
    cx.declare("tritium_cpu_assert",
               "declare void @tritium_cpu_assert(i64, i32, i32, i32, i32, i64)")
    cx.do(f"call void @tritium_cpu_assert(i64 {cx.launch_id}, i32 {site}, i32 {cx.pid[0]}, "
          f"i32 {cx.pid[1]}, i32 {cx.pid[2]}, i64 {cx.emit(f'zext i32 {first} to i64')})")
    # This thread's programs end here: what the assert guards must not run.
    cx.do("br label %done")
    cx.memo.pop()
    cx.start_block(ok)
