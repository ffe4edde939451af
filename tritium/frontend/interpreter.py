"""`triton.runtime.interpreter`: upstream's interpreter module, under its names, over tritium's
CPU evaluator.

Upstream's interpreter runs a kernel as Python, once per program, each `tl` call patched to
compute on numpy arrays (`TensorHandle`s) through an `InterpreterBuilder`. Tritium never
runs kernels as Python: under `TRITON_INTERPRET=1` a kernel is compiled to TTIR and the
evaluator runs every program of the grid at once (`backends/cpu/evaluator.py`). So here:

- `InterpretedFunction(fn)` is a `JITFunction` whose launches always run on the evaluator
  (CPU tensors, bounds checks), whatever `TRITON_INTERPRET` says; `GridExecutor(fn,
  arg_names, grid)(*args)` launches `fn` over `grid` that way. Code that checks
  `isinstance(f, InterpretedFunction)` or calls `InterpretedFunction(k.fn).run(...,
  grid=..., warmup=False)` works.
- The value side is upstream's: `TensorHandle` (numpy data + a `tl` type), `_implicit_cvt`
  (a launch argument as the interpreter's kernel value), `_get_np_dtype`,
  `InterpreterOptions`, and `InterpreterBuilder`'s types, constants and program ids.
  Building ops through the builder (`create_load`, ...) is upstream's per-program Python
  execution, which tritium does not have: those raise `NotImplementedError` saying so.
- `_patch_lang(fn)`: tritium's `tl` needs no patching; returns a scope whose `restore()`
  has nothing to undo.
"""
from __future__ import annotations

import dataclasses
import inspect
import weakref
from typing import Dict, Optional, Tuple

import numpy as np

from .. import language as tl
from ..runtime.errors import InterpreterError  # noqa: F401  (upstream's import site)
from .jit import JITFunction, mangle_type
from .specialize import data_ptr_of

__all__ = ["TensorHandle", "InterpreterOptions", "InterpreterBuilder", "interpreter_builder",
           "InterpretedFunction", "GridExecutor", "InterpreterError", "_implicit_cvt",
           "_patch_lang", "_get_np_dtype"]


def _bits(dtype) -> int:
    return 64 if isinstance(dtype, tl.pointer_type) else dtype.primitive_bitwidth


@dataclasses.dataclass
class TensorHandle:
    """A kernel value in upstream's interpreter: numpy `data` and its `tl` scalar or pointer
    `dtype` (the shape is the data's)."""
    data: np.ndarray
    dtype: object
    attr: Dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.dtype, tl.pointer_type) and \
                self.data.itemsize * 8 > max(8, self.dtype.primitive_bitwidth):
            raise ValueError(f"numpy data itemsize ({self.data.itemsize * 8} bits) exceeds dtype "
                             f"primitive_bitwidth ({self.dtype.primitive_bitwidth} bits) for "
                             f"triton type {self.dtype}")

    def __bool__(self):
        return bool(self.data.all())

    def get_element_ty(self):
        dtype = self.dtype
        while hasattr(dtype, "element_ty"):
            dtype = dtype.element_ty
        return dtype

    def clone(self) -> "TensorHandle":
        return TensorHandle(self.data.copy(), self.dtype)

    def set_attr(self, key, value) -> None:
        self.attr[key] = value


# How the interpreter stores each type: bf16 as its uint16 bits, fp8 as uint8 bits.
_NP_STORAGE = {
    "int1": np.bool_, "fp16": np.float16, "fp32": np.float32, "fp64": np.float64,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
    "bf16": np.uint16, "fp8e5": np.uint8, "fp8e5b16": np.uint8, "fp8e4nv": np.uint8,
    "fp8e4b8": np.uint8, "fp8e4b15": np.uint8,
}


def _get_np_dtype(tt_dtype) -> np.dtype:
    """The numpy dtype that holds values of `tt_dtype` (scalar, pointer or block)."""
    if isinstance(tt_dtype, tl.block_type):
        tt_dtype = tt_dtype.element_ty
    if isinstance(tt_dtype, tl.pointer_type):
        return np.dtype(np.uint64)
    return np.dtype(_NP_STORAGE[str(tt_dtype)])


@dataclasses.dataclass(frozen=True)
class InterpreterOptions:
    """Upstream's interpreter options (the CPU backend's `CPUOptions` is what tritium uses)."""
    extern_libs: Optional[dict] = None
    debug: bool = False
    sanitize_overflow: bool = True
    arch: Optional[str] = None
    supported_fp8_dtypes: Tuple[str, ...] = ("fp8e5", "fp8e5b16", "fp8e4nv", "fp8e4b8",
                                             "fp8e4b15")
    deprecated_fp8_dot_operand_dtypes: Tuple[str, ...] = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: Tuple[str, ...] = ("tf32", "tf32x3", "ieee")
    max_num_imprecise_acc_default: int = 0
    backend_name: str = "interpreter"


def _scalar(value, dtype) -> TensorHandle:
    return TensorHandle(np.array([value], dtype=_get_np_dtype(dtype)), dtype)


class InterpreterBuilder:
    """Upstream's builder, as far as it is values: types, constants, the program's position
    in the grid. Ops are not built one by one in Python here (see the module docstring)."""

    def __init__(self) -> None:
        self.arch = None
        self.options = InterpreterOptions()
        self.codegen_fns: Dict[str, object] = {"min_dot_size": lambda lhs, rhs: (1, 1, 1)}
        self.grid_idx: Optional[tuple] = None
        self.grid_dim: tuple = (1, 1, 1)

    def set_grid_dim(self, nx, ny, nz) -> None:
        self.grid_dim = (nx, ny, nz)

    def set_grid_idx(self, x, y, z) -> None:
        for axis, (i, n) in enumerate(zip((x, y, z), self.grid_dim)):
            if not i < n:
                raise ValueError(f"{'xyz'[axis]} >= grid_dim[{axis}]")
        self.grid_idx = (x, y, z)

    def create_get_program_id(self, axis) -> TensorHandle:
        if self.grid_idx is None:
            raise ValueError("grid_idx is None")
        return _scalar(self.grid_idx[axis], tl.int32)

    def create_get_num_programs(self, axis) -> TensorHandle:
        return _scalar(self.grid_dim[axis], tl.int32)

    def get_ptr_ty(self, elt_ty, addr_space=1):
        return tl.pointer_type(elt_ty, addr_space)

    def get_block_ty(self, dtype, shape):
        return tl.block_type(dtype, shape)

    def get_null_value(self, type) -> TensorHandle:
        return _scalar(0, type)

    def get_all_ones_value(self, type) -> TensorHandle:
        np_type = _get_np_dtype(type)
        if np_type.kind not in "iub":
            raise TypeError(f"get_all_ones_value: {type} is not an integer type")
        return TensorHandle(np.array([-1]).astype(np_type), type)

    def __getattr__(self, name):
        if name.startswith("create_") or name in ("cast_impl", "binary_op", "unary_op",
                                                   "ternary_op"):
            raise NotImplementedError(
                f"InterpreterBuilder.{name}: tritium does not execute kernels op by op in "
                "Python; a kernel compiles to TTIR and runs on the CPU evaluator "
                "(InterpretedFunction, or TRITON_INTERPRET=1)")
        raise AttributeError(f"'InterpreterBuilder' object has no attribute {name!r}")


def _type_getter(dtype):
    return lambda self: dtype


def _constant_getter(dtype):
    return lambda self, value: _scalar(value, dtype)


for _name, _dtype in (("half", tl.float16), ("bf16", tl.bfloat16), ("float", tl.float32),
                      ("double", tl.float64), ("int1", tl.int1), ("int8", tl.int8),
                      ("uint8", tl.uint8), ("int16", tl.int16), ("uint16", tl.uint16),
                      ("int32", tl.int32), ("uint32", tl.uint32), ("int64", tl.int64),
                      ("uint64", tl.uint64), ("fp8e4nv", tl.float8e4nv),
                      ("fp8e4b15", tl.float8e4b15), ("fp8e4b8", tl.float8e4b8),
                      ("fp8e5", tl.float8e5), ("fp8e5b16", tl.float8e5b16)):
    setattr(InterpreterBuilder, f"get_{_name}_ty", _type_getter(_dtype))
for _name, _dtype in (("int1", tl.int1), ("int8", tl.int8), ("uint8", tl.uint8),
                      ("int16", tl.int16), ("uint16", tl.uint16), ("int32", tl.int32),
                      ("uint32", tl.uint32), ("int64", tl.int64), ("uint64", tl.uint64),
                      ("fp16", tl.float16), ("fp32", tl.float32), ("fp64", tl.float64)):
    setattr(InterpreterBuilder, f"get_{_name}", _constant_getter(_dtype))

interpreter_builder = InterpreterBuilder()


class _LangPatchScope:
    """What `_patch_lang` changed, for `restore()`: nothing, in tritium."""

    def __init__(self) -> None:
        self._changes: list = []

    def set_attr(self, obj, name, value) -> None:
        self._changes.append((obj, name, getattr(obj, name, _MISSING)))
        setattr(obj, name, value)

    def restore(self) -> None:
        while self._changes:
            obj, name, old = self._changes.pop()
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)


_MISSING = object()


def _patch_lang(fn) -> _LangPatchScope:
    """Upstream swaps `tl`'s builtins for numpy ones before running `fn` as Python. Tritium
    compiles `fn` with its own `tl`, which stays as it is."""
    return _LangPatchScope()


def _implicit_cvt(arg):
    """A launch argument as the interpreter's kernel value: bools, ints and tensors (by
    address; numpy arrays, which tritium launches with, as well) become one-element `tl.tensor`s of their signature type; tuples convert element
    by element; anything else (constexprs, floats, ...) is returned as it is."""
    if isinstance(arg, bool):
        return tl.tensor(TensorHandle(np.array([arg], dtype=np.bool_), tl.int1), tl.int1)
    if isinstance(arg, int):
        ty = tl.str_to_ty(mangle_type(arg), None)
        if -2 ** 31 <= arg < 2 ** 31:
            np_type = np.int32
        elif 2 ** 31 <= arg < 2 ** 32:
            np_type = np.uint32
        elif -2 ** 63 <= arg < 2 ** 63:
            np_type = np.int64
        elif 2 ** 63 <= arg < 2 ** 64:
            np_type = np.uint64
        else:
            raise ValueError(f"Unsupported integer value {arg}")
        return tl.tensor(TensorHandle(np.array([arg], dtype=np_type), ty), ty)
    if hasattr(arg, "data_ptr") or hasattr(arg, "__array_interface__"):  # numpy arrays too
        ty = tl.str_to_ty(mangle_type(arg), None)
        return tl.tensor(TensorHandle(np.array([data_ptr_of(arg)], dtype=np.uint64), ty), ty)
    if isinstance(arg, tuple):
        items = [_implicit_cvt(a) for a in arg]
        return type(arg)(*items) if hasattr(arg, "_fields") else type(arg)(items)
    return arg


class InterpretedFunction(JITFunction):
    """A `@jit` function whose launches run on tritium's CPU evaluator (upstream: run as
    Python by its interpreter). Takes the plain function (or a `JITFunction`) and the
    `@jit` options."""

    def __init__(self, fn, **kwargs) -> None:
        if isinstance(fn, JITFunction):
            fn = fn.fn
        super().__init__(fn, **kwargs)
        self.kwargs = kwargs
        self.interpret = True  # CPU backend for every launch, host copies for GPU tensors

    def run(self, *args, grid, warmup=False, **kwargs):
        from ..knobs import runtime as runtime_knobs
        with runtime_knobs.scope():
            runtime_knobs.interpret = True  # the CPU driver then picks the evaluator
            return super().run(*args, grid=grid, warmup=warmup, **kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


_INTERPRETED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _interpreted(fn) -> InterpretedFunction:
    if isinstance(fn, InterpretedFunction):
        return fn
    key = fn.fn if isinstance(fn, JITFunction) else fn
    if key not in _INTERPRETED:
        _INTERPRETED[key] = InterpretedFunction(key)
    return _INTERPRETED[key]


class GridExecutor:
    """Runs `fn` over `grid` (a tuple, or a callable of the arguments by name) on the CPU
    evaluator, after `pre_run_hooks`. Keywords that are no parameter of `fn` (launch
    options such as `num_warps`) are dropped, as upstream's interpreter drops them."""

    def __init__(self, fn, arg_names, grid, pre_run_hooks=()):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.grid = grid
        self.pre_run_hooks = list(pre_run_hooks)

    def __call__(self, *args, **kwargs):
        raw = self.fn.fn if isinstance(self.fn, JITFunction) else self.fn
        params = inspect.getfullargspec(raw).args
        kwargs = {k: v for k, v in kwargs.items() if k in params}
        for hook in self.pre_run_hooks:
            hook(*args, **kwargs)
        _interpreted(self.fn).run(*args, grid=self.grid, warmup=False, **kwargs)
