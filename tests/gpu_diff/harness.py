"""Differential runs: one kernel, the same inputs, the CPU backend and the GPU.

`run_both(kernel, grid, *args, **meta)` launches `kernel[grid](*args, **meta)` twice:
* on the CPU backend with numpy copies of the arguments (torch CPU tensors for the dtypes
  numpy lacks: bfloat16, float8);
* on the GPU with `torch.from_numpy(...).cuda()` copies.
Output buffers (`Out`) are filled with 0x5A bytes on both sides first, so an element one
side writes and the other does not shows up as a difference. `InOut` buffers keep the
values given (atomics' accumulators) and come back too. Plain arrays are inputs.

It returns `(cpu, gpu)`: two lists of numpy arrays, one per `Out`/`InOut` argument in
argument order (bfloat16/float8 outputs come back widened to float32, which is exact).

`assert_same(cpu, gpu, dtype, kind)` compares them with the tolerance of `kind` (TOLERANCES
says which, and why).

TRITIUM_GPU_DIFF_FAKE=1 runs the "GPU" side on the CPU backend too, through torch CPU tensors,
so the suite can be checked on a machine without a GPU (tests/gpu_diff/conftest.py then lifts
the `gpu` marker's skip). TRITIUM_GPU_DIFF_FAKE=compile does that and also compiles every
GPU-side specialisation through the NVIDIA stages (TTIR -> TTGIR -> LLIR -> PTX -> cubin for
sm_90a, with ptxas; no launch), so lowering failures and compile time show up without a GPU.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, List, Tuple

import numpy as np

_MODE = os.environ.get("TRITIUM_GPU_DIFF_FAKE", "").strip().lower()
FAKE = _MODE not in ("", "0")
COMPILE_ONLY = _MODE == "compile"   # faking, plus the NVIDIA stages up to a cubin
POISON = 0x5A

# Dtypes numpy cannot hold: these buffers are torch tensors on both sides.
TORCH_ONLY = ("bfloat16", "float8_e4m3fn", "float8_e5m2")
MANTISSA_BITS = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52,
                 "float8_e4m3fn": 3, "float8_e5m2": 2}

# Every specialisation launched on the GPU side (kernel, signature, options): conftest prints
# how many, to keep the suite's compile time in check.
SPECIALISATIONS: set = set()


def _torch():
    import torch
    return torch


def _dtype_name(dtype) -> str:
    """'float32', 'bfloat16', ... for a numpy dtype / scalar type, torch dtype or name."""
    name = str(dtype)
    if name.startswith("torch."):
        name = name[6:]
        return "bool" if name == "bool" else np.dtype(name).name \
            if name not in TORCH_ONLY else name
    if name in TORCH_ONLY:
        return name
    return np.dtype(dtype).name


@dataclass
class Out:
    """An output buffer of `shape` and `dtype` (a numpy dtype, or one of TORCH_ONLY)."""
    shape: Any
    dtype: Any = np.float32


@dataclass
class InOut:
    """A buffer whose initial contents matter (an accumulator), returned after the launch."""
    value: Any


def _poisoned_host(out: Out):
    """The output's initial host buffer: 0x5A bytes (numpy, or torch for TORCH_ONLY)."""
    name = _dtype_name(out.dtype)
    shape = (out.shape,) if isinstance(out.shape, int) else tuple(out.shape)
    if name in TORCH_ONLY:
        torch = _torch()
        t = torch.empty(shape, dtype=getattr(torch, name))
        t.view(torch.uint8).fill_(POISON)
        return t
    a = np.empty(shape, np.dtype(name))
    a.view(np.uint8)[...] = POISON
    return a


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def _host_copy(x):
    """A private contiguous host copy of a numpy array / torch CPU tensor."""
    if _is_torch(x):
        return x.detach().contiguous().clone()
    return np.array(x, copy=True, order="C")


def _to_device(x):
    """The GPU side's copy: a CUDA tensor (a torch CPU tensor when faking)."""
    torch = _torch()
    t = x.clone() if _is_torch(x) else torch.from_numpy(np.array(x, copy=True, order="C"))
    return t if FAKE else t.cuda()


def _to_numpy(x) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x.copy()
    torch = _torch()
    t = x.detach().cpu()
    if _dtype_name(t.dtype) in TORCH_ONLY:
        t = t.to(torch.float32)
    return t.numpy().copy()


def _scalar(a):
    """numpy scalars become Python ones (what a user passes; numpy scalars would also look
    like host arrays to the backend choice)."""
    return a.item() if isinstance(a, np.generic) else a


def _gpu_specialisation(kernel, args, meta):
    """The GPU side's (specialisation, options): CUDA allocations are 256-byte aligned, so
    pointers count as the GPU specialises them whatever the host copies' alignment."""
    _, spec, extra = kernel.bind(*args, **meta)
    spec = [(ty, "D") if isinstance(ty, str) and ty.startswith("*") else (ty, key)
            for ty, key in spec]
    return spec, extra


def _record(kernel, args, meta) -> None:
    try:
        spec, extra = _gpu_specialisation(kernel, args, meta)
    except Exception:
        return
    SPECIALISATIONS.add((kernel.__name__, id(kernel), str(spec),
                         str(sorted((k, str(v)) for k, v in extra.items()))))


_COMPILED: set = set()


def _compile_for_gpu(kernel, args, meta) -> None:
    """COMPILE_ONLY: the NVIDIA stages for this launch's GPU specialisation (sm_90a), once."""
    from tritium.compiler import ASTSource, GPUTarget, compile, make_backend
    target = GPUTarget("cuda", 90, 32)  # no device to ask: the H100's
    spec, extra = _gpu_specialisation(kernel, args, meta)
    options = make_backend(target).parse_options(extra)
    key = (id(kernel), str(spec), str(options))
    if key not in _COMPILED:
        compile(ASTSource.from_specialization(kernel, spec), target=target, options=options)
        _COMPILED.add(key)


def run_both(kernel, grid, *args, **meta) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    """Run `kernel[grid](*args, **meta)` on the CPU backend and on the GPU (see the module
    docstring); return (cpu outputs, gpu outputs) as numpy arrays."""
    torch = _torch()
    cpu_args, gpu_args, returned = [], [], []
    for i, a in enumerate(args):
        if isinstance(a, Out):
            host = _poisoned_host(a)
            cpu_args.append(_host_copy(host))
            gpu_args.append(_to_device(host))
            returned.append(i)
        elif isinstance(a, InOut):
            cpu_args.append(_host_copy(a.value))
            gpu_args.append(_to_device(a.value))
            returned.append(i)
        elif isinstance(a, np.ndarray) or _is_torch(a):
            cpu_args.append(_host_copy(a))
            gpu_args.append(_to_device(a))
        else:
            cpu_args.append(_scalar(a))
            gpu_args.append(_scalar(a))
    meta = {k: _scalar(v) for k, v in meta.items()}
    kernel[grid](*cpu_args, **meta)
    _record(kernel, gpu_args, meta)
    if COMPILE_ONLY:
        _compile_for_gpu(kernel, gpu_args, meta)
    kernel[grid](*gpu_args, **meta)
    if not FAKE:
        torch.cuda.synchronize()
    return [_to_numpy(cpu_args[i]) for i in returned], [_to_numpy(gpu_args[i]) for i in returned]


# ------------------------------------------------------------------ comparison
# Tolerances per kind of result; a float element passes when it equals bit for bit (NaNs
# equal whatever their payload), or is within `ulps` units in the last place of `dtype`, or
# within `abs` (a floor for results near zero where the GPU's error bound is absolute), or
# (kind "sum") within `rel * sqrt(n) * scale`. Integers, bools and pointers always compare
# bit for bit.
TOLERANCES = {
    # Integer ops, loads/stores, shape ops, casts, comparisons, select, random bits: the same
    # bits on both sides, including -0.0 vs +0.0.
    "exact": dict(ulps={}),
    # +, -, * of floats: a single IEEE op rounds the same everywhere, but LLVM may contract
    # a*b+c into an FMA on the GPU (enable_fp_fusion), and fp16/bf16 math rounded from f32
    # can double-round differently from numpy: one ulp.
    "arith": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 1, "float64": 1}),
    # `/`: f32 lowers to `div.full.f32` (PTX: max error 2 ulp), numpy divides exactly; f64 is
    # `div.rn.f64` (exact); fp16/bf16 divide in f32 with div.rn and round once more.
    "div": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 2, "float64": 0}),
    # `%` of floats: LLVM's NVPTX backend expands `frem` to x - y * trunc(x / y) with an
    # approximate quotient, numpy's fmod is exact; they agree unless x / y lands within
    # rounding of an integer.
    "fmod": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 2, "float64": 2}),
    # exp/exp2/log2 in f32 use `ex2.approx.f32`/`lg2.approx.f32` (PTX: ~2 ulp), and exp scales
    # its argument by log2(e) first, whose rounding adds |x*log2 e| * 2^-24 relative error
    # (another ~1-3 ulp for |x| <= 3); lg2.approx's bound is absolute (2^-22) near 1.
    "approx": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 8, "float64": 4},
                   abs={"float32": 2.0 ** -21, "float64": 1e-15}),
    # The other transcendental functions: libdevice `__nv_*` (CUDA Programming Guide's table:
    # <= 4 ulp single precision incl. powf/atan2f, <= 2 ulp double) against numpy's libm
    # (<= 1 ulp); the floor covers functions whose result crosses zero.
    "math": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 4, "float64": 4},
                 abs={"float32": 2.0 ** -24, "float64": 2.0 ** -52}),
    # fp16/bf16 math: computed in f32 on the GPU (libdevice / f32 instructions) and rounded
    # to the narrow type; numpy computes fp16 ufuncs in f32 as well, so the f32 results'
    # few-ulp differences change at most the last bit of the narrow result.
    "fp16": dict(ulps={"float16": 1, "bfloat16": 1, "float32": 4, "float64": 4}),
    # Reductions: the GPU adds in a tree over lanes, warps and CTAs, the CPU backend in
    # numpy's (pairwise) order: error ~ eps * sqrt(n) * sum|x| either way, so 1e-6 * sqrt(n)
    # relative to the magnitude `scale` (default: the result's) for f32.
    "sum": dict(ulps={"float16": 2, "bfloat16": 2, "float32": 2, "float64": 2},
                rel={"float16": 1e-3, "bfloat16": 8e-3, "float32": 1e-6, "float64": 1e-14}),
}


def _int_view(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def ulp_distance(a: np.ndarray, b: np.ndarray, dtype=None) -> np.ndarray:
    """How many representable `dtype` values lie between a and b (0 = same bits; +0/-0
    count as 0 apart). `a`, `b` are float arrays of one dtype; `dtype` (default theirs) may
    be narrower, e.g. bfloat16 values held in float32."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    bits = a.dtype.itemsize * 8
    ia, ib = _int_view(a).astype(np.uint64), _int_view(b).astype(np.uint64)
    sign = np.uint64(1 << (bits - 1))
    ma, mb = ia & (sign - np.uint64(1)), ib & (sign - np.uint64(1))
    same = (ia & sign) == (ib & sign)
    d = np.where(same, np.where(ma > mb, ma - mb, mb - ma), ma + mb)
    name = _dtype_name(dtype) if dtype is not None else a.dtype.name
    shift = MANTISSA_BITS[a.dtype.name] - MANTISSA_BITS.get(name, MANTISSA_BITS[a.dtype.name])
    return (d >> np.uint64(shift)) if shift > 0 else d


def _describe(cpu, gpu, bad, limit=8) -> str:
    idx = np.argwhere(bad)[:limit]
    rows = [f"  at {tuple(int(j) for j in i)}: cpu={cpu[tuple(i)]!r} gpu={gpu[tuple(i)]!r}"
            for i in idx]
    return f"{int(bad.sum())} of {bad.size} elements differ:\n" + "\n".join(rows)


def assert_same(cpu, gpu, dtype=None, kind: str = "exact", *, n: int = 1,
                scale=None, err_msg: str = "") -> None:
    """Assert the CPU backend's and the GPU's results agree within `kind`'s tolerance.
    `dtype` is the type the kernel computed in (default: the arrays'; give it for
    bfloat16/float8 results, which come back as float32). `n`, `scale`: for kind "sum",
    the number of elements summed and their magnitude (e.g. sum |x|)."""
    cpu, gpu = np.asarray(cpu), np.asarray(gpu)
    if kind not in TOLERANCES:
        raise ValueError(f"unknown tolerance kind {kind!r}")
    prefix = f"{err_msg}: " if err_msg else ""
    assert cpu.shape == gpu.shape, f"{prefix}shapes differ: {cpu.shape} vs {gpu.shape}"
    assert cpu.dtype == gpu.dtype, f"{prefix}dtypes differ: {cpu.dtype} vs {gpu.dtype}"
    if cpu.dtype.kind != "f":  # ints, bools (their bytes: a poisoned bool is not True)
        bad = _int_view(np.ascontiguousarray(cpu)) != _int_view(np.ascontiguousarray(gpu))
        if bad.any():
            raise AssertionError(f"{prefix}[{kind}] " + _describe(cpu, gpu, bad))
        return
    name = _dtype_name(dtype) if dtype is not None else cpu.dtype.name
    tol = TOLERANCES[kind]
    both_nan = np.isnan(cpu) & np.isnan(gpu)
    ok = both_nan | (_int_view(np.ascontiguousarray(cpu)) == _int_view(np.ascontiguousarray(gpu)))
    ulps = tol["ulps"].get(name, 0)
    finite = np.isfinite(cpu) & np.isfinite(gpu)
    if ulps:
        ok |= finite & (ulp_distance(cpu, gpu, name) <= ulps)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(cpu.astype(np.float64) - gpu.astype(np.float64))
    if "abs" in tol and name in tol["abs"]:
        ok |= finite & (diff <= tol["abs"][name])
    if "rel" in tol:
        mag = np.abs(cpu.astype(np.float64)) if scale is None else \
            np.maximum(np.abs(np.asarray(scale, np.float64)), np.abs(cpu.astype(np.float64)))
        ok |= finite & (diff <= tol["rel"].get(name, 0.0) * math.sqrt(max(n, 1)) * mag)
    if not ok.all():
        raise AssertionError(f"{prefix}[{kind}, {name}] " + _describe(cpu, gpu, ~ok))


def compare(kernel, grid, *args, tol="exact", tol_dtype=None, **meta):
    """`run_both` then `assert_same` on every output (`tol`: one kind, or one per output);
    returns (cpu, gpu) for further checks against a reference."""
    cpu, gpu = run_both(kernel, grid, *args, **meta)
    kinds = [tol] * len(cpu) if isinstance(tol, str) else list(tol)
    dtypes = [tol_dtype] * len(cpu) if not isinstance(tol_dtype, (list, tuple)) else tol_dtype
    for i, (c, g, k, d) in enumerate(zip(cpu, gpu, kinds, dtypes)):
        assert_same(c, g, d, k, err_msg=f"{kernel.__name__} output {i}")
    return cpu, gpu


def assert_ref(got, want, rtol=0.0, atol=0.0, err_msg="") -> None:
    """The GPU's result against a numpy/torch reference (the language tests' tolerances)."""
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=err_msg)
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                                   rtol=rtol, atol=atol, err_msg=err_msg)
