"""Argument specialization, exactly as upstream classifies launch arguments.

Each argument becomes `(type string, key)`: the type string picks the kernel signature
(`"*fp32"`, `"i32"`, ...) and the key records value facts the compiler exploits: `"D"`
(divisible by 16, becomes `tt.divisibility = 16`) for ints and pointers, and integers equal
to 1 become compile-time constants. Dispatch is by `type(arg)` through a dict so a launch
costs one lookup per argument.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

# torch / numpy dtype names → Triton type strings
DTYPE_NAMES = {
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "int8": "i8", "int16": "i16", "int32": "i32",
    "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bool": "i1", "bool_": "i1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}


_DTYPE_STRINGS: Dict[Any, str] = {}


def dtype_string(dt) -> str:
    """Type string of a tensor-like's dtype (torch.dtype, numpy dtype, or tl.dtype); the
    answer is cached per dtype object because `str(numpy dtype)` costs microseconds."""
    try:
        return _DTYPE_STRINGS[dt]
    except (KeyError, TypeError):
        pass
    s = _dtype_string_slow(dt)
    try:
        _DTYPE_STRINGS[dt] = s
    except TypeError:
        pass
    return s


def _dtype_string_slow(dt) -> str:
    from ..language.dtypes import dtype as tl_dtype
    if isinstance(dt, tl_dtype):  # a `reinterpret`ed tensor: "uint32" -> "u32", "fp8e5" as is
        return DTYPE_NAMES.get(str(dt), str(dt))
    name = str(dt)
    if name.startswith("torch."):
        name = name[6:]
    name = getattr(dt, "name", name) if not str(dt).startswith("torch.") else name
    try:
        return DTYPE_NAMES[name]
    except KeyError:
        raise TypeError(f"unsupported tensor dtype {dt}") from None


def _int_type(v: int) -> str:
    if -2 ** 31 <= v < 2 ** 31:
        return "i32"
    if 2 ** 63 <= v < 2 ** 64:
        return "u64"
    if -2 ** 63 <= v < 2 ** 63:
        return "i64"
    # OverflowError, as upstream's specialization raises for it.
    raise OverflowError(f"integer argument {v} does not fit in 64 bits")


def data_ptr_of(arg) -> int:
    """Address of a tensor-like argument."""
    dp = getattr(arg, "data_ptr", None)
    if dp is not None:
        return dp()
    cai = getattr(arg, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    ai = getattr(arg, "__array_interface__", None)
    if ai is not None:
        return ai["data"][0]
    raise TypeError(f"{type(arg).__name__} has no data pointer")


def _tensor_dtype(arg):
    dt = getattr(arg, "dtype", None)
    if dt is None:
        cai = getattr(arg, "__cuda_array_interface__", None)
        if cai is not None:
            import numpy as np
            dt = np.dtype(cai["typestr"])
    return dt


def specialize_arg(arg: Any, is_const: bool = False, specialize_value: bool = True,
                   align: bool = True) -> Tuple[str, Any]:
    """(type string, key) for one launch argument; ("constexpr", value) for compile-time ones."""
    handler = _HANDLERS.get(type(arg))
    if handler is not None:
        return handler(arg, is_const, specialize_value, align)
    return _specialize_slow(arg, is_const, specialize_value, align)


def _spec_int(arg, is_const, specialize_value, align):
    if specialize_value and arg == 1:
        return ("constexpr", 1)
    key = "D" if specialize_value and align and arg % 16 == 0 else ""
    return (_int_type(arg), key)


def _spec_bool(arg, is_const, specialize_value, align):
    return ("u1", "")


def _spec_float(arg, is_const, specialize_value, align):
    return ("fp32", "")


def _spec_none(arg, is_const, specialize_value, align):
    return ("constexpr", None)


def _spec_tensor(arg, is_const, specialize_value, align):
    ty = "*" + ("k" if is_const else "") + dtype_string(_tensor_dtype(arg))
    key = "D" if align and data_ptr_of(arg) % 16 == 0 else ""
    return (ty, key)


def _spec_ndarray(arg, is_const, specialize_value, align):
    ty = "*" + ("k" if is_const else "") + dtype_string(arg.dtype)
    return (ty, "D" if align and _ndarray_address(arg) % 16 == 0 else "")


_ndarray_address: Callable[[Any], int] = data_ptr_of   # (numpy's fast read once one is seen)


def _is_ndarray(arg) -> bool:
    """(numpy is imported here only once an argument may be an array)"""
    global _ndarray_address
    import numpy as np
    if not isinstance(arg, np.ndarray):
        return False
    from .._ndarray import address
    _ndarray_address = address
    return True


_TORCH_TYPES: Dict[Any, Tuple[str, str]] = {}  # torch dtype -> ("*fp32", "*kfp32")


def _is_torch_tensor(arg) -> bool:
    return type(arg).__module__.startswith("torch") and hasattr(arg, "untyped_storage")


def _spec_torch(arg, is_const, specialize_value, align):
    """torch tensors, the hot case on the GPU: one dict lookup and one data_ptr() call."""
    try:
        types = _TORCH_TYPES[arg.dtype]
    except KeyError:
        s = dtype_string(arg.dtype)
        types = _TORCH_TYPES[arg.dtype] = ("*" + s, "*k" + s)
    return (types[is_const], "D" if align and arg.data_ptr() % 16 == 0 else "")


_TENSORDESC_KEYS: dict = {}


def _spec_tensordesc(arg, is_const, specialize_value, align):
    """Upstream's key: the element type and block shape, e.g. `tensordesc<fp16[64, 64]>`;
    shape, strides and padding are runtime values. The (string, key) pair is made once per
    (dtype, block): formatting it cost ~0.5 us a launch (the block shape may change between
    launches — tutorial 06's pre_hook sets it — so it is part of the lookup)."""
    dt = getattr(arg.base, "dtype", None)
    if dt is None:
        dt = _tensor_dtype(arg.base)
    try:
        return _TENSORDESC_KEYS[(dt, *arg.block_shape)]
    except (KeyError, TypeError):
        pass
    got = (f"tensordesc<{dtype_string(dt)}{list(arg.block_shape)}>", None)
    try:
        if len(_TENSORDESC_KEYS) < 4096:
            _TENSORDESC_KEYS[(dt, *arg.block_shape)] = got
    except TypeError:
        pass
    return got


def _spec_gluon_tensordesc(arg, is_const, specialize_value, align):
    """Gluon's host descriptor: upstream's key adds the shared layout's repr,
    `tensordesc<fp16[64, 64],NVMMASharedLayout(...)>` (made once per dtype, block, layout)."""
    dt = getattr(arg.base, "dtype", None)
    if dt is None:
        dt = _tensor_dtype(arg.base)
    lookup = (dt, arg.layout, *arg.block_shape)
    try:
        return _TENSORDESC_KEYS[lookup]
    except (KeyError, TypeError):
        pass
    got = (f"tensordesc<{dtype_string(dt)}{list(arg.block_shape)},{arg.layout!r}>", None)
    try:
        if len(_TENSORDESC_KEYS) < 4096:
            _TENSORDESC_KEYS[lookup] = got
    except TypeError:
        pass
    return got


def _is_gluon_descriptor(arg) -> bool:
    # Loaded only here, on the first argument of a type with no handler yet.
    from ..experimental.gluon.nvidia.hopper import TensorDescriptor
    return isinstance(arg, TensorDescriptor)


def _spec_tuple(arg, is_const, specialize_value, align):
    """Upstream's key for a tuple (or NamedTuple) argument: the same structure twice, once
    of the elements' type strings and once of their keys; `()` for an empty tuple."""
    spec = [specialize_arg(x, is_const, specialize_value, align) for x in arg]
    if hasattr(arg, "_fields"):
        make = type(arg)
        return (make(*[s[0] for s in spec]), make(*[s[1] for s in spec]))
    return (builtins_tuple(s[0] for s in spec), builtins_tuple(s[1] for s in spec))


builtins_tuple = tuple


def handler_for(arg):
    """The specialisation function for `arg`'s type (the binder calls it directly)."""
    return _HANDLERS.get(type(arg)) or _specialize_slow


def _specialize_slow(arg, is_const, specialize_value, align):
    from ..language.core import constexpr
    from ..language.dtypes import dtype as tl_dtype
    from .jit_callable import JITCallable
    if isinstance(arg, bool):
        return _spec_bool(arg, is_const, specialize_value, align)
    if isinstance(arg, int):
        return _spec_int(int(arg), is_const, specialize_value, align)
    if isinstance(arg, float):
        return _spec_float(arg, is_const, specialize_value, align)
    if isinstance(arg, constexpr):
        return ("constexpr", arg.value)
    if isinstance(arg, tl_dtype):
        return ("constexpr", arg)
    if isinstance(arg, JITCallable):
        return ("constexpr", arg)
    if isinstance(arg, tuple):  # NamedTuples, torch.Size
        _HANDLERS[type(arg)] = _spec_tuple
        return _spec_tuple(arg, is_const, specialize_value, align)
    if type(arg).__name__ == "TensorDescriptor" and hasattr(arg, "block_shape"):
        # tools' descriptor or Gluon's (same class name; Gluon's key adds its layout)
        handler = _spec_gluon_tensordesc if _is_gluon_descriptor(arg) else _spec_tensordesc
        _HANDLERS[type(arg)] = handler
        return handler(arg, is_const, specialize_value, align)
    if hasattr(arg, "data_ptr") or hasattr(arg, "__cuda_array_interface__") or \
            hasattr(arg, "__array_interface__"):
        handler = _spec_torch if _is_torch_tensor(arg) else \
            _spec_ndarray if _is_ndarray(arg) else _spec_tensor
        _HANDLERS[type(arg)] = handler
        return handler(arg, is_const, specialize_value, align)
    if type(arg).__name__ in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64") and hasattr(arg, "item"):
        return _spec_int(int(arg), is_const, specialize_value, align)
    if hasattr(arg, "item") and type(arg).__name__ in ("float16", "float32", "float64"):
        return _spec_float(float(arg), is_const, specialize_value, align)
    raise TypeError(f"unsupported argument type {type(arg).__name__}: {arg!r}")


_HANDLERS: Dict[type, Callable] = {
    int: _spec_int, bool: _spec_bool, float: _spec_float, type(None): _spec_none,
    tuple: _spec_tuple,
}


def normalize_annotation(ty) -> str:
    """A parameter annotation as upstream's type string: `tl.int64`, `"i64"`, `"tl.uint8"`,
    `int`, `"*fp32"`, `"const *fp16"` -> `"i64"`, `"i64"`, `"u8"`, `"i32"`, `"*fp32"`,
    `"*kfp16"`; anything else (torch.Tensor, tl.constexpr) is its name, unchanged."""
    from ..language.dtypes import dtype as tl_dtype, pointer_type
    from ..tensor_wrapper import type_canonicalisation_dict as canon
    if isinstance(ty, str):
        ty = ty.strip()
        if ty.startswith("const "):
            inner = normalize_annotation(ty[len("const"):])
            return "*k" + inner[1:] if inner.startswith("*") else inner
        if ty.endswith("*"):
            return "*" + normalize_annotation(ty[:-1])
        if ty.startswith("*"):
            return "*" + normalize_annotation(ty[1:])
        if ty.startswith("tl."):
            return normalize_annotation(ty[3:])
    elif isinstance(ty, pointer_type):
        return "*" + normalize_annotation(ty.element_ty)
    elif isinstance(ty, tl_dtype):
        ty = ty.name
    elif isinstance(ty, type):
        ty = ty.__name__
    else:
        ty = str(ty)
    ty = ty.replace("_t", "")
    if ty in ("bool", "int1", "uint1", "i1", "u1"):
        return "u1"                           # upstream canonicalises every bool to u1
    return canon.get(ty, ty)


_SCALAR_TYPES = None


def annotation_type(ty) -> str:
    """The signature type a dtype annotation fixes (upstream's `KernelParam.annotation_type`),
    or "" when the annotation names no Triton type."""
    global _SCALAR_TYPES
    if ty is None:
        return ""
    if _SCALAR_TYPES is None:
        from ..tensor_wrapper import type_canonicalisation_dict as canon
        _SCALAR_TYPES = set(canon.values()) | {"u1"}
    a = normalize_annotation(ty)
    base = a[2:] if a.startswith("*k") else a[1:] if a.startswith("*") else a
    return a if base in _SCALAR_TYPES and base != "void" else ""


def annotated_key(spec) -> str:
    """The key of an argument whose type an annotation fixes, as upstream's: its
    divisibility mark, or the value where the plain handler made it a constant (an integer
    1). Such an argument stays a run-time value of the annotated type, but keys a kernel of
    its own, as upstream's `("i32",) + specialization[1:]` does."""
    ty, key = spec
    return key if key == "D" or ty == "constexpr" else ""


def native_specialize_impl(backend, arg: Any, is_const: bool = False,
                           specialize_value: bool = True, align: bool = True):
    """Upstream's `triton._C.libtriton.native_specialize_impl`: one argument's (type
    string, key) with the keys asked of `backend` (`get_int_specialization`,
    `get_tensor_specialization`); None where upstream's key is None (unspecialised values,
    bools, floats). torch builds `ASTSource` attrs for user-defined kernels through it."""
    from ..language.core import constexpr
    from .jit_callable import JITCallable
    if arg is None:
        return ("constexpr", None)
    if isinstance(arg, bool):
        return ("u1", None)
    if isinstance(arg, int):
        if specialize_value and arg == 1:
            return ("constexpr", 1)
        key = backend.get_int_specialization(arg, align=align) if specialize_value else None
        return (_int_type(int(arg)), key)
    if isinstance(arg, float):
        return ("fp32", None)
    if isinstance(arg, JITCallable):
        return ("constexpr", arg.cache_key)
    if isinstance(arg, constexpr):
        return ("constexpr", arg)
    if isinstance(arg, tuple):
        spec = [native_specialize_impl(backend, x, False, True, True) for x in arg]
        make = (lambda vals: type(arg)(*vals)) if hasattr(arg, "_fields") else tuple
        return (make([s[0] for s in spec]), make([s[1] for s in spec]))
    ty, key = specialize_arg(arg, is_const, specialize_value, align)
    if isinstance(ty, str) and ty.startswith("*"):  # a tensor (numpy arrays have no data_ptr)
        if not specialize_value:
            key = None
        elif hasattr(arg, "data_ptr"):
            key = backend.get_tensor_specialization(arg, align=align)
    return (ty, key)
