"""The objects a kernel manipulates: `constexpr`, `tensor`, and the `builtin` seam.

Builtins receive the code generator's `TritonSemantic` through the keyword `_semantic`; it
owns the IR builder, so the same typing rules drive every consumer. Called outside a
`@jit` function they refuse, as upstream does.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from .dtypes import block_type, dtype, tuple_type

T = TypeVar("T")
TRITON_BUILTIN = "__triton_builtin__"


def builtin(fn: T) -> T:
    """Mark `fn` as a builtin: it may only run inside a `@jit` function."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_semantic") is None:
            raise ValueError("Did you forget to add @triton.jit ? "
                             "(`_semantic` argument must be provided outside of JIT functions.)")
        return fn(*args, **kwargs)

    setattr(wrapper, TRITON_BUILTIN, True)
    return wrapper


def must_use_result(x, s=True):
    """Mark a function (builtin or @jit) whose result a kernel must not drop: a call used as a
    bare statement is a compile error. `@must_use_result("why")` adds `why` to the message."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


def is_builtin(fn) -> bool:
    return getattr(fn, TRITON_BUILTIN, False)


def _unwrap_if_constexpr(o):
    if isinstance(o, list):
        return [_unwrap_if_constexpr(x) for x in o]
    if isinstance(o, builtins_tuple):
        return builtins_tuple(_unwrap_if_constexpr(x) for x in o)
    return o.value if isinstance(o, constexpr) else o


_constexpr_to_value = _unwrap_if_constexpr
builtins_tuple = tuple


def _unwrap_shape(shape):
    shape = _unwrap_if_constexpr(shape)
    return [int(_unwrap_if_constexpr(s)) for s in shape]


class base_value:
    """Anything a kernel can hold in a variable."""


class aggregate_value(base_value):
    """A kernel value made of several IR values (a tensor descriptor, a Gluon shared memory
    descriptor): `_flatten_ir()` lists them, and its type's `ir_types()` / `from_handles()`
    rebuild it — how it crosses calls and control flow."""

    def _flatten_ir(self) -> list:
        return [self.handle]


class constexpr(base_value):
    """A value known at compile time. Arithmetic on constexprs stays at compile time."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    @property
    def type(self):
        """Upstream's `constexpr_type(value)` (`isinstance(x.type, tl.constexpr_type)`)."""
        from .builtins import constexpr_type
        return constexpr_type(self.value)

    def __repr__(self) -> str:
        return f"constexpr[{self.value}]"

    def __hash__(self):
        return hash((constexpr, self.value))

    def __index__(self):
        return self.value

    def __bool__(self):
        return bool(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)

    # Arithmetic at compile time; `tensor` operands are dispatched to the tensor's reflected
    # operator by the code generator before we get here.
    def _op(f):
        def method(self, other=None):
            return constexpr(f(self.value, _unwrap_if_constexpr(other)))
        return method

    __add__ = _op(lambda a, b: a + b)
    __radd__ = _op(lambda a, b: b + a)
    __sub__ = _op(lambda a, b: a - b)
    __rsub__ = _op(lambda a, b: b - a)
    __mul__ = _op(lambda a, b: a * b)
    __rmul__ = _op(lambda a, b: b * a)
    __truediv__ = _op(lambda a, b: a / b)
    __rtruediv__ = _op(lambda a, b: b / a)
    __floordiv__ = _op(lambda a, b: a // b)
    __rfloordiv__ = _op(lambda a, b: b // a)
    __mod__ = _op(lambda a, b: a % b)
    __rmod__ = _op(lambda a, b: b % a)
    __pow__ = _op(lambda a, b: a ** b)
    __rpow__ = _op(lambda a, b: b ** a)
    __and__ = _op(lambda a, b: a & b)
    __rand__ = _op(lambda a, b: b & a)
    __or__ = _op(lambda a, b: a | b)
    __ror__ = _op(lambda a, b: b | a)
    __xor__ = _op(lambda a, b: a ^ b)
    __rxor__ = _op(lambda a, b: b ^ a)
    __lshift__ = _op(lambda a, b: a << b)
    __rlshift__ = _op(lambda a, b: b << a)
    __rshift__ = _op(lambda a, b: a >> b)
    __rrshift__ = _op(lambda a, b: b >> a)
    __gt__ = _op(lambda a, b: a > b)
    __ge__ = _op(lambda a, b: a >= b)
    __lt__ = _op(lambda a, b: a < b)
    __le__ = _op(lambda a, b: a <= b)
    __eq__ = _op(lambda a, b: a == b)
    __ne__ = _op(lambda a, b: a != b)
    __neg__ = _op(lambda a, b: -a)
    __pos__ = _op(lambda a, b: +a)
    __invert__ = _op(lambda a, b: ~a)
    __abs__ = _op(lambda a, b: abs(a))
    logical_and = _op(lambda a, b: a and b)
    logical_or = _op(lambda a, b: a or b)
    logical_not = _op(lambda a, b: not a)
    del _op

    def __getitem__(self, idx):
        return constexpr(self.value[_unwrap_if_constexpr(idx)])

    def __iter__(self):
        return iter(self.value)

    def __len__(self):
        return len(self.value)


CONSTEXPR_0 = constexpr(0)


def check_bit_width(value, shift_value):
    if isinstance(value, tensor) and isinstance(shift_value, constexpr):
        bitwidth = value.type.scalar.primitive_bitwidth
        if shift_value.value >= bitwidth:
            import warnings
            warnings.warn(f"Value {shift_value.value} exceeds the maximum bitwidth ({bitwidth}) "
                          f"for type '{value.dtype}'. This may result in undefined behavior.")


class tensor(base_value):
    """A block of values (or a scalar) inside a kernel: an IR value plus its Triton type."""

    def __init__(self, handle, type: dtype):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = [constexpr(s) for s in type.shape] if type.is_block() else []

    @property
    def numel(self):
        return constexpr(self.type.numel if self.type.is_block() else 1)

    def __str__(self) -> str:
        return str(self.dtype) + "[" + ", ".join(str(s.value) for s in self.shape) + "]"

    __repr__ = __str__

    def __bool__(self):
        raise ValueError("a tensor has no truth value at compile time; "
                         "use it in `if` directly or compare with a constexpr")

    def _bin(name, reflected=False, **extra):
        def method(self, other, _semantic=None):
            if _semantic is None:
                raise ValueError("Did you forget to add @triton.jit ? "
                                 "(`_semantic` argument must be provided outside of JIT functions.)")
            f = getattr(_semantic, name)
            return f(other, self, **extra) if reflected else f(self, other, **extra)
        method.__name__ = name
        setattr(method, TRITON_BUILTIN, True)
        return method

    __add__ = _bin("add", sanitize_overflow=True)
    __radd__ = _bin("add", True, sanitize_overflow=True)
    __sub__ = _bin("sub", sanitize_overflow=True)
    __rsub__ = _bin("sub", True, sanitize_overflow=True)
    __mul__ = _bin("mul", sanitize_overflow=True)
    __rmul__ = _bin("mul", True, sanitize_overflow=True)
    __truediv__ = _bin("truediv")
    __rtruediv__ = _bin("truediv", True)
    __floordiv__ = _bin("floordiv")
    __rfloordiv__ = _bin("floordiv", True)
    __mod__ = _bin("mod")
    __rmod__ = _bin("mod", True)
    __and__ = _bin("and_")
    __rand__ = _bin("and_", True)
    __or__ = _bin("or_")
    __ror__ = _bin("or_", True)
    __xor__ = _bin("xor_")
    __rxor__ = _bin("xor_", True)
    __lshift__ = _bin("shl")
    __rlshift__ = _bin("shl", True)
    __rshift__ = _bin("rshift")
    __rrshift__ = _bin("rshift", True)
    __gt__ = _bin("greater_than")
    __ge__ = _bin("greater_equal")
    __lt__ = _bin("less_than")
    __le__ = _bin("less_equal")
    __eq__ = _bin("equal")
    __ne__ = _bin("not_equal")
    logical_and = _bin("logical_and")
    __rlogical_and__ = _bin("logical_and", True)
    logical_or = _bin("logical_or")
    __rlogical_or__ = _bin("logical_or", True)
    __pow__ = _bin("pow")
    __rpow__ = _bin("pow", True)
    del _bin

    def _un(name):
        def method(self, _semantic=None):
            if _semantic is None:
                raise ValueError("Did you forget to add @triton.jit ?")
            return getattr(_semantic, name)(self)
        setattr(method, TRITON_BUILTIN, True)
        return method

    __neg__ = _un("minus")
    __pos__ = _un("plus")
    __invert__ = _un("invert")
    __not__ = _un("not_")
    __abs__ = _un("abs")
    del _un

    def __hash__(self):
        return id(self)

    @builtin
    def __getitem__(self, slices, _semantic=None):
        return _semantic.getitem(self, slices)

    @property
    def T(self):
        raise ValueError("use tl.trans(x) or x.T inside a kernel")


class tuple(base_value):
    """A tuple of kernel values (upstream `tl.tuple`): unpacks, indexes, and is hashable."""

    def __init__(self, values, type=None):
        self.values = [v for v in values]
        self.type = type or tuple_type([getattr(v, "type", None) for v in self.values])

    def __getattr__(self, name):
        # A NamedTuple's fields (`X.ptr`), as its type records them.
        if name.startswith("__") or name in ("values", "type"):
            raise AttributeError(name)
        fields = getattr(self.type, "fields", None) or ()
        if name in fields:
            return self.values[list(fields).index(name)]
        raise AttributeError(f"tuple has no attribute {name!r}")

    def _with_values(self, values):
        """A tuple of these values keeping this one's field names."""
        fields = getattr(self.type, "fields", None)
        return tuple(values, tuple_type([getattr(v, "type", None) for v in values], fields))

    def __getitem__(self, idx):
        idx = _unwrap_if_constexpr(idx)
        if isinstance(idx, slice):
            return tuple(self.values[idx])
        return self.values[idx]

    def __setitem__(self, idx, value):
        raise TypeError("tuples are immutable: cannot assign to an element of a tuple")

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __add__(self, other):
        return tuple(self.values + list(other))

    def __radd__(self, other):
        return tuple(list(other) + self.values)

    def __mul__(self, n):
        return tuple(self.values * _unwrap_if_constexpr(n))

    __rmul__ = __mul__

    def __eq__(self, other):
        return isinstance(other, (tuple, builtins_tuple, list)) and list(self) == list(other)

    def __hash__(self):
        return hash(builtins_tuple(self.values))

    def __repr__(self):
        return f"({', '.join(repr(v) for v in self.values)})"


def _tensor_member_fn(fn: Callable) -> Callable:
    """Also expose a builtin as a tensor method: `x.to(tl.float16)`, `x.sum(0)`."""
    setattr(tensor, fn.__name__, fn)
    return fn


def is_tensor(x: Any) -> bool:
    return isinstance(x, tensor)


__all__ = ["builtin", "is_builtin", "constexpr", "tensor", "tuple", "base_value", "aggregate_value",
           "_unwrap_if_constexpr", "_constexpr_to_value", "_tensor_member_fn", "block_type",
           "check_bit_width"]


def __getattr__(name):
    # Upstream keeps every builtin in `triton.language.core`; user code reaches them there
    # (`core.extern_elementwise`). Ours live in sibling modules, so fall back to `tl`.
    # Dunders never: the import system asks for `__path__` at every run-time
    # `from ..language.core import x`, and a lookup through `tl` costs microseconds.
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    tl = importlib.import_module(__name__.rsplit(".", 1)[0])
    if name in vars(tl):
        return vars(tl)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
