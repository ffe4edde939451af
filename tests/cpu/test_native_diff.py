"""Differential test: random kernels run on the compiled CPU path and on the numpy
evaluator must agree (integers exactly unless made from a float, floats to a few ulp: the
compiled path's reductions may add in another order and its `exp` is within 1 ulp, not
correctly rounded).

Each kernel is generated from the test's seed: an expression DAG over two float tensors and
one int tensor (elementwise arithmetic, compares and `where`, reductions broadcast back,
transposes, a loop carrying tensors, masked loads with ragged edges), written to a module
file so `@jit` can read its source.
"""
import importlib.util
import os

import numpy as np
import pytest

FLOAT_BIN = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "tl.maximum({a}, {b})",
             "tl.minimum({a}, {b})", "tl.where({a} > {b}, {a}, {b} * 0.5)"]
FLOAT_UN = ["-{a}", "tl.abs({a})", "tl.sqrt(tl.abs({a}) + 1.0)", "tl.exp({a} * 0.1)",
            "{a} * 0.25 + 1.5", "({i}).to(tl.float32)",
            "tl.sum({a}, axis=1)[:, None] + {a} * 0.0",
            "tl.max({a}, axis=0)[None, :] - {a}"]
INT_OPS = ["{p} + {q}", "{p} - {q}", "{p} * 3", "{p} & {q}", "{p} | {q}", "{p} ^ {q}",
           "{p} >> 2", "{p} // ({q} | 1)", "{p} % ({q} | 1)", "tl.where({p} < {q}, {p}, -{q})",
           "({f} * 4.0).to(tl.int32)", "tl.sum({p}, axis=0)[None, :] + {p}",
           "tl.cumsum({p}, axis=1)"]


def _gen(rng, square: bool) -> str:
    floats, ints = ["x", "y"], ["i"]
    lines = []
    for n in range(int(rng.integers(4, 9))):
        pick = lambda pool: pool[int(rng.integers(len(pool)))]  # noqa: E731
        if rng.random() < 0.6:
            tmpl = pick(FLOAT_BIN + FLOAT_UN)
            if square and rng.random() < 0.15:
                tmpl = "tl.trans({a})"
            expr = tmpl.format(a=pick(floats), b=pick(floats), i=pick(ints))
            name = f"f{n}"
            floats.append(name)
        else:
            expr = pick(INT_OPS).format(p=pick(ints), q=pick(ints), f=pick(floats))
            name = f"i{n}"
            ints.append(name)
        lines.append(f"    {name} = {expr}")
    loop = ""
    if rng.random() < 0.5:
        loop = (f"    acc = {floats[-1]}\n    ia = {ints[-1]}\n"
                f"    for k in range(3):\n"
                f"        acc = acc * 0.5 + {floats[1 + int(rng.integers(len(floats) - 1))]}\n"
                f"        ia = ia + k * {ints[-1]}\n"
                f"    {floats[-1]} = acc\n    {ints[-1]} = ia\n")
    body = "\n".join(lines)
    return f'''import tritium as triton
import tritium.language as tl


@triton.jit
def rand_kernel(x_ptr, y_ptr, i_ptr, fo_ptr, io_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    y = tl.load(y_ptr + offs, mask=mask, other=-1.0)
    i = tl.load(i_ptr + offs, mask=mask, other=7)
{body}
{loop}    tl.store(fo_ptr + offs, {floats[-1]}, mask=mask)
    tl.store(io_ptr + offs, {ints[-1]}, mask=mask)
'''


@pytest.mark.parametrize("case", range(10))
def test_random_kernels_agree(rng, tmp_path, monkeypatch, case):
    square = bool(case % 2)
    BM, BN = (16, 16) if square else (8, 32)
    src = _gen(rng, square)
    path = tmp_path / f"rand_{case}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"rand_{case}_{os.getpid()}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    M, N = 3 * BM - 5, BN - 3 if not square else BN          # ragged edges
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = rng.standard_normal((M, N)).astype(np.float32)
    i = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
    outs = {}
    for path_ in ("native", "evaluator"):
        monkeypatch.setenv("TRITIUM_CPU_PATH", path_)
        fo, io = np.full((M, N), np.nan, np.float32), np.zeros((M, N), np.int32)
        k = mod.rand_kernel[(3,)](x, y, i, fo, io, M, N, BM=BM, BN=BN)
        outs[path_] = (fo, io)
    assert k.function.native(k.metadata) is not None, src
    if ".to(tl.int32)" in src:
        # an int made from a float (`(f * 4.0).to(tl.int32)`) carries the float's ulps:
        # exp(100) * 4 truncated near 2^31 differs by one float ulp, 128
        np.testing.assert_allclose(outs["native"][1].astype(np.float64),
                                   outs["evaluator"][1].astype(np.float64), rtol=2e-5,
                                   atol=1, err_msg=src)
    else:
        np.testing.assert_array_equal(outs["native"][1], outs["evaluator"][1], err_msg=src)
    # The two paths may sum a row in different orders: a sum that cancels (then scaled by
    # an int up to 1000) differs by a few ulps of the array's largest values, not its own.
    want = outs["evaluator"][0]
    finite = np.abs(want[np.isfinite(want)])
    scale = float(finite.max()) if finite.size else 0.0
    np.testing.assert_allclose(outs["native"][0], want, rtol=2e-5,
                               atol=1e-5 + 4e-6 * scale, equal_nan=True, err_msg=src)
