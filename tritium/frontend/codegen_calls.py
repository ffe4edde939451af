"""Calls in kernels: builtins (given `_semantic`), other `@jit` functions (specialised and
emitted once per module as private functions), Python callables on compile-time values, and
the compile-time builtins (`static_assert`, `static_print`, `min`/`max`)."""
from __future__ import annotations

import ast
import inspect
from typing import Any, Dict

from .. import language
from ..runtime import knobs
from ..language.core import (_unwrap_if_constexpr, aggregate_value, base_value, constexpr,
                             is_builtin, tensor)
from ..language.dtypes import dtype
from .errors import CompilationError, CompileTimeAssertionFailure, format_exception_message
from .mangle import mangle_fn


class CallsMixin:
    def visit_keyword(self, node):
        return node.arg, self.visit(node.value)

    def visit_Call(self, node):
        from .jit import JITFunction
        fn = _unwrap_if_constexpr(self.visit(node.func))
        if getattr(node, "_is_unused", False) and getattr(fn, "_must_use_result", False):
            why = fn._must_use_result
            raise CompilationError(self.jit_fn.src, node,
                                   f"The result of {ast.unparse(node.func)} is not being used."
                                   + (f" {why}" if isinstance(why, str) else ""))
        # (a @jit function hashes by its cache_key: no static builtin, no need to ask)
        static = None if isinstance(fn, JITFunction) or not _hashable(fn) else \
            self.STATIC_FUNCTIONS.get(fn)
        if static is not None:
            return static(self, node)
        kws = dict(self.visit(k) for k in node.keywords)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(list(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        if isinstance(fn, JITFunction):
            return self.call_jit_function(fn, args, kws, node)
        if fn in ("min", "max"):
            return self._minmax(fn, args, kws)
        if (hasattr(fn, "__self__") and isinstance(fn.__self__, base_value)) or is_builtin(fn):
            extra = {"_semantic": self.semantic}
            if _accepts(fn, "_generator"):
                extra["_generator"] = self
            try:
                ret = fn(*args, **extra, **kws)
            except Exception as e:
                if isinstance(e, CompilationError) or \
                        knobs.front_end_debugging():
                    raise
                raise CompilationError(self.jit_fn.src, node, format_exception_message(e)) from e
            if isinstance(ret, tuple) and not isinstance(ret, language.tuple):
                ret = language.tuple(list(ret))
            return ret
        if isinstance(fn, type) and issubclass(fn, tuple) and hasattr(fn, "_fields"):
            # A NamedTuple built in the kernel: a `tl.tuple` that keeps the field names.
            values = list(fn(*args, **kws))
            return language.tuple(values, language.tuple_type(
                [getattr(v, "type", None) for v in values], list(fn._fields)))
        if fn in self.builtin_namespace.values() or isinstance(fn, type):
            args = [_unwrap_if_constexpr(a) for a in args]
            kws = {k: _unwrap_if_constexpr(v) for k, v in kws.items()}
        ret = fn(*args, **kws)
        if isinstance(ret, (int, float, bool, str)) and not isinstance(ret, base_value):
            return constexpr(ret)
        return ret

    def _minmax(self, which, args, kws):
        if any(isinstance(a, tensor) for a in args):
            f = language.minimum if which == "min" else language.maximum
            result = args[0]
            for a in args[1:]:
                result = f(result, a, _semantic=self.semantic)
            return result
        values = [_unwrap_if_constexpr(a) for a in args]
        return constexpr(min(*values) if which == "min" else max(*values))

    def call_jit_function(self, fn, args, kwargs, node=None):
        """Specialise `fn` for these argument types and constexprs, emit it once into the
        module as a private function, and call it (`tt.call`; the inliner removes it)."""
        from .codegen import CodeGenerator, flatten_values, unflatten_values
        signature = getattr(fn, "signature", None) or inspect.signature(fn.fn)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())
        arg_types, constants, call_args = [], {}, []
        for i, (v, p) in enumerate(zip(values, fn.params)):
            if isinstance(v, (dtype, int, float, bool, str)) or v is None or callable(v) and \
                    not isinstance(v, tensor):
                v = constexpr(v)
            elif isinstance(v, (language.tuple, tuple, list)) and not _has_runtime(v):
                # A tuple of compile-time values (e.g. a shape) is itself compile-time.
                v = constexpr(tuple(_unwrap_if_constexpr(x) for x in v))
            elif isinstance(v, (language.tuple, tuple, list)):
                # Tensors inside: the callee takes the runtime leaves as parameters, and
                # the compile-time ones as constants keyed by their paths.
                arg_types.append(_tuple_arg_type((i,), v, constants, call_args))
                continue
            # As upstream, a device function's `tl.constexpr` annotation does not make a
            # tensor argument compile-time (tutorial 06 passes offs_m/offs_n so).
            runtime = isinstance(v, (tensor, aggregate_value))
            if isinstance(v, constexpr) or p.is_constexpr and not runtime:
                constants[i] = _unwrap_if_constexpr(v)
                arg_types.append(None)
            elif isinstance(v, tensor):
                arg_types.append(v.type)
                call_args.append(v.handle)
            elif isinstance(v, aggregate_value):
                arg_types.append(v.type)
                call_args.extend(flatten_values([v]))
            else:
                raise TypeError(f"argument {p.name} of {fn.__name__}: unsupported value {v!r}")
        name = mangle_fn(fn.__name__, [t for t in arg_types if t is not None], constants)
        if name not in self.function_ret_types:
            gen = CodeGenerator(fn, self.module, arg_types, constants, {}, name, False,
                                self.function_ret_types, self.options,
                                semantic_cls=type(self.semantic))
            try:
                gen.visit(fn.parse())
            except Exception as e:
                if knobs.front_end_debugging():
                    raise
                inner = str(e) if isinstance(e, CompilationError) else format_exception_message(e)
                raise CompilationError(self.jit_fn.src, node or self.cur_node,
                                       f"in {fn.__name__}:\n{inner}") from e
            self.used_global_vals.update(gen.used_global_vals)
            self.function_ret_types[name] = (gen.ret_type, getattr(gen, "ret_template", None))
        ret_type, template = self.function_ret_types[name]
        result_types = []
        if ret_type is not None and ret_type != language.void:
            result_types = [h.type for h in flatten_values([template])]
        call = self.builder.create("tt.call", call_args, result_types,
                                   {"callee": _symbol(name)})
        if ret_type is None or ret_type == language.void:
            return None
        # (a tuple of compile-time values, even an empty one, has no IR results)
        return unflatten_values(call.results, [template])[0]

    # ------------------------------------------------------------------ compile-time builtins
    def execute_static_assert(self, node):
        args = [self.visit(a) for a in node.args]
        kws = dict(self.visit(k) for k in node.keywords)
        cond = args[0] if args else kws.get("cond")
        msg = args[1] if len(args) > 1 else kws.get("msg", "")
        if isinstance(cond, tensor):
            raise ValueError("`static_assert` requires a constexpr condition; use "
                             "`device_assert` for run-time conditions")
        if not _unwrap_if_constexpr(cond):
            raise CompileTimeAssertionFailure(
                self.jit_fn.src, node, f"static_assert failed: {_unwrap_if_constexpr(msg)}"
                if _unwrap_if_constexpr(msg) else "static_assert failed")
        return None

    def execute_static_print(self, node):
        args = [self.visit(a) for a in node.args]
        # At compile time on every backend (upstream's interpreter prints it at each run).
        print(*[_unwrap_if_constexpr(a) for a in args])
        return None

    def execute_static_range(self, node):
        raise self._unsupported(node, "static_range can only be used as a for-loop iterator")


def _has_runtime(v) -> bool:
    if isinstance(v, (language.tuple, tuple, list)):
        return any(_has_runtime(x) for x in v)
    return isinstance(v, (tensor, aggregate_value))


def _tuple_arg_type(path, v, constants, call_args):
    """`tuple_type` of a tuple argument of a device function (None for compile-time
    elements, recorded in `constants` at their paths); appends its IR values."""
    from .codegen import flatten_values
    types = []
    for j, x in enumerate(v):
        if isinstance(x, (language.tuple, tuple, list)) and _has_runtime(x):
            types.append(_tuple_arg_type(path + (j,), x, constants, call_args))
        elif isinstance(x, (tensor, aggregate_value)):
            types.append(x.type)
            call_args.extend(flatten_values([x]))
        else:
            if isinstance(x, (language.tuple, list)):
                x = tuple(_unwrap_if_constexpr(y) for y in x)
            constants[path + (j,)] = _unwrap_if_constexpr(x)
            types.append(None)
    fields = getattr(getattr(v, "type", None), "fields", None) if isinstance(v, language.tuple) \
        else list(v._fields) if hasattr(v, "_fields") else None
    return language.tuple_type(types, fields if fields and any(fields) else None)


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


_ACCEPTS_CACHE: Dict[Any, bool] = {}


def _accepts(fn, name: str) -> bool:
    key = (getattr(fn, "__func__", fn), name)
    res = _ACCEPTS_CACHE.get(key)
    if res is None:
        try:
            res = name in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            res = False
        _ACCEPTS_CACHE[key] = res
    return res


def _symbol(name: str):
    from ..ir.attrs import SymbolRefAttr
    return SymbolRefAttr(name)


