"""Launch a TTIR kernel on the CPU: `launch(module, kernel_name, grid, args)`.

Programs are evaluated together, in chunks of consecutive program ids sized so that no value
of the kernel holds more than `CHUNK_ELEMENTS` elements (a memory bound, and a cache-friendly
working set). Chunks run in program order, so atomics and racing stores resolve as if programs
ran one after another in upstream's interpreter order (x slowest, z fastest).
"""
from __future__ import annotations

import os
from typing import Optional, Sequence

import numpy as np

from tritium.ir import types as T

from .dtypes import scalar_array
from .evaluator import Env, LaunchContext, module_plan, run_block
from .memory import Memory, OutOfBoundsError  # noqa: F401  (re-exported)

# Elements per value in one chunk. 2**18 elements (1 MiB of f32) keeps a chunk's working set
# in cache; the per-op overhead is amortised over that many elements already.
CHUNK_ELEMENTS = int(os.environ.get("TRITIUM_CPU_CHUNK_ELEMENTS", 1 << 18))


def _norm_grid(grid) -> tuple:
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if len(grid) > 3:
        raise ValueError(f"grid must have at most 3 dimensions, got {grid}")
    if any(g < 0 for g in grid):
        raise ValueError(f"grid dimensions must be >= 0, got {grid}")
    return grid + (1,) * (3 - len(grid))


def _bind_args(fp, memory: Memory, args: Sequence, arg_types) -> list:
    types = list(arg_types) if arg_types is not None else list(
        fp.func.attr("function_type").inputs)
    if len(types) != len(args):
        raise TypeError(f"kernel '{fp.name}' takes {len(types)} runtime arguments "
                        f"({', '.join(map(str, types))}), got {len(args)}")
    arrays = []
    for i, (a, t) in enumerate(zip(args, types)):
        if isinstance(t, T.TensorDescType):
            from .ops_tensor_ptr import descriptor_row
            addr = memory.register(a.base, label=f"argument {i} (TensorDescriptor over "
                                                  f"{_describe(a.base)})")
            arrays.append(descriptor_row(addr, a.shape, a.strides, a.padding))
        elif isinstance(t, T.PointerType):
            if a is None:
                addr = 0
            elif isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                addr = int(a)               # a raw address: only valid inside some buffer
            else:
                addr = memory.register(a, label=f"argument {i} ({_describe(a)})")
            arrays.append(np.array([addr], np.int64))
        else:
            if hasattr(a, "item") and getattr(a, "ndim", 0) == 0:
                a = a.item()
            arrays.append(scalar_array(a, t))
    return arrays


def _describe(a) -> str:
    shape = getattr(a, "shape", None)
    dtype = getattr(a, "dtype", None)
    if shape is not None:
        return f"{type(a).__name__} {tuple(shape)} {dtype}"
    return type(a).__name__


def launch(module, kernel_name: str, grid, args: Sequence, arg_types=None, *,
           serial: Optional[bool] = None, chunk_elements: Optional[int] = None) -> None:
    """Run `kernel_name` of `module` over `grid` (1 to 3 ints). `args` are the runtime
    (non-constexpr) arguments in IR order: buffer-likes (numpy arrays, torch CPU tensors,
    objects with data_ptr() and an extent) or raw int addresses for pointers, Python numbers
    for scalars. `serial=True` runs one program at a time (kernels that spin on atomics are
    detected and run that way automatically)."""
    mp = module_plan(module)
    fp = mp.plan(kernel_name)
    grid = _norm_grid(grid)
    memory = Memory(kernel_name)
    arrays = _bind_args(fp, memory, args, arg_types)
    total = grid[0] * grid[1] * grid[2]
    if total == 0:
        return
    if serial if serial is not None else fp.serial:
        chunk = 1
    else:
        budget = chunk_elements or CHUNK_ELEMENTS
        chunk = max(1, budget // max(1, fp.max_numel))
    ctx = LaunchContext(memory, grid, kernel_name, mp)
    with np.errstate(all="ignore"):
        for start in range(0, total, chunk):
            prog = np.arange(start, min(total, start + chunk), dtype=np.int64)
            env = Env(fp.nslots, prog, ctx)
            run_block(fp.entry, env, arrays)


__all__ = ["launch", "OutOfBoundsError", "CHUNK_ELEMENTS"]
