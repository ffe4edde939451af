"""The builtins users call inside kernels: `tl.load`, `tl.arange`, `tl.dot`, `x.to(...)`...

Each one unwraps its compile-time (constexpr) arguments, checks what only the call site can
check, and hands over to `TritonSemantic`. Names, signatures and defaults are upstream
Triton's so that kernels written for Triton run unchanged.
"""
from __future__ import annotations

import enum
import functools
from typing import Optional, Sequence

from .core import _tensor_member_fn, _unwrap_if_constexpr, builtin, constexpr
from .dtypes import TRITON_MAX_TENSOR_NUMEL, bfloat16, dtype, float32, int1
from .tensor_descriptor import tensor_descriptor, tensor_descriptor_base  # noqa: F401

_DtypeClass = dtype


class PropagateNan(enum.IntEnum):
    """How `minimum`/`maximum`/`clamp` treat NaN: `ALL` propagates it, `NONE` returns the
    other operand (the values are those of Triton's IR enum)."""
    NONE = 0x0000
    ALL = 0xFFFF


class const:
    """Annotation marking a pointer argument as pointing to read-only data."""


class constexpr_type:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(("constexpr_type", self.value))

    def __repr__(self) -> str:
        return f"constexpr[{self.value}]"


class slice:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


class ConstexprFunction:
    """A plain Python function run at compile time on constexpr arguments inside a kernel;
    its result comes back as a constexpr (called from Python, as is). Upstream's class
    (`triton.runtime.jit.ConstexprFunction`): `fn` and `src` are what Inductor reads to copy
    the function into the module it generates around a user's kernel."""
    __triton_builtin__ = True

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    @functools.cached_property
    def src(self) -> str:
        """The source from `def` on (decorators dropped), as upstream's."""
        import inspect
        import re
        import textwrap
        text = textwrap.dedent(inspect.getsource(self.fn))
        match = re.search(r"^def\s+\w+\s*\(", text, re.MULTILINE)
        return text[match.start():] if match else text

    hash = None
    used_global_vals: dict = {}  # filled with cache_key, as a @jit function's

    @property
    def starting_line_number(self) -> int:
        import inspect
        return inspect.getsourcelines(self.fn)[1] if hasattr(self.fn, "__code__") else 0

    def parse(self):
        import ast
        return ast.parse(self.src)

    @property
    def cache_key(self) -> str:
        """What kernels calling it hash it as (upstream's `JITCallable.cache_key`): its
        source, first line and what it references, as a `@jit` function's; referencing a
        plain Python function raises RuntimeError, as upstream."""
        if self.hash is None:
            from ..frontend.dependencies import dependencies_key
            dependencies_key(self)
        return self.hash

    def _unsafe_update_src(self, new_src: str) -> None:
        """As `JITFunction._unsafe_update_src`: the new source counts in `cache_key` (the
        function run at compile time is still `fn`, as upstream)."""
        self.__dict__["src"] = new_src
        self.hash = None

    def __call__(self, *args, _semantic=None, **kwargs):
        args = [_unwrap_if_constexpr(a) for a in args]
        kwargs = {k: _unwrap_if_constexpr(v) for k, v in kwargs.items()}
        result = self.fn(*args, **kwargs)
        return result if _semantic is None else constexpr(result)

    def __get__(self, obj, objtype=None):  # a method of an aggregate: bound to it
        return self if obj is None else _BoundConstexprFunction(obj, self)

    def __repr__(self) -> str:
        return f"ConstexprFunction({getattr(self.fn, '__qualname__', self.fn)})"


class _BoundConstexprFunction:
    __triton_builtin__ = True

    def __init__(self, obj, function):
        self.__self__, self.function = obj, function

    def __call__(self, *args, _semantic=None, **kwargs):
        return self.function(self.__self__, *args, _semantic=_semantic, **kwargs)


def constexpr_function(f):
    """Let a plain Python function run at compile time on constexpr arguments inside a
    kernel; its result comes back as a constexpr (called from Python, as is)."""
    return ConstexprFunction(f)


def get_int_dtype(bitwidth: int, signed: bool) -> dtype:
    bitwidth, signed = _unwrap_if_constexpr(bitwidth), _unwrap_if_constexpr(signed)
    if bitwidth == 1:
        return int1
    if bitwidth in (8, 16, 32, 64):
        return _DtypeClass(("int" if signed else "uint") + str(bitwidth))
    raise ValueError(f"Unsupported bitwidth {bitwidth} and signedness {signed}")


# ---------------------------------------------------------------------- argument helpers
def _unwrap_iterable(x):
    """`f(x, (2, 3))` and `f(x, 2, 3)` mean the same: unwrap a lone iterable argument."""
    if len(x) == 1:
        try:
            iter(x[0])
            return x[0]
        except TypeError:
            pass
    return x


def _unwrap_shape(shape):
    shape = _unwrap_if_constexpr(shape)
    if hasattr(shape, "values") and not isinstance(shape, (list, tuple)):
        shape = shape.values
    return [_unwrap_if_constexpr(s) for s in shape]


def validate_block_shape(shape) -> int:
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, "
                            f"got `constexpr[{type(d)}]")
        if d & (d - 1) != 0:
            raise ValueError(f"Shape element {i} must be a power of 2")
        numel *= d
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel "
                         f"({TRITON_MAX_TENSOR_NUMEL})")
    return numel


def _shape_check_impl(shape):
    shape = _unwrap_shape(shape)
    validate_block_shape(shape)
    return shape


def _wrap_axis(axis, ndim):
    if not (-ndim <= axis < ndim):
        raise ValueError(f"invalid axis {axis}. Expected {-ndim} <= axis < {ndim}")
    return axis if axis >= 0 else axis + ndim


@builtin
def to_tensor(x, _semantic=None):
    return _semantic.to_tensor(x)


# ---------------------------------------------------------------------- programming model
@builtin
def program_id(axis, _semantic=None):
    """The id of the current program instance along `axis` (0, 1 or 2)."""
    return _semantic.program_id(_unwrap_if_constexpr(axis))


@builtin
def num_programs(axis, _semantic=None):
    """The number of program instances launched along `axis` (0, 1 or 2)."""
    return _semantic.num_programs(_unwrap_if_constexpr(axis))


# ---------------------------------------------------------------------- block creation
@builtin
def arange(start, end, _semantic=None):
    """Contiguous values in the half-open interval [start, end); the length must be a
    power of two."""
    return _semantic.arange(_unwrap_if_constexpr(start), _unwrap_if_constexpr(end))


@builtin
def full(shape, value, dtype, _semantic=None):
    """A tensor of `shape` filled with the scalar `value` of type `dtype`."""
    shape = _shape_check_impl(shape)
    return _semantic.full(shape, _unwrap_if_constexpr(value), _unwrap_if_constexpr(dtype))


@builtin
def zeros(shape, dtype, _semantic=None):
    """A tensor of zeros of `shape` and `dtype`."""
    return full(shape, 0, dtype, _semantic=_semantic)


@builtin
def zeros_like(input, _semantic=None):
    """Zeros with the shape and dtype of `input`."""
    input = _semantic.to_tensor(input)
    return full(input.shape, 0, input.dtype, _semantic=_semantic)


# ---------------------------------------------------------------------- shape manipulation
@builtin
def broadcast(input, other, _semantic=None):
    """Broadcast two blocks to a common shape."""
    return _semantic.broadcast_impl_value(_semantic.to_tensor(input), _semantic.to_tensor(other))


@_tensor_member_fn
@builtin
def broadcast_to(input, *shape, _semantic=None):
    """Broadcast `input` to `shape` (given as a tuple or as separate ints)."""
    shape = _shape_check_impl(_unwrap_iterable(shape))
    return _semantic.broadcast_impl_shape(_semantic.to_tensor(input), shape)


@_tensor_member_fn
@builtin
def trans(input, *dims, _semantic=None):
    """Permute the dimensions of `input`; with no `dims`, swap its last two (a 2D tensor's
    transpose; for more dims, each matrix of the batch transposed, as `tl.dot` takes it)."""
    dims = _unwrap_iterable(dims)
    if not dims:
        rank = len(input.shape) if hasattr(input, "shape") else 2
        dims = tuple(range(rank - 2)) + (rank - 1, rank - 2) if rank >= 2 else (1, 0)
    return _semantic.permute(input, dims)


@_tensor_member_fn
@builtin
def permute(input, *dims, _semantic=None):
    """Permute the dimensions of `input` (dims as a tuple or as separate ints)."""
    return _semantic.permute(input, _unwrap_iterable(dims))


@builtin
def cat(input, other, can_reorder=False, dim=0, _semantic=None):
    """Concatenate two blocks along `dim`. With `can_reorder=True` (1D blocks only) the
    order of the elements may change, which is cheaper on a GPU."""
    if _unwrap_if_constexpr(can_reorder):
        return _semantic.cat(input, other, True)
    rank = len(input.shape)
    if rank != len(other.shape):
        raise ValueError(f"cat: tensors must have the same rank, got {rank} and "
                         f"{len(other.shape)}")
    dim = _unwrap_if_constexpr(dim)
    if not -rank <= dim < rank:
        raise ValueError(f"cat: dim {dim} is out of range for rank {rank}")
    dim %= rank
    a_shape = [_unwrap_if_constexpr(d) for d in input.shape]
    b_shape = [_unwrap_if_constexpr(d) for d in other.shape]
    if any(a_shape[i] != b_shape[i] for i in range(rank) if i != dim):
        raise ValueError(f"cat: shapes must match except in dimension {dim}, got {a_shape} "
                         f"and {b_shape}")
    if a_shape[dim] != b_shape[dim]:
        raise ValueError(f"cat: both tensors need the same size in dimension {dim} (as "
                         f"upstream's), got {a_shape[dim]} and {b_shape[dim]}")
    # Pair the two along a new minor axis and move that axis in front of `dim`: merging
    # (pair, dim) then lays out all of `input` before all of `other`.
    joined = _semantic.join(input, other)              # [..., 2]
    order = list(range(rank))
    order.insert(dim, rank)                            # [..., 2, dim, ...]
    moved = _semantic.permute(joined, order)
    shape = list(a_shape)
    shape[dim] = a_shape[dim] * 2
    return _semantic.reshape(moved, shape, can_reorder=False)


@builtin
def join(a, b, _semantic=None):
    """Join two tensors along a new minor dimension of size 2 (inverse of `split`)."""
    return _semantic.join(_semantic.to_tensor(a), _semantic.to_tensor(b))


@_tensor_member_fn
@builtin
def split(a, _semantic=None, _generator=None):
    """Split a tensor along its last dimension, which must have size 2."""
    from .builtins_misc import _unsplat
    # tt.split returns tensors; a [2] input gives scalars, so go through [1, 2].
    was_rank_1 = len(a.shape) == 1
    if was_rank_1:
        a = _semantic.expand_dims(a, 0)
    lhs, rhs = _semantic.split(a)
    if was_rank_1:
        lhs = _unsplat(lhs, _semantic=_semantic, _generator=_generator)
        rhs = _unsplat(rhs, _semantic=_semantic, _generator=_generator)
    return lhs, rhs


@_tensor_member_fn
@builtin
def view(input, *shape, _semantic=None):
    """Deprecated: `reshape(..., can_reorder=True)`."""
    import warnings
    warnings.warn("view is deprecated, please use reshape with can_reorder being true.")
    shape = _shape_check_impl(_unwrap_iterable(shape))
    return _semantic.reshape(input, shape, can_reorder=True)


@_tensor_member_fn
@builtin
def item(input, _semantic=None, _generator=None):
    """Convert a single-element tensor into a scalar."""
    from .builtins_misc import _unsplat
    return _unsplat(input, _semantic=_semantic, _generator=_generator)


@_tensor_member_fn
@builtin
def reshape(input, *shape, can_reorder=False, _semantic=None, _generator=None):
    """A tensor with the elements of `input` in a new `shape`."""
    shape = _shape_check_impl(_unwrap_iterable(shape))
    if len(shape) == 0:
        from .builtins_misc import _unsplat
        return _unsplat(input, _semantic=_semantic, _generator=_generator)
    return _semantic.reshape(input, shape, _unwrap_if_constexpr(can_reorder))


@_tensor_member_fn
@builtin
def expand_dims(input, axis, _semantic=None):
    """Insert length-1 dimensions at `axis` (an int or a sequence of ints), counted in the
    result."""
    input = _semantic.to_tensor(input)
    axis = _unwrap_if_constexpr(axis)
    if hasattr(axis, "values") and not isinstance(axis, (list, tuple)):
        axis = axis.values
    axes = list(axis) if isinstance(axis, (Sequence, tuple)) else [axis]
    new_ndim = len(input.shape) + len(axes)
    axes = [_wrap_axis(_unwrap_if_constexpr(d), new_ndim) for d in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"expand_dims received duplicate axes, normalized axes = {axes}")
    ret = input
    for a in sorted(axes):
        ret = _semantic.expand_dims(ret, a)
    return ret


@_tensor_member_fn
@builtin
def cast(input, dtype: _DtypeClass, fp_downcast_rounding: Optional[str] = None,
         bitcast: bool = False, _semantic=None):
    """Convert `input` to `dtype`; `bitcast=True` reinterprets the bits instead, and
    `fp_downcast_rounding` ("rtne" or "rtz") picks the rounding of narrowing float casts."""
    input = _semantic.to_tensor(input)
    dtype = _unwrap_if_constexpr(dtype)
    fp_downcast_rounding = _unwrap_if_constexpr(fp_downcast_rounding)
    if _unwrap_if_constexpr(bitcast):
        return _semantic.bitcast(input, dtype)
    return _semantic.cast(input, dtype, fp_downcast_rounding)


@_tensor_member_fn
@builtin
def to(input, dtype: _DtypeClass, fp_downcast_rounding: Optional[str] = None,
       bitcast: bool = False, _semantic=None):
    """Alias of `cast`, as a tensor method: `x.to(tl.float16)`."""
    return cast(input, dtype, fp_downcast_rounding, bitcast, _semantic=_semantic)


# ---------------------------------------------------------------------- linear algebra
@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32, _semantic=None):
    """Matrix product of two 2D (or batched 3D) blocks, accumulated into `acc`."""
    input_precision = _unwrap_if_constexpr(input_precision)
    allow_tf32 = _unwrap_if_constexpr(allow_tf32)
    assert input_precision is None or allow_tf32 is None, \
        "Only one of input_precision and allow_tf32 can be specified"
    if input_precision is None:
        input_precision = _semantic.default_input_precision(allow_tf32)
    out_dtype = _unwrap_if_constexpr(out_dtype)
    max_num_imprecise_acc = _unwrap_if_constexpr(max_num_imprecise_acc)
    acc = _unwrap_if_constexpr(acc)
    return _semantic.dot(input, other, acc, input_precision, max_num_imprecise_acc, out_dtype)


@builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32, _semantic=None):
    """Matrix product of microscaled (MX) blocks: `lhs` [M, K] and `rhs` [K, N] in `lhs_format`
    / `rhs_format` ("e2m1": two fp4 per uint8, first in the low bits, packed along K or, with
    `*_k_pack=False`, along M / N; "e4m3", "e5m2" as fp8 or uint8; "bf16", "fp16"), each
    scaled by e8m0 uint8 scales (`lhs_scale` [M, K // 32], `rhs_scale` [N, K // 32]; None
    means 1), accumulated into `acc` in float32."""
    out_dtype = _unwrap_if_constexpr(out_dtype)
    assert out_dtype == float32, "Only float32 is supported for out_dtype at the moment"
    acc = _unwrap_if_constexpr(acc)
    return _semantic.dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc,
                                _unwrap_if_constexpr(fast_math), _unwrap_if_constexpr(lhs_k_pack),
                                _unwrap_if_constexpr(rhs_k_pack), out_dtype)


# ---------------------------------------------------------------------- memory
@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False, _semantic=None):
    """Load a scalar or a block from `pointer`; where `mask` is false, `other` is returned."""
    mask, other = _unwrap_if_constexpr(mask), _unwrap_if_constexpr(other)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    if other is not None:
        other = _semantic.to_tensor(other)
    return _semantic.load(pointer, mask, other, _unwrap_if_constexpr(boundary_check),
                          _unwrap_if_constexpr(padding_option), _unwrap_if_constexpr(cache_modifier),
                          _unwrap_if_constexpr(eviction_policy), _unwrap_if_constexpr(volatile))


@_tensor_member_fn
@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _semantic=None):
    """Store `value` (broadcast and converted to the pointee type) where `mask` is true."""
    value = _semantic.to_tensor(value)
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.store(pointer, value, mask, _unwrap_if_constexpr(boundary_check),
                           _unwrap_if_constexpr(cache_modifier), _unwrap_if_constexpr(eviction_policy))


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
    """A block pointer: the `block_shape` block at `offsets` of a parent tensor of `shape` and
    `strides` (in elements) at `base`; `order` lists the dims from the fastest varying.
    Load/store it with `boundary_check=(dims...)` to mask what falls outside `shape`."""
    return _semantic.make_block_ptr(base, shape, strides, offsets, block_shape, order)


@_tensor_member_fn
@builtin
def advance(base, offsets, _semantic=None):
    """The block pointer `base` moved by `offsets` (elements, one per dim)."""
    return _semantic.advance(base, offsets)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero", _semantic=None):
    """A tensor descriptor over the tensor at `base` with global `shape` (i32) and `strides`
    (i64, the last must be 1): `desc.load([i, j])` reads the `block_shape` block at element
    offsets (i, j); out-of-bounds elements read as `padding_option` ("zero" or "nan") and
    are dropped on stores."""
    return _semantic.make_tensor_descriptor(base, shape, strides, block_shape,
                                            _unwrap_if_constexpr(padding_option))


@builtin
def load_tensor_descriptor(desc, offsets, _semantic=None):
    return desc.load(offsets, _semantic=_semantic)


@builtin
def store_tensor_descriptor(desc, offsets, value, _semantic=None):
    return desc.store(offsets, value, _semantic=_semantic)


# ---------------------------------------------------------------------- atomics
def _atomic(name: str, has_cmp: bool = False):
    def make(fn):
        fn.__doc__ = (f"Atomic {name} at `pointer`; returns the values stored there before. "
                      "`sem` is one of acquire, release, acq_rel (default), relaxed; `scope` is "
                      "gpu (default), cta or sys.")
        return fn
    return make


@_tensor_member_fn
@builtin
@_atomic("compare-and-swap", has_cmp=True)
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None):
    cmp, val = _semantic.to_tensor(cmp), _semantic.to_tensor(val)
    return _semantic.atomic_cas(pointer, cmp, val, _unwrap_if_constexpr(sem),
                                _unwrap_if_constexpr(scope))


def _atomic_rmw_builtin(kind: str, doc: str):
    def fn(pointer, val, mask=None, sem=None, scope=None, _semantic=None):
        val = _semantic.to_tensor(val)
        mask = _unwrap_if_constexpr(mask)
        return getattr(_semantic, "atomic_" + kind)(pointer, val, mask, _unwrap_if_constexpr(sem),
                                                     _unwrap_if_constexpr(scope))
    fn.__name__ = fn.__qualname__ = "atomic_" + kind
    return _tensor_member_fn(builtin(_atomic(doc)(fn)))


atomic_xchg = _atomic_rmw_builtin("xchg", "exchange")
atomic_add = _atomic_rmw_builtin("add", "add")
atomic_max = _atomic_rmw_builtin("max", "max")
atomic_min = _atomic_rmw_builtin("min", "min")
atomic_and = _atomic_rmw_builtin("and", "logical and")
atomic_or = _atomic_rmw_builtin("or", "logical or")
atomic_xor = _atomic_rmw_builtin("xor", "logical xor")


# ---------------------------------------------------------------------- selection & math
@builtin
def where(condition, x, y, _semantic=None):
    """Elementwise `x` where `condition` is true, else `y` (both are always evaluated)."""
    condition = _semantic.to_tensor(condition)
    return _semantic.where(condition, _unwrap_if_constexpr(x), _unwrap_if_constexpr(y))


@builtin
def add(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.add(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         _unwrap_if_constexpr(sanitize_overflow))


@builtin
def sub(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.sub(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         _unwrap_if_constexpr(sanitize_overflow))


@builtin
def mul(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.mul(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         _unwrap_if_constexpr(sanitize_overflow))


@builtin
def _promote_bfloat16_to_float32(t, _semantic=None):
    # No bf16 max/min/compare in hardware: widen first.
    if t.type.scalar == bfloat16:
        return _semantic.cast(t, float32)
    return t


def _minmax_operands(values, _semantic):
    return [_promote_bfloat16_to_float32(_semantic.to_tensor(v), _semantic=_semantic)
            for v in values]


@builtin
def minimum(x, y, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    """Elementwise minimum; `propagate_nan` (a `tl.PropagateNan`) says whether NaNs win."""
    x, y = _minmax_operands((x, y), _semantic)
    return _semantic.minimum(x, y, _unwrap_if_constexpr(propagate_nan))


@builtin
def maximum(x, y, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    """Elementwise maximum; `propagate_nan` (a `tl.PropagateNan`) says whether NaNs win."""
    x, y = _minmax_operands((x, y), _semantic)
    return _semantic.maximum(x, y, _unwrap_if_constexpr(propagate_nan))


@builtin
def clamp(x, min, max, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    """Clamp `x` to [min, max]; undefined when min > max."""
    x, min, max = _minmax_operands((x, min, max), _semantic)
    return _semantic.clamp(x, min, max, _unwrap_if_constexpr(propagate_nan))

