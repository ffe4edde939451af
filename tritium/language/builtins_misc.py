"""More builtins: reductions and scans, hints, debugging, loop iterators, external code."""
from __future__ import annotations

import builtins as _py
import string
import typing
from contextlib import contextmanager
from typing import Callable, Sequence, TypeVar, Union

from .builtins import _wrap_axis, arange, broadcast_to, expand_dims
from .core import _unwrap_if_constexpr, builtin, constexpr, is_builtin, tensor
from .core import tuple as tl_tuple
from .dtypes import block_type, dtype

T = TypeVar("T")


# ---------------------------------------------------------------------- combine functions
def _is_jit_function(fn) -> bool:
    try:
        from ..frontend.jit import JITFunction
    except ImportError:  # the frontend is optional for IR-level use of the language
        return False
    return isinstance(fn, JITFunction)


def _call_combine(fn, args, _semantic, _generator):
    """Run a user's combine function on scalar tensors inside a reduce/scan region."""
    fn = _unwrap_if_constexpr(fn)
    if _is_jit_function(fn):
        if _generator is None:
            raise ValueError("combine_fn must be called from within a @triton.jit function")
        call = getattr(_generator, "call_JitFunction", None) or _generator.call_jit_function
        return call(fn, list(args), {})
    if is_builtin(fn):
        return fn(*args, _semantic=_semantic)
    return fn(*args)


def _as_inputs(input):
    if isinstance(input, tl_tuple):
        return list(input.values)
    return list(input)


@contextmanager
def _insertion_guard(builder):
    ip = builder.get_insertion_point()
    try:
        yield
    finally:
        builder.restore_insertion_point(ip)


def _add_reduction_docstr(name: str, return_indices_arg: str = None, tie_break_arg: str = None,
                          dtype_arg: str = None) -> Callable[[T], T]:
    def decorate(func: T) -> T:
        doc = (f"The {name} of the elements of `input` along `axis` (all axes if None); "
               "`keep_dims` keeps reduced axes with length 1.")
        if return_indices_arg is not None:
            doc += f" `{return_indices_arg}` also returns the index of the {name}."
        if tie_break_arg is not None:
            doc += f" `{tie_break_arg}` picks the left-most index among ties."
        if dtype_arg is not None:
            doc += f" `{dtype_arg}` is the accumulation type (default: int32 for narrow ints)."
        func.__doc__ = doc
        return func
    return decorate


def _add_scan_docstr(name: str, dtype_arg: str = None) -> Callable[[T], T]:
    def decorate(func: T) -> T:
        doc = f"The {name} of `input` along `axis`; `reverse` scans from the end."
        if dtype_arg is not None:
            doc += f" `{dtype_arg}` is the accumulation type."
        func.__doc__ = doc
        return func
    return decorate


# ---------------------------------------------------------------------- reductions / scans
@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None, _generator=None):
    """Reduce `input` (a tensor or a tuple of same-shape tensors) along `axis` with the
    @jit function `combine_fn`; `axis=None` reduces everything."""
    if isinstance(input, tensor):
        return reduce((input,), axis, combine_fn, keep_dims=keep_dims, _semantic=_semantic,
                      _generator=_generator)[0]
    inputs = _as_inputs(input)

    def make_region(op):
        _semantic.build_combine_region(
            op, [t.type.scalar for t in inputs],
            lambda args: _call_combine(combine_fn, args, _semantic, _generator), "tt.reduce.return")

    axis = _unwrap_if_constexpr(axis)
    keep_dims = _unwrap_if_constexpr(keep_dims)
    rank = len(inputs[0].shape)
    if axis is not None:
        axis = _wrap_axis(axis, rank)
    ret = _semantic.reduction(inputs, axis, make_region)
    if keep_dims:
        if axis is not None:
            ret = tuple(expand_dims(t, axis, _semantic=_semantic) for t in ret)
        else:
            ret = tuple(expand_dims(t, list(_py.range(rank)), _semantic=_semantic) for t in ret)
    return ret


@builtin
def _reduce_with_indices(input, axis, combine_fn, keep_dims=False, _semantic=None, _generator=None):
    axis = _unwrap_if_constexpr(axis)
    n = input.shape[axis]
    index = arange(0, n, _semantic=_semantic)
    if len(input.shape) > 1:
        others = [constexpr(d) for d in _py.range(len(input.shape)) if d != axis]
        index = expand_dims(index, others, _semantic=_semantic)
        index = broadcast_to(index, input.shape, _semantic=_semantic)
    return reduce((input, index), axis, combine_fn, keep_dims=keep_dims, _semantic=_semantic,
                  _generator=_generator)


def _take_first(a, b):
    return a


def _unsplat(x, _semantic=None, _generator=None):
    """A single-element tensor as a scalar (through a reduction, the only way TTIR has)."""
    if len(x.shape) == 0:
        return x
    numel = 1
    for d in x.shape:
        numel *= _unwrap_if_constexpr(d)
    assert numel == 1, "can only unsplat single-element tensors"
    if len(x.shape) >= 2:
        x = _semantic.reshape(x, [1], can_reorder=False)
    return typing.cast(tensor, reduce(x, 0, _take_first, _semantic=_semantic, _generator=_generator))


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None, _generator=None):
    """Inclusive scan of `input` (a tensor or a tuple of tensors) along `axis` with the
    @jit function `combine_fn`."""
    if isinstance(input, tensor):
        return associative_scan((input,), axis, combine_fn, reverse, _semantic=_semantic,
                                _generator=_generator)[0]
    inputs = _as_inputs(input)

    def make_region(op):
        _semantic.build_combine_region(
            op, [t.type.scalar for t in inputs],
            lambda args: _call_combine(combine_fn, args, _semantic, _generator), "tt.scan.return")

    axis = _unwrap_if_constexpr(axis)
    if axis is not None:
        axis = _wrap_axis(axis, len(inputs[0].shape))
    return _semantic.associative_scan(inputs, axis, make_region, _unwrap_if_constexpr(reverse))


@builtin
def histogram(input, num_bins, mask=None, _semantic=None, _generator=None):
    """Counts of the values of an integer 1D `input` in `num_bins` bins of width 1 from 0."""
    num_bins = _unwrap_if_constexpr(num_bins)
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.histogram(input, num_bins, mask)


@builtin
def gather(src, index, axis, _semantic=None):
    """`src` gathered along `axis` at the positions in `index`."""
    return _semantic.gather(src, index, _unwrap_if_constexpr(axis))


for _fn in (reduce, associative_scan, histogram, gather):
    setattr(tensor, _fn.__name__, _fn)


@builtin
def map_elementwise(scalar_fn, *args, pack=1, _semantic=None, _generator=None):
    """Apply the @jit function `scalar_fn` to the elements of `args` (broadcast to one
    shape) one at a time, so it may branch per element (where `tl.where` would evaluate
    both sides). With `pack=P` it takes P consecutive elements of each argument and returns
    P values per output. Returns one tensor, or a tuple when `scalar_fn` returns several."""
    pack = _unwrap_if_constexpr(pack)
    if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1:
        raise ValueError(f"pack must be a positive integer, got {pack!r}")
    outs, single = _semantic.map_elementwise(
        list(args), pack, lambda scalars: _call_combine(scalar_fn, scalars, _semantic, _generator))
    return outs[0] if single else tl_tuple(outs)


# ---------------------------------------------------------------------- compiler hints
def _hint_values(values):
    values = values.values if isinstance(values, tl_tuple) else values
    if isinstance(values, constexpr):
        if isinstance(values.value, (list, tuple)):
            values = [v if isinstance(v, constexpr) else constexpr(v) for v in values.value]
        else:
            values = [values]
    for i, d in enumerate(values):
        if not isinstance(d, constexpr):
            raise TypeError(f"values element {i} must have type `constexpr`")
        if not isinstance(d.value, int):
            raise TypeError(f"values element {i} must have type `constexpr[int]`, "
                            f"got `constexpr[{type(d.value)}]")
    return [d.value for d in values]


@builtin
def multiple_of(input, values, _semantic=None):
    """Promise the compiler that the values of `input` are multiples of `values`."""
    return _semantic.multiple_of(input, _hint_values(values))


@builtin
def max_contiguous(input, values, _semantic=None):
    """Promise the compiler that `values` leading elements of `input` are contiguous."""
    return _semantic.max_contiguous(input, _hint_values(values))


@builtin
def max_constancy(input, values, _semantic=None):
    """Promise the compiler that `input` is constant in groups of `values` elements."""
    return _semantic.max_constancy(input, _hint_values(values))


@builtin
def assume(cond, _semantic=None):
    """Let the compiler assume `cond` is true."""
    return _semantic.assume(_semantic.to_tensor(cond))


@builtin
def debug_barrier(_semantic=None):
    """Synchronise all threads of a program."""
    return _semantic.debug_barrier()


# ---------------------------------------------------------------------- debugging
@builtin
def static_print(*values, sep: str = " ", end: str = "\n", file=None, flush=False, _semantic=None):
    """Print at compile time (the code generator evaluates it)."""


@builtin
def static_assert(cond, msg="", _semantic=None):
    """Assert at compile time (the code generator evaluates it)."""


@builtin
def device_print(prefix, *args, hex=False, _semantic=None):
    """Print `prefix` and the values of `args` at run time, from every program."""
    prefix = _unwrap_if_constexpr(prefix)
    assert isinstance(prefix, str), f"{prefix} is not string"
    assert all(ch in string.printable for ch in prefix), f"{prefix} is not an ascii string"
    new_args = [_semantic.to_tensor(a) for a in args]
    return _semantic.device_print(prefix, new_args, _unwrap_if_constexpr(hex))


@builtin
def device_assert(cond, msg="", mask=None, _semantic=None):
    """Assert `cond` at run time (only compiled in with debug on, e.g. TRITON_DEBUG=1)."""
    msg = _unwrap_if_constexpr(msg)
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.device_assert(_semantic.to_tensor(cond), msg, mask)


# ---------------------------------------------------------------------- external code
@builtin
def inline_asm_elementwise(asm: str, constraints: str, args: Sequence,
                           dtype: Union[dtype, Sequence[dtype]], is_pure: bool, pack: int,
                           _semantic=None):
    """Run inline assembly over the (broadcast) elements of `args`, `pack` at a time;
    `dtype` may be a tuple, giving a tuple of results."""
    asm, constraints = _unwrap_if_constexpr(asm), _unwrap_if_constexpr(constraints)
    pack, is_pure = _unwrap_if_constexpr(pack), _unwrap_if_constexpr(is_pure)
    dtype = _unwrap_if_constexpr(dtype)
    if isinstance(dtype, tl_tuple):
        dtype = dtype.values
    try:
        iter(dtype)
        multiple = True
    except TypeError:
        multiple, dtype = False, (dtype,)
    dtype = [_unwrap_if_constexpr(d) for d in dtype]
    args = args.values if isinstance(args, tl_tuple) else _unwrap_if_constexpr(args)
    res = _semantic.inline_asm_elementwise(asm, constraints, list(args), dtype, is_pure, pack)
    return tuple(res) if multiple else res[0]


def dispatch(func, lib_name: str, lib_path: str, args: list, arg_type_symbol_dict: dict,
             ret_shape: tuple, is_pure: bool, _semantic):
    """Emit the library call for already-converted `args` (the second half of
    `extern_elementwise`); `func` is accepted for signature compatibility."""
    if len(arg_type_symbol_dict) == 0:
        raise ValueError("arg_type_symbol_dict is empty")
    num_args = len(list(arg_type_symbol_dict.keys())[0])
    if len(args) != num_args:
        raise ValueError(f"length of input args does not match."
                         f"Expect {len(args)}, got {num_args}")
    arg_types = tuple(a.dtype if isinstance(a, tensor) else type(a) for a in args)
    if arg_types not in arg_type_symbol_dict:
        raise ValueError(f"input arg type does not match."
                         f"Expect one of {arg_type_symbol_dict.keys()}, got {arg_types}")
    symbol, ret_type = arg_type_symbol_dict[arg_types]
    if ret_shape:
        ret_type = block_type(ret_type, ret_shape)
    attrs = {"libname": lib_name, "libpath": lib_path, "symbol": symbol, "pure": bool(is_pure)}
    return _semantic._emit("tt.extern_elementwise", args, ret_type, attrs)


@builtin
def extern_elementwise(lib_name: str, lib_path: str, args: list, arg_type_symbol_dict: dict,
                       is_pure: bool, _semantic=None):
    """Call an elementwise function of an external library (libdevice...), picking the
    symbol by the argument dtypes."""
    args = args.values if isinstance(args, tl_tuple) else list(args)
    return _semantic.extern_elementwise(_unwrap_if_constexpr(lib_name),
                                        _unwrap_if_constexpr(lib_path), args,
                                        arg_type_symbol_dict, _unwrap_if_constexpr(is_pure))


def binary_op_type_legalization(lhs, rhs, semantic):
    """Convert both operands to one common type and shape."""
    return semantic.binary_op_type_checking_impl(lhs, rhs)


def extern(fn):
    """Mark a function that calls `extern_elementwise` as a builtin."""
    return builtin(fn)


# ---------------------------------------------------------------------- loop iterators
class condition:
    """`while tl.condition(c, disable_licm=True):` a while loop's condition with hints for
    the compiler (the loop runs exactly as `while c:`)."""

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = disable_licm



class static_range:
    """`for i in tl.static_range(...)`: a loop the compiler unrolls; bounds are constexprs."""

    def __init__(self, arg1, arg2=None, step=None):
        assert isinstance(arg1, constexpr), f"{arg1} used as tl.static_range start value is not a constexpr"
        if step is None:
            self.step = constexpr(1)
        else:
            assert isinstance(step, constexpr), f"{step} used as tl.static_range step value is not a constexpr"
            self.step = step
        if arg2 is None:
            self.start, self.end = constexpr(0), arg1
        else:
            assert isinstance(arg2, constexpr), f"{arg2} used as tl.static_range end value is not a constexpr"
            self.start, self.end = arg1, arg2

    def __iter__(self):
        raise RuntimeError("static_range can only be used in @triton.jit'd functions")

    def __next__(self):
        raise RuntimeError("static_range can only be used in @triton.jit'd functions")


class range:
    """`for i in tl.range(...)`: an `scf.for` loop carrying compiler hints (pipelining
    stages, unroll factor, accumulator buffering, loop flattening, warp specialization)."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False,
                 disable_licm=False):
        self.step = constexpr(1) if step is None else step
        if arg2 is None:
            self.start, self.end = constexpr(0), arg1
        else:
            self.start, self.end = arg1, arg2
        self.num_stages = num_stages
        self.loop_unroll_factor = loop_unroll_factor
        self.disallow_acc_multi_buffer = disallow_acc_multi_buffer
        self.flatten = flatten
        self.warp_specialize = warp_specialize
        self.disable_licm = disable_licm

    def __iter__(self):
        raise RuntimeError("tl.range can only be used in @triton.jit'd functions")

    def __next__(self):
        raise RuntimeError("tl.range can only be used in @triton.jit'd functions")

