"""Print IR as MLIR text that reads like upstream Triton's TTIR/TTGIR.

Common ops use their custom assembly formats (`arith.addi %0, %1 : i32`,
`tt.load %ptr, %mask : tensor<...>`); everything else prints in MLIR's generic form
`"dialect.op"(%a) {attrs} ({regions}) : (types) -> types`, which the parser also reads.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from . import types as T
from .attrs import (DenseElementsAttr, FloatAttr, IntegerAttr, format_float, format_named_attr)
from .core import BlockArgument, Operation, Region, Value, Block
from .attr_parser import mnemonic_alias
from .asm_tensor_ptr import PRINTERS as _TENSOR_PTR_PRINTERS
from .ops import CMPF_PREDICATES, CMPI_PREDICATES, INPUT_PRECISIONS, PROGRAM_AXES

CAST_OPS = {"arith.extsi", "arith.extui", "arith.trunci", "arith.extf", "arith.truncf",
            "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.bitcast",
            "arith.index_cast"}
BINARY_OPS = {n for n in __import__("tritium.ir.ops", fromlist=["OPS"]).OPS
              if n.startswith(("arith.", "math.")) and n not in CAST_OPS and n not in (
                  "arith.constant", "arith.cmpi", "arith.cmpf", "arith.select")}
ARROW_OPS = {"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans",
             "tt.int_to_ptr", "tt.ptr_to_int", "tt.bitcast", "tt.fp_to_fp",
             "ttg.convert_layout", "tt.join", "tt.split", "tt.cat", "tt.histogram"}
INDENT = "  "


class Namer:
    """Assigns SSA names: `%c16_i32`, `%cst`, `%true`, `%0`, `%arg3` as MLIR does."""

    def __init__(self):
        self.names: Dict[Value, str] = {}
        self.used: Dict[str, int] = {}
        self.counter = 0
        self.args = 0

    def _unique(self, base: str) -> str:
        n = self.used.get(base)
        if n is None:
            self.used[base] = 0
            return base
        self.used[base] = n + 1
        return f"{base}_{n}"

    def name_results(self, op: Operation) -> None:
        if not op.results or op.results[0] in self.names:
            return
        hint = _constant_name(op) if op.name == "arith.constant" else None
        if hint is not None:
            self.names[op.results[0]] = "%" + self._unique(hint)
            return
        base = f"%{self.counter}"
        self.counter += 1
        if len(op.results) == 1:
            self.names[op.results[0]] = base
        else:
            for i, r in enumerate(op.results):
                self.names[r] = f"{base}#{i}"

    def name_arg(self, arg: BlockArgument) -> None:
        if arg in self.names:
            return
        hint = arg.name_hint
        if hint is not None and hint.isidentifier() and not _is_reserved_arg_name(hint):
            self.names[arg] = "%" + self._unique(hint)   # a kernel parameter's own name
        else:
            self.names[arg] = f"%arg{self.args}"
        self.args += 1     # unnamed arguments keep their position's number

    def prename(self, op: Operation) -> None:
        """Name `op`'s results and everything nested in the order printing meets them, so
        that a use printed before its definition (graph regions) still has its name."""
        self.name_results(op)
        if op.name != "tt.func":  # a function is named by its own Namer when printed
            self.prename_regions(op)

    def prename_regions(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    self.name_arg(a)
                for o in block:
                    self.prename(o)

    def __call__(self, v: Value) -> str:
        name = self.names.get(v)
        if name is None:  # value from outside what is being printed
            name = f"%<{v.type}>"
        return name

    def result_group(self, op: Operation) -> str:
        first = self.names[op.results[0]]
        if len(op.results) == 1:
            return first
        return f"{first.split('#')[0]}:{len(op.results)}"


def _is_reserved_arg_name(name: str) -> bool:
    """`arg3`, `c1_i32`, `cst`, `true`... are names the printer makes itself; a parameter
    so named keeps the generic `%argN`."""
    return (name.startswith(("arg", "c", "cst")) and name[1:].replace("_", "").isalnum()
            and any(ch.isdigit() for ch in name)) or name in ("cst", "true", "false")


def _constant_name(op: Operation) -> Optional[str]:
    attr = op.attributes.get("value")
    if isinstance(attr, IntegerAttr):
        if attr.type == T.i1:
            return "true" if attr.value else "false"
        v = attr.value
        return f"c{v}_{attr.type}"  # MLIR names negatives `%c-1_i32`
    if isinstance(attr, (FloatAttr, DenseElementsAttr)):
        return "cst"
    return None


class Printer:
    def __init__(self, debug_info: bool = False):
        self.lines: List[str] = []
        self.namer = Namer()
        self.debug_info = debug_info

    # -- entry points
    def print_module(self, module: Operation) -> str:
        from .types import printing
        aliases, uses_smem = collect_encoding_aliases(module, with_smem=True)
        old = printing.encoding_aliases, printing.smem_alias
        printing.encoding_aliases = {enc: name for enc, name in aliases}
        try:
            for enc, name in aliases:
                self.lines.append(f"{name} = {enc}")
            if uses_smem:
                self.lines.append("#smem = #ttg.shared_memory")
                printing.smem_alias = "#smem"
            self.namer.prename(module)
            self.print_op(module, 0)
        finally:
            printing.encoding_aliases, printing.smem_alias = old
        return "\n".join(self.lines) + "\n"

    # -- operations
    def print_op(self, op: Operation, depth: int) -> None:
        self.namer.name_results(op)
        pad = INDENT * depth
        head = f"{self.namer.result_group(op)} = " if op.results else ""
        custom = getattr(self, "_p_" + op.name.replace(".", "_"), None)
        if custom is not None:
            text = custom(op, depth)
        elif op.name in _TENSOR_PTR_PRINTERS:
            text = _TENSOR_PTR_PRINTERS[op.name](self, op)
        elif op.name in BINARY_OPS:
            text = self._binary(op)
        elif op.name in CAST_OPS:
            v = op.operand(0)
            text = f"{op.name} {self.namer(v)}{self._attrs(op)} : {v.type} to {op.results[0].type}"
        elif op.name in ARROW_OPS:
            text = self._arrow(op)
        else:
            text = self._generic(op, depth)
        if self.debug_info and op.name not in ("builtin.module",):
            text += f" loc({op.loc})"
        first, *rest = text.split("\n")
        self.lines.append(pad + head + first)
        self.lines.extend(rest)

    def _attrs(self, op: Operation, elide=()) -> str:
        items = [(k, v) for k, v in sorted(op.attributes.items()) if k not in elide]
        if not items:
            return ""
        return " {" + ", ".join(format_named_attr(k, v) for k, v in items) + "}"

    def _ops(self, op: Operation) -> str:
        return ", ".join(self.namer(v) for v in op.operands)

    def _binary(self, op: Operation) -> str:
        return f"{op.name} {self._ops(op)}{self._attrs(op)} : {op.results[0].type}"

    def _arrow(self, op: Operation) -> str:
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(r.type) for r in op.results)
        return f"{op.name} {self._ops(op)}{self._attrs(op)} : {ins} -> {outs}"

    def _generic(self, op: Operation, depth: int) -> str:
        text = f'"{op.name}"({self._ops(op)})'
        if op.regions:
            text += " (" + ", ".join(self._region(r, depth, print_entry_args=True)
                                     for r in op.regions) + ")"
        text += self._attrs(op)
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(r.type) for r in op.results)
        if len(op.results) == 1:
            text += f" : ({ins}) -> {outs}"
        else:
            text += f" : ({ins}) -> ({outs})"
        return text

    # -- regions
    def _region(self, region: Region, depth: int, print_entry_args: bool) -> str:
        """Text of a region `{ ... }` opening on the current line."""
        saved = self.lines
        self.lines = []
        for i, block in enumerate(region.blocks):
            if i > 0 or (print_entry_args and block.args):
                for a in block.args:
                    self.namer.name_arg(a)
                args = ", ".join(f"{self.namer(a)}: {a.type}" for a in block.args)
                self.lines.append(INDENT * (depth + 1) + f"^bb{i}" + (f"({args})" if args else "") + ":")
            for op in block:
                self.print_op(op, depth + 2 if (print_entry_args and block.args) or i > 0 else depth + 1)
        body = self.lines
        self.lines = saved
        return "{\n" + "\n".join(body) + ("\n" if body else "") + INDENT * depth + "}"

    def _block_body(self, block: Block, depth: int) -> str:
        saved = self.lines
        self.lines = []
        for op in block:
            # MLIR leaves an empty `scf.yield` implicit in scf.for/scf.if bodies; the parser
            # puts it back.
            if op is block.last and op.name == "scf.yield" and not op.operands \
                    and not op.attributes and block.parent_op is not None \
                    and block.parent_op.name in ("scf.for", "scf.if"):
                continue
            self.print_op(op, depth + 1)
        body = self.lines
        self.lines = saved
        return "{\n" + "\n".join(body) + ("\n" if body else "") + INDENT * depth + "}"

    # -- custom formats
    def _p_builtin_module(self, op: Operation, depth: int) -> str:
        attrs = ""
        if op.attributes:
            attrs = " attributes {" + ", ".join(
                format_named_attr(k, v) for k, v in sorted(op.attributes.items())) + "}"
        return f"module{attrs} " + self._block_body(op.regions[0].entry, depth)

    def _p_tt_func(self, op: Operation, depth: int) -> str:
        outer = self.namer
        self.namer = Namer()  # values are numbered per function, as in MLIR
        try:
            return self._func_text(op, depth)
        finally:
            self.namer = outer

    def _func_text(self, op: Operation, depth: int) -> str:
        ftype = op.attr("function_type")
        arg_attrs = op.attr("arg_attrs") or ()
        params = []
        if not op.regions or not op.regions[0].blocks:  # a declaration
            block = None
            for i, t in enumerate(ftype.inputs if ftype is not None else ()):
                params.append(str(t) + (f" {arg_attrs[i]}" if i < len(arg_attrs)
                                        and arg_attrs[i].value else ""))
        else:
            block = op.regions[0].entry
            self.namer.prename_regions(op)
        for i, a in enumerate(block.args if block is not None else ()):
            self.namer.name_arg(a)
            text = f"{self.namer(a)}: {a.type}"
            if i < len(arg_attrs) and arg_attrs[i].value:
                text += " " + str(arg_attrs[i])
            params.append(text)
        vis = op.attr("sym_visibility", "public")
        res = ""
        if ftype is not None and ftype.results:
            res = " -> " + (str(ftype.results[0]) if len(ftype.results) == 1
                            else "(" + ", ".join(str(t) for t in ftype.results) + ")")
        rest = {k: v for k, v in op.attributes.items()
                if k not in ("sym_name", "function_type", "sym_visibility", "arg_attrs")}
        attrs = ""
        if rest:
            attrs = " attributes {" + ", ".join(
                format_named_attr(k, v) for k, v in sorted(rest.items())) + "}"
        head = f"tt.func {vis} @{op.attr('sym_name')}({', '.join(params)}){res}{attrs}"
        return head if block is None else head + " " + self._block_body(block, depth)

    def _typed_operands(self, op: Operation) -> str:
        if not op.operands:
            return ""
        return f" {self._ops(op)} : " + ", ".join(str(v.type) for v in op.operands)

    def _p_tt_return(self, op: Operation, depth: int) -> str:
        # upstream format: attr-dict ($srcs^ `:` type($srcs))?
        return f"tt.return{self._attrs(op)}{self._typed_operands(op)}"

    def _p_scf_yield(self, op: Operation, depth: int) -> str:
        return f"scf.yield{self._attrs(op)}{self._typed_operands(op)}"

    def _p_tt_reduce_return(self, op, depth):
        return f"tt.reduce.return{self._attrs(op)}{self._typed_operands(op)}"

    def _p_tt_scan_return(self, op, depth):
        return f"tt.scan.return{self._attrs(op)}{self._typed_operands(op)}"

    def _p_tt_map_elementwise_return(self, op, depth):
        return f"tt.map_elementwise.return{self._attrs(op)}{self._typed_operands(op)}"

    def _p_llvm_intr_assume(self, op, depth):
        # upstream (LLVM dialect): $cond attr-dict `:` type($cond)
        return f"llvm.intr.assume {self._ops(op)}{self._attrs(op)} : " + ", ".join(
            str(v.type) for v in op.operands)

    def _p_scf_condition(self, op, depth):
        cond, *rest = op.operands
        text = f"scf.condition({self.namer(cond)}){self._attrs(op)}"
        if rest:
            text += " " + ", ".join(self.namer(v) for v in rest) + " : " + ", ".join(
                str(v.type) for v in rest)
        return text

    def _p_arith_constant(self, op, depth):
        attr = op.attributes["value"]
        extra = self._attrs(op, elide=("value",))
        if isinstance(attr, IntegerAttr) and attr.type == T.i1:
            return f"arith.constant{extra} {'true' if attr.value else 'false'}"
        return f"arith.constant{extra} {attr}"

    def _p_arith_cmpi(self, op, depth):
        pred = CMPI_PREDICATES[op.attr("predicate")]
        return f"arith.cmpi {pred}, {self._ops(op)}{self._attrs(op, ('predicate',))} : {op.operand(0).type}"

    def _p_arith_cmpf(self, op, depth):
        pred = CMPF_PREDICATES[op.attr("predicate")]
        return f"arith.cmpf {pred}, {self._ops(op)}{self._attrs(op, ('predicate',))} : {op.operand(0).type}"

    def _p_arith_select(self, op, depth):
        cond = op.operand(0)
        ty = op.results[0].type
        if cond.type == T.i1:
            return f"arith.select {self._ops(op)}{self._attrs(op)} : {ty}"
        return f"arith.select {self._ops(op)}{self._attrs(op)} : {cond.type}, {ty}"

    def _p_tt_get_program_id(self, op, depth):
        return (f"tt.get_program_id {PROGRAM_AXES[op.attr('axis')]}"
                f"{self._attrs(op, ('axis',))} : {op.results[0].type}")

    def _p_tt_get_num_programs(self, op, depth):
        return (f"tt.get_num_programs {PROGRAM_AXES[op.attr('axis')]}"
                f"{self._attrs(op, ('axis',))} : {op.results[0].type}")

    def _p_tt_make_range(self, op, depth):
        return f"tt.make_range{self._attrs(op)} : {op.results[0].type}"

    def _p_tt_addptr(self, op, depth):
        return f"tt.addptr {self._ops(op)}{self._attrs(op)} : {op.operand(0).type}, {op.operand(1).type}"

    def _memory_attrs(self, op):
        # Upstream's format omits the defaults (no cache modifier, normal eviction).
        elide = [k for k, d in (("cache", 1), ("evict", 1), ("isVolatile", False))
                 if op.attr(k, d) == d]
        return self._attrs(op, elide)

    def _p_tt_load(self, op, depth):
        return f"tt.load {self._ops(op)}{self._memory_attrs(op)} : {op.operand(0).type}"

    def _p_tt_store(self, op, depth):
        return f"tt.store {self._ops(op)}{self._memory_attrs(op)} : {op.operand(0).type}"

    def _p_tt_dot(self, op, depth):
        a, b, c = op.operands
        prec = op.attr("inputPrecision", 0)
        name = {v: k for k, v in INPUT_PRECISIONS.items()}[prec]
        return (f"tt.dot {self._ops(op)}, inputPrecision = {name}"
                f"{self._attrs(op, ('inputPrecision',))} : {a.type} * {b.type} -> {op.results[0].type}")

    def _p_tt_call(self, op, depth):
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(r.type) for r in op.results)
        outs = outs if len(op.results) == 1 else f"({outs})"
        return f"tt.call @{op.attr('callee')}({self._ops(op)}){self._attrs(op, ('callee',))} : ({ins}) -> {outs}"

    def _p_scf_for(self, op, depth):
        lb, ub, step, *inits = op.operands
        block = op.regions[0].entry
        for a in block.args:
            self.namer.name_arg(a)
        iv, *iters = block.args
        text = f"scf.for {self.namer(iv)} = {self.namer(lb)} to {self.namer(ub)} step {self.namer(step)}"
        if iters:
            text += " iter_args(" + ", ".join(
                f"{self.namer(a)} = {self.namer(v)}" for a, v in zip(iters, inits)) + ")"
            text += " -> (" + ", ".join(str(r.type) for r in op.results) + ")"
        text += f" : {lb.type} " + self._block_body(block, depth)
        rest = self._attrs(op)
        return text + rest

    def _p_scf_if(self, op, depth):
        text = f"scf.if {self.namer(op.operand(0))}"
        if op.results:
            text += " -> (" + ", ".join(str(r.type) for r in op.results) + ")"
        text += " " + self._block_body(op.regions[0].entry, depth)
        if op.regions[1].blocks and (len(op.regions[1].entry) > 1 or op.results):
            text += " else " + self._block_body(op.regions[1].entry, depth)
        return text + self._attrs(op)

    def _p_scf_while(self, op, depth):
        before, after = op.regions[0].entry, op.regions[1].entry
        for a in before.args:
            self.namer.name_arg(a)
        inits = ", ".join(f"{self.namer(a)} = {self.namer(v)}"
                          for a, v in zip(before.args, op.operands))
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(r.type) for r in op.results)
        text = f"scf.while ({inits}) : ({ins}) -> ({outs}) " + self._block_body(before, depth)
        for a in after.args:
            self.namer.name_arg(a)
        args = ", ".join(f"{self.namer(a)}: {a.type}" for a in after.args)
        saved = self.lines
        self.lines = []
        for o in after:
            self.print_op(o, depth + 2)
        body = self.lines
        self.lines = saved
        pad = INDENT * depth
        text += (f" do {{\n{pad}{INDENT}^bb0({args}):\n" + "\n".join(body)
                 + ("\n" if body else "") + pad + "}")
        return text + self._attrs(op)


def collect_encoding_aliases(module: Operation, with_smem: bool = False):
    """Layouts used in the module, in order of first use, named `#blocked`, `#blocked1`…
    Slices get no alias of their own: they print inline around their parent's."""
    seen = {}
    counters: Dict[str, int] = {}

    def visit_enc(enc):
        if enc in seen:
            return
        parent = getattr(enc, "parent", None)
        if parent is not None and hasattr(enc, "to_text"):
            visit_enc(parent)
            return
        base = getattr(enc, "alias_base", None) or mnemonic_alias(str(enc))
        n = counters.get(base, 0)
        counters[base] = n + 1
        seen[enc] = f"#{base}" + (str(n) if n else "")

    smem = []

    def visit(t):
        if isinstance(t, (T.TensorType, T.MemDescType)) and t.encoding is not None:
            visit_enc(t.encoding)
        if isinstance(t, T.MemDescType):
            smem.append(True)

    for op in module.walk():
        for r in op.results:
            visit(r.type)
        for region in op.regions:
            for b in region.blocks:
                for a in b.args:
                    visit(a.type)
    if with_smem:
        return list(seen.items()), bool(smem)
    return list(seen.items())


def print_module(module: Operation, debug_info: bool = False) -> str:
    return Printer(debug_info).print_module(module)


def print_op(op: Operation, debug_info: bool = False) -> str:
    p = Printer(debug_info)
    # Name the operands that come from outside so the text stays readable.
    for i, v in enumerate(op.operands):
        p.namer.names.setdefault(v, f"%in{i}")
    p.namer.prename(op)
    p.print_op(op, 0)
    return "\n".join(p.lines)


__all__ = ["print_module", "print_op", "Printer", "format_float"]
