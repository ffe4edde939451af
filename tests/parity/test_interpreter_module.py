"""`triton.runtime.interpreter` under upstream's names, over tritium's CPU evaluator:
`InterpretedFunction` and `GridExecutor` launch on the evaluator (results vs numpy, its bounds
check, launch options dropped, hooks), `_implicit_cvt` gives upstream's values (the case
upstream's test_launch checks, ints by range, tensors by address), `InterpreterBuilder`'s
types/constants/program ids, and op building refused with the reason."""
import os

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.cpu.memory import OutOfBoundsError
from tritium.frontend import interpreter as interp


def add(X, Y, Out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(Out + i, tl.load(X + i, mask=m) * 2 + tl.load(Y + i, mask=m), mask=m)


def past_the_end(X, n):
    tl.store(X + n + tl.arange(0, 4), tl.zeros([4], tl.float32))


def test_reachable_under_upstreams_name():
    import tritium.compat
    tritium.compat.install()
    import triton.runtime.interpreter as m
    assert m is interp
    from triton.runtime.interpreter import InterpretedFunction, _implicit_cvt  # noqa: F401


@pytest.mark.parametrize("n,block", [(50, 16), (7, 8), (129, 32)])
def test_interpreted_function_runs_on_the_evaluator(rng, n, block):
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    f = interp.InterpretedFunction(add)
    grid = (tritium.cdiv(n, block),)
    f.run(x, y, out, n, block, grid=grid, warmup=False)
    np.testing.assert_allclose(out, x * 2 + y, rtol=1e-6)
    out[:] = np.nan
    f[grid](x, y, out, n, BLOCK=block, num_warps=8)  # a launch option, dropped on the CPU
    np.testing.assert_allclose(out, x * 2 + y, rtol=1e-6)
    kernel = f.run(x, y, out, n, block, grid=grid, warmup=True)
    assert "obj" not in kernel.asm, "compiled to machine code: not the evaluator"
    assert os.environ.get("TRITON_INTERPRET") in (None, "", "0")  # restored after the launch


def test_interpreted_function_keeps_the_evaluators_bounds_check():
    x = np.zeros(8, np.float32)
    with pytest.raises(OutOfBoundsError, match="past_the_end"):
        interp.InterpretedFunction(past_the_end)[(1,)](x, 8)
    # a @jit function is accepted too (its plain function is taken)
    assert interp.InterpretedFunction(tritium.jit(add)).fn is add
    assert isinstance(interp.InterpretedFunction(add), tritium.JITFunction)


def test_grid_executor_runs_hooks_and_drops_options(rng):
    n = 45
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    seen = []
    run = interp.GridExecutor(add, ["X", "Y", "Out", "n", "BLOCK"],
                              lambda a: (tritium.cdiv(a["n"], a["BLOCK"]),),
                              [lambda *a, **k: seen.append(k["BLOCK"])])
    run(x, y, out, n, BLOCK=16, num_warps=4, num_stages=2)
    np.testing.assert_allclose(out, x * 2 + y, rtol=1e-6)
    assert seen == [16]


@pytest.mark.parametrize("value,ty,np_type", [
    (True, "int1", np.bool_), (False, "int1", np.bool_), (7, "int32", np.int32),
    (-2 ** 31, "int32", np.int32), (2 ** 31 + 3, "int64", np.uint32),
    (-2 ** 40, "int64", np.int64), (2 ** 63 + 1, "uint64", np.uint64),
])
def test_implicit_cvt_scalars(value, ty, np_type):
    v = interp._implicit_cvt(value)
    assert str(v.dtype) == ty and v.handle.data.dtype == np_type
    assert v.handle.data.tolist() == [value]


def test_implicit_cvt_tensors_tuples_and_the_rest():
    x = np.zeros(4, np.float16)
    v = interp._implicit_cvt(x)
    assert v.dtype == tl.pointer_type(tl.float16)
    assert v.handle.data.dtype == np.uint64
    assert v.handle.data.tolist() == [x.__array_interface__["data"][0]]
    pair = interp._implicit_cvt((True, 3))
    assert isinstance(pair, tuple) and [str(p.dtype) for p in pair] == ["int1", "int32"]
    assert interp._implicit_cvt(1.5) == 1.5
    with pytest.raises(OverflowError, match=str(2 ** 64)):
        interp._implicit_cvt(2 ** 64)


def test_builder_types_constants_and_program_ids():
    b = interp.InterpreterBuilder()
    assert b.get_int32_ty() == tl.int32 and b.get_bf16_ty() == tl.bfloat16
    assert b.get_ptr_ty(tl.float32, 1) == tl.pointer_type(tl.float32)
    h = b.get_fp16(1.5)
    assert h.data.dtype == np.float16 and h.data.tolist() == [1.5] and h.dtype == tl.float16
    assert b.get_all_ones_value(tl.uint8).data.tolist() == [255]
    assert b.get_null_value(tl.bfloat16).data.dtype == np.uint16  # bf16 kept as its bits
    b.set_grid_dim(3, 2, 1)
    b.set_grid_idx(2, 1, 0)
    assert b.create_get_program_id(0).data.tolist() == [2]
    assert b.create_get_num_programs(1).data.tolist() == [2]
    with pytest.raises(ValueError, match="y >= grid_dim"):
        b.set_grid_idx(0, 2, 0)
    with pytest.raises(NotImplementedError, match="CPU evaluator"):
        b.create_load
    assert interp._get_np_dtype(tl.block_type(tl.float8e5, [4])) == np.uint8
    with pytest.raises(ValueError, match="exceeds dtype"):
        interp.TensorHandle(np.zeros(1, np.int64), tl.int8)
    interp._patch_lang(add).restore()
