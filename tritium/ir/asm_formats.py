"""The custom assembly formats of the common ops, as `printer.py` writes them.

`CustomFormats` is a mixin of `parser.Parser`: one method per format, registered by op name
in `FORMATS`; each reads the text after the op name and returns the new `Operation` (the
parser then reads the trailing `loc(...)` and binds the result names). The formats follow
upstream's: `arith.cmpi slt, %a, %b : i32`, `tt.load %p, %m : tensor<128x!tt.ptr<f32>>`,
`scf.for %iv = %lb to %ub step %s iter_args(%a = %x) -> (f32) : i32 {...}`, ...; upstream
spellings the printer does not use are read too (`cacheModifier = cg`, an omitted
operand-less `scf.yield`, `tt.func` declarations).
"""
from __future__ import annotations

from typing import Callable, Dict, List

from . import types as T
from .attr_parser import OpaqueType, Token, describe
from .attrs import (ArrayAttr, BoolAttr, DictAttr, IntegerAttr, StringAttr, SymbolRefAttr,
                    TypeAttr, i32_attr)
from .core import Operation, Region
from .ops import (CACHE_MODIFIERS, CMPF_PREDICATES, CMPI_PREDICATES, EVICTION_POLICIES,
                  INPUT_PRECISIONS, PROGRAM_AXES, lookup)
from .asm_tensor_ptr import FORMATS as TENSOR_PTR_FORMATS
from .printer import ARROW_OPS, BINARY_OPS, CAST_OPS
from .verify_ops import pointee_shaped

FORMATS: Dict[str, Callable] = {}


def _format(*names: str):
    def register(fn):
        for n in names:
            FORMATS[n] = fn
        return fn
    return register


class CustomFormats:
    """Format methods for `parser.Parser` (which provides `use`, `parse_region`, `make_op`)."""

    @staticmethod
    def _implicit_yield(region: Region) -> None:
        """MLIR elides an operand-less `scf.yield`; put it back."""
        for block in region.blocks[:1]:
            last = block.last
            if last is None or "Terminator" not in lookup(last.name).traits:
                block.append(Operation("scf.yield"))

    @_format("module", "builtin.module")
    def _module(self, name):
        attrs = {}
        if self.peek().kind == "at":
            attrs["sym_name"] = StringAttr(self.next().text[1:])
        if self.accept("attributes"):
            attrs.update(self.parse_dict().value)
        region = self.parse_region(isolated=True, need_block=True)
        return self.make_op("builtin.module", [], [], attrs, [region])

    @_format("tt.func")
    def _func(self, name):
        vis = None
        if self.peek().kind == "id" and self.peek().text in ("public", "private", "nested"):
            vis = self.next().text
        sym = self.expect_kind("at", "a function name")
        self.expect("(", "opening the parameter list")
        declaration = self.peek().kind != "value" and not self.at(")")

        def param():
            t = None if declaration else self.value_tok()
            if t is not None:
                self.expect(":", "after a parameter name")
            ty = self.parse_type()
            d = self.parse_dict() if self.at("{") else DictAttr(())
            self.parse_opt_loc()
            return t, ty, d
        params = self.comma_list(param, ")")
        results = []
        if self.accept("->"):
            def result():
                return self.parse_type(), (self.parse_dict() if self.at("{") else DictAttr(()))
            results = (self.comma_list(result, ")") if self.accept("(")
                       else [(self.parse_type(), DictAttr(()))])
        fname = sym.text[1:]
        if fname.startswith('"'):
            fname = self.string_value(Token("string", fname, sym.start, sym.end))
        ftype = T.FunctionType(tuple(p[1] for p in params), tuple(r[0] for r in results))
        attrs = {"sym_name": StringAttr(fname), "function_type": TypeAttr(ftype)}
        if vis is not None:
            attrs["sym_visibility"] = StringAttr(vis)
        if any(p[2].value for p in params):
            attrs["arg_attrs"] = ArrayAttr(tuple(p[2] for p in params))
        if any(r[1].value for r in results):
            attrs["res_attrs"] = ArrayAttr(tuple(r[1] for r in results))
        if self.accept("attributes"):
            attrs.update(self.parse_dict().value)
        if declaration or not self.at("{"):
            return self.make_op("tt.func", [], [], attrs, [Region()])
        region = self.parse_region(args=[(p[0], p[1]) for p in params], isolated=True)
        return self.make_op("tt.func", [], [], attrs, [region])

    def _attrs_and_type(self):
        """The common tail `{attrs} : type`."""
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        return attrs, self.parse_type()

    def _operands(self, n: int, name: str) -> List[Token]:
        tok = self.peek()
        toks = self.value_list()
        if len(toks) != n:
            raise self.error(f"{name} takes {n} operands, found {len(toks)}", tok)
        return toks

    def _assignments(self) -> list:
        """`(%a = %b, ...)` of scf.for iter_args and scf.while."""
        self.expect("(")

        def pair():
            a = self.value_tok()
            self.expect("=")
            return a, self.value_tok()
        return self.comma_list(pair, ")")

    def _typed_operands(self, toks):
        if not toks:
            return []
        self.expect(":", "before the operand types")
        return [self.use(t, ty) for t, ty in zip(toks, self.type_list(len(toks)))]

    @_format("tt.return", "scf.yield", "tt.reduce.return", "tt.scan.return", "llvm.intr.assume",
             "tt.map_elementwise.return")
    def _return_like(self, name):
        attrs = self.parse_opt_attr_dict()
        toks = self.value_list()
        attrs.update(self.parse_opt_attr_dict())
        return self.make_op(name, self._typed_operands(toks), [], attrs)

    @_format("scf.condition")
    def _condition(self, name):
        self.expect("(")
        cond = self.use(self.value_tok(), T.i1, strict=False)
        self.expect(")")
        attrs = self.parse_opt_attr_dict()
        rest = self._typed_operands(self.value_list())
        return self.make_op(name, [cond] + rest, [], attrs)

    @_format("arith.constant")
    def _constant(self, name):
        attrs = self.parse_opt_attr_dict()
        tok = self.peek()
        value = self.parse_attr()
        if isinstance(value, BoolAttr):
            value = IntegerAttr(int(value.value), T.i1)
        type_ = getattr(value, "type", None)
        if not isinstance(type_, T.Type):
            raise self.error(f"arith.constant needs a typed value, found {value}", tok)
        attrs["value"] = value
        return self.make_op(name, [], [type_], attrs)

    @_format("arith.cmpi", "arith.cmpf")
    def _cmp(self, name):
        table = CMPI_PREDICATES if name == "arith.cmpi" else CMPF_PREDICATES
        tok = self.next()
        if tok.text not in table:
            raise self.error(f"unknown {name} predicate {describe(tok)}", tok)
        self.expect(",")
        a, b = self._operands(2, name)
        attrs, ty = self._attrs_and_type()
        attrs["predicate"] = IntegerAttr(table.index(tok.text), T.i64)
        return self.make_op(name, [self.use(a, ty), self.use(b, ty)],
                            [T.with_element(ty, T.i1)], attrs)

    @_format("arith.select")
    def _select(self, name):
        toks = self._operands(3, name)
        attrs, ty = self._attrs_and_type()
        cond_ty = T.i1
        if self.accept(","):
            cond_ty, ty = ty, self.parse_type()
        ops = [self.use(toks[0], cond_ty), self.use(toks[1], ty), self.use(toks[2], ty)]
        return self.make_op(name, ops, [ty], attrs)

    def _binary(self, name):
        toks = self.value_list()
        attrs, ty = self._attrs_and_type()
        return self.make_op(name, [self.use(t, ty) for t in toks], [ty], attrs)

    def _cast(self, name):
        tok = self.value_tok()
        attrs, src = self._attrs_and_type()
        self.expect("to", f"in {name}")
        return self.make_op(name, [self.use(tok, src)], [self.parse_type()], attrs)

    def _arrow(self, name):
        toks = self.value_list()
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        ins = self.type_list(len(toks))
        self.expect("->", f"in {name}")
        outs = [self.parse_type()]
        while self.accept(","):
            outs.append(self.parse_type())
        return self.make_op(name, [self.use(t, ty) for t, ty in zip(toks, ins)], outs, attrs)

    @_format("tt.get_program_id", "tt.get_num_programs")
    def _program_id(self, name):
        attrs = {}
        tok = self.peek()
        if tok.kind == "id" and tok.text in PROGRAM_AXES:
            attrs["axis"] = i32_attr(PROGRAM_AXES.index(self.next().text))
        more, ty = self._attrs_and_type()
        return self.make_op(name, [], [ty], {**attrs, **more})

    @_format("tt.make_range")
    def _make_range(self, name):
        attrs, ty = self._attrs_and_type()
        return self.make_op(name, [], [ty], attrs)

    @_format("tt.addptr")
    def _addptr(self, name):
        toks = self._operands(2, name)
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        pty, oty = self.type_list(2)
        return self.make_op(name, [self.use(toks[0], pty), self.use(toks[1], oty)], [pty], attrs)

    @_format("tt.load", "tt.store")
    def _memory(self, name):
        start = self.peek()
        toks = self.value_list()
        is_load = name == "tt.load"
        lo, hi = (1, 3) if is_load else (2, 3)
        if not lo <= len(toks) <= hi:
            raise self.error(f"{name} takes {lo} to {hi} operands, found {len(toks)}", start)
        attrs = {}
        while self.at("cacheModifier") or self.at("evictionPolicy"):  # upstream's spelling
            key = self.next().text
            self.expect("=")
            tok = self.next()
            if key == "cacheModifier":
                table, attr = CACHE_MODIFIERS, "cache"
                enum = "" if tok.text == "none" else "." + tok.text
            else:
                table, attr = EVICTION_POLICIES, "evict"
                enum = "" if tok.text == "evict_normal" else tok.text
            if enum not in table:
                raise self.error(f"unknown {key} {describe(tok)}", tok)
            attrs[attr] = i32_attr(table[enum])
        attrs.update(self.parse_opt_attr_dict())
        self.expect(":")
        ptr_tok = self.peek()
        pty = self.parse_type()
        value_ty = pointee_shaped(pty)
        if value_ty is None:
            raise self.error(f"{name} needs a pointer type, found {pty}", ptr_tok)
        mask_ty = T.with_element(pty, T.i1)
        types = [pty, mask_ty, value_ty] if is_load else [pty, value_ty, mask_ty]
        operands = [self.use(toks[0], pty)] + [self.use(t, ty, strict=False)
                                               for t, ty in zip(toks[1:], types[1:])]
        attrs.setdefault("cache", i32_attr(1))
        attrs.setdefault("evict", i32_attr(1))
        if is_load:
            attrs.setdefault("isVolatile", BoolAttr(False))
        return self.make_op(name, operands, [value_ty] if is_load else [], attrs)

    @_format("tt.dot")
    def _dot(self, name):
        toks = [self.value_tok()]
        for _ in range(2):
            self.expect(",", "between tt.dot operands")
            toks.append(self.value_tok())
        attrs = {}
        if self.accept(","):  # `, inputPrecision = tf32`
            self.expect("inputPrecision")
            self.expect("=")
            tok = self.next()
            if tok.text not in INPUT_PRECISIONS:
                raise self.error(f"unknown input precision {describe(tok)}", tok)
            attrs["inputPrecision"] = i32_attr(INPUT_PRECISIONS[tok.text])
        attrs.setdefault("inputPrecision", i32_attr(0))
        more, a = self._attrs_and_type()
        attrs.update(more)
        self.expect("*", "between tt.dot operand types")
        b = self.parse_type()
        self.expect("->")
        d = self.parse_type()
        ops = [self.use(toks[0], a), self.use(toks[1], b), self.use(toks[2], d)]
        return self.make_op(name, ops, [d], attrs)

    @_format("tt.call")
    def _call(self, name):
        callee = self.expect_kind("at", "a callee symbol")
        self.expect("(")
        toks = self.comma_list(self.value_tok, ")")
        attrs = self.parse_opt_attr_dict()
        self.expect(":")
        if not self.at("("):
            raise self.error("expected the callee's function type")
        ftype = self.parse_type()
        if len(ftype.inputs) != len(toks):
            raise self.error(f"tt.call has {len(toks)} operands but its type lists "
                             f"{len(ftype.inputs)}", callee)
        attrs["callee"] = SymbolRefAttr(callee.text[1:])
        return self.make_op(name, [self.use(t, ty) for t, ty in zip(toks, ftype.inputs)],
                            ftype.results, attrs)

    @_format("scf.for")
    def _for(self, name):
        iv = self.value_tok()
        self.expect("=")
        lb = self.value_tok()
        self.expect("to", "in scf.for")
        ub = self.value_tok()
        self.expect("step", "in scf.for")
        step = self.value_tok()
        iters, result_types = [], []
        if self.accept("iter_args"):
            iters = self._assignments()
            self.expect("->", "after iter_args")
            self.expect("(")
            result_types = self.comma_list(self.parse_type, ")")
            if len(result_types) != len(iters):
                raise self.error(f"scf.for has {len(iters)} iter_args but {len(result_types)} "
                                 f"result types", iv)
        ity = self.parse_type() if self.accept(":") else OpaqueType("index")
        operands = [self.use(lb, ity), self.use(ub, ity), self.use(step, ity)]
        operands += [self.use(v, ty) for (_, v), ty in zip(iters, result_types)]
        args = [(iv, ity)] + [(a, ty) for (a, _), ty in zip(iters, result_types)]
        body = self.parse_region(args=args)
        self._implicit_yield(body)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, operands, result_types, attrs, [body])

    @_format("scf.if")
    def _if(self, name):
        cond = self.use(self.value_tok(), T.i1, strict=False)
        result_types = []
        if self.accept("->"):
            self.expect("(")
            result_types = self.comma_list(self.parse_type, ")")
        then = self.parse_region(need_block=True)
        self._implicit_yield(then)
        other = Region()
        if self.accept("else"):
            other = self.parse_region(need_block=True)
            self._implicit_yield(other)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, [cond], result_types, attrs, [then, other])

    @_format("scf.while")
    def _while(self, name):
        inits = self._assignments()
        self.expect(":")
        if not self.at("("):
            raise self.error("expected the scf.while function type")
        ftype = self.parse_type()
        if len(ftype.inputs) != len(inits):
            raise self.error(f"scf.while has {len(inits)} initial values but its type lists "
                             f"{len(ftype.inputs)}")
        operands = [self.use(v, ty) for (_, v), ty in zip(inits, ftype.inputs)]
        before = self.parse_region(args=[(a, ty) for (a, _), ty in zip(inits, ftype.inputs)])
        self.expect("do", "after the scf.while condition region")
        after = self.parse_region(need_block=True)
        self._implicit_yield(after)
        attrs = self.parse_opt_attr_dict()
        return self.make_op(name, operands, ftype.results, attrs, [before, after])


FORMATS.update({n: CustomFormats._binary for n in BINARY_OPS})
FORMATS.update({n: CustomFormats._cast for n in CAST_OPS})
FORMATS.update({n: CustomFormats._arrow for n in ARROW_OPS})
FORMATS.update(TENSOR_PTR_FORMATS)
