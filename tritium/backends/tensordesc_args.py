"""Upstream's launcher helpers of `triton.backends.driver` for tensor-descriptor arguments
(third-party launchers and upstream's tests call them): how a signature with descriptors
expands into the kernel's parameters, and how a launch's arguments do.

A descriptor the kernel keeps as a descriptor (TMA: the kernel's `tensordesc_meta` lists
it) is one parameter of the backend's descriptor type followed by its shape (i32) and
strides (i64); one the compiler turned into pointers is its base pointer, shape and strides
(i64), the padding and tf32-rounding flags (i1), then shape and strides again.
"""
from __future__ import annotations

import re
from typing import Any, Callable, List, Tuple

_DESC = re.compile(r"tensordesc(?:_im2col)?<([^\[>]*)\[([^\]]*)\]")


def _is_descriptor(ty) -> bool:
    return isinstance(ty, str) and ty.startswith("tensordesc")


def _dtype_and_rank(ty: str) -> Tuple[str, int]:
    m = _DESC.match(ty)
    if m is None:
        raise ValueError(f"malformed tensor descriptor type {ty!r} (expected "
                         "'tensordesc<dtype[block shape]>')")
    rank = re.search(r",input_rank=(\d+)", ty)  # im2col: the tensor's rank, not the block's
    return m.group(1), int(rank.group(1)) if rank else m.group(2).count(",") + 1


def _expand_one(ty: str, kept: bool, descriptor_type: str) -> List[str]:
    dtype, rank = _dtype_and_rank(ty)
    head = [descriptor_type] if kept else ["*" + dtype] + ["i64"] * (2 * rank) + ["i1", "i1"]
    return head + ["i32"] * rank + ["i64"] * rank


def expand_signature(signature, tensordesc_meta, descriptor_type: str) -> list:
    """The kernel's parameter types: each descriptor expanded in place (inside a tuple
    argument, inside that tuple); `tensordesc_meta` non-empty means descriptors are kept."""
    kept = bool(tensordesc_meta)

    def visit(ty, out):
        if _is_descriptor(ty):
            out.extend(_expand_one(ty, kept, descriptor_type))
        elif isinstance(ty, tuple):
            inner: list = []
            for t in ty:
                visit(t, inner)
            out.append(tuple(inner))
        else:
            out.append(ty)

    result: list = []
    for ty in signature:
        visit(ty, result)
    return result


def _has_descriptor(ty) -> bool:
    return _is_descriptor(ty) or (isinstance(ty, tuple) and any(map(_has_descriptor, ty)))


def wrap_handle_tensordesc_impl(launcher: Callable, signature: dict, tensordesc_meta,
                                make_tensordesc_arg: Callable) -> Callable:
    """`launcher` itself when the signature has no descriptor; else a launcher whose last
    argument (the kernel's arguments) has each descriptor replaced by
    `make_tensordesc_arg(arg, its meta or None, the other launch arguments)`, spliced in
    place (inside a tuple argument, inside that tuple)."""
    types = tuple(signature.values())
    if not any(map(_has_descriptor, types)):
        return launcher
    metas = list(tensordesc_meta or [])

    def inner(*args):
        base_args, kernel_args = args[:-1], args[-1]
        seen = [0]

        def visit(ty, arg, out):
            if _is_descriptor(ty):
                i = seen[0]
                seen[0] += 1
                out.extend(make_tensordesc_arg(arg, metas[i] if i < len(metas) else None,
                                               base_args))
            elif isinstance(ty, tuple) and _has_descriptor(ty):
                parts: List[Any] = []
                for t, a in zip(ty, arg):
                    visit(t, a, parts)
                out.append(tuple(parts))
            else:
                out.append(arg)

        expanded: list = []
        for ty, arg in zip(types, kernel_args):
            visit(ty, arg, expanded)
        return launcher(*base_args, expanded)

    return inner
