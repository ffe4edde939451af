"""rewrite-tensor-descriptor-to-pointer (the GPU's path until TMA) preserves meaning: each
descriptor kernel, compiled with and without the pass, gives identical results on the CPU
backend. The lowered kernel's arguments are built from `tensordesc_abi.expand`, the same
table the NVIDIA launcher packs from, so the two agree on the parameter list."""
import numpy as np
import pytest

from tritium.backends.cpu.launch import launch
from tritium.backends.nvidia import tensordesc_abi
from tritium.frontend.compiler import ast_to_ttir
from tritium.ir.printer import print_module
from tritium.passes import make_ttir_pipeline
from tritium.tools.tensor_descriptor import TensorDescriptor

from tests.blockptr import test_tensor_descriptor_cpu as K
from tests.blockptr.test_tensor_descriptor_host import _aligned
from tests.language.e2e import random_array


def _runtime_args(values, spec, lowered):
    out = []
    for v, (ty, _) in zip(values, spec):
        if ty == "constexpr":
            continue
        if not ty.startswith("tensordesc"):
            out.append(v)
        elif lowered:
            out += [eval(expr.format(d="v"), {"v": v}) for _, _, expr in
                    tensordesc_abi.expand("d", ty)]
        else:
            out += [v] + list(v.shape) + list(v.strides)
    return out


def _run_both(fn, spec, grid, make_values):
    results = []
    for lowered in (False, True):
        module, _ = ast_to_ttir(fn, spec)
        make_ttir_pipeline(rewrite_tensor_pointer=lowered, verify_each=True).run(module)
        text = print_module(module)
        assert ("tensordesc" in text) != lowered and ("tt.descriptor_" in text) != lowered
        values = make_values()
        launch(module, fn.__name__, grid, _runtime_args(values, spec, lowered))
        arrays = [v.base if isinstance(v, TensorDescriptor) else v for v in values]
        results.append([np.array(a) for a in arrays if isinstance(a, np.ndarray)])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    return results[1]


def _desc_sig(dtype, block):
    return (f"tensordesc<{dtype}{list(block)}>", None)


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("i,j", [(-2, 3), (5, 20), (0, 0)])
def test_window_padding(rng, padding, i, j):
    x = _aligned(random_array(rng, "float32", 9 * 24).reshape(9, 24))
    spec = (_desc_sig("fp32", (8, 16)), ("*fp32", ""), ("i32", ""), ("i32", ""),
            ("constexpr", 8), ("constexpr", 16))
    _, out = _run_both(K._window, spec, (1,), lambda: [
        TensorDescriptor.from_tensor(x, [8, 16], padding=padding), np.zeros((8, 16), np.float32),
        i, j])
    np.testing.assert_array_equal(out.astype(np.float64), K._ref_window(x, i, j, 8, 16,
                                                                        np.nan if padding == "nan" else 0))


def test_copy_and_device_descriptors(rng):
    x = _aligned(random_array(rng, "int32", 21 * 48).reshape(21, 48))
    spec = (_desc_sig("i32", (8, 16)), _desc_sig("i32", (8, 16)), ("constexpr", 8),
            ("constexpr", 16))
    _, y = _run_both(K._copy_2d, spec, (3, 3), lambda: [
        TensorDescriptor.from_tensor(x, [8, 16]),
        TensorDescriptor.from_tensor(_aligned(np.zeros_like(x)), [8, 16])])
    np.testing.assert_array_equal(y, x + 1)
    M, N = 21, 40
    xf = random_array(rng, "float32", M * N).reshape(M, N)
    spec = (("*fp32", ""), ("*fp32", ""), ("*i64", ""), ("i32", ""), ("i32", ""),
            ("constexpr", 8), ("constexpr", 16), ("constexpr", "nan"))
    _run_both(K._device_desc, spec, (3,), lambda: [
        xf, np.full((M + 1, N), 99.0, np.float32), np.zeros(4, np.int64), M, N])


@pytest.mark.parametrize("which,dtype,ty", [("add", "float32", "fp32"), ("max", "int32", "i32"),
                                            ("xor", "int64", "i64")])
def test_reductions(rng, which, dtype, ty):
    target = _aligned(random_array(rng, dtype, 6 * 16, -1000, 1000).reshape(6, 16))
    vals = random_array(rng, dtype, 3 * 4 * 8, -1000, 1000).reshape(3, 4, 8)
    spec = (_desc_sig(ty, (4, 8)), ("*" + ty, ""), ("constexpr", which), ("constexpr", 4),
            ("constexpr", 8))
    _run_both(K._reduce, spec, (3,), lambda: [
        TensorDescriptor(_aligned(target.copy()), [6, 9], [16, 1], [4, 8]), vals])


def test_gather_scatter(rng):
    x = _aligned(random_array(rng, "float32", 10 * 40).reshape(10, 40))
    rows = rng.permutation(np.arange(-2, 13))[:8].astype(np.int32)
    spec = (_desc_sig("fp32", (1, 16)), _desc_sig("fp32", (1, 16)), ("*i32", ""),
            ("*fp32", ""), ("i32", ""), ("constexpr", 8), ("constexpr", 16))
    _run_both(K._gather_scatter, spec, (1,), lambda: [
        TensorDescriptor.from_tensor(x, [1, 16]),
        TensorDescriptor.from_tensor(_aligned(np.zeros_like(x)), [1, 16]), rows,
        np.zeros((8, 16), np.float32), 30])


def test_descriptor_through_branch(rng):
    a = _aligned(random_array(rng, "float32", 16 * 8).reshape(16, 8))
    b = _aligned(random_array(rng, "float32", 16 * 8).reshape(16, 8))
    spec = tuple(_desc_sig("fp32", (8, 8)) for _ in range(3)) + (("i32", ""), ("constexpr", 8))
    _, _, out = _run_both(K._through_calls_and_branches, spec, (2,), lambda: [
        TensorDescriptor.from_tensor(a, [8, 8]), TensorDescriptor.from_tensor(b, [8, 8]),
        TensorDescriptor.from_tensor(_aligned(np.zeros((16, 8), np.float32)), [8, 8]), 3])
    np.testing.assert_array_equal(out, b)


def test_noinline_functions_and_loop_carried(rng):
    x = _aligned(random_array(rng, "float32", 32 * 128).reshape(32, 128))
    spec = (("*fp32", ""), ("*fp32", ""), ("i32", ""), ("i32", ""), ("constexpr", 8),
            ("constexpr", 32))
    out, _ = _run_both(K._noinline_descriptors, spec, (4, 4),
                       lambda: [np.zeros_like(x), x, 32, 128])
    np.testing.assert_array_equal(out, np.abs(x))
    spec = (("*fp32", ""), ("i32", ""), ("i32", ""), ("constexpr", 8), ("constexpr", 32))
    a, = _run_both(K._loop_carried_descriptor, spec, (4,), lambda: [x.copy(), 32, 128])
    np.testing.assert_allclose(a, x + 15, rtol=1e-6)
