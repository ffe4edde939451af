"""What each `triton.language` name becomes in Gluon: the translator's lookup table.

The table is written against upstream Gluon's API (`triton.experimental.gluon.language`,
`gl` below), not read from the Gluon module installed: a translation must not change with
how far a Gluon implementation has got, and most of `gl` re-exports `tl`'s objects under
the same name, which identity cannot tell apart from a Gluon-specific one anyway.

`classify(value)` answers with a `Translation`:
  gl        `gl.<name>`: Gluon has it with Triton's meaning (loads, atomics, math, dtypes ...)
  gluon     `gluon.<name>`: a decorator (`@triton.jit` -> `@gluon.jit`)
  helper    a function of `gluon_helpers.py`, inlined into the output: Gluon has the
            operation but needs a layout (`tl.arange` -> `tl_arange`, which picks one)
  python    a plain Python name (`tl.range(...)` -> `range(...)`)
  method    translated only as a call, to a tensor method (`tl.trans(x)` -> `x.trans()`)
  copy      a Triton `@jit` library function (`tl.softmax`): its body is translated
  unsupported  no Gluon form here; `reason` says why (the translator raises, naming the line)
None means nothing to translate: the value is copied or imported as slice_kernel would
(Triton's compile-time utilities and extern calls included: they work on Gluon values).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType
from typing import Any

# `tl` names Gluon provides with Triton's semantics (upstream `gl` re-exports these).
GL_SAME = frozenset("""
    constexpr dtype pointer_type block_type tensor tuple tuple_type static_range base_value base_type void
    int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 float8e5 float8e5b16 float8e4nv float8e4b8
    float8e4b15 float16 bfloat16 float32 float64
    add sub mul associative_scan assume atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or
    atomic_xchg atomic_xor broadcast cast clamp device_assert device_print expand_dims gather
    inline_asm_elementwise join load map_elementwise max_constancy max_contiguous maximum minimum
    multiple_of num_programs permute program_id reduce reshape split static_assert static_print store
    to_tensor where
    umulhi exp exp2 fma log log2 cos rsqrt sin sqrt sqrt_rn abs fdiv div_rn erf floor ceil
    cdiv max min reduce_or sum xor_sum zeros_like full_like
""".split())

# `tl` names Gluon has under another name (`cuda.` marks `tl.extra.cuda`).
GL_RENAMED = {"debug_barrier": "barrier", "cuda.num_warps": "num_warps"}

# `tl` names whose Gluon form needs a layout: a helper of gluon_helpers.py picks it.
HELPERS = {
    "arange": "tl_arange",
    "full": "tl_full",
    "zeros": "tl_zeros",
    "cat": "tl_cat",
    "histogram": "tl_histogram",
    "dot": "tl_dot",
    "make_tensor_descriptor": "tl_make_tensor_descriptor",
    "load_tensor_descriptor": "tl_load_tensor_descriptor",
    "store_tensor_descriptor": "tl_store_tensor_descriptor",
    "cuda.num_threads": "get_num_threads_per_program",
}

PYTHON = {"range": "range"}
METHODS = frozenset({"trans", "broadcast_to"})

_BLOCK_PTR = "block pointers have no Gluon form; use a tensor descriptor (tl.make_tensor_descriptor)"
UNSUPPORTED = {
    "make_block_ptr": _BLOCK_PTR,
    "advance": _BLOCK_PTR,
    "dot_scaled": "scaled dots need Blackwell's tcgen05_mma_scaled or a decomposition, which tritium's "
                  "translator does not provide",
    "view": "tl.view is deprecated and has no Gluon form; use tl.reshape",
}

# Tensor methods whose call the translator rewrites as it does the tl function of that name
# (`x.reshape(...)` like `tl.reshape(x, ...)`).
TENSOR_METHODS = frozenset({"reshape", "ravel", "trans", "permute", "split", "reduce", "sum", "max", "min",
                            "argmax", "argmin", "xor_sum", "reduce_or", "expand_dims"})

# Methods of descriptor-like objects, routed through helpers that dispatch on the type.
OBJECT_METHODS = frozenset({"load", "store", "gather", "scatter"})

# Results whose layout the Gluon op derives from its input's (a slice, a permutation, ...):
# converted back to the default layout so elementwise ops with other tensors line up.
RESET_AFTER = frozenset({"reshape", "ravel", "trans", "permute", "join", "split", "reduce", "sum", "max",
                         "min", "xor_sum", "reduce_or", "argmax", "argmin"})


@dataclass(frozen=True)
class Translation:
    kind: str        # gl | gluon | helper | python | method | copy | unsupported
    name: str        # the tl name ("cuda.num_threads"), for messages
    target: str = ""  # the Gluon / helper / Python name, or the reason for unsupported


@functools.lru_cache(maxsize=None)
def _tl_table() -> tuple[dict[int, str], tuple[Any, ...]]:
    """id -> tl name for Triton's language objects (functions, types, dtypes). The objects
    are kept alive with the table, so an id cannot be reused by another object."""
    from ... import language as tl
    from ...language import core, math, standard
    from ...language.extra import cuda
    table: dict[int, str] = {}
    kept = []
    for prefix, module in (("", tl), ("", math), ("", standard), ("", core), ("cuda.", cuda)):
        for name, value in vars(module).items():
            if name.startswith("_") or isinstance(value, ModuleType):
                continue
            if callable(value) or isinstance(value, (type, core.dtype)):
                table.setdefault(id(value), prefix + name)
                kept.append(value)
    return table, tuple(kept)


@functools.lru_cache(maxsize=None)
def _decorators() -> dict[int, str]:
    from ...frontend.jit import jit
    from ...language.builtins import constexpr_function
    return {id(jit): "jit", id(constexpr_function): "constexpr_function"}


def is_triton_jit(value: Any) -> bool:
    """A Triton `@jit` function (Gluon's own are left alone)."""
    from ...frontend.jit import JITFunction
    if not isinstance(value, JITFunction):
        return False
    is_gluon = getattr(value, "is_gluon", None)
    return not (is_gluon() if callable(is_gluon) else "gluon" in type(value).__module__)


def is_constexpr_function(value: Any) -> bool:
    from ...language.builtins import ConstexprFunction
    return isinstance(value, ConstexprFunction)


def classify(value: Any) -> Translation | None:
    decorator = _decorators().get(id(value))
    if decorator is not None:
        return Translation("gluon", decorator, decorator)
    name = _tl_table()[0].get(id(value))
    if name is None:
        return None
    if name in GL_SAME:
        return Translation("gl", name, name)
    if name in GL_RENAMED:
        return Translation("gl", name, GL_RENAMED[name])
    if name in HELPERS:
        return Translation("helper", name, HELPERS[name])
    if name in PYTHON:
        return Translation("python", name, PYTHON[name])
    if name in METHODS:
        return Translation("method", name, name)
    if is_triton_jit(value):
        return Translation("copy", name)
    if name in UNSUPPORTED:
        return Translation("unsupported", name, UNSUPPORTED[name])
    # The rest (compile-time utilities such as tl.get_int_dtype, extern/libdevice calls,
    # types) work on Gluon values as they are: imported, as upstream's translator does.
    return None
