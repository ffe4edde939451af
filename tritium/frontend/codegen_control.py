"""Control flow for the code generator: if/else, conditional expressions, for, while.

Everything stays structured (`scf.if`, `scf.for`, `scf.while`). An early `return` inside an
`if` is folded into structure too: the statements after the `if` are moved into whichever
branch does not return, and returns become `scf.yield`s of the function's results — so no
CFG dialect is needed and every backend sees only structured control flow.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List

from .. import language
from ..ir.attrs import OpaqueAttr
from ..ir.core import Block
from ..ir.ops import LICM_DISABLED, LOOP_ANNOTATION
from ..language.core import _unwrap_if_constexpr, aggregate_value, constexpr, tensor


class _ContainsReturn(ast.NodeVisitor):
    def __init__(self):
        self.found = False

    def visit_Return(self, node):
        self.found = True

    def visit_FunctionDef(self, node):  # nested defs are rejected elsewhere
        pass


def contains_return(stmts) -> bool:
    v = _ContainsReturn()
    for s in stmts if isinstance(stmts, list) else [stmts]:
        v.visit(s)
    return v.found


def always_returns(stmts: List[ast.stmt]) -> bool:
    """True when every path through `stmts` ends in a return (syntactically)."""
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and s.orelse and always_returns(s.body) and always_returns(s.orelse):
            return True
    return False


def _drop_block(block: Block) -> None:
    """Discard a dry-run block: unhook its ops from the use-lists of outside values."""
    for op in list(block):
        op.drop_all_references()


class ControlFlowMixin:
    # ------------------------------------------------------------------ statement lists
    def visit_compound_statement(self, stmts: List[ast.stmt]) -> bool:
        """Visit statements; returns True when the list ended with a return."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If) and contains_return(stmt):
                cond = self.visit(stmt.test)
                rest = stmts[i + 1:]
                if not isinstance(cond, tensor):
                    taken = stmt.body if _unwrap_if_constexpr(cond) else stmt.orelse
                    return self.visit_compound_statement(list(taken) + list(rest))
                if self.scf_stack:
                    raise self._unsupported(
                        stmt, "Cannot have `return` statements inside `while` or `for` "
                        "statements in triton (note that this also applies to `return` "
                        "statements that are inside functions transitively called from within "
                        "`while`/`for` statements)")
                self.visit_if_with_return(stmt, cond, rest)
                return True
            self.visit(stmt)
            if isinstance(stmt, ast.Return):
                return True
        return False

    # ------------------------------------------------------------------ if
    def _cond_to_i1(self, cond: tensor) -> tensor:
        if cond.type.is_block():
            shape = [_unwrap_if_constexpr(d) for d in cond.type.shape]
            if any(d != 1 for d in shape):
                raise ValueError("the condition of `if` must be a scalar, got a block of shape "
                                 f"{shape} (the truth value of a tensor with more than one "
                                 "value is ambiguous)")
            # As upstream: a one-element block is unsplatted, with a warning.
            import warnings
            from ..language.builtins_misc import _unsplat
            warnings.warn("If conditional called with multidimensional Tensor instead of "
                          "scalar; please use `.item()`")
            cond = _unsplat(cond, _semantic=self.semantic, _generator=self)
        return cond if cond.dtype.is_int1() else self.semantic.cast(cond, language.int1)

    def visit_If(self, node: ast.If):
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            taken = node.body if _unwrap_if_constexpr(cond) else node.orelse
            for stmt in taken:
                self.visit(stmt)
            return
        self._emit_scf_if(self._cond_to_i1(cond), node.body, node.orelse)

    def _visit_branch(self, stmts, liveins) -> (Block, Dict[str, Any]):
        block = Block()
        self.lscope = dict(liveins)
        self.local_defs = {}
        self.builder.set_insertion_point_to_end(block)
        for stmt in stmts:
            self.visit(stmt)
        return block, self.local_defs

    def _emit_scf_if(self, cond: tensor, body, orelse):
        liveins, ip = dict(self.lscope), self.builder.get_insertion_point()
        outer_defs = self.local_defs
        then_block, then_defs = self._visit_branch(body, liveins)
        else_block, else_defs = self._visit_branch(orelse, liveins)
        names = []
        for name in liveins:
            for defs, which in ((then_defs, "then"), (else_defs, "else")):
                if name in defs and not _same_type(defs[name], liveins[name]):
                    raise TypeError(f"initial value for `{name}` is of type {_describe(liveins[name])}, "
                                    f"but the {which} block redefines it as {_describe(defs[name])}")
            if name in then_defs or name in else_defs:
                names.append(name)
                then_defs.setdefault(name, liveins[name])
                else_defs.setdefault(name, liveins[name])
        for name in sorted(then_defs.keys() & else_defs.keys()):
            if name in names:
                continue
            if not _same_type(then_defs[name], else_defs[name]):
                raise TypeError(f"Mismatched type for {name} between then block "
                                f"({_describe(then_defs[name])}) and else block "
                                f"({_describe(else_defs[name])})")
            names.append(name)
        names = [n for n in names if not _is_compile_time(then_defs[n]) or
                 not _is_compile_time(else_defs[n])]
        then_vals = [self._as_runtime(then_defs[n], then_block) for n in names]
        else_vals = [self._as_runtime(else_defs[n], else_block) for n in names]
        from .codegen import flatten_values, unflatten_values
        then_h, else_h = flatten_values(then_vals), flatten_values(else_vals)
        self.builder.restore_insertion_point(ip)
        if_op = self.builder.create("scf.if", [cond.handle], [h.type for h in then_h],
                                    num_regions=2)
        if_op.regions[0].add_block(then_block)
        if_op.regions[1].add_block(else_block)
        # Every region block ends in its terminator, even when it yields nothing (MLIR
        # leaves that one implicit in the text; the printer elides it the same way).
        with self.builder.at_end(then_block):
            self.builder.create("scf.yield", then_h)
        with self.builder.at_end(else_block):
            self.builder.create("scf.yield", else_h)
        self.lscope, self.local_defs = dict(liveins), outer_defs
        for name, value in zip(names, unflatten_values(if_op.results, then_vals)):
            self.set_value(name, value)
        for name in set(then_defs) | set(else_defs):  # compile-time values agreed on both sides
            if name not in names and name in then_defs and name in else_defs:
                self.set_value(name, then_defs[name])

    def _as_runtime(self, value, block):
        if isinstance(value, constexpr):
            with self.builder.at_end(block):
                return self.semantic.to_tensor(_unwrap_if_constexpr(value))
        return value

    def visit_if_with_return(self, node: ast.If, cond: tensor, rest: List[ast.stmt]):
        """`if c: ...return...` followed by `rest`: both branches become complete paths to
        the function's end, and the scf.if yields the returned values."""
        cond = self._cond_to_i1(cond)
        then_stmts = list(node.body) + ([] if always_returns(node.body) else list(rest))
        else_stmts = list(node.orelse) + ([] if always_returns(node.orelse) else list(rest))
        liveins, ip = dict(self.lscope), self.builder.get_insertion_point()
        outer_mode = self.return_mode
        blocks = []
        for stmts in (then_stmts, else_stmts):
            block = Block()
            self.lscope, self.local_defs = dict(liveins), {}
            self.builder.set_insertion_point_to_end(block)
            self.return_mode = []
            if not self.visit_compound_statement(stmts):
                self.emit_return(None, node, implicit=True)
            blocks.append((block, self.return_mode[-1]))
        self.return_mode = outer_mode
        (then_block, then_h), (else_block, else_h) = blocks
        if not then_h and else_h and then_block.terminator in self.implicit_yields:
            # The then path ended without `return` before the type was known.
            then_h = _poison_yield(self.builder, then_block, else_h)
        if [h.type for h in then_h] != [h.type for h in else_h]:
            raise TypeError("Return type mismatch: "
                            f"{', '.join(str(h.type) for h in then_h) or 'void'} and "
                            f"{', '.join(str(h.type) for h in else_h) or 'void'} "
                            "(the two branches of an `if` return different types)")
        self.builder.restore_insertion_point(ip)
        if_op = self.builder.create("scf.if", [cond.handle], [h.type for h in then_h], num_regions=2)
        if_op.regions[0].add_block(then_block)
        if_op.regions[1].add_block(else_block)
        handles = list(if_op.results)
        self.lscope = dict(liveins)
        if self.return_mode is not None:
            self.return_mode.append(handles)
            self.builder.create("scf.yield", handles)
        else:
            self.builder.create("tt.return", handles)

    def visit_ifexp_tensor(self, node: ast.IfExp, cond: tensor):
        cond = self._cond_to_i1(cond)
        ip = self.builder.get_insertion_point()
        values = []
        blocks = []
        for expr in (node.body, node.orelse):
            block = Block()
            self.builder.set_insertion_point_to_end(block)
            v = self.visit(expr)
            if _is_void(v):  # `tl.store(...) if c else tl.store(...)`: a statement
                v = None
            elif not isinstance(v, tensor):
                v = self.semantic.to_tensor(_unwrap_if_constexpr(v))
            values.append(v)
            blocks.append(block)
        if values[0] is None and values[1] is None:
            self.builder.restore_insertion_point(ip)
            if_op = self.builder.create("scf.if", [cond.handle], [], num_regions=2)
            for region, block in zip(if_op.regions, blocks):
                region.add_block(block)
                with self.builder.at_end(block):
                    self.builder.create("scf.yield", [])
            return None
        if values[0] is None or values[1] is None:
            raise TypeError("Ternary expression with dynamic condition has one branch without "
                            "a value")
        if values[0].type != values[1].type:
            raise TypeError(f"Ternary expression with dynamic condition has inconsistent types "
                            f"{values[0].type} and {values[1].type}")
        self.builder.restore_insertion_point(ip)
        if_op = self.builder.create("scf.if", [cond.handle], [values[0].handle.type], num_regions=2)
        for region, block, v in zip(if_op.regions, blocks, values):
            region.add_block(block)
            with self.builder.at_end(block):
                self.builder.create("scf.yield", [v.handle])
        return tensor(if_op.results[0], values[0].type)

    # ------------------------------------------------------------------ loops
    def _loop_carried(self, liveins, defs):
        names = []
        for name, loop_val in defs.items():
            if name not in liveins:
                continue
            live_val = liveins[name]
            if isinstance(live_val, constexpr) and isinstance(loop_val, constexpr) and \
                    live_val.value == loop_val.value:
                continue
            if not _same_type(live_val, loop_val):
                raise TypeError(f"Loop-carried variable {name} has initial type "
                                f"{_describe(live_val)} but is re-assigned to "
                                f"{_describe(loop_val)} in loop! Please make sure that the type "
                                "stays consistent.")
            names.append(name)
        return names

    def _bind_jump_flags(self, node):
        """Rewrite `break`/`continue` in this loop's body (loop_jumps.py); the flags start
        False before the loop, as i1 values the loop carries."""
        from .loop_jumps import rewrite_loop
        loop, names = rewrite_loop(node)
        if names is not None:
            if node.orelse:
                raise self._unsupported(node, "a loop with `break` or `continue` cannot have an `else`")
            true, false = self.semantic.to_tensor(True), self.semantic.to_tensor(False)
            self.lscope.update({names.true: true, names.false: false,
                                names.brk: false, names.skip: false})
        return loop

    def visit_For(self, node: ast.For):
        node = self._bind_jump_flags(node)
        if node.orelse:
            raise self._unsupported(node, "for ... else is not supported")
        if not isinstance(node.iter, ast.Call):
            raise self._unsupported(node.iter, "Only `range` and `static_range` iterators are "
                                    "currently supported")
        iterator_cls = _unwrap_if_constexpr(self.visit(node.iter.func))
        args = [self.visit(a) for a in node.iter.args]
        kwargs = dict(self.visit(k) for k in node.iter.keywords)
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node.target, "the loop variable must be a single name")
        if iterator_cls is language.static_range:
            it = iterator_cls(*args, **kwargs)
            for i in range(_unwrap_if_constexpr(it.start), _unwrap_if_constexpr(it.end),
                           _unwrap_if_constexpr(it.step)):
                self.lscope[node.target.id] = constexpr(i)
                for stmt in node.body:
                    self.visit(stmt)
            return
        attrs = {}
        if iterator_cls is language.range:
            it = iterator_cls(*args, **kwargs)
            lb, ub, step = it.start, it.end, it.step
            for key, attr in (("num_stages", "tt.num_stages"),
                              ("loop_unroll_factor", "tt.loop_unroll_factor")):
                v = _unwrap_if_constexpr(getattr(it, key, None))
                if v is not None:
                    attrs[attr] = int(v)
            from ..ir.attrs import UnitAttr
            for key, attr in (("disallow_acc_multi_buffer", "tt.disallow_acc_multi_buffer"),
                              ("flatten", "tt.flatten"), ("warp_specialize", "tt.warp_specialize")):
                if _unwrap_if_constexpr(getattr(it, key, False)):
                    attrs[attr] = UnitAttr()
            if _unwrap_if_constexpr(it.disable_licm):
                attrs[LOOP_ANNOTATION] = OpaqueAttr(LICM_DISABLED)
        elif iterator_cls is range:
            if kwargs:
                raise TypeError("range() takes no keyword arguments")
            if len(args) == 1:
                lb, ub, step = constexpr(0), args[0], constexpr(1)
            else:
                lb, ub = args[0], args[1]
                step = args[2] if len(args) > 2 else constexpr(1)
        else:
            raise self._unsupported(node.iter, "Only `range` and `static_range` iterators are "
                                    "currently supported")
        self._emit_scf_for(node, lb, ub, step, attrs)

    def _emit_scf_for(self, node, lb, ub, step, attrs):
        negative = isinstance(step, constexpr) and _unwrap_if_constexpr(step) < 0
        if isinstance(step, constexpr) and _unwrap_if_constexpr(step) == 0:
            raise ValueError("range() arg 3 must not be zero")
        if negative:
            step = constexpr(-_unwrap_if_constexpr(step))
            lb, ub = ub, lb
        sem = self.semantic
        lb, ub, step = (sem.to_tensor(_unwrap_if_constexpr(v)) if not isinstance(v, tensor) else v
                        for v in (lb, ub, step))
        for v in (lb, ub, step):
            if not v.dtype.is_int() or v.type.is_block():
                raise TypeError(f"For loop bounds and step must all be ints, are "
                                f"({lb.dtype}, {ub.dtype}, {step.dtype})")
        iv_type = sem.integer_promote_impl(sem.integer_promote_impl(lb.dtype, ub.dtype), step.dtype)
        lb, ub, step = (sem.cast(v, iv_type) for v in (lb, ub, step))
        liveins = dict(self.lscope)
        outer_defs = self.local_defs
        ip = self.builder.get_insertion_point()
        # Dry run: find which names the body reassigns, i.e. the loop-carried values.
        dry = Block()
        iv_placeholder = dry.add_argument(iv_type.to_ir())
        self.builder.set_insertion_point_to_end(dry)
        self.lscope, self.local_defs = dict(liveins), {}
        self.lscope[node.target.id] = tensor(iv_placeholder, iv_type)
        self._visit_loop_body(node)
        names = self._loop_carried(liveins, self.local_defs)
        _drop_block(dry)
        from .codegen import flatten_values, unflatten_values
        init_vals = [self._materialize(liveins[n]) for n in names]
        init_h = flatten_values(init_vals)
        self.builder.restore_insertion_point(ip)
        for_op = self.builder.create("scf.for", [lb.handle, ub.handle, step.handle] + init_h,
                                     [h.type for h in init_h], attributes=attrs, num_regions=1)
        body = for_op.regions[0].add_block()
        iv = body.add_argument(iv_type.to_ir())
        iter_args = [body.add_argument(h.type) for h in init_h]
        self.builder.set_insertion_point_to_end(body)
        self.lscope, self.local_defs = dict(liveins), {}
        for name, v in zip(names, unflatten_values(iter_args, init_vals)):
            self.set_value(name, v)
        iv_value = tensor(iv, iv_type)
        if negative:  # iterate ub-1 ... lb with a positive step: iv' = ub + lb - iv
            iv_value = sem.add(sem.sub(ub, iv_value), lb)
        self.lscope[node.target.id] = iv_value
        self._visit_loop_body(node)
        self._finish_loop(names, init_vals, for_op, ip, liveins, outer_defs)

    def _visit_loop_body(self, node):
        """Visit a loop body (dry run or real); `return` inside it is rejected meanwhile."""
        self.scf_stack.append(node)
        try:
            for stmt in node.body:
                self.visit(stmt)
        finally:
            self.scf_stack.pop()

    def _finish_loop(self, names, init_vals, loop_op, ip, liveins, outer_defs):
        """Yield the carried values, leave the body, and bind the names to the loop results."""
        from .codegen import flatten_values, unflatten_values
        yields = [self._materialize(self.lscope[n]) for n in names]
        self.builder.create("scf.yield", flatten_values(yields))
        self.builder.restore_insertion_point(ip)
        self.lscope, self.local_defs = liveins, outer_defs
        for name, v in zip(names, unflatten_values(loop_op.results, init_vals)):
            self.set_value(name, v)

    def _materialize(self, value):
        if isinstance(value, constexpr):
            return self.semantic.to_tensor(_unwrap_if_constexpr(value))
        return value

    def visit_While(self, node: ast.While):
        node = self._bind_jump_flags(node)
        if node.orelse:
            raise self._unsupported(node, "while ... else is not supported")
        liveins = dict(self.lscope)
        outer_defs = self.local_defs
        ip = self.builder.get_insertion_point()
        dry = Block()
        self.builder.set_insertion_point_to_end(dry)
        self.lscope, self.local_defs = dict(liveins), {}
        self._visit_loop_body(node)
        names = self._loop_carried(liveins, self.local_defs)
        _drop_block(dry)
        from .codegen import flatten_values, unflatten_values
        self.builder.restore_insertion_point(ip)
        init_vals = [self._materialize(liveins[n]) for n in names]
        init_h = flatten_values(init_vals)
        types = [h.type for h in init_h]
        while_op = self.builder.create("scf.while", init_h, types, num_regions=2)
        before = while_op.regions[0].add_block(Block(types))
        after = while_op.regions[1].add_block(Block(types))
        self.builder.set_insertion_point_to_end(before)
        self.lscope, self.local_defs = dict(liveins), {}
        for name, v in zip(names, unflatten_values(before.args, init_vals)):
            self.set_value(name, v)
        cond = self.visit(node.test)
        if isinstance(cond, language.condition):  # hints only: the loop is the same
            if _unwrap_if_constexpr(cond.disable_licm):
                while_op.attributes[LOOP_ANNOTATION] = OpaqueAttr(LICM_DISABLED)
            cond = cond.condition
        if not isinstance(cond, tensor):
            cond = self.semantic.to_tensor(bool(_unwrap_if_constexpr(cond)))
        cond = self._cond_to_i1(cond)
        self.builder.create("scf.condition", [cond.handle] + list(before.args))
        self.builder.set_insertion_point_to_end(after)
        self.lscope, self.local_defs = dict(liveins), {}
        for name, v in zip(names, unflatten_values(after.args, init_vals)):
            self.set_value(name, v)
        self._visit_loop_body(node)
        self._finish_loop(names, init_vals, while_op, ip, liveins, outer_defs)


def _is_compile_time(v) -> bool:
    return not isinstance(v, (tensor, language.tuple, aggregate_value))


def _same_type(a, b) -> bool:
    from .codegen import same_kernel_type
    if isinstance(a, constexpr) or isinstance(b, constexpr):
        if isinstance(a, constexpr) and isinstance(b, constexpr):
            return True
        other = b if isinstance(a, constexpr) else a
        return isinstance(other, tensor) and not other.type.is_block()
    return same_kernel_type(a, b)


def _describe(v) -> str:
    if isinstance(v, tensor):
        return str(v.type)
    return repr(v)


def _is_void(v) -> bool:
    """A statement-like call's result (a store): no value, or a `void` tensor."""
    if v is None:
        return True
    return isinstance(v, tensor) and str(getattr(v, "type", "")) == "void"


def _poison_yield(builder, block, like):
    """Replace `block`'s empty `scf.yield` (a path that returned nothing, generated before
    the function's return type was known) by one yielding `ub.poison` of `like`'s types."""
    block.terminator.erase()
    with builder.at_end(block):
        handles = [builder.create1("ub.poison", [], h.type) for h in like]
        builder.create("scf.yield", handles)
    return handles
