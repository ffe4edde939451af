"""`triton._internal_testing`: the helpers upstream's own test-suite imports (dtype lists,
target predicates, numpy <-> kernel-argument conversions, the `fresh_knobs` machinery)."""
from __future__ import annotations

import os
import re
from typing import Optional, Set

import numpy as np

from . import knobs
from .tensor_wrapper import TensorWrapper, reinterpret, type_canonicalisation_dict

int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
integral_dtypes = int_dtypes + uint_dtypes
float_dtypes = ["float16", "float32", "float64"]
float_dtypes_with_bfloat16 = float_dtypes + ["bfloat16"]
dtypes = integral_dtypes + float_dtypes
dtypes_with_bfloat16 = dtypes + ["bfloat16"]
torch_float8_dtypes = ["float8_e4m3fn", "float8_e5m2"]
torch_dtypes = ["bool"] + int_dtypes + ["uint8"] + float_dtypes + ["bfloat16"]
tma_dtypes = sorted(set(dtypes_with_bfloat16) - {"int64", "uint64", "float64"})


def is_interpreter() -> bool:
    return knobs.runtime.interpret


def get_current_target():
    if is_interpreter():
        return None
    from .runtime.driver import driver
    return driver.active.get_current_target()


def _backend_is(name: str) -> bool:
    target = get_current_target()
    return target is not None and target.backend == name


def is_cuda() -> bool:
    return _backend_is("cuda")


def is_hip() -> bool:
    return _backend_is("hip")


def is_xpu() -> bool:
    return _backend_is("xpu")


def _cc_major() -> int:
    target = get_current_target()
    return int(target.arch) // 10 if target is not None and target.backend == "cuda" else 0


def is_ampere_or_newer() -> bool:
    return is_cuda() and _cc_major() >= 8


def is_hopper_or_newer() -> bool:
    return is_cuda() and _cc_major() >= 9


def is_hopper() -> bool:
    return is_cuda() and _cc_major() == 9


def is_blackwell() -> bool:
    return is_cuda() and _cc_major() == 10


def is_sm12x() -> bool:
    return is_cuda() and _cc_major() == 12


def _hip_arch(pred) -> bool:
    target = get_current_target()
    return target is not None and target.backend == "hip" and pred(str(target.arch))


def is_hip_cdna2():
    return _hip_arch(lambda a: a == "gfx90a")


def is_hip_cdna3():
    return _hip_arch(lambda a: a == "gfx942")


def is_hip_cdna4():
    return _hip_arch(lambda a: a == "gfx950")


def is_hip_rdna3():
    return _hip_arch(lambda a: "gfx11" in a)


def is_hip_rdna4():
    return _hip_arch(lambda a: "gfx12" in a)


def is_hip_gfx1250():
    return _hip_arch(lambda a: "gfx1250" in a)


def is_hip_cdna():
    return is_hip_cdna2() or is_hip_cdna3() or is_hip_cdna4()


def is_hip_rdna():
    return is_hip_rdna3() or is_hip_rdna4()


def get_hip_lds_size() -> int:
    return 163840 if is_hip_cdna4() else 65536


def get_arch() -> str:
    target = get_current_target()
    return "" if target is None else str(target.arch)


def numpy_random(shape, dtype_str, rs: Optional[np.random.RandomState] = None, low=None,
                 high=None):
    """Random test data of a dtype name (never zero for integers, so division tests hold)."""
    if isinstance(shape, int):
        shape = (shape,)
    rs = rs if rs is not None else np.random.RandomState(seed=17)
    if dtype_str in integral_dtypes:
        info = np.iinfo(getattr(np, dtype_str))
        low = info.min if low is None else max(low, info.min)
        high = info.max if high is None else min(high, info.max)
        x = rs.randint(low, high, shape, dtype=getattr(np, dtype_str))
        x[x == 0] = 1
        return x
    if dtype_str and "float8" in dtype_str:
        return rs.randint(20, 40, shape, dtype=np.int8)
    if dtype_str in float_dtypes:
        return rs.normal(0, 1, shape).astype(dtype_str)
    if dtype_str == "bfloat16":
        bits = rs.normal(0, 1, shape).astype("float32").view("uint32") & np.uint32(0xFFFF0000)
        return bits.view("float32")
    if dtype_str in ("bool", "int1", "bool_"):
        return rs.normal(0, 1, shape) > 0.0
    raise RuntimeError(f"Unknown dtype {dtype_str}")


def to_triton(x: np.ndarray, device, dst_type=None):
    """A torch tensor (or a `TensorWrapper` for unsigned and fp8 types) holding `x`."""
    import torch
    import tritium.language as tl
    t = x.dtype.name
    if t in uint_dtypes:
        signed = x.astype(getattr(np, t[1:]))
        return reinterpret(torch.tensor(signed, device=device), getattr(tl, t))
    if dst_type and "float8" in dst_type:
        return reinterpret(torch.tensor(x, device=device), getattr(tl, dst_type))
    if t == "float32" and dst_type == "bfloat16":
        return torch.tensor(x, device=device).bfloat16()
    return torch.tensor(x, device=device)


def str_to_triton_dtype(x: str):
    import tritium.language as tl
    return tl.str_to_ty(type_canonicalisation_dict[x], None)


def torch_dtype_name(dtype) -> str:
    import tritium.language as tl
    if isinstance(dtype, tl.dtype):
        return dtype.name
    match = re.match(r"^torch\.(\w+)$", str(dtype))
    if match is None:
        raise TypeError(f"not a triton or torch dtype: {type(dtype)}")
    return match.group(1)


def to_numpy(x):
    import torch
    if isinstance(x, TensorWrapper):
        return x.base.cpu().numpy().astype(getattr(np, torch_dtype_name(x.dtype)))
    if isinstance(x, torch.Tensor):
        return x.cpu().float().numpy() if x.dtype is torch.bfloat16 else x.cpu().numpy()
    raise ValueError(f"Not a triton-compatible tensor: {x}")


def supports_tma(byval_only=False) -> bool:
    if is_interpreter():
        return True
    if not is_cuda():
        return False
    need = (12, 0) if byval_only else (12, 3)
    version = tuple(int(v) for v in knobs.nvidia.ptxas.version.split("."))
    return _cc_major() >= 9 and version >= need


def supports_ws() -> bool:
    return True if is_interpreter() else is_cuda() and _cc_major() >= 9


def tma_skip_msg(byval_only=False) -> str:
    if byval_only:
        return "Requires __grid_constant__ TMA support (NVIDIA Hopper or higher, CUDA 12.0 or higher)"
    return "Requires advanced TMA support (NVIDIA Hopper or higher, CUDA 12.3 or higher)"


def __getattr__(name):
    # `requires_tma` is a pytest mark: built on first use so importing needs no pytest.
    if name == "requires_tma":
        import pytest
        return pytest.mark.skipif(not supports_tma(), reason=tma_skip_msg())
    raise AttributeError(name)


def default_alloc_fn(size: int, align: int, _):
    import torch
    return torch.empty(size, dtype=torch.int8, device="cuda")


def unwrap_tensor(t):
    return t.base if isinstance(t, TensorWrapper) else t


def _fresh_knobs_impl(skipped_attr: Optional[Set[str]] = None):
    """(fresh, reset) functions for a `fresh_knobs` fixture: every knob group replaced by a
    reset copy and every knob variable unset; reset puts everything back."""
    import pytest
    skipped = skipped_attr or set()
    monkeypatch = pytest.MonkeyPatch()
    groups = {name: g for name, g in vars(knobs).items()
              if isinstance(g, knobs.base_knobs) and name not in skipped}
    to_unset = []
    previous_propagate = knobs.propagate_env

    def fresh_function():
        for name, group in groups.items():
            setattr(knobs, name, group.copy().reset())
            for d in group.knob_descriptors.values():
                if d.key in os.environ:
                    monkeypatch.delenv(d.key, raising=False)
                else:
                    to_unset.append(d.key)
        knobs.propagate_env = True
        return knobs

    def reset_function():
        for name, group in groups.items():
            setattr(knobs, name, group)
        monkeypatch.undo()
        for key in to_unset:
            os.environ.pop(key, None)
        knobs.propagate_env = previous_propagate

    return fresh_function, reset_function


class ProcessResult:
    """What `run_in_process` saw: the exception the function raised (None if it returned)."""

    def __init__(self, exc: Optional[BaseException], output: str = ""):
        self.exc = exc
        self.output = output

    def __repr__(self):
        return f"ProcessResult(exc={self.exc!r})"


def _process_child(queue, module: str, qualname: str, args, env, with_compat: bool):
    os.environ.update(env)
    if with_compat:
        # The function's module imports `triton`; in a fresh interpreter that is tritium
        # only once compat is installed, as it was in the parent.
        from . import compat
        compat.install()
    exc = None
    try:
        import importlib
        fn = importlib.import_module(module)
        for part in qualname.split("."):
            fn = getattr(fn, part)
        fn(*args)
    except BaseException as e:  # noqa: BLE001 - the caller inspects whatever escaped
        exc = e
    import pickle
    try:
        # Pickled here: Queue.put pickles in a feeder thread, where a failure is only printed
        # and the parent would wait forever.
        payload = pickle.dumps(exc)
    except Exception:  # an exception that does not pickle comes back as its text
        payload = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
    queue.put(payload)


def run_in_process(fn, args=(), env=None) -> ProcessResult:
    """Run the module-level function `fn(*args)` in a fresh interpreter with `env` added to
    its environment (so knobs read from the environment start from those values), and
    return a `ProcessResult` whose `exc` is what it raised. A child that dies without
    reporting gives a RuntimeError naming its exit code."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    triton_mod = __import__("sys").modules.get("triton")
    with_compat = getattr(triton_mod, "__tritium__", False)
    proc = ctx.Process(target=_process_child,
                       args=(queue, fn.__module__, fn.__qualname__, tuple(args),
                             {k: str(v) for k, v in (env or {}).items()}, with_compat))
    proc.start()
    try:
        exc = __import__("pickle").loads(queue.get(timeout=600))
    except Exception:
        exc = RuntimeError(f"the child process exited with code {proc.exitcode} "
                           "without reporting a result")
    proc.join()
    return ProcessResult(exc)
