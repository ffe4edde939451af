"""`break` and `continue` in `@jit` loops, rewritten into structured control flow.

Upstream rejects both. Here a loop whose body jumps is rewritten (on a copy of its AST) with
two i1 flags the code generator then carries through the loop like any other variable:

    brk: set by `break`; a `for` loop keeps iterating but every later iteration skips its
         whole body, and a `while` loop's condition becomes `not brk and <cond>`;
    skip: set by `break` or `continue`; reset at the top of each iteration.

A jump inside an `if` ends that branch; the statements after the `if` run under
`if not skip:`. Jumps inside nested loops belong to those loops and are rewritten when the
code generator reaches them. Statements after a jump in the same block are unreachable and
dropped, as Python would never run them.
"""
from __future__ import annotations

import ast
import copy
import itertools
from typing import List, Tuple

_counter = itertools.count()


class _FindJump(ast.NodeVisitor):
    def __init__(self):
        self.found = None

    def visit_Break(self, node):
        self.found = self.found or node

    def visit_Continue(self, node):
        self.found = self.found or node

    def visit_For(self, node):  # a nested loop's jumps are its own
        pass

    visit_While = visit_For

    def visit_FunctionDef(self, node):
        pass


def first_jump(stmts) -> ast.stmt:
    finder = _FindJump()
    for s in stmts:
        finder.visit(s)
    return finder.found


def _name(id_: str, ctx) -> ast.Name:
    return ast.Name(id=id_, ctx=ctx)


def _assign(target: str, value: str, where: ast.AST) -> ast.Assign:
    node = ast.Assign(targets=[_name(target, ast.Store())], value=_name(value, ast.Load()))
    return ast.copy_location(node, where)


class JumpNames:
    """The hidden names one rewritten loop uses (not valid Python identifiers users write)."""

    def __init__(self):
        n = next(_counter)
        self.brk, self.skip = f"brk.{n}", f"skip.{n}"
        self.true, self.false = f"true.{n}", f"false.{n}"


def _rewrite(stmts: List[ast.stmt], names: JumpNames) -> List[ast.stmt]:
    out: List[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            out.append(_assign(names.brk, names.true, s))
            out.append(_assign(names.skip, names.true, s))
            return out
        if isinstance(s, ast.Continue):
            out.append(_assign(names.skip, names.true, s))
            return out
        if isinstance(s, ast.If) and first_jump([s]) is not None:
            branch = ast.If(test=s.test, body=_rewrite(s.body, names) or [ast.Pass()],
                            orelse=_rewrite(s.orelse, names))
            out.append(ast.copy_location(branch, s))
            rest = stmts[i + 1:]
            if rest:
                guard = ast.UnaryOp(op=ast.Not(), operand=_name(names.skip, ast.Load()))
                out.append(ast.copy_location(
                    ast.If(test=ast.copy_location(guard, s), body=_rewrite(rest, names),
                           orelse=[]), rest[0]))
            return out
        if first_jump([s]) is not None:
            raise SyntaxError(f"`{type(first_jump([s])).__name__.lower()}` inside "
                              f"`{type(s).__name__}` is not supported")
        out.append(s)
    return out


def rewrite_loop(node) -> Tuple[ast.stmt, JumpNames]:
    """A copy of the `for`/`while` loop `node` without jumps, and the flag names it uses;
    (node, None) when its body has no jump of its own."""
    if first_jump(node.body) is None:
        return node, None
    names = JumpNames()
    loop = copy.copy(node)
    body = [_assign(names.skip, names.false, node.body[0])] + _rewrite(node.body, names)
    if isinstance(node, ast.For):
        # scf.for cannot stop early: once broken, each remaining iteration does nothing.
        not_broken = ast.UnaryOp(op=ast.Not(), operand=_name(names.brk, ast.Load()))
        body = [ast.copy_location(ast.If(test=not_broken, body=body, orelse=[]), node.body[0])]
    loop.body = body
    if isinstance(node, ast.While):
        not_broken = ast.UnaryOp(op=ast.Not(), operand=_name(names.brk, ast.Load()))
        loop.test = ast.copy_location(ast.BoolOp(op=ast.And(), values=[
            ast.copy_location(not_broken, node.test), node.test]), node.test)
    ast.fix_missing_locations(loop)
    return loop, names
