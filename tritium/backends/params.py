"""A kernel's runtime parameters from its source's signature, tuples flattened.

Upstream 3.6 accepts tuples (and NamedTuples) of tensors, scalars and constexprs as kernel
arguments: the signature then holds a nested tuple of type strings for that parameter and
the constexprs are keyed by paths, `(i, j, ...)`. The compiled kernel takes the runtime
leaves, depth first, as separate parameters; every launcher flattens the arguments the same
way, through the paths listed here.
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Sequence, Tuple


class Param(NamedTuple):
    path: Tuple[int, ...]  # (argument index, element index, ...)
    name: str              # "x", "t[1][0]": for error messages
    type: str              # "*fp32", "i32", "tensordesc<...>"


def runtime_params(signature: Dict[Any, Any], constants=None) -> List[Param]:
    """The parameters the compiled kernel takes, in order: constexpr leaves (type
    "constexpr" or a key of `constants`) and empty tuples take none."""
    constants = constants or {}
    out: List[Param] = []

    def walk(path, name, ty):
        if isinstance(ty, tuple):
            for j, t in enumerate(ty):
                walk(path + (j,), f"{name}[{j}]", t)
            return
        ty = jit_spelling(str(ty).strip())
        if ty == "constexpr" or path in constants:
            return
        out.append(Param(path, name, ty))

    for i, (name, ty) in enumerate(signature.items()):
        walk((i,), str(name), ty)
    return out


# MLIR's spellings of scalar types, which `IRSource.signature` uses (as upstream's), in the
# JIT's spellings the launchers take.
_MLIR_SCALARS = {"f16": "fp16", "f32": "fp32", "f64": "fp64", "f8E4M3FN": "fp8e4nv",
                 "f8E5M2": "fp8e5"}


def jit_spelling(ty):
    """A signature type in the JIT's spelling ("*fp32") whichever way it came ("*f32")."""
    if isinstance(ty, tuple):
        return type(ty)(*map(jit_spelling, ty)) if hasattr(ty, "_fields") \
            else tuple(map(jit_spelling, ty))
    if not isinstance(ty, str):
        return ty
    if ty.startswith("*"):
        return "*" + jit_spelling(ty[1:])
    return _MLIR_SCALARS.get(ty, ty)


def has_tuples(signature: Dict[Any, Any]) -> bool:
    return any(isinstance(ty, tuple) for ty in signature.values())


def arg_at(args: Sequence, path: Tuple[int, ...]):
    value = args[path[0]]
    for j in path[1:]:
        value = value[j]
    return value


def access_expr(base: str, path: Tuple[int, ...]) -> str:
    """Python source of the element at `path` below argument variable `base`."""
    return base + "".join(f"[{j}]" for j in path[1:])


def mark_constexprs(signature: Dict[Any, Any], constants) -> Dict[Any, Any]:
    """The signature with "constexpr" at every path `constants` holds (`(i,)` or deeper)."""
    constants = constants or {}

    def mark(path, ty):
        if path in constants:
            return "constexpr"
        if isinstance(ty, tuple):
            return tuple(mark(path + (j,), t) for j, t in enumerate(ty))
        return ty

    return {name: mark((i,), ty) for i, (name, ty) in enumerate(signature.items())}
