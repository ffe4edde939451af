"""i1 tensors kept in buffers: the compiled path stores them as bytes (context.buf_ty), so
every way a boolean block reaches memory — a mask materialised for a load and a store of a
transposed tile, a flag block carried through a loop, a boolean scan, a boolean reduction
with a combine of its own along either axis — still matches numpy, on both paths."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl


@triton.jit
def _transpose(X, Out, ynumel, xnumel, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    """Inductor's layout copy: one mask, used by a load and a store, materialised."""
    y = tl.program_id(1) * YBLOCK + tl.arange(0, YBLOCK)[:, None]
    x = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    m = (x < xnumel) & (y < ynumel)
    v = tl.load(X + x + xnumel * y, m)
    tl.store(Out + y + ynumel * x, v, m)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float16])
@pytest.mark.parametrize("Y,X", [(6, 576), (3, 9), (16, 128), (5, 100)])
def test_masked_transpose(rng, cpu_path, dtype, Y, X):
    x = (rng.standard_normal((Y, X)) * 50).astype(dtype)
    out = np.full((X, Y), 7, dtype)
    _transpose[(triton.cdiv(X, 64), triton.cdiv(Y, 4))](x, out, Y, X, YBLOCK=4, XBLOCK=64)
    np.testing.assert_array_equal(out, x.T)


@triton.jit
def _ne(a, b):
    return a != b


@triton.jit
def _or(a, b):
    return a | b


@triton.jit
def _flags(X, Seen, Parity, Cum, n_steps, thr, R: tl.constexpr, C: tl.constexpr,
           AXIS: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    seen = tl.zeros([R, C], tl.int1)
    for i in range(n_steps):            # a flag block carried by the loop
        x = tl.load(X + i * R * C + r * C + c)
        seen = seen | (x > thr)
    tl.store(Seen + r * C + c, seen.to(tl.int8))
    p = tl.reduce(seen, AXIS, _ne)     # (not a bytewise or/and/xor: i1 partials)
    if AXIS == 0:
        tl.store(Parity + tl.arange(0, C), p.to(tl.int8))
    else:
        tl.store(Parity + tl.arange(0, R), p.to(tl.int8))
    tl.store(Cum + r * C + c, tl.associative_scan(seen, 1, _or).to(tl.int8))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("R,C,steps", [(8, 16, 3), (4, 64, 1), (16, 32, 5)])
def test_flag_blocks(rng, cpu_path, axis, R, C, steps):
    x = rng.standard_normal((steps, R, C)).astype(np.float32)
    thr = 1.2
    seen, cum = np.full((R, C), 7, np.int8), np.full((R, C), 7, np.int8)
    parity = np.full(C if axis == 0 else R, 7, np.int8)
    _flags[(1,)](x, seen, parity, cum, steps, thr, R=R, C=C, AXIS=axis)
    want = (x > np.float32(thr)).any(0)
    np.testing.assert_array_equal(seen, want)
    np.testing.assert_array_equal(parity, np.logical_xor.reduce(want, axis=axis))
    np.testing.assert_array_equal(cum, np.logical_or.accumulate(want, axis=1))


def test_no_i1_buffers_in_the_code(native_only):
    """(what the byte layout is for: the transposed copy's mask buffer is bytes)"""
    from tritium.backends.compiler import GPUTarget
    sig = {"X": "*fp32", "Out": "*fp32", "ynumel": "i32", "xnumel": "i32",
           "YBLOCK": "constexpr", "XBLOCK": "constexpr"}
    k = triton.compile(triton.compiler.ASTSource(_transpose, sig, {"YBLOCK": 8, "XBLOCK": 128}),
                       target=GPUTarget("cpu", 0, 32))
    llir = k.asm["llir"]
    assert "x i8]" in llir and "x i1]" not in llir
