"""AST → TTIR: walks a `@jit` function's Python AST and emits IR in SSA form.

Expressions evaluate to kernel values (`tl.tensor`, `tl.constexpr`, `tl.tuple`) or to plain
Python objects (modules, dtypes, functions). Typing rules are not here: operators and
builtins go through `TritonSemantic`, the one place that knows them. Control flow lives in
`codegen_control.py`.
"""
from __future__ import annotations

import ast
import copy
import threading
import warnings
from types import ModuleType
from typing import Any, Dict, List, Optional

from .. import language
from ..runtime import knobs
from ..ir import types as T
from ..ir.attrs import ArrayAttr, BoolAttr, DictAttr, StringAttr, TypeAttr, i32_attr
from ..ir.core import Location, Operation
from ..language.core import (_unwrap_if_constexpr, aggregate_value, base_value, constexpr,
                             is_builtin, tensor)
from ..language.dtypes import dtype
from ..language.tensor_descriptor import tensor_descriptor_base_type
from .codegen_calls import CallsMixin
from .codegen_control import ControlFlowMixin
from .errors import CompilationError, UnsupportedLanguageConstruct, format_exception_message


def _is_aggregate_type(ty) -> bool:
    """The type of an `aggregate_value` (several IR values: `ir_types`, `from_handles`)."""
    return isinstance(ty, tensor_descriptor_base_type) or (
        hasattr(ty, "from_handles") and hasattr(ty, "ir_types"))


def _is_triton_value(o) -> bool:
    return isinstance(o, base_value)


def _is_namedtuple(t) -> bool:
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


def flatten_values(values) -> list:
    """IR values behind a (possibly nested) list of kernel values."""
    out = []
    for v in values:
        if isinstance(v, language.tuple):
            out.extend(flatten_values(v.values))
        elif isinstance(v, tensor):
            out.append(v.handle)
        elif isinstance(v, aggregate_value):
            out.extend(v._flatten_ir())
        elif isinstance(v, constexpr) or v is None:
            continue
        else:
            raise TypeError(f"cannot pass {v!r} through control flow")
    return out


def unflatten_values(handles, templates) -> list:
    """Rebuild kernel values of the same structure as `templates` from IR values."""
    it = iter(handles)

    def rebuild(t):
        if isinstance(t, language.tuple):
            return t._with_values([rebuild(x) for x in t.values])
        if isinstance(t, tensor):
            return tensor(next(it), t.type)
        if isinstance(t, aggregate_value):
            return t.type.from_handles([next(it) for _ in t.type.ir_types()])
        return t

    return [rebuild(t) for t in templates]


def same_kernel_type(a, b) -> bool:
    if isinstance(a, language.tuple) and isinstance(b, language.tuple):
        return len(a) == len(b) and all(same_kernel_type(x, y) for x, y in zip(a, b))
    if isinstance(a, (tensor, aggregate_value)) and \
            isinstance(b, (tensor, aggregate_value)):
        return type(a) is type(b) and a.type == b.type
    if isinstance(a, constexpr) and isinstance(b, constexpr):
        return a.value == b.value
    return type(a) is type(b) and a is b


class _Quiet(threading.local):
    depth = 0  # visits in progress on this thread under the DeprecationWarning filter


_quiet = _Quiet()


class CodeGenerator(CallsMixin, ControlFlowMixin, ast.NodeVisitor):
    def __init__(self, jit_fn, module: Operation, arg_types: List[Any], constants: Dict[int, Any],
                 attrs: Dict[int, list], function_name: str, is_kernel: bool,
                 function_ret_types: Dict[str, Any], options=None, semantic_cls=None):
        from ..language.semantic import TritonSemantic
        from ..ir.builder import Builder
        self.jit_fn = jit_fn
        self.module = module
        self.builder = Builder()
        # (Gluon passes its own rules; callees are generated with their caller's)
        self.semantic = (semantic_cls or TritonSemantic)(self.builder, options)
        self.semantic.codegen = self
        self.arg_types = arg_types
        self.constants = constants
        self.attrs = attrs
        self.function_name = function_name
        self.is_kernel = is_kernel
        self.function_ret_types = function_ret_types
        self.options = options
        self.file_name = jit_fn.file_name
        self.begin_line = jit_fn.starting_line_number - 1
        self.gscope = jit_fn.get_global_scope()
        self.lscope: Dict[str, Any] = {}
        self.local_defs: Dict[str, Any] = {}
        self.used_global_vals: Dict[tuple, Any] = {}
        self.scf_stack: List[ast.AST] = []
        self.ret_type = None
        self.cur_node: Optional[ast.AST] = None
        self.fn_op: Optional[Operation] = None
        self.visiting_arg_default_value = False
        self.return_mode = None  # set by control flow when returns become scf.yield
        self.implicit_yields = set()  # empty yields of paths that end without `return`
        self.builtin_namespace = {
            "len": len, "list": list, "range": range, "float": float, "int": int,
            "isinstance": isinstance, "getattr": getattr, "hasattr": hasattr, "bool": bool, "tuple": tuple,
            "enumerate": enumerate, "zip": zip, "abs": abs,
            "print": language.device_print, "min": "min", "max": "max",
        }

    # ------------------------------------------------------------------ scopes
    def set_value(self, name: str, value) -> None:
        self.lscope[name] = value
        self.local_defs[name] = value

    def dereference_name(self, name: str):
        if name in self.lscope:
            return self.lscope[name]
        absent = object()
        value = self.gscope.get(name, absent)
        if value is not absent:
            return self._check_global(name, value)
        if name in self.builtin_namespace:
            return self.builtin_namespace[name]
        import builtins as py_builtins
        if hasattr(py_builtins, name) and name in ("True", "False", "None"):
            return getattr(py_builtins, name)
        raise NameError(f"{name} is not defined")

    def _check_global(self, name: str, value):
        from .jit import JITFunction
        allowed = (
            _is_triton_value(value)
            or isinstance(value, (ModuleType, JITFunction, dtype))
            or is_builtin(value)
            or getattr(value, "__module__", "").startswith(("tritium.language", "triton.language"))
            or _is_namedtuple(type(value)) or _is_namedtuple(value)
            or self.visiting_arg_default_value
            or knobs.allow_non_constexpr_globals()
            or value is None
        )
        if not allowed:
            raise NameError(
                f"Cannot access global variable {name} from within @jit'ed function. Triton "
                "kernels can only access global variables that are instantiated as constexpr "
                "(`x = triton.language.constexpr(42)`). Note that this is different from "
                "annotating a variable as constexpr (`x: triton.language.constexpr = 42`), which "
                "is not supported. Alternatively, set the envvar "
                "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1, but we do not promise to support this "
                "forever.")
        if isinstance(value, (constexpr, dtype)) or not (isinstance(value, (ModuleType, JITFunction))
                                                         or callable(value)):
            # Record where the name lives — the function's live globals (not our merged
            # copy), else its closure cell — with a copy of the value, so a later change
            # shows, a constexpr changed in place too (as upstream).
            snapshot = copy.copy(value) if isinstance(value, constexpr) else value
            live = self.jit_fn.fn.__globals__
            cell = _closure_cells(self.jit_fn.fn).get(name)
            if cell is not None:
                self.used_global_vals[(name, id(cell))] = (snapshot, _CellScope(name, cell))
            elif name in live:
                self.used_global_vals[(name, id(live))] = (snapshot, live)
        return value

    # ------------------------------------------------------------------ visiting
    def visit(self, node):
        if node is None:
            return None
        last_node, last_loc = self.cur_node, self.builder.loc
        if hasattr(node, "lineno") and hasattr(node, "col_offset"):
            self.cur_node = node
            self.builder.loc = Location(self.file_name, self.begin_line + node.lineno,
                                        node.col_offset)
        try:
            if _quiet.depth:
                return super().visit(node)
            # Once per compile, not per node: the filter stays for everything nested (the
            # callees' generators too), and catch_warnings swaps the process-wide filter
            # list, which threads compiling at once would otherwise do thousands of times.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                _quiet.depth += 1
                try:
                    return super().visit(node)
                finally:
                    _quiet.depth -= 1
        except CompilationError:
            raise
        except Exception as e:
            if knobs.front_end_debugging():
                raise
            # (chained as upstream: tools read the original error from `__cause__`)
            raise CompilationError(self.jit_fn.src, self.cur_node or node,
                                   format_exception_message(e)) from e
        finally:
            self.cur_node, self.builder.loc = last_node, last_loc

    def generic_visit(self, node):
        raise self._unsupported(node, f"unsupported AST node type: {type(node).__name__}")

    def _unsupported(self, node, message: str):
        return UnsupportedLanguageConstruct(self.jit_fn.src, node, message)

    # ------------------------------------------------------------------ function
    def visit_Module(self, node):
        for stmt in node.body:
            self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef):
        if self.fn_op is not None:
            raise self._unsupported(node, "nested function definition is not supported.")
        arg_names = [a.arg for a in node.args.args]
        self._bind_defaults(node)
        param_types, param_attrs, params = [], [], []

        def add_param(where, ty):
            """Parameters of one runtime argument (or tuple element at path `where`)."""
            d = tuple((k, i32_attr(v) if isinstance(v, int) and not isinstance(v, bool) else v)
                      for k, v in self.attrs.get(where, []))
            if _is_aggregate_type(ty):  # several parameters (1 + 2 * rank for a descriptor)
                param_types.extend(ty.ir_types())
                param_attrs.extend([DictAttr(d)] + [DictAttr(())] * (len(ty.ir_types()) - 1))
            else:
                param_types.append(ty.to_ir())
                param_attrs.append(DictAttr(d))

        def walk_tuple(path, ty):
            """A tuple argument's runtime leaves become parameters, depth first (as every
            launcher flattens them: backends/params.py)."""
            for j, t in enumerate(ty.types):
                if (path + (j,)) in self.constants:
                    continue
                if isinstance(t, language.tuple_type):
                    walk_tuple(path + (j,), t)
                else:
                    add_param(path + (j,), t)

        for i, name in enumerate(arg_names):
            if i in self.constants:
                self.lscope[name] = constexpr(self.constants[i])
                continue
            ty = self.arg_types[i]
            params.append((name, ty))
            if isinstance(ty, language.tuple_type):
                walk_tuple((i,), ty)
            else:
                add_param(i, ty)
        body_module = self.module.regions[0].entry
        fn_op = Operation("tt.func", [], [], {
            "sym_name": StringAttr(self.function_name),
            "function_type": TypeAttr(T.FunctionType(tuple(param_types), ())),
            "sym_visibility": StringAttr("public" if self.is_kernel else "private"),
            "arg_attrs": ArrayAttr(tuple(param_attrs)),
            "noinline": BoolAttr(bool(getattr(self.jit_fn, "noinline", False))),
        }, num_regions=1, loc=Location(self.file_name, self.begin_line + node.lineno, node.col_offset))
        body_module.append(fn_op)
        self.fn_op = fn_op
        entry = fn_op.regions[0].add_block()

        def value_of(path, ty):
            if len(path) > 1 and path in self.constants:
                return constexpr(self.constants[path])
            if isinstance(ty, language.tuple_type):
                values = [value_of(path + (j,), t) for j, t in enumerate(ty.types)]
                fields = ty.fields if any(ty.fields) else None
                return language.tuple(values, language.tuple_type(
                    [getattr(v, "type", None) for v in values], fields))
            if _is_aggregate_type(ty):
                return ty.from_handles([entry.add_argument(t) for t in ty.ir_types()])
            arg = entry.add_argument(ty.to_ir())
            if len(path) == 1:  # printed `%name` as upstream's TTIR (its NameLoc prefix)
                arg.name_hint = arg_names[path[0]]
            return tensor(arg, ty)

        for i, (name, ty) in enumerate(params):
            self.set_value(name, value_of((arg_names.index(name),), ty))
        self.builder.set_insertion_point_to_end(entry)
        self.local_defs = {}
        returned = self.visit_compound_statement(node.body)
        if not returned:
            self.emit_return(None, node, implicit=True)
        self._finalize_function_type()

    def _bind_defaults(self, node: ast.FunctionDef):
        args = node.args.args
        for i, default in enumerate(node.args.defaults[::-1]):
            arg = args[-i - 1]
            index = len(args) - i - 1
            if index in self.constants or arg.arg in self.lscope:
                continue
            if index < len(self.arg_types) and self.arg_types[index] is not None:
                continue
            self.visiting_arg_default_value = True
            try:
                self.lscope[arg.arg] = constexpr(_unwrap_if_constexpr(self.visit(default)))
            finally:
                self.visiting_arg_default_value = False

    def _finalize_function_type(self):
        ftype = self.fn_op.attr("function_type")
        rets = []
        if self.ret_type is not None and self.ret_type != language.void:
            rets = flatten_values([self.ret_template])
            rets = [v.type for v in rets]
        self.fn_op.attributes["function_type"] = TypeAttr(T.FunctionType(ftype.inputs, tuple(rets)))

    def emit_return(self, value, node, implicit: bool = False):
        """`return x`: a tt.return in the function body; inside a region that an early
        return was folded into, a scf.yield (see ControlFlowMixin.visit_if_with_return).
        `implicit`: the end of a path that returns nothing in a function whose other paths
        return values; as upstream, that path returns `ub.poison` values of their types
        (before any of them is known, it returns nothing and `visit_if_with_return` fills
        in the poison once the other branch has said what the type is)."""
        if implicit and self.ret_type is not None and self.ret_type != language.void:
            handles = [self.builder.create1("ub.poison", [], h.type)
                       for h in flatten_values([self.ret_template])]
            if self.return_mode is not None:
                self.return_mode.append(handles)
                self.builder.create("scf.yield", handles)
            else:
                self.builder.create("tt.return", handles)
            return
        if implicit and self.return_mode is not None and self.ret_type is None:
            self.return_mode.append([])      # type not known yet (see the docstring)
            self.implicit_yields.add(self.builder.create("scf.yield", []))
            return
        value = self._decay_return_value(value)
        if value is None:
            ret_ty = language.void
        else:
            ret_ty = value.type if not isinstance(value, language.tuple) else \
                language.tuple_type([getattr(v, "type", None) for v in value.values])
        if self.ret_type is None:
            self.ret_type = ret_ty
            self.ret_template = value
        elif self.ret_type != ret_ty:
            raise TypeError(f"Return type mismatch: {self.ret_type} and {ret_ty}")  # upstream's words
        handles = flatten_values([value]) if value is not None else []
        if self.return_mode is not None:
            self.return_mode.append(handles)
            self.builder.create("scf.yield", handles)
        else:
            self.builder.create("tt.return", handles)

    def _decay_return_value(self, value):
        if isinstance(_unwrap_if_constexpr(value), (tuple, list)) and \
                not isinstance(value, language.tuple):  # a compile-time tuple (a shape)
            value = language.tuple([constexpr(v) for v in _unwrap_if_constexpr(value)])
        if isinstance(value, language.tuple):
            return value._with_values([self._decay_return_value(v) for v in value.values])
        if isinstance(value, (constexpr, int, float, bool)) and _unwrap_if_constexpr(value) is not None:
            return self.semantic.to_tensor(_unwrap_if_constexpr(value))
        if isinstance(value, constexpr):
            return None
        return value

    def visit_Return(self, node):
        if self.scf_stack:
            raise self._unsupported(node, "Cannot have `return` statements inside `while` or "
                                    "`for` statements in triton.")
        self.emit_return(self.visit(node.value), node)

    # ------------------------------------------------------------------ statements
    def visit_Pass(self, node):
        pass

    def visit_Expr(self, node):
        node.value._is_unused = True  # a call whose result is dropped (see must_use_result)
        self.visit(node.value)

    def visit_AnnAssign(self, node):
        annotation = self.visit(node.annotation)
        target = node.target.id if isinstance(node.target, ast.Name) else None
        if target is None:
            raise self._unsupported(node, "only names can be annotated")
        if annotation is constexpr or _unwrap_if_constexpr(annotation) is constexpr:
            if target in self.lscope:
                raise ValueError(f"{target} is already defined. constexpr cannot be reassigned.")
            value = constexpr(_unwrap_if_constexpr(self.visit(node.value)))
            self.lscope[target] = value
            return value
        value = self.visit(node.value)
        if isinstance(annotation, dtype) and isinstance(value, (tensor, constexpr)):
            value = self.semantic.cast(self.semantic.to_tensor(value), annotation) \
                if not isinstance(value, tensor) else self.semantic.cast(value, annotation)
        return self.assign_target(node.target, self._sanitize_assigned(value))

    def _sanitize_assigned(self, value):
        if isinstance(value, language.tuple):
            return value._with_values([self._sanitize_assigned(v) for v in value.values])
        value = _unwrap_if_constexpr(value)
        if value is not None and not _is_triton_value(value) and \
                not isinstance(value, (dtype, language.tuple)) and \
                isinstance(value, (int, float, bool)):
            value = self.semantic.to_tensor(value)
        elif value is not None and not _is_triton_value(value) and isinstance(value, tuple):
            value = language.tuple([self._sanitize_assigned(v) for v in value])
        return value

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            raise self._unsupported(node, "chained assignment (a = b = c) is not supported")
        value = self._sanitize_assigned(self.visit(node.value))
        self.assign_target(node.targets[0], value)

    def assign_target(self, target, value):
        if isinstance(target, ast.Name):
            self.set_value(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value) if not isinstance(value, language.tuple) else value.values
            if len(values) != len(target.elts):
                raise ValueError(f"cannot unpack {len(values)} values into {len(target.elts)} targets")
            for t, v in zip(target.elts, values):
                self.assign_target(t, v)
        else:
            raise self._unsupported(target, f"assignment to {type(target).__name__} is not supported")

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node, "augmented assignment only works on names")
        lhs = ast.Name(id=node.target.id, ctx=ast.Load())
        ast.copy_location(lhs, node)
        rhs = ast.BinOp(lhs, node.op, node.value)
        ast.copy_location(rhs, node)
        self.set_value(node.target.id, self._sanitize_assigned(self.visit(rhs)))

    def visit_Assert(self, node):
        test = self.visit(node.test)
        msg = _unwrap_if_constexpr(self.visit(node.msg)) if node.msg is not None else ""
        return language.device_assert(test, msg, _semantic=self.semantic)

    for _name in ("Break", "Continue", "Lambda", "With", "AsyncWith", "Try", "Raise", "Global",
                  "Nonlocal", "Delete", "ClassDef", "AsyncFunctionDef", "Yield", "YieldFrom",
                  "Await", "DictComp", "SetComp", "GeneratorExp", "Dict", "Set",
                  "Import", "ImportFrom", "NamedExpr", "Match"):
        def _reject(self, node, _n=_name):
            raise self._unsupported(node, f"unsupported AST node type: {_n}")
        locals()["visit_" + _name] = _reject
    del _name, _reject

    def visit_ListComp(self, node):
        """`[f(v) for v in t]` over a tuple, unrolled at compile time into a `tl.tuple`
        (as upstream: one generator, no conditions)."""
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            raise self._unsupported(node, "only comprehensions with one generator and no "
                                    "condition are supported")
        comp = node.generators[0]
        items = self.visit(comp.iter)
        if isinstance(_unwrap_if_constexpr(items), (tuple, list)) and \
                not isinstance(items, language.tuple):  # a compile-time tuple
            items = language.tuple([constexpr(v) for v in _unwrap_if_constexpr(items)])
        if not isinstance(items, language.tuple):
            raise self._unsupported(node, "only tuple comprehensions are supported")
        saved = dict(self.lscope)
        results = []
        try:
            for item in items:
                self.assign_target(comp.target, item)
                results.append(self.visit(node.elt))
        finally:  # the loop variable does not leak, as in Python
            self.lscope = saved
        return language.tuple(results)

    # ------------------------------------------------------------------ expressions
    def visit_Constant(self, node):
        return constexpr(node.value)

    def visit_Name(self, node):
        return self.dereference_name(node.id)

    def visit_Tuple(self, node):
        return language.tuple([self.visit(e) for e in node.elts])

    visit_List = visit_Tuple

    def visit_Starred(self, node):
        raise self._unsupported(node, "starred expressions are not supported")

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.visit(v.value)
                if not isinstance(val, constexpr) and isinstance(val, base_value):
                    raise UnsupportedLanguageConstruct(
                        self.jit_fn.src, node,
                        "Cannot evaluate f-string containing non-constexpr conversion values, "
                        f"found conversion of type {type(val).__name__}")
                parts.append(format(_unwrap_if_constexpr(val), ast.unparse(v.format_spec)[2:-1]
                                    if v.format_spec else ""))
        return constexpr("".join(parts))

    def visit_Attribute(self, node):
        lhs = self.visit(node.value)
        if isinstance(lhs, tensor) and node.attr == "T":
            return language.trans(lhs, _semantic=self.semantic)
        if isinstance(lhs, constexpr) and node.attr in ("value", "type"):
            return getattr(lhs, node.attr)  # the constexpr's own (as upstream)
        value = getattr(_unwrap_if_constexpr(lhs) if not isinstance(lhs, tensor) else lhs, node.attr)
        return value

    def visit_Subscript(self, node):
        lhs = self.visit(node.value)
        slices = self.visit(node.slice)
        if isinstance(lhs, tensor):
            return lhs.__getitem__(slices, _semantic=self.semantic)
        idx = _unwrap_if_constexpr(slices)
        if isinstance(lhs, language.tuple):
            return lhs[idx]
        return _unwrap_if_constexpr(lhs)[idx]

    def visit_Slice(self, node):
        lower, upper, step = (_unwrap_if_constexpr(self.visit(x)) for x in (node.lower, node.upper, node.step))
        return slice(lower, upper, step)

    _BIN_METHODS = {
        ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.Div: "__truediv__",
        ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__", ast.Pow: "__pow__",
        ast.LShift: "__lshift__", ast.RShift: "__rshift__", ast.BitAnd: "__and__",
        ast.BitOr: "__or__", ast.BitXor: "__xor__",
    }
    _CMP_METHODS = {
        ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__",
        ast.Gt: "__gt__", ast.GtE: "__ge__",
    }

    def apply_binary(self, method: str, lhs, rhs):
        if isinstance(lhs, tensor):
            return getattr(lhs, method)(rhs, _semantic=self.semantic)
        if isinstance(rhs, tensor):
            reflected = {"__eq__": "__eq__", "__ne__": "__ne__", "__lt__": "__gt__",
                         "__le__": "__ge__", "__gt__": "__lt__", "__ge__": "__le__"}.get(
                method, "__r" + method[2:])
            return getattr(rhs, reflected)(lhs, _semantic=self.semantic)
        if not isinstance(lhs, constexpr):
            lhs = constexpr(lhs)
        return getattr(lhs, method)(rhs)

    def visit_BinOp(self, node):
        method = self._BIN_METHODS.get(type(node.op))
        if method is None:
            raise self._unsupported(node, f"AST binary operator '{type(node.op).__name__}' is "
                                    "not (currently) implemented.")
        return self.apply_binary(method, self.visit(node.left), self.visit(node.right))

    def visit_Compare(self, node):
        if len(node.comparators) != 1 or len(node.ops) != 1:
            raise self._unsupported(node, "simultaneous multiple comparison is not supported")
        lhs, rhs = self.visit(node.left), self.visit(node.comparators[0])
        op = type(node.ops[0])
        if op in (ast.Is, ast.IsNot):
            # Identity of the Python objects, at compile time (as upstream): a tensor is
            # never None.
            res = _unwrap_if_constexpr(lhs) is _unwrap_if_constexpr(rhs)
            return constexpr(res if op is ast.Is else not res)
        if op in (ast.In, ast.NotIn):
            res = _unwrap_if_constexpr(lhs) in _unwrap_if_constexpr(rhs)
            return constexpr(res if op is ast.In else not res)
        return self.apply_binary(self._CMP_METHODS[op], lhs, rhs)

    def visit_UnaryOp(self, node):
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, tensor):
                return operand.__not__(_semantic=self.semantic)
            return constexpr(not _unwrap_if_constexpr(operand))
        method = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}[type(node.op)]
        if isinstance(operand, tensor):
            return getattr(operand, method)(_semantic=self.semantic)
        return getattr(constexpr(operand), method)()

    def visit_BoolOp(self, node):
        method = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, tensor):
                # Python short-circuit on compile-time values.
                v = _unwrap_if_constexpr(result)
                if (method == "logical_and" and not v) or (method == "logical_or" and v):
                    return constexpr(v)
                result = self.visit(value_node)
                continue
            rhs = self.visit(value_node)
            result = getattr(result, method)(rhs, _semantic=self.semantic)
        return result

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if isinstance(cond, tensor):
            return self.visit_ifexp_tensor(node, cond)
        return self.visit(node.body if _unwrap_if_constexpr(cond) else node.orelse)


def _install_static_functions():
    CodeGenerator.STATIC_FUNCTIONS = {
        language.static_assert: CodeGenerator.execute_static_assert,
        language.static_print: CodeGenerator.execute_static_print,
    }


_install_static_functions()


def _closure_cells(fn) -> Dict[str, Any]:
    return dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))


class _CellScope:
    """A closure variable, read as the JIT reads a globals dict (`scope.get(name)`)."""

    def __init__(self, name: str, cell):
        self.name, self.cell = name, cell

    def get(self, name, default=None):
        try:
            return self.cell.cell_contents if name == self.name else default
        except ValueError:  # an empty cell
            return default
