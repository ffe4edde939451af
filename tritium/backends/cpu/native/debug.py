"""`tt.print` on the host: compiled code calls back into Python, which formats the values
exactly as the evaluator does (same lines, same order: kernels that print run their programs
on one thread, in program order).

The callback is the external symbol `tritium_cpu_print`, bound to a ctypes function at run
time, and the kernel's table of print sites travels in the argument buffer, so cached object
code holds no process-specific address. (`tt.assert` only exists with `debug=True`, and debug
kernels run on the evaluator, which also checks every access.)
"""
from __future__ import annotations

import ctypes
import itertools
import math
import sys
from typing import Dict, List

import numpy as np

from .context import TV, Ctx, lowers, lty

_HOOK_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                           ctypes.c_int32, ctypes.c_void_p)
_TABLES: Dict[int, list] = {}
_ids = itertools.count(1)
_DT = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "half": np.float16, "float": np.float32, "double": np.float64, "ptr": np.int64}


def _hook(table, site, x, y, z, data):
    from ..dtypes import format_scalar as _fmt
    prefix, hexa, signed, operands = _TABLES[table][site]
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


_HOOK = _HOOK_T(_hook)
_bound = False


def bind_symbols() -> None:
    global _bound
    if not _bound:
        import llvmlite.binding as llvm
        llvm.add_symbol("tritium_cpu_print", ctypes.cast(_HOOK, ctypes.c_void_p).value)
        # LLVM turns copy and fill loops (and large struct moves) into calls of these; the
        # JIT's symbol search does not always see libc's.
        libc = ctypes.CDLL(None)
        for name in ("memcpy", "memmove", "memset"):
            if not llvm.address_of_symbol(name) and hasattr(libc, name):
                llvm.add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
        _bound = True


def register_table(sites: List) -> int:
    tid = next(_ids)
    _TABLES[tid] = sites
    return tid


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
    cx.do(f"call void @tritium_cpu_print(i64 {cx.debug_table}, i32 {site}, i32 {cx.pid[0]}, "
          f"i32 {cx.pid[1]}, i32 {cx.pid[2]}, ptr {arr})")

