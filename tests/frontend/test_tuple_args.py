"""Tuples and NamedTuples as kernel arguments (upstream 3.6): specialisation keys, the
generated binder, code generation (indexing, `len`, comprehensions, field access), the CPU
launch (both paths), `ASTSource` with nested signatures, and the NVIDIA launcher's packing
and a cubin for sm_90a."""
import ctypes
import struct
from typing import NamedTuple

import numpy as np
import pytest

import tritium.language as tl
from tritium import jit
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia import launcher
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.backends.params import mark_constexprs, runtime_params
from tritium.compiler import ASTSource, compile
from tritium.frontend.compiler import make_ttir
from tritium.frontend.specialize import specialize_arg
from tritium.ir.printer import print_module


class Strided(NamedTuple):
    ptr: object
    n: int
    stride: int


@jit
def _scale_all(outs, ins, scales, N: tl.constexpr):
    """outs[i][k] = ins[i][k] * scales[i], for every tuple element."""
    offs = tl.arange(0, N)
    for i in tl.static_range(len(ins)):
        tl.store(outs[i] + offs, tl.load(ins[i] + offs) * scales[i])


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_tuple_of_tensors_and_scalars(count, dtype, rng, cpu_path):
    n = 64
    ins = tuple((rng.standard_normal(n) * 100).astype(dtype) for _ in range(count))
    outs = tuple(np.zeros(n, dtype) for _ in range(count))
    scales = tuple(int(rng.integers(2, 9)) if dtype == np.int32 else float(rng.uniform(-2, 2))
                   for _ in range(count))
    _scale_all[(1,)](outs, ins, scales, N=n)
    for o, x, s in zip(outs, ins, scales):
        np.testing.assert_allclose(o, (x * s).astype(dtype), rtol=1e-6)


@jit
def _nested(out, t, empty, n):
    """t = (x_ptr, (a, None, y_ptr, c)) with c a constexpr; empty = ()."""
    tl.static_assert(len(empty) == 0)
    tl.static_assert(t[1][1] is None)
    offs = tl.arange(0, 128)
    mask = offs < n
    x = tl.load(t[0] + offs, mask=mask)
    y = tl.load(t[1][2] + offs, mask=mask)
    tl.store(out + offs, x * t[1][0] + y * t[1][3], mask=mask)


@pytest.mark.parametrize("n", [1, 77, 128])
def test_nested_tuple_with_none_constexpr_and_empty(n, rng, cpu_path):
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    a = float(rng.uniform(1, 3))
    _nested[(1,)](out, (x, (a, None, y, tl.constexpr(3))), (), n)
    np.testing.assert_allclose(out, x * np.float32(a) + y * 3, rtol=1e-6)


@jit
def _copy_strided(src: Strided, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < src.n
    tl.store(dst + offs, tl.load(src.ptr + offs * src.stride, mask=mask), mask=mask)


@pytest.mark.parametrize("n,stride", [(5, 3), (64, 1), (100, 2)])
def test_namedtuple_argument_fields(n, stride, rng, cpu_path):
    base = rng.standard_normal(n * stride).astype(np.float32)
    dst = np.zeros(n, np.float32)
    _copy_strided[(1,)](Strided(base, n, stride), dst, BLOCK=128)
    np.testing.assert_array_equal(dst, base[::stride][:n])


@jit
def _make_view(ptr, n, stride):
    return Strided(ptr=ptr, n=n, stride=stride)


@jit
def _plus_one(values):
    return tl.tuple([v + 1 for v in values])


@jit
def _built_in_kernel(src, dst, n, stride, BLOCK: tl.constexpr):
    view = _make_view(src, n, stride)           # a NamedTuple returned by a device function
    a, b = _plus_one((n, stride))                # a tuple comprehension in a device function
    offs = tl.arange(0, BLOCK)
    mask = offs < view.n
    x = tl.load(view.ptr + offs * view.stride, mask=mask)
    tl.store(dst + offs, x + (a - b), mask=mask)


def test_namedtuple_built_and_returned_in_kernel(rng, cpu_path):
    n, stride = 37, 3
    src = rng.standard_normal(n * stride).astype(np.float32)
    dst = np.zeros(n, np.float32)
    _built_in_kernel[(1,)](src, dst, n, stride, BLOCK=64)
    np.testing.assert_allclose(dst, src[::stride] + (n - stride), rtol=1e-6)


def test_specialization_key_of_tuples():
    x = np.zeros(4, np.float32)
    ty, key = specialize_arg((x, 1, 32, None, (7,), ()))
    assert ty == ("*fp32", "constexpr", "i32", "constexpr", ("i32",), ())
    assert key == ("D" if x.ctypes.data % 16 == 0 else "", 1, "D", None, ("",), ())
    ty, key = specialize_arg(Strided(x, 5, 1))
    assert isinstance(ty, Strided) and ty.n == "i32" and ty.stride == "constexpr"
    assert key.stride == 1


def test_tuple_structure_and_values_pick_the_specialisation():
    x = np.arange(8, dtype=np.float32)
    outs = (np.zeros(8, np.float32),)
    _scale_all[(1,)](outs, (x,), (2.0,), N=8)
    before = sum(len(c) for c in _scale_all.cache.values())
    _scale_all[(1,)](outs, (x,), (3.0,), N=8)           # same types: no new compile
    assert sum(len(c) for c in _scale_all.cache.values()) == before
    _scale_all[(1,)](outs, (x,), (3,), N=8)             # i32 scale: a new specialisation
    assert sum(len(c) for c in _scale_all.cache.values()) == before + 1
    np.testing.assert_array_equal(outs[0], x * 3)


def test_tuple_leaves_get_divisibility_and_flatten_in_order():
    spec = (("*fp32", ("i32", "constexpr", "*fp16", "constexpr")), ("D", ("D", None, "", 3)))
    mod, _ = make_ttir(_nested, [("*fp32", "D"), spec, ((), ()), ("i32", "")])
    text = print_module(mod)
    sig = text[text.index("tt.func public @_nested"):].split("\n")[0]
    # out, t[0], t[1][0], t[1][2], n: the constexpr leaf and the empty tuple take none.
    # (plain parameters print under their own names, tuple leaves by position)
    assert sig.count("%arg") == 3 and "(%out: " in sig and "%n: i32)" in sig
    assert "%arg1: !tt.ptr<f32>" in sig and "%arg3: !tt.ptr<f16>" in sig
    assert sig.count("tt.divisibility = 16") == 3
    assert "!tt.ptr<f16>" in sig


def test_ast_source_with_nested_signature_runs_on_the_cpu(rng):
    src = ASTSource(_nested, {"out": "*fp32", "t": ("*fp32", ("fp32", "constexpr", "*fp32",
                                                             "constexpr")),
                              "empty": (), "n": "i32"},
                    constexprs={(1, 1, 1): None, (1, 1, 3): 2})
    assert src.constants[(1, 1, 3)] == 2
    k = compile(src)
    n = 50
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    k[(1,)](out, (x, (0.5, None, y, 2)), (), n)
    np.testing.assert_allclose(out, x * 0.5 + y * 2, rtol=1e-6)


def test_runtime_params_paths():
    sig = {"a": "*fp32", "t": ("i32", ("constexpr", "*fp16"), ()), "C": "constexpr"}
    params = runtime_params(sig)
    assert [(p.path, p.name, p.type) for p in params] == [
        ((0,), "a", "*fp32"), ((1, 0), "t[0]", "i32"), ((1, 1, 1), "t[1][1]", "*fp16")]
    marked = mark_constexprs({"t": ("i32", "*fp32")}, {(0, 0): 3})
    assert marked == {"t": ("constexpr", "*fp32")}


class _Ptr:
    def __init__(self, p):
        self.p = p

    def data_ptr(self):
        return self.p


@pytest.fixture
def private_device_pointers():
    """The launcher caches device addresses process-wide: leave no entries for others."""
    before = dict(launcher._device_ptrs)
    yield
    launcher._device_ptrs.clear()
    launcher._device_ptrs.update(before)


def test_nvidia_launcher_packs_tuple_leaves(private_device_pointers):
    calls = []
    sig = {"x": "*fp32", "t": ("i32", ("constexpr", "*fp16"), ()), "n": "i64"}
    launch = launcher.make_launcher(sig, launch_fn=lambda *a: calls.append(a) or 0,
                                    device_pointer=lambda p: p, cache=False)
    assert "b.a1t1t1" in launch.source and "_1[1][1]" in launch.source
    launch(2, 1, 1, 0, 0xF00, 4, 0, _Ptr(0x1000), (-7, (None, _Ptr(0x2000)), ()), 1 << 40)
    raw = bytes(launch.params)
    # x (u64), t[0] (i32, padded to 8), t[1][1] (u64), n (i64)
    assert struct.unpack("<Qi4xQq", raw[:32]) == (0x1000, -7, 0x2000, 1 << 40)
    params = calls[-1][9]
    assert len((ctypes.c_void_p * 4).from_address(params)) == 4
    with pytest.raises(OverflowError, match=r"'t\[0\]'"):
        launch(2, 1, 1, 0, 0xF00, 4, 0, _Ptr(0x1000), (1 << 40, (None, _Ptr(0)), ()), 1)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_tuple_kernel_assembles_for_sm90a(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    src = ASTSource(_scale_all, {"outs": ("*fp32", "*fp32"), "ins": ("*fp32", "*fp32"),
                                 "scales": ("fp32", "fp32")}, constexprs={"N": 128})
    k = compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    ptx = k.asm["ptx"]
    entry = ptx[ptx.index(".entry _scale_all"):].split(")")[0]
    assert entry.count(".param .u64") == 4 and entry.count(".param .f32") == 2
    assert k.asm["cubin"][:4] == b"\x7fELF"


@jit
def _desc_copy(descs, BM: tl.constexpr, BN: tl.constexpr):
    src, dst = descs
    pid = tl.program_id(0)
    dst.store([pid * BM, 0], src.load([pid * BM, 0]) * 2)


def test_tuple_of_tensor_descriptors(rng, cpu_path):
    from tritium.tools.tensor_descriptor import TensorDescriptor
    torch = pytest.importorskip("torch", reason="TensorDescriptor wraps torch tensors")
    x = torch.from_numpy(rng.standard_normal((40, 16)).astype(np.float32))
    y = torch.zeros_like(x)
    descs = (TensorDescriptor.from_tensor(x, [16, 16]), TensorDescriptor.from_tensor(y, [16, 16]))
    _desc_copy[(3,)](descs, BM=16, BN=16)
    torch.testing.assert_close(y, x * 2)          # ragged last block: 40 = 2 * 16 + 8


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_descriptors_in_a_tuple_use_tma_on_sm90a(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    sig = {"descs": ("tensordesc<fp32[16, 16]>", "tensordesc<fp32[16, 16]>")}
    k = compile(ASTSource(_desc_copy, sig, constexprs={"BM": 16, "BN": 16}),
                target=GPUTarget("cuda", 90, 32))
    assert "cp.async.bulk.tensor" in k.asm["ptx"] and k.asm["cubin"][:4] == b"\x7fELF"
    tma = launcher._tma_args(sig, k.metadata["tensordesc_meta"])
    assert sorted(tma) == [(0, 0), (0, 1)] and tma[(0, 1)]["stores"]
    src = launcher.generate_source(sig, tma=tma)
    assert "t = _0[0]" in src and "_tm_a0t0(t)" in src      # each element, its own encoder
    assert "t = _0[1]" in src and "_tm_a0t1(t)" in src
