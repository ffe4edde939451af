"""What `compile` compiles: an `ASTSource` (a `@jit` function and one specialisation) or an
`IRSource` (a file of IR at some stage: .ttir, .ttgir, .llir or .ptx)."""
from __future__ import annotations

import hashlib
import os
import re
from typing import Dict

from ..backends.compiler import Language
from .errors import IRSourceError

_POINTER = re.compile(r"!tt\.ptr<(.*)>")


def _index_key(fn, k, what: str):
    """Upstream's keys: `(i,)` tuples, or a parameter's name or index."""
    if isinstance(k, str):
        if k not in fn.arg_names:
            raise KeyError(f"{what}: {fn.__name__} has no parameter {k!r} "
                           f"(parameters: {', '.join(fn.arg_names)})")
        return fn.arg_names.index(k)
    if isinstance(k, tuple):
        if len(k) > 1:  # a path into a tuple argument: (argument, element, ...)
            return (_index_key(fn, k[0], what),) + tuple(int(j) for j in k[1:])
        k = k[0]
    if not isinstance(k, int) or not 0 <= k < len(fn.arg_names):
        raise KeyError(f"{what}: no parameter at index {k!r} of {fn.__name__}")
    return k


def _path(k):
    return k if isinstance(k, tuple) else (k,)


def replace_callables(obj):
    """A specialisation with every `@jit`/constexpr function in it replaced by its
    `cache_key` (upstream's `compute_cache_key`), so keys change when one's source does."""
    if isinstance(obj, (list, tuple)):
        parts = [replace_callables(x) for x in obj]
        if hasattr(obj, "_fields"):
            return type(obj)(*parts)
        return parts if isinstance(obj, list) else tuple(parts)
    if hasattr(obj, "cache_key") and hasattr(obj, "src") and hasattr(obj, "fn"):
        return obj.cache_key
    return obj


def _spec_paths(spec, path, constants, attrs):
    """Upstream's path-keyed constexprs and attributes of one (type, key) specialisation
    (nested for a tuple argument)."""
    ty, key = spec
    if isinstance(ty, tuple):
        for j, (t, k) in enumerate(zip(ty, key)):
            _spec_paths((t, k), path + (j,), constants, attrs)
    elif ty == "constexpr":
        constants[path] = key
    elif key == "D":
        attrs[path] = [["tt.divisibility", 16]]


def _nested_spec(ty, path, constants, attrs):
    """(type, key) of the argument at `path` from a signature and path-keyed constexprs
    and attributes (the inverse of `_spec_paths`)."""
    if path in constants or ty == "constexpr":
        return ("constexpr", constants.get(path))
    if isinstance(ty, tuple):
        parts = [_nested_spec(t, path + (j,), constants, attrs) for j, t in enumerate(ty)]
        make = type(ty) if hasattr(ty, "_fields") else tuple
        args = [p[0] for p in parts], [p[1] for p in parts]
        return (make(*args[0]), make(*args[1])) if make is not tuple else \
            (tuple(args[0]), tuple(args[1]))
    divisible = any(list(a)[:2] == ["tt.divisibility", 16] for a in attrs.get(path, ()))
    return (str(ty), "D" if divisible else "")


class ASTSource:
    """A `@jit` function specialised by `signature` ({param: "*fp32" | "i32" | "constexpr"}
    or a comma-separated string), `constexprs` ({param or (index,): value}) and `attrs`
    ({param or (index,): [["tt.divisibility", 16]]})."""
    ext = "ttir"
    used_global_vals: dict = {}  # {name: (value, globals dict)}, filled by make_ir

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        if not hasattr(fn, "arg_names") or not hasattr(fn, "make_ttir_module"):
            raise TypeError(f"ASTSource needs a @jit function, got {type(fn).__name__}")
        self.fn = fn
        self.name = fn.__name__
        self._set_language()
        if isinstance(signature, str):
            signature = [s.strip() for s in signature.split(",") if s.strip()]
        if isinstance(signature, (list, tuple)):
            signature = dict(zip(fn.arg_names, signature))
        self.signature: Dict[str, str] = {}
        for k, ty in dict(signature).items():
            self.signature[fn.arg_names[_index_key(fn, k, "signature")]] = \
                ty if isinstance(ty, tuple) else str(ty)
        self.constants = {_path(_index_key(fn, k, "constexprs")): v
                          for k, v in (constexprs or {}).items()}
        self.attrs = {_path(_index_key(fn, k, "attrs")): v for k, v in (attrs or {}).items()}
        missing = [n for i, n in enumerate(fn.arg_names)
                   if n not in self.signature and (i,) not in self.constants]
        if missing:
            raise ValueError(f"ASTSource of {self.name}: no type for parameter(s) "
                             f"{', '.join(missing)} in the signature")
        self._spec = None

    @classmethod
    def from_specialization(cls, fn, specialization):
        """The JIT's per-argument `(type, key)` tuples as a source (no re-validation)."""
        self = cls.__new__(cls)
        self.fn, self.name = fn, fn.__name__
        self._set_language()
        self.signature = {n: ty for n, (ty, _) in zip(fn.arg_names, specialization)}
        self.constants, self.attrs = {}, {}
        for i, spec in enumerate(specialization):
            _spec_paths(spec, (i,), self.constants, self.attrs)
        self._spec = tuple(specialization)
        return self

    def _set_language(self) -> None:
        # A Gluon kernel's code generator emits TTGIR: its first stage is "ttgir".
        gluon = getattr(self.fn, "is_gluon", None)
        if callable(gluon) and gluon():
            self.language, self.ext = Language.GLUON, "ttgir"
        else:
            self.language = Language.TRITON

    def specialization(self) -> tuple:
        if self._spec is None:
            self._spec = tuple(
                _nested_spec(self.signature.get(name, "constexpr"), (i,), self.constants,
                             self.attrs) for i, name in enumerate(self.fn.arg_names))
        return self._spec

    def hash(self) -> str:
        key = f"{self.fn.cache_key}-{replace_callables(self.specialization())}"
        return hashlib.sha256(key.encode()).hexdigest()

    def make_ir(self, target, options, codegen_fns=None, module_map=None, context=None):
        """The TTIR module, as upstream's; the globals the kernel read are left in
        `used_global_vals`. The frontend runs here, through the `@jit` function's own hook,
        so the compiler needs no import of the frontend. Given a context of upstream's
        bindings (`triton._C.libtriton.ir.context`, as torch passes), the module comes back
        as those bindings' view of it."""
        if self.language == Language.GLUON:
            module, self.used_global_vals = self.fn.make_ttgir_module(
                self.specialization(), options, _target_name(target, options))
        else:
            module, self.used_global_vals = self.fn.make_ttir_module(self.specialization(),
                                                                     options)
        view = getattr(context, "module_view", None)
        return view(module) if view is not None else module

    def parse_options(self) -> dict:
        return {}


class IRSource:
    """A file of IR at one stage; compiling it runs the stages after that one."""
    language = Language.TRITON

    def __init__(self, path, context=None, backend=None):
        self.path = os.fspath(path)
        self.ext = os.path.splitext(self.path)[1][1:]
        if self.ext not in ("ttir", "ttgir", "llir", "ptx"):
            raise IRSourceError(self.path, f"unknown IR kind '.{self.ext}' (expected .ttir, "
                                ".ttgir, .llir or .ptx)")
        try:
            with open(self.path) as f:
                self.src = f.read()
        except OSError as e:
            raise IRSourceError(self.path, f"cannot be read: {e.strerror or e}") from None
        self.module = None
        if self.ext in ("ttir", "ttgir"):
            self._parse_mlir()
        elif self.ext == "ptx":
            self._parse_ptx()
        else:
            self._parse_llir()

    def _parse_mlir(self):
        from ..ir.lexer import ParseError
        from ..ir.parser import parse_module
        try:
            self.module = parse_module(self.src)
        except ParseError as e:
            raise IRSourceError(self.path, e.problem, e.line, e.col) from None
        funcs = [op for op in self.module.regions[0].entry.ops if op.name == "tt.func"]
        public = [f for f in funcs if f.attr("sym_visibility") != "private"] or funcs
        if not public:
            raise IRSourceError(self.path, "no tt.func in the module")
        fn = public[0]
        # As upstream's: the symbol ("@name"; the kernel's name is without the "@") and the
        # parameters' MLIR types ("*f32", "i32"; "nvTmaDesc" for a TMA descriptor).
        self.name = "@" + fn.attr("sym_name")
        arg_attrs = fn.attr("arg_attrs") or ()
        types = fn.regions[0].entry.args
        self.signature = {i: _type_string(a.type, arg_attrs[i] if i < len(arg_attrs) else None)
                          for i, a in enumerate(types)}

    def _parse_ptx(self):
        m = re.search(r"\.(?:visible|extern)\s+\.(?:entry|func)\s+(\w+)\s*\(([^)]*)\)",
                      self.src, re.S)
        if m is None:
            raise IRSourceError(self.path, "no .entry in the PTX")
        self.name = m.group(1)
        types = re.findall(r"\.param\s+\.(\w+)", m.group(2))
        # PTX keeps no pointer types: pointers are .u64 parameters, passed as addresses.
        self.signature = {i: _PTX_TYPES.get(ty, ty) for i, ty in enumerate(types)}

    def _parse_llir(self):
        m = re.search(r"define\s+(?:[\w()]+\s+)*void\s+@\"?([\w.$]+)\"?\s*\(([^)]*)\)", self.src)
        if m is None:
            raise IRSourceError(self.path, "no kernel `define void @...` in the LLVM IR")
        self.name = m.group(1)
        args = [a.strip().split()[0] for a in m.group(2).split(",") if a.strip()]
        self.signature = {i: _LLVM_TYPES.get(ty, ty) for i, ty in enumerate(args)}

    def hash(self) -> str:
        return hashlib.sha256(self.src.encode()).hexdigest()

    used_global_vals: dict = {}

    def make_ir(self, target, options, codegen_fns=None, module_map=None, context=None):
        return self.module if self.module is not None else self.src

    def parse_options(self) -> dict:
        if self.ext == "ttgir":
            value = self.module.attr("ttg.num-warps")
            if value is None:
                raise IRSourceError(self.path, "the module has no ttg.num-warps attribute")
            return {"num_warps": int(value)}
        return {}


def _target_name(target, options) -> str:
    """A module's `ttg.target`: "cuda:90" (the arch the stages compile for), "cpu"."""
    if target is None or target.backend == "cpu":
        return "cpu"
    return f"{target.backend}:{getattr(options, 'capability', target.arch)}"


def _type_string(ty, attrs=None) -> str:
    """Upstream's `IRSource` signature strings: the MLIR type ("*f32" for `!tt.ptr<f32>`,
    "i32"), "nvTmaDesc" for a parameter with a `tt.nv_tma_desc` attribute (whatever its
    value, as upstream's `get_function_signature`). The launchers take these as the JIT's
    "*fp32" (`backends/params.jit_spelling`)."""
    if attrs is not None and re.search(r"\btt\.nv_tma_desc\b", str(attrs)):
        return "nvTmaDesc"
    text = str(ty)
    m = _POINTER.fullmatch(text)
    if m:
        return "*" + m.group(1).split(",")[0].strip()
    return text
# Parameter types of PTX and LLVM IR as signature strings (what the launchers take).
_PTX_TYPES = {"s8": "i8", "b8": "u8", "s16": "i16", "b16": "u16", "s32": "i32", "b32": "u32",
              "s64": "i64", "b64": "u64", "f32": "fp32", "f64": "fp64"}
_LLVM_TYPES = {"ptr": "*i8", "float": "fp32", "double": "fp64", "half": "fp16",
               "bfloat": "bf16", "i1": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64"}
