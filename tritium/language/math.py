"""`tl.math`: elementwise math builtins (`tl.exp`, `tl.sqrt`, `x.exp()`, ...).

Each maps to one `math.*` (or precise `tt.*`) op. Like upstream, the transcendental ones
accept only fp32/fp64 and say so, rather than silently computing in another precision.
"""
from __future__ import annotations

from functools import wraps
from typing import Callable, List, TypeVar

from .core import _tensor_member_fn, _unwrap_if_constexpr, builtin, tensor

T = TypeVar("T")


def _check_dtype(dtypes: List[str]) -> Callable[[T], T]:
    """Reject tensor arguments whose dtype is not in `dtypes` (libdevice's convention)."""

    def wrapper(fn):
        @wraps(fn)
        def check(*args, **kwargs):
            for arg in list(args) + list(kwargs.values()):
                if isinstance(arg, tensor) and arg.type.scalar.name not in dtypes:
                    raise ValueError(f"Expected dtype {dtypes} but got {arg.type.scalar.name}")
            return fn(*args, **kwargs)
        return check

    return wrapper


def _add_math_1arg_docstr(name: str) -> Callable[[T], T]:
    def decorate(func: T) -> T:
        func.__doc__ = f"The elementwise {name} of `x`."
        return func
    return decorate


def _add_math_2arg_docstr(name: str) -> Callable[[T], T]:
    def decorate(func: T) -> T:
        func.__doc__ = f"The elementwise {name} of `x` and `y`."
        return func
    return decorate


def _add_math_3arg_docstr(name: str) -> Callable[[T], T]:
    def decorate(func: T) -> T:
        func.__doc__ = f"The elementwise {name} of `x`, `y` and `z`."
        return func
    return decorate


_FLOATS = ["fp32", "fp64"]


def _unary(name: str, op: str, doc: str, dtypes=_FLOATS):
    def fn(x, _semantic=None):
        return _semantic.math_unary(op, _semantic.to_tensor(x))
    fn.__name__ = fn.__qualname__ = name
    fn = _add_math_1arg_docstr(doc)(fn)
    if dtypes is not None:
        fn = _check_dtype(dtypes)(fn)
    return _tensor_member_fn(builtin(fn))


exp = _unary("exp", "math.exp", "exponential")
exp2 = _unary("exp2", "math.exp2", "exponential (base 2)")
log = _unary("log", "math.log", "natural logarithm")
log2 = _unary("log2", "math.log2", "logarithm (base 2)")
cos = _unary("cos", "math.cos", "cosine")
sin = _unary("sin", "math.sin", "sine")
sqrt = _unary("sqrt", "math.sqrt", "fast square root")
sqrt_rn = _unary("sqrt_rn", "tt.precise_sqrt", "precise square root (rounding to nearest)",
                 ["fp32"])
rsqrt = _unary("rsqrt", "math.rsqrt", "inverse square root")
erf = _unary("erf", "math.erf", "error function")
floor = _unary("floor", "math.floor", "floor")
ceil = _unary("ceil", "math.ceil", "ceil")


@_tensor_member_fn
@builtin
@_add_math_1arg_docstr("absolute value")
def abs(x, _semantic=None):
    return _semantic.abs(_semantic.to_tensor(x))


@builtin
@_check_dtype(dtypes=["int32", "int64", "uint32", "uint64"])
@_add_math_2arg_docstr("most significant N bits of the 2N-bit product")
def umulhi(x, y, _semantic=None):
    return _semantic.umulhi(_semantic.to_tensor(x), _semantic.to_tensor(y))


@builtin
@_add_math_2arg_docstr("fast division")
def fdiv(x, y, ieee_rounding=False, _semantic=None):
    ieee_rounding = _unwrap_if_constexpr(ieee_rounding)
    return _semantic.fdiv(_semantic.to_tensor(x), _semantic.to_tensor(y), ieee_rounding)


@builtin
@_check_dtype(dtypes=["fp32"])
@_add_math_2arg_docstr("precise division (rounding to nearest)")
def div_rn(x, y, _semantic=None):
    return _semantic.div_rn(_semantic.to_tensor(x), _semantic.to_tensor(y))


@builtin
@_add_math_3arg_docstr("fused multiply-add")
def fma(x, y, z, _semantic=None):
    return _semantic.fma(x, y, z)


__all__ = ["umulhi", "exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt",
           "abs", "fdiv", "div_rn", "erf", "floor", "ceil", "fma"]
