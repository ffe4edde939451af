"""A tiny kernel builder for CPU-backend tests: builds TTIR with the IR Builder directly, so
the evaluator is tested independently of the frontend."""
from __future__ import annotations

from typing import Callable, Sequence

from tritium.ir import types as T
from tritium.ir.attrs import (ArrayAttr, BoolAttr, DenseArrayAttr, DictAttr, IntegerAttr,
                              StringAttr, SymbolRefAttr, TypeAttr, i32_attr)
from tritium.ir.builder import Builder
from tritium.ir.core import Block, Location, make_module, module_body
from tritium.ir.ops import ATOMIC_RMW_OPS, CMPF_PREDICATES, CMPI_PREDICATES

i1, i8, i16, i32, i64 = T.i1, T.i8, T.i16, T.i32, T.i64
f16, bf16, f32, f64 = T.f16, T.bf16, T.f32, T.f64


def ptr(t):
    return T.PointerType(t)


def tensor(shape, t):
    return T.tensor_of(tuple(shape), t)


class Module:
    def __init__(self):
        self.module = make_module()
        self.b = Builder(module_body(self.module))

    def kernel(self, name, arg_types, results=(), public=True):
        return Kernel(self, name, arg_types, results, public)


class Kernel:
    """Builds one tt.func; methods return IR values. `loc` follows the test's source lines."""

    FILE = "test_kernel.py"

    def __init__(self, mod: Module, name: str, arg_types, results=(), public=True):
        self.mod = mod
        self.module = mod.module
        self.name = name
        b = self.b = mod.b
        fty = T.FunctionType(tuple(arg_types), tuple(results))
        mb = module_body(mod.module)
        b.set_insertion_point_to_end(mb)
        self.func = b.create("tt.func", [], [], {
            "sym_name": StringAttr(name), "function_type": TypeAttr(fty),
            "sym_visibility": StringAttr("public" if public else "private")}, num_regions=1)
        blk = self.func.regions[0].add_block()
        self.args = [blk.add_argument(t) for t in arg_types]
        b.set_insertion_point_to_end(blk)
        self.b.loc = Location(self.FILE, 1, 1)

    # -- locations
    def at(self, line: int):
        self.b.loc = Location(self.FILE, line, 1)
        return self

    # -- generic
    def op(self, name, operands=(), rtypes=(), attrs=None, regions=0):
        return self.b.create(name, list(operands), list(rtypes), attrs or {}, regions)

    def op1(self, name, operands, rtype, **attrs):
        return self.b.create1(name, list(operands), rtype, attrs)

    def const(self, v, t):
        return self.b.constant(v, t)

    def bin(self, name, a, c):
        return self.op1(name if "." in name else "arith." + name, [a, c], a.type)

    def un(self, name, a, rtype=None):
        return self.op1(name, [a], rtype or a.type)

    # -- tt
    def pid(self, axis=0):
        return self.op1("tt.get_program_id", [], i32, axis=i32_attr(axis))

    def nprog(self, axis=0):
        return self.op1("tt.get_num_programs", [], i32, axis=i32_attr(axis))

    def arange(self, start, end):
        return self.op1("tt.make_range", [], tensor([end - start], i32),
                        start=i32_attr(start), end=i32_attr(end))

    def splat(self, x, shape):
        return self.op1("tt.splat", [x], tensor(shape, x.type))

    def bcast(self, x, shape):
        return self.op1("tt.broadcast", [x], tensor(shape, x.type.element_type))

    def expand(self, x, axis):
        s = list(x.type.shape)
        s.insert(axis, 1)
        return self.op1("tt.expand_dims", [x], tensor(s, x.type.element_type),
                        axis=i32_attr(axis))

    def addptr(self, p, off):
        if off.type.is_tensor and not p.type.is_tensor:
            p = self.splat(p, off.type.shape)
        return self.op1("tt.addptr", [p, off], p.type)

    def load(self, p, mask=None, other=None):
        ops = [p] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        rt = T.with_element(p.type, p.type.element_type.pointee)
        return self.op1("tt.load", ops, rt, cache=i32_attr(1), evict=i32_attr(1),
                        isVolatile=BoolAttr(False))

    def store(self, p, v, mask=None):
        ops = [p, v] + ([mask] if mask is not None else [])
        return self.op("tt.store", ops, [], {"cache": i32_attr(1), "evict": i32_attr(1)})

    def cmpi(self, pred, a, c):
        return self.op1("arith.cmpi", [a, c], T.with_element(a.type, i1),
                        predicate=IntegerAttr(CMPI_PREDICATES.index(pred), i64))

    def cmpf(self, pred, a, c):
        return self.op1("arith.cmpf", [a, c], T.with_element(a.type, i1),
                        predicate=IntegerAttr(CMPF_PREDICATES.index(pred), i64))

    def select(self, c, a, b2):
        return self.op1("arith.select", [c, a, b2], a.type)

    def cast(self, name, x, elt):
        return self.op1(name, [x], T.with_element(x.type, elt))

    def atomic(self, kind, p, v, mask=None):
        ops = [p, v] + ([mask] if mask is not None else [])
        return self.op1("tt.atomic_rmw", ops, v.type, atomic_rmw_op=i32_attr(
            ATOMIC_RMW_OPS[kind]), sem=i32_attr(4), scope=i32_attr(1))

    def cas(self, p, cmp, v):
        return self.op1("tt.atomic_cas", [p, cmp, v], v.type, sem=i32_attr(4),
                        scope=i32_attr(1))

    def dot(self, a, c, acc, precision=0):
        return self.op1("tt.dot", [a, c, acc], acc.type, inputPrecision=i32_attr(precision),
                        maxNumImpreciseAcc=i32_attr(0))

    def trans(self, x, order):
        s = [x.type.shape[o] for o in order]
        return self.op1("tt.trans", [x], tensor(s, x.type.element_type),
                        order=DenseArrayAttr(i32, tuple(order)))

    def reshape(self, x, shape):
        return self.op1("tt.reshape", [x], tensor(shape, x.type.element_type),
                        allow_reorder=BoolAttr(False))

    # -- regions
    def _region_block(self, op, idx, arg_types):
        blk = op.regions[idx].add_block(Block(arg_types))
        return blk

    def _in_block(self, blk, fn, *args):
        ip = self.b.get_insertion_point()
        self.b.set_insertion_point_to_end(blk)
        out = fn(*args)
        self.b.restore_insertion_point(ip)
        return out

    def reduce(self, xs, axis, combine: Callable):
        """combine(kernel, accs, curs) -> list of values (built inside the region)."""
        xs = list(xs)
        rts = []
        for x in xs:
            s = list(x.type.shape)
            del s[axis]
            rts.append(T.tensor_of(s, x.type.element_type))
        op = self.op("tt.reduce", xs, rts, {"axis": i32_attr(axis)}, regions=1)
        elts = [x.type.element_type for x in xs]
        blk = self._region_block(op, 0, elts + elts)
        n = len(xs)

        def body():
            outs = combine(self, blk.args[:n], blk.args[n:])
            self.op("tt.reduce.return", outs)
        self._in_block(blk, body)
        return op.results if n > 1 else op.results[0]

    def scan(self, xs, axis, combine: Callable, reverse=False):
        xs = list(xs)
        op = self.op("tt.scan", xs, [x.type for x in xs],
                     {"axis": i32_attr(axis), "reverse": BoolAttr(reverse)}, regions=1)
        elts = [x.type.element_type for x in xs]
        blk = self._region_block(op, 0, elts + elts)
        n = len(xs)

        def body():
            outs = combine(self, blk.args[:n], blk.args[n:])
            self.op("tt.scan.return", outs)
        self._in_block(blk, body)
        return op.results if n > 1 else op.results[0]

    def for_(self, lb, ub, step, inits: Sequence, body: Callable):
        """body(kernel, iv, *iter_args) -> list of yielded values."""
        op = self.op("scf.for", [lb, ub, step] + list(inits), [v.type for v in inits],
                     regions=1)
        blk = self._region_block(op, 0, [lb.type] + [v.type for v in inits])

        def b2():
            outs = body(self, *blk.args)
            self.op("scf.yield", outs or [])
        self._in_block(blk, b2)
        return op.results

    def if_(self, cond, then: Callable, else_: Callable = None, rtypes=()):
        op = self.op("scf.if", [cond], list(rtypes), regions=2)
        tb = self._region_block(op, 0, [])
        self._in_block(tb, lambda: self.op("scf.yield", then(self) or []))
        if else_ is not None or rtypes:
            eb = self._region_block(op, 1, [])
            self._in_block(eb, lambda: self.op("scf.yield", (else_(self) if else_ else [])
                                               or []))
        return op.results

    def while_(self, inits, before: Callable, after: Callable, fwd_types=None):
        """before(kernel, *carried) -> (cond, [forwarded]); after(kernel, *fwd) -> [carried]."""
        fwd_types = fwd_types or [v.type for v in inits]
        op = self.op("scf.while", list(inits), list(fwd_types), regions=2)
        bb = self._region_block(op, 0, [v.type for v in inits])

        def b1():
            cond, fwd = before(self, *bb.args)
            self.op("scf.condition", [cond] + list(fwd))
        self._in_block(bb, b1)
        ab = self._region_block(op, 1, list(fwd_types))
        self._in_block(ab, lambda: self.op("scf.yield", after(self, *ab.args)))
        return op.results

    def call(self, callee: str, args, rtypes=()):
        return self.op("tt.call", list(args), list(rtypes), {"callee": SymbolRefAttr(callee)})

    def ret(self, vals=()):
        self.op("tt.return", list(vals))
        return self


def simple_kernel(name, arg_types, build: Callable):
    """A module with one kernel whose body `build(k, *args)` fills (tt.return appended)."""
    m = Module()
    k = m.kernel(name, arg_types)
    build(k, *k.args)
    k.ret()
    return m.module


__all__ = ["Module", "Kernel", "simple_kernel", "ptr", "tensor", "i1", "i8", "i16", "i32",
           "i64", "f16", "bf16", "f32", "f64", "ArrayAttr", "DictAttr"]


# ------------------------------------------------------------------ elementwise harness
def run_elementwise(opname, in_elts, out_elt, inputs, attrs=None, programs=3, shape=None):
    """Build and launch `out = opname(*loads)` over `programs` programs, each handling
    `n` elements (n = len(inputs[0]) // programs; inputs are numpy arrays in *memory*
    layout: bf16 as uint16 bits, fp8 as uint8). Returns the output array (memory layout).
    `shape` (a 2-D (r, c)) reshapes each program's block to exercise rank-2 values."""
    import numpy as np
    from tritium.backends.cpu.dtypes import storage_dtype
    from tritium.backends.cpu.launch import launch
    total = len(inputs[0])
    n = total // programs
    assert n * programs == total
    out = np.zeros(total, storage_dtype(out_elt))

    def build(k, *args):
        pid = k.pid(0)
        off = k.bin("addi", k.splat(k.bin("muli", pid, k.const(n, i32)), [n]), k.arange(0, n))
        vals = [k.load(k.addptr(a, off)) for a in args[:-1]]
        if shape is not None:
            vals = [k.reshape(v, shape) for v in vals]
        rt = T.with_element(vals[0].type, out_elt)
        r = k.b.create1(opname, vals, rt, attrs or {})
        if shape is not None:
            r = k.reshape(r, [n])
        k.store(k.addptr(args[-1], off), r)
    m = simple_kernel("ew", [ptr(t) for t in in_elts] + [ptr(out_elt)], build)
    launch(m, "ew", (programs,), list(inputs) + [out])
    return out
