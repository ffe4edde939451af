"""Triton -> Gluon translation (`triton_to_gluon_translator.translator`): translated kernels are
written out, imported and run next to the Triton original on fresh random data (CPU backend;
the same cases on a GPU under the `gpu` marker), and the source rewrites are checked where a
run cannot tell them apart."""
import ast
import contextvars
import importlib
import importlib.util
import os
import sys
import uuid

import pytest
import torch

import tritium
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor
from tritium.tools.triton_to_gluon_translator import translator_helpers
from tritium.tools.triton_to_gluon_translator.gluon_names import classify
from tritium.tools.triton_to_gluon_translator.slice_kernel import _public_module_name
from tritium.tools.triton_to_gluon_translator.translator import (TranslationError, convert_triton_to_gluon, main,
                                                                 translate_paths)
from tritium.tools.triton_to_gluon_translator.translator_helpers import convert_host_descriptor

sys.path.insert(0, os.path.dirname(__file__))
import gluon_translate_kernels as K  # noqa: E402

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]

# Descriptor kernels need Gluon's Hopper TMA (gl.nvidia.hopper.tma, mbarrier), which is
# still to come in tritium's Gluon: these tests start running when it lands.
_tma = getattr(getattr(importlib.import_module("tritium.experimental.gluon.language").nvidia, "hopper", None), "tma",
               None)
needs_tma = pytest.mark.skipif(getattr(_tma, "tensor_descriptor", None) is None,
                               reason="tritium's Gluon has no Hopper TMA descriptors (gl.nvidia.hopper.tma) yet")
needs_tma_make = pytest.mark.skipif(getattr(_tma, "make_tensor_descriptor", None) is None,
                                    reason="tritium's Gluon has no gl.nvidia.hopper.tma.make_tensor_descriptor yet")



def _mm(a, b):
    """a @ b computed on the CPU in float64: the reference needs no cuBLAS (which fails
    under compute-sanitizer's racecheck and synccheck, bench/sanitize_gluon.py)."""
    return (a.cpu().double() @ b.cpu().double()).float().to(a.device)

def load_source(tmp_path, text):
    name = f"gluon_out_{uuid.uuid4().hex[:12]}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module      # @gluon.jit reads the source back through the module
    spec.loader.exec_module(module)
    return module


def translated(kernel, tmp_path):
    return getattr(load_source(tmp_path, convert_triton_to_gluon([kernel])), kernel.fn.__name__)


def seeded(rng):
    torch.manual_seed(int(rng.integers(2**31)))


# ---------------------------------------------------------------- upstream's cases, run

@pytest.mark.parametrize("device", DEVICES)
def test_add(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.add_kernel, tmp_path)
    n = 1000
    x, y = torch.randn(n, device=device), torch.randn(n, device=device)
    out, ref = torch.empty_like(x), torch.empty_like(x)
    kernel[(triton_cdiv(n, 128), )](x, y, out, n, 128)
    K.add_kernel[(triton_cdiv(n, 128), )](x, y, ref, n, 128)
    torch.testing.assert_close(out, ref, atol=0, rtol=0)
    torch.testing.assert_close(out, x + y, atol=0, rtol=0)


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["trans_method", "tl_trans_separate", "tl_trans_tuple", "tl_trans", "T", "permute"])
def test_reshape_trans(tmp_path, rng, device, kind):
    seeded(rng)
    kernel = translated(K.reshape_trans_kernel, tmp_path)
    n = 1024
    x, y = torch.randn(n, device=device), torch.randn(n, device=device)
    out = torch.empty_like(x)
    kernel[(n // 256, )](x, y, out, n, 256, kind)
    expect = (x.view(-1, 16, 16) + y.view(-1, 16, 16).transpose(1, 2)).reshape(-1)
    torch.testing.assert_close(out, expect, atol=0, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_split(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.split_kernel, tmp_path)
    n = 1024
    x = torch.randn(2 * n, device=device)
    out, ref = torch.empty(n, device=device), torch.empty(n, device=device)
    kernel[(n // 256, )](x, out)
    K.split_kernel[(n // 256, )](x, ref)
    torch.testing.assert_close(out, ref, atol=0, rtol=0)
    torch.testing.assert_close(out, x[0::2] * 2 + x[1::2], atol=0, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("can_reorder", [False, True])
def test_cat(tmp_path, rng, device, can_reorder):
    seeded(rng)
    kernel = translated(K.cat_translation_kernel, tmp_path)
    block = 128
    x = torch.randint(-1000, 1000, (block, ), device=device, dtype=torch.int32)
    y = torch.randint(-1000, 1000, (block, ), device=device, dtype=torch.int32)
    out = torch.empty(2 * block, device=device, dtype=torch.int32)
    kernel[(1, )](x, y, out, BLOCK=block, CAN_REORDER=can_reorder, num_warps=4)
    ref = torch.cat([x, y])
    if can_reorder:
        out, ref = torch.sort(out).values, torch.sort(ref).values
    torch.testing.assert_close(out, ref, atol=0, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_reduce_to_scalar(tmp_path, device):
    kernel = translated(K.reduce_to_scalar_kernel, tmp_path)
    out = torch.empty(1, device=device, dtype=torch.int32)
    kernel[(1, )](out)
    assert out.item() == sum(range(16))


@pytest.mark.parametrize("device", DEVICES)
def test_extrema(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.extrema_reduce_kernel, tmp_path)
    x = torch.randn(256, device=device)
    out_max, out_min = torch.empty(128, device=device), torch.empty(128, device=device)
    kernel[(1, )](x, out_max, out_min, BLOCK=256)
    torch.testing.assert_close(out_max, x.view(128, 2).amax(1), atol=0, rtol=0)
    torch.testing.assert_close(out_min, x.view(128, 2).amin(1), atol=0, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_num_threads(tmp_path, device):
    kernel = translated(K.num_threads_kernel, tmp_path)
    out = torch.zeros(512, dtype=torch.int32, device=device)
    kernel[(1, )](out, num_warps=8)
    assert out[:256].tolist() == [1] * 256 and not out[256:].any()


@pytest.mark.parametrize("device", DEVICES)
def test_atomic_add(tmp_path, device):
    kernel = translated(K.atomic_add_kernel, tmp_path)
    out, ref = torch.zeros(128, device=device), torch.zeros(128, device=device)
    kernel[(1, )](out, BLOCK=128)
    kernel[(1, )](out, BLOCK=128)
    K.atomic_add_kernel[(1, )](ref, BLOCK=128)
    torch.testing.assert_close(out, 2 * ref)


@pytest.mark.parametrize("device", DEVICES)
def test_dot_tile(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.matmul_tile_kernel, tmp_path)
    M = N = K_ = 32
    a = torch.randn(M, K_, device=device, dtype=torch.float16)
    b = torch.randn(K_, N, device=device, dtype=torch.float16)
    c = torch.empty(M, N, device=device)
    kernel[(1, )](a, b, c, M, N, K_, num_warps=4)
    torch.testing.assert_close(c, _mm(a, b), atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_loop(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.matmul_kernel, tmp_path)
    M, N, K_ = 64, 32, 64
    BM, BN, BK = 32, 16, 16
    a = torch.randn(M, K_, device=device, dtype=torch.float16)
    b = torch.randn(K_, N, device=device, dtype=torch.float16)
    out = torch.empty(M, N, device=device)
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN), )
    kernel[grid](a, b, out, M, N, K_, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0),
                 out.stride(1), BM, BN, BK)
    torch.testing.assert_close(out, _mm(a, b), atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("device", DEVICES)
def test_rows_library_and_methods(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.rows_kernel, tmp_path)
    M, N = 8, 32
    x = torch.randn(M, N, device=device)
    out = torch.empty_like(x)
    stats = torch.empty(2 * M, device=device)
    kernel[(1, )](x, out, stats, M, N)
    torch.testing.assert_close(out, torch.softmax(x, 1), atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(stats[:M], x.amax(1) + 2 * x.sum(1), atol=1e-5, rtol=1e-5)
    even = torch.arange(0, M, 2, device=device, dtype=torch.float32)
    torch.testing.assert_close(stats[M::2], even * N)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", ["cumsum", "flip", "sort", "sigmoid", "full", "where", "static_range", "join_ravel",
                                "interleave", "broadcast_to", "histogram", "rand", "argmax"])
def test_library_functions(tmp_path, rng, device, op):
    seeded(rng)
    kernel = translated(K.library_kernel, tmp_path)
    x = torch.randn(64, device=device)
    out, ref = torch.empty_like(x), torch.empty_like(x)
    kernel[(1, )](x, out, 64, op)
    K.library_kernel[(1, )](x, ref, 64, op)
    torch.testing.assert_close(out, ref, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_int8_dot_accumulates_in_int32(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.int_dot_kernel, tmp_path)
    a = torch.randint(-100, 100, (16, 32), dtype=torch.int8, device=device)
    b = torch.randint(-100, 100, (32, 16), dtype=torch.int8, device=device)
    c = torch.empty(16, 16, dtype=torch.int32, device=device)
    kernel[(1, )](a, b, c, 16, 16, 32)
    # (the reference on the CPU in int64: CUDA has no integer matmul)
    ref = (a.cpu().long() @ b.cpu().long()).to(torch.int32)
    torch.testing.assert_close(c.cpu(), ref, atol=0, rtol=0)


@pytest.mark.parametrize("n", [1024, 1000])
def test_autotune_and_heuristics_kept(tmp_path, rng, n):
    seeded(rng)
    text = convert_triton_to_gluon([K.tuned_scale_kernel])
    # The output names modules as its reader imports them: `triton` once tritium.compat is
    # installed (by an earlier test of this process, say), else `tritium`.
    top = _public_module_name("tritium")
    other = {"triton": "tritium", "tritium": "triton"}[top]
    assert f"@{other}.autotune(" not in text and f"@{top}.autotune(" in text
    assert "@gluon.jit\ndef tuned_scale_kernel" in text
    kernel = load_source(tmp_path, text).tuned_scale_kernel
    x = torch.randn(n)
    out = torch.empty_like(x)
    kernel[lambda meta: (triton_cdiv(n, meta["BLOCK"]), )](x, out, n)
    torch.testing.assert_close(out, 2 * x, atol=0, rtol=0)


# ---------------------------------------------------------------- descriptors

@needs_tma
@pytest.mark.parametrize("device", DEVICES)
def test_descriptor_store(tmp_path, device):
    kernel = translated(K.descriptor_store_kernel, tmp_path)
    y = torch.zeros(64, 64, device=device, dtype=torch.float16)
    kernel[(1, )](convert_host_descriptor(TensorDescriptor(y, y.shape, y.stride(), [64, 64])), 64, 64, 1.5)
    assert bool((y == 1.5).all())


@needs_tma
@pytest.mark.parametrize("device", DEVICES)
def test_descriptor_copy(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.descriptor_copy_kernel, tmp_path)
    x = torch.randn(64, 64, device=device, dtype=torch.float16)
    y = torch.zeros_like(x)
    src = convert_host_descriptor(TensorDescriptor(x, x.shape, x.stride(), [32, 64]))
    dst = convert_host_descriptor(TensorDescriptor.from_tensor(y, [32, 64]))
    kernel[(1, )](src, dst, 32, 64)
    torch.testing.assert_close(y[:32], x[:32], atol=0, rtol=0)
    assert not y[32:].any()


@needs_tma_make
@pytest.mark.parametrize("device", DEVICES)
def test_make_tensor_descriptor(tmp_path, rng, device):
    seeded(rng)
    kernel = translated(K.make_tensor_descriptor_copy_kernel, tmp_path)
    x = torch.randn(64, 64, device=device, dtype=torch.float16)
    y = torch.zeros_like(x)

    def launch():   # in a context of its own: the allocator set stays out of other tests
        tritium.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=device))
        kernel[(1, )](x, y, 64, 64, 64, 64)

    contextvars.copy_context().run(launch)
    torch.testing.assert_close(y, x, atol=0, rtol=0)


@needs_tma
@pytest.mark.parametrize("device", DEVICES)
def test_ragged_descriptors(tmp_path, rng, device):
    from tritium.tools.ragged_tma import create_ragged_descriptor
    seeded(rng)
    kernel = translated(K.ragged_copy_kernel, tmp_path)
    off, size = int(rng.integers(0, 30)), int(rng.integers(1, 40))
    src_t = torch.randn(80, 32, device=device, dtype=torch.float16)
    dst_t = torch.zeros_like(src_t)
    src = convert_host_descriptor(create_ragged_descriptor(src_t, [16, 32]))
    dst = convert_host_descriptor(create_ragged_descriptor(dst_t, [16, 32], write_only=True))
    kernel[(triton_cdiv(size, 16), )](src, dst, off, size, 16)
    expect = torch.zeros_like(dst_t)
    expect[off:off + size] = src_t[off:off + size] * 2 + 1
    torch.testing.assert_close(dst_t, expect, atol=0, rtol=0)


def test_convert_host_descriptor(rng):
    x = torch.randn(32, 64, dtype=torch.bfloat16)
    desc = convert_host_descriptor(TensorDescriptor.from_tensor(x, [16, 32], padding="nan"))
    from tritium.experimental.gluon.language import NVMMASharedLayout
    from tritium.experimental.gluon.nvidia.hopper import TensorDescriptor as GluonTensorDescriptor
    assert isinstance(desc, GluonTensorDescriptor)
    assert (desc.base is x and desc.shape == [32, 64] and desc.strides == [64, 1] and desc.block_shape == [16, 32]
            and desc.padding == "nan")
    assert desc.layout == NVMMASharedLayout.get_default_for([16, 32], tl.bfloat16)
    assert convert_host_descriptor(desc) is desc     # already Gluon's: not wrapped twice
    with pytest.raises(TypeError, match="expected a triton.tools.tensor_descriptor.TensorDescriptor, got Tensor"):
        convert_host_descriptor(x)


def test_convert_ragged_descriptor():
    from tritium.tools.ragged_tma import create_ragged_descriptor
    x = torch.randn(100, 64)
    desc = convert_host_descriptor(create_ragged_descriptor(x, [16, 32]))
    assert desc.shape[2:] == [2**30, 64] and desc.block_shape == [1, 1, 16, 32]
    assert desc.strides == [2**34 - 64, 64, 64, 1] and desc.base.data_ptr() == x.data_ptr()
    with pytest.raises(ValueError, match="the last cannot be ragged"):
        create_ragged_descriptor(x, [16, 32], ragged_dim=1)


# ---------------------------------------------------------------- compiled for sm_90a, no GPU

SM90_CASES = {
    "add": (K.add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"},
            {"BLOCK": 128}),
    "reshape_trans": (K.reshape_trans_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                               "n_elements": "i32"}, {"BLOCK": 256, "TRANS_KIND": "T"}),
    "split": (K.split_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {}),
    "cat": (K.cat_translation_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "out_ptr": "*i32"},
            {"BLOCK": 128, "CAN_REORDER": False}),
    "reduce_to_scalar": (K.reduce_to_scalar_kernel, {"out_ptr": "*i32"}, {}),
    "extrema": (K.extrema_reduce_kernel, {"x_ptr": "*fp32", "max_ptr": "*fp32", "min_ptr": "*fp32"},
                {"BLOCK": 256}),
    "num_threads": (K.num_threads_kernel, {"out_ptr": "*i32"}, {}),
    "dot_fma": (K.matmul_tile_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
                     {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}),
    "rows": (K.rows_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "stats_ptr": "*fp32"}, {"M": 8, "N": 32}),
    "sort": (K.library_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"N": 64, "OP": "sort"}),
}


def compile_sm90(kernel, signature, constexprs, tmp_path, target_seen=None):
    """The translated kernel compiled for sm_90a. `target_seen`: what the helpers' target
    questions answer (the active driver's, the CPU's here, unless given)."""
    from tritium.backends.compiler import GPUTarget
    from tritium.compiler import ASTSource, compile
    gluon_kernel = translated(kernel, tmp_path)
    if target_seen is not None:
        sys.modules[gluon_kernel.fn.__module__].current_target = tl.constexpr_function(lambda: target_seen)
    return compile(ASTSource(gluon_kernel, signature, constexprs), target=GPUTarget("cuda", 90, 32))


@pytest.mark.usefixtures("private_cache")
@pytest.mark.parametrize("name", sorted(SM90_CASES))
def test_cubin_for_sm90a(tmp_path, name):
    compiled = compile_sm90(*SM90_CASES[name], tmp_path)
    assert ".target sm_90a" in compiled.asm["ptx"] and compiled.asm["cubin"][:4] == b"\x7fELF"


def _desc_signature():
    x = torch.zeros(64, 64, dtype=torch.float16)
    layout = convert_host_descriptor(TensorDescriptor.from_tensor(x, [64, 64])).layout
    return f"tensordesc<fp16[64, 64],{layout!r}>"


@pytest.mark.usefixtures("private_cache")
@pytest.mark.parametrize("name", [pytest.param("copy", marks=needs_tma), pytest.param("store", marks=needs_tma),
                                  pytest.param("make", marks=needs_tma_make)])
def test_descriptor_cubins_for_sm90a(tmp_path, name):
    desc = _desc_signature()
    kernel, signature, constexprs = {
        "copy": (K.descriptor_copy_kernel, {"in_desc": desc, "out_desc": desc}, {"BLOCK_M": 64, "BLOCK_N": 64}),
        "store": (K.descriptor_store_kernel, {"desc": desc}, {"BLOCK_M": 64, "BLOCK_N": 64, "V": 1.0}),
        "make": (K.make_tensor_descriptor_copy_kernel, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
                 {"BLOCK_M": 64, "BLOCK_N": 64}),
    }[name]
    compiled = compile_sm90(kernel, signature, constexprs, tmp_path)
    assert "cp.async.bulk.tensor" in compiled.asm["ptx"]


_gl_nvidia = importlib.import_module("tritium.experimental.gluon.language").nvidia
_has_mma_v2 = getattr(getattr(_gl_nvidia, "ampere", None), "mma_v2", None) is not None
_has_wgmma = getattr(getattr(_gl_nvidia, "hopper", None), "warpgroup_mma", None) is not None


@tl.constexpr_function
def as_sm90():
    from tritium.backends.compiler import GPUTarget
    return GPUTarget("cuda", 90, 32)


@tl.constexpr_function
def as_sm80():
    from tritium.backends.compiler import GPUTarget
    return GPUTarget("cuda", 80, 32)


# tl.dot's paths: (what the helpers are told the target is, the tile, what PTX shows).
# sm_90 takes wgmma where the tile fits one (64 rows a warpgroup), else mma.sync.
DOT_PATHS = [
    pytest.param(as_sm90, 64, "bf16", "wgmma.mma_async", marks=pytest.mark.skipif(not _has_wgmma, reason="no wgmma")),
    pytest.param(as_sm90, 128, "fp16", "wgmma.mma_async", marks=pytest.mark.skipif(not _has_wgmma, reason="no wgmma")),
    pytest.param(as_sm90, 32, "fp16", "mma.sync", marks=pytest.mark.skipif(not _has_mma_v2, reason="no mma_v2")),
    pytest.param(as_sm80, 64, "fp16", "mma.sync", marks=pytest.mark.skipif(not _has_mma_v2, reason="no mma_v2")),
]


@pytest.mark.usefixtures("private_cache")
@pytest.mark.parametrize("target, block, dtype, instruction", DOT_PATHS)
def test_dot_paths_for_sm90a(tmp_path, target, block, dtype, instruction):
    from tritium.backends.compiler import GPUTarget
    from tritium.compiler import ASTSource, compile
    kernel = translated(K.matmul_tile_kernel, tmp_path)
    sys.modules[kernel.fn.__module__].current_target = target
    compiled = compile(ASTSource(kernel, {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp32"},
                                 {"BLOCK_M": block, "BLOCK_N": block, "BLOCK_K": 32}), target=GPUTarget("cuda", 90, 32))
    assert instruction in compiled.asm["ptx"]


@pytest.mark.parametrize("target, block, dtype, instruction", DOT_PATHS)
def test_dot_paths_run_on_cpu(tmp_path, rng, target, block, dtype, instruction):
    """The tensor-core helpers' data flow (shared memory, layouts, the accumulator): the CPU
    backend runs wgmma and mma.sync as plain dots."""
    seeded(rng)
    torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    kernel = translated(K.matmul_kernel, tmp_path)
    sys.modules[kernel.fn.__module__].current_target = target
    M, N, K_ = 2 * block, block, 64
    a, b = torch.randn(M, K_, dtype=torch_dtype), torch.randn(K_, N, dtype=torch_dtype)
    out = torch.empty(M, N)
    kernel[(2, )](a, b, out, M, N, K_, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0),
                  out.stride(1), block, block, 32)
    torch.testing.assert_close(out, _mm(a, b), atol=1e-3, rtol=1e-3)


# ---------------------------------------------------------------- the source rewrites

ALL_KERNELS = [K.add_kernel, K.matmul_tile_kernel, K.matmul_kernel, K.descriptor_store_kernel,
               K.descriptor_copy_kernel, K.make_tensor_descriptor_copy_kernel, K.reshape_trans_kernel, K.split_kernel,
               K.cat_translation_kernel, K.reduce_to_scalar_kernel, K.extrema_reduce_kernel, K.num_threads_kernel,
               K.atomic_add_kernel, K.rows_kernel, K.library_kernel, K.ragged_copy_kernel]


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: k.fn.__name__)
def test_output_is_all_gluon(kernel):
    text = convert_triton_to_gluon([kernel])
    tree = ast.parse(text)
    assert f"import {_public_module_name('tritium.experimental.gluon')} as gluon" in text
    # No Triton operation left: each became gl.*, a helper or a translated copy; what still
    # reads `tl.` is a compile-time utility (tl._promote_bfloat16_to_float32, say).
    left = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and ast.unparse(n.value) == "tl"}
    assert not [name for name in left if classify(getattr(tl, name)) is not None], text
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert ast.unparse(defs[kernel.fn.__name__].decorator_list[0]) == "gluon.jit"


def test_rewrites_in_the_text():
    text = convert_triton_to_gluon([K.rows_kernel])
    assert "def softmax(" in text and "def _combine_max(" in text   # library and user @jit copied
    assert "convert_to_expand_dims_layout(rows, [1])" in text         # tl.expand_dims(rows, 1)
    assert "convert_to_expand_dims_layout(cols, [0])" in text         # tl.expand_dims(cols, (0,))
    assert "convert_to_expand_dims_layout(rows, [1])[:, None]" in text
    assert "reset_to_default_layout(x.sum(axis=1))" in text
    assert "for i in range(0, M, 2):" in text                        # num_stages dropped, step kept
    text = convert_triton_to_gluon([K.num_threads_kernel])
    assert "num_threads: gl.constexpr = gl.num_warps() * get_num_threads_per_warp()" in text
    text = convert_triton_to_gluon([K.descriptor_copy_kernel])
    assert "tile = tl_obj_load(in_desc, [0, 0])" in text and "tl_obj_store(out_desc, [0, 0], tile)" in text


def test_untranslatable_construct_names_itself_and_line(tmp_path, monkeypatch):
    (tmp_path / "bp_kernels.py").write_text(
        "import tritium\nimport tritium.language as tl\n\n\n@tritium.jit\ndef k(p, B: tl.constexpr):\n"
        "    bp = tl.make_block_ptr(p, (B, ), (1, ), (0, ), (B, ), (0, ))\n    tl.store(bp, tl.load(bp))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import bp_kernels
    with pytest.raises(TranslationError, match=r"bp_kernels.py:7: cannot translate `tl.make_block_ptr` to Gluon: "
                                               r"tl.make_block_ptr: block pointers have no Gluon form"):
        convert_triton_to_gluon([bp_kernels.k])


def test_amd_targets_are_refused():
    with pytest.raises(NotImplementedError, match="AMD target 'gfx1250'"):
        convert_triton_to_gluon([K.add_kernel], target="gfx1250")
    with pytest.raises(ValueError, match="unknown translation target 'tpu'"):
        convert_triton_to_gluon([K.add_kernel], target="tpu")


def test_translate_paths_and_cli(tmp_path, rng):
    seeded(rng)
    path = "gluon_translate_kernels:add_kernel"
    assert translate_paths([path]) == convert_triton_to_gluon([K.add_kernel])
    out = tmp_path / "add_gluon.py"
    main([path, "--output-path", str(out), "--target", "cpu"])
    kernel = load_source(tmp_path, out.read_text()).add_kernel
    x, y = torch.randn(300), torch.randn(300)
    z = torch.empty_like(x)
    kernel[(3, )](x, y, z, 300, 128)
    torch.testing.assert_close(z, x + y, atol=0, rtol=0)


def test_helpers_stand_alone_and_load_lazily():
    """Each helper is copied into outputs on its own: it may read only the imports every
    output gets, other helpers and Python's builtins."""
    import builtins
    from tritium.tools.triton_to_gluon_translator import gluon_helpers
    from tritium.tools.triton_to_gluon_translator.translator import _helper_library
    library = _helper_library()
    allowed = library.names() | set(dir(builtins))
    for name, (source, _, _) in library.defs.items():
        tree = ast.parse(source)
        fn = tree.body[0]
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        local |= {a.asname or a.name.split(".")[0] for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))
                  for a in n.names}
        free = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - local
        assert free <= allowed, (name, free - allowed)
    assert translator_helpers.tl_arange is gluon_helpers.tl_arange
    assert translator_helpers.convert_host_descriptor is convert_host_descriptor
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        translator_helpers.nope
    with pytest.raises(AttributeError, match="tl_dot_blackwell: upstream's helper for Blackwell or AMD"):
        translator_helpers.tl_dot_blackwell


def test_output_beside_an_upstream_triton_names_tritium(monkeypatch):
    """An upstream Triton imported in the same process (not tritium.compat's facade) must not
    be what the output imports: its Gluon would get tritium's kernels and descriptors."""
    import types
    monkeypatch.setitem(sys.modules, "triton", types.ModuleType("triton"))
    text = convert_triton_to_gluon([K.add_kernel])
    assert "import tritium.experimental.gluon as gluon" in text and "import triton" not in text
