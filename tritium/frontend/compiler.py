"""From a `@jit` function and one specialisation to a TTIR module (the `ttir` stage)."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Tuple

from ..ir.core import make_module
from ..language.dtypes import str_to_ty, tuple_type


def split_specialization(specialization) -> Tuple[List[Any], Dict[Any, Any], Dict[Any, list]]:
    """Upstream's (signature, constexprs, attrs) from the JIT's per-argument tuples. A tuple
    argument's type is a `tuple_type` (None where an element is a constexpr); its
    constexprs and attributes are keyed by paths `(i, j, ...)`, the others by index."""
    arg_types, constants, attrs = [], {}, {}
    for i, (ty, key) in enumerate(specialization):
        arg_types.append(_leaf_type((i,), ty, key, constants, attrs))
    return arg_types, constants, attrs


def _leaf_type(path, ty, key, constants, attrs):
    where = path[0] if len(path) == 1 else path
    if isinstance(ty, tuple):
        fields = list(ty._fields) if hasattr(ty, "_fields") else None
        return tuple_type([_leaf_type(path + (j,), t, k, constants, attrs)
                           for j, (t, k) in enumerate(zip(ty, key))], fields)
    if ty == "constexpr":
        constants[where] = key
        return None
    if ty.startswith("tensordesc"):
        if "]," in ty:  # a Gluon host descriptor's type names its shared layout
            from ..experimental.gluon.language.nvidia.hopper.tma import \
                tensordesc_from_signature as gluon_tensordesc
            return gluon_tensordesc(ty)
        from ..language.tensor_descriptor import tensordesc_from_signature
        return tensordesc_from_signature(ty)
    if key == "D":
        attrs[where] = [("tt.divisibility", 16)]
    return str_to_ty(ty)


class _SpecializationProxy(NamedTuple):
    constants: Dict[str, Any]   # parameter name -> value, top-level constexprs only
    signature: Dict[str, Any]   # parameter name -> type string ("constexpr" included)


def kernel_name(fn, specialization) -> str:
    """The kernel's symbol: the function's name, or what `@jit(repr=...)` makes of the
    specialisation (upstream's: the part after the last ".", which must be an identifier)."""
    if getattr(fn, "_repr", None) is None:
        return fn.__name__
    names = fn.arg_names
    proxy = _SpecializationProxy(
        {n: key for n, (ty, key) in zip(names, specialization) if ty == "constexpr"},
        {n: ty for n, (ty, _) in zip(names, specialization)})
    name = str(fn.repr(proxy))
    name = name[name.rfind(".") + 1:]
    if not name.isidentifier():
        raise ValueError(f"{fn.__name__}: repr= gave {name!r}, which is not a valid kernel "
                         "name (letters, digits and underscores, not starting with a digit)")
    return name


def ast_to_ttir(fn, specialization, options=None, semantic_cls=None, module=None):
    """Run the code generator; returns (module, used_global_vals). `semantic_cls` is the
    language's rules (Gluon's emit TTGIR into a `module` that already has its attributes)."""
    from .codegen import CodeGenerator
    arg_types, constants, attrs = split_specialization(specialization)
    if module is None:
        module = make_module()
    gen = CodeGenerator(fn, module, arg_types, constants, attrs, kernel_name(fn, specialization),
                        True, {}, options, semantic_cls=semantic_cls)
    gen.visit(fn.parse())
    return module, gen.used_global_vals


def make_ttir(fn, specialization, options=None, lower_block_pointers: bool = False):
    """Code generation plus the TTIR pass pipeline (inline, canonicalize, combine, ...).
    `lower_block_pointers` adds upstream's rewrite-tensor-pointer and
    rewrite-tensor-descriptor-to-pointer (the GPU backend wants plain pointers until it has
    TMA; the CPU backend evaluates block pointers and descriptors directly)."""
    module, used = ast_to_ttir(fn, specialization, options)
    try:
        from ..passes import make_ttir_pipeline
    except ImportError:
        make_ttir_pipeline = None
    if make_ttir_pipeline is not None:
        make_ttir_pipeline(rewrite_tensor_pointer=lower_block_pointers).run(module)
    return module, used
