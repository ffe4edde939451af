"""rewrite-tensor-pointer preserves meaning: each block-pointer kernel, compiled to TTIR with
and without the pass, gives bit-identical results on the CPU backend (padding, ragged
edges, loops, 3-D), and no block pointer is left after the pass."""
import numpy as np
import pytest

from tritium.backends.cpu.launch import launch
from tritium.frontend.compiler import ast_to_ttir
from tritium.ir.printer import print_module
from tritium.passes import make_ttir_pipeline

from tests.blockptr import test_block_ptr_cpu as K
from tests.language.e2e import random_array


def _run_both(fn, spec, grid, make_args):
    """Outputs of `fn` without and with the pass; `make_args()` returns fresh runtime
    arguments (arrays are the same data each time)."""
    outs = []
    for lowered in (False, True):
        module, _ = ast_to_ttir(fn, spec)
        make_ttir_pipeline(rewrite_tensor_pointer=lowered, verify_each=True).run(module)
        text = print_module(module)
        assert ("tt.make_tensor_ptr" in text) != lowered
        assert ("!tt.ptr<tensor<" in text) != lowered
        args = make_args()
        launch(module, fn.__name__, grid, args)
        outs.append([a for a in args if isinstance(a, np.ndarray)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    return outs[0]


def _spec(*types, **constexprs):
    return tuple((t, "") for t in types) + tuple(("constexpr", v) for v in constexprs.values())


@pytest.mark.parametrize("pad", ["zero", "nan", ""])
@pytest.mark.parametrize("om,on", [(-3, 5), (6, 14), (0, 0)])
def test_padding_window(rng, pad, om, on):
    x = random_array(rng, "float32", 13 * 17).reshape(13, 17)
    spec = _spec("*fp32", "*fp32", "i32", "i32", "i32", "i32", BM=8, BN=8, PAD=pad,
                 CHECK=(0, 1))
    out, = _run_both(K._load_at, spec, (1,),
                     lambda: [x, np.full((8, 8), 5.0, np.float32), 13, 17, om, on])[1:]
    assert np.isfinite(out).any()


@pytest.mark.parametrize("dtype,ty", [("float16", "*fp16"), ("int32", "*i32")])
@pytest.mark.parametrize("order", [(1, 0), (0, 1)])
def test_scale_2d(rng, dtype, ty, order):
    M, N = 21, 27
    x = random_array(rng, dtype, M * N).reshape(M, N)
    if order == (0, 1):
        x = np.asfortranarray(x)
    s = [st // x.itemsize for st in x.strides]
    spec = _spec(ty, ty, "i32", "i32", "i32", "i32", "i32", "i32", BM=8, BN=16, ORDER=order,
                 PAD="zero")
    _, y = _run_both(K._scale_2d, spec, (3, 2),
                     lambda: [x, np.zeros_like(x), M, N, s[0], s[1], s[0], s[1]])
    np.testing.assert_array_equal(y, (x + x).astype(x.dtype))


def test_advance_loop_and_matmul(rng):
    x = random_array(rng, "float32", 19 * 45).reshape(19, 45)
    spec = _spec("*fp32", "*fp32", "i32", "i32", BM=8, BN=16)
    _, out = _run_both(K._row_sums, spec, (3,), lambda: [x, np.zeros(19, np.float32), 19, 45])
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-5, atol=1e-5)
    M, N, Kd = 20, 24, 40
    a = random_array(rng, "float32", M * Kd).reshape(M, Kd)
    b = np.asfortranarray(random_array(rng, "float32", Kd * N).reshape(Kd, N))
    spec = _spec("*fp32", "*fp32", "*fp32", "i32", "i32", "i32", BM=16, BN=16, BK=16)
    _, _, c = _run_both(K._matmul, spec, (2, 2),
                        lambda: [a, b, np.zeros((M, N), np.float32), M, N, Kd])
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_3d(rng):
    A, B, C = 3, 6, 9
    x = random_array(rng, "int16", A * B * C).reshape(A, B, C)
    spec = _spec("*i16", "*i16", "i32", "i32", "i32", "i32", "i32", "i32", BA=2, BB=4, BC=8)
    _, y = _run_both(K._copy_3d, spec, (2, 2, 2),
                     lambda: [x, np.zeros_like(x), A, B, C, B * C, C, 1])
    np.testing.assert_array_equal(y, x - 1)


def test_noinline_call_with_block_pointers(rng):
    x = random_array(rng, "float32", 21 * 50).reshape(21, 50)
    spec = _spec("*fp32", "*fp32", "i32", "i32", BM=8, BN=16)
    _, out = _run_both(K._row_sums_noinline, spec, (3,),
                       lambda: [x, np.zeros(21, np.float32), 21, 50])
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-5, atol=1e-5)
