"""`triton._utils`: the small helpers upstream keeps here and other code imports by this name —
torch's user-defined-kernel support (`find_paths_if`, `get_iterable_path`), upstream's tests
(`canonicalize_dtype`), Inductor (`type_canonicalisation_dict`, `get_primitive_bitwidth`).

Paths are tuples of indices into nested tuples/lists (`(1, 0)` is `x[1][0]`), the form
tritium's own specialisation keys use for tuple arguments.
"""
from __future__ import annotations

from functools import reduce
from typing import Any, Callable, Dict, List

from .language.builtins import validate_block_shape  # noqa: F401  (upstream's home too)
from .language.dtypes import TRITON_MAX_TENSOR_NUMEL  # noqa: F401
from .tensor_wrapper import type_canonicalisation_dict


def is_iterable(x) -> bool:
    """Lists, tuples and kernel tuples (and their types): what the path helpers descend into."""
    from .language.core import tuple as tl_tuple
    from .language.dtypes import tuple_type
    return isinstance(x, (list, tuple, tl_tuple, tuple_type))


def get_iterable_path(iterable, path) -> Any:
    return reduce(lambda a, i: a[i], path, iterable)


def set_iterable_path(iterable, path, val) -> None:
    """Replace the element at `path` of a kernel tuple (in place, as the code generator does)."""
    if not path:
        raise ValueError("set_iterable_path needs a non-empty path")
    parent = iterable if len(path) == 1 else get_iterable_path(iterable, path[:-1])
    parent.values[path[-1]] = val


def apply_with_path(value, fn: Callable[[tuple, Any], None], _path=()) -> None:
    """`fn(path, leaf)` for every leaf of a nested structure, depth first."""
    if is_iterable(value):
        for i, item in enumerate(value):
            apply_with_path(item, fn, (*_path, i))
    else:
        fn(_path, value)


def find_paths_if(iterable, pred: Callable[[tuple, Any], bool]) -> List[tuple]:
    """The paths of the leaves for which `pred(path, leaf)` holds, in depth-first order."""
    found: List[tuple] = []
    apply_with_path(iterable, lambda p, v: found.append(p) if pred(p, v) else None)
    return found


def is_power_of_two(x: int) -> bool:
    return (x & (x - 1)) == 0


def is_namedtuple(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def canonicalize_dtype(dtype) -> str:
    """A dtype's (torch, numpy, tl) signature name, from tensor_wrapper's table."""
    return type_canonicalisation_dict[str(dtype).split(".")[-1]]


def canonicalize_ptr_dtype(dtype, is_const: bool) -> str:
    return ("*k" if is_const else "*") + canonicalize_dtype(dtype)


BITWIDTH_DICT: Dict[str, int] = {
    **{f"{p}{n}": n for p in ("u", "i") for n in (1, 8, 16, 32, 64)},
    **{f"fp{n}": n for n in (16, 32, 64)},
    **{f"fp8{s}": 8 for s in ("e4nv", "e4b15", "e4b8", "e5", "e5b16")},
    "bf16": 16, "void": 0,
}
BITWIDTH_DICT.update({k: BITWIDTH_DICT[v] for k, v in type_canonicalisation_dict.items()})


def get_primitive_bitwidth(dtype: str) -> int:
    return BITWIDTH_DICT[dtype]
