"""Argument specialisation as upstream's `native_specialize_impl` does it for each backend, and
the host-side objects it classifies: `JITCallable` arguments, the AMD backend's `"S"` mark
(tensors within 2 GiB while buffer ops are on), and Gluon's host descriptor (its key names the
shared layout). Upstream's own runtime/test_specialize.py runs through compat as well
(bench/run_upstream_tests.py)."""
import random

import pytest

import tritium
import tritium.knobs as knobs
import tritium.language as tl
from tritium._utils import canonicalize_dtype
from tritium.backends.amd.compiler import HIPBackend
from tritium.backends.compiler import BaseBackend, GPUTarget
from tritium.backends.nvidia.compiler import CUDABackend
from tritium.experimental.gluon.language._layouts import NVMMASharedLayout
from tritium.experimental.gluon.nvidia.hopper import TensorDescriptor as GluonDescriptor
from tritium.frontend.jit import JITCallable, JITFunction, MockTensor
from tritium.frontend.specialize import native_specialize_impl, specialize_arg
from tritium.tools.tensor_descriptor import TensorDescriptor, TensorDescriptorError

torch = pytest.importorskip("torch", reason="the descriptors and the 'S' mark need torch tensors")


@tritium.jit
def _callee(x):
    return x + 1


class _Callable(JITCallable):
    def __init__(self, key):  # no function behind it: only what specialisation reads
        self.hash = key


def test_jit_function_is_a_jit_callable_and_specialises_as_a_constant():
    assert isinstance(_callee, JITCallable) and issubclass(JITFunction, JITCallable)
    assert native_specialize_impl(BaseBackend, _callee, False, True, True) == \
        ("constexpr", _callee.cache_key)
    other = _Callable("key-1")
    assert native_specialize_impl(CUDABackend, other, False, True, True) == ("constexpr", "key-1")
    # inside a tuple too, and through the launch path's classifier
    assert native_specialize_impl(BaseBackend, (other, 3), False, True, True) == \
        (("constexpr", "i32"), ("key-1", ""))
    assert specialize_arg(other) == ("constexpr", other)


def _aligned(numel, dtype, offset=0):
    """A tensor whose address is `offset` elements past a 64-byte boundary."""
    t = torch.empty(numel + 64, dtype=dtype)
    skip = (-t.data_ptr() % 64) // t.element_size()
    return t[skip + offset: skip + offset + numel]


def _reference_key(backend, t, align):
    """What upstream's backends compute, written out independently."""
    key = "D" if align and t.data_ptr() % 16 == 0 else ""
    if backend is HIPBackend and knobs.amd.use_buffer_ops and \
            t.untyped_storage().size() <= 2 ** 31 - 1:
        key += "S"
    return key


@pytest.mark.parametrize("backend", [CUDABackend, HIPBackend])
@pytest.mark.parametrize("buffer_ops", [True, False])
def test_tensor_keys_per_backend_match_an_independent_reference(backend, buffer_ops,
                                                                monkeypatch):
    monkeypatch.setattr(knobs.amd, "use_buffer_ops", buffer_ops)
    rng = random.Random(7)
    for _ in range(40):
        dtype = rng.choice([torch.float32, torch.float16, torch.int8, torch.float64])
        t = _aligned(rng.randint(1, 300), dtype, offset=rng.randint(0, 9))
        is_const, align = rng.random() < 0.5, rng.random() < 0.5
        ty, key = native_specialize_impl(backend, t, is_const, True, align)
        assert ty == ("*k" if is_const else "*") + canonicalize_dtype(dtype)
        assert key == _reference_key(backend, t, align), (dtype, t.data_ptr() % 16, align)
        assert native_specialize_impl(backend, t, is_const, False, align) == (ty, None)


def test_amd_marks_only_tensors_within_2gb(monkeypatch):
    monkeypatch.setattr(knobs.amd, "use_buffer_ops", True)

    class Far:  # what a tensor past 2 GiB reports
        data_ptr = staticmethod(lambda: 4096)
        ptr_range = staticmethod(lambda: 2 ** 31)

    class Near(Far):
        ptr_range = staticmethod(lambda: 2 ** 31 - 1)

    assert HIPBackend.get_tensor_specialization(Far(), align=True) == "D"
    assert HIPBackend.get_tensor_specialization(Near(), align=True) == "DS"
    assert HIPBackend.get_tensor_specialization(MockTensor(torch.float32, [4]),
                                                align=False) == "S"
    assert HIPBackend.parse_attr("DS") == [["tt.divisibility", 16], ["tt.pointer_range", 32]]
    assert HIPBackend.parse_attr("") == [] and CUDABackend.parse_attr("S") == []
    # integers as every backend: "D" for multiples of 16 when aligned
    for v in (16, 17, 2 ** 40, 2 ** 63 + 16):
        want = "D" if v % 16 == 0 else ""
        assert native_specialize_impl(HIPBackend, v, False, True, True)[1] == want


def test_amd_backend_generates_no_code():
    assert HIPBackend.supports_target(GPUTarget("hip", "gfx942", 64))
    assert not HIPBackend.supports_target(GPUTarget("cuda", 90, 32))
    with pytest.raises(TypeError):
        HIPBackend(GPUTarget("hip", "gfx942", 64))  # its compile hooks stay abstract


def test_nvmma_layout_fields_checks_and_identity():
    lay = NVMMASharedLayout(128, 16, 2)
    assert (lay.transposed, lay.fp4_padded, lay.cga_layout) == (False, False, [])
    assert lay == NVMMASharedLayout(tl.constexpr(128), 16, rank=2)
    assert hash(lay) == hash(NVMMASharedLayout(128, 16, 2)) and lay != NVMMASharedLayout(64, 16)
    assert repr(lay) == ("NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, "
                         "rank=2, transposed=False, fp4_padded=False, cga_layout=[])")
    assert lay.mangle() == "NVMMA_128_16_False_False__NVMMA"
    for bad in (dict(swizzle_byte_width=48, element_bitwidth=16),
                dict(swizzle_byte_width=0, element_bitwidth=12),
                dict(swizzle_byte_width=64, element_bitwidth=8, fp4_padded=True),
                dict(swizzle_byte_width=0, element_bitwidth=8, rank=2, cga_layout=[[1]])):
        with pytest.raises(ValueError):
            NVMMASharedLayout(**bad)


@pytest.mark.parametrize("shape, dtype, transposed, want", [
    ([64, 64], tl.float16, False, 128),   # 128 contiguous bytes
    ([16, 16], tl.float16, False, 32),    # 32 bytes
    ([16, 48], tl.float16, False, 32),    # 96 bytes: 32 divides it, 64 does not
    ([8, 16], tl.float32, False, 64),     # 64 bytes
    ([4, 64], tl.float16, False, 0),      # fewer than 8 outer rows
    ([128], tl.float32, False, 0),        # 1-D
    ([64, 8], tl.float16, True, 128),     # transposed: 64 contiguous fp16
    ([16, 4], tl.int8, False, 0),         # 4 bytes
])
def test_nvmma_default_swizzle(shape, dtype, transposed, want):
    lay = NVMMASharedLayout.get_default_for(shape, dtype, transposed=transposed)
    assert (lay.swizzle_byte_width, lay.element_bitwidth, lay.rank, lay.transposed) == \
        (want, dtype.primitive_bitwidth, len(shape), transposed)


def test_nvmma_default_swizzle_splits_the_block_over_a_cga():
    # two CTAs along dim 1: each holds [16, 32] fp16 = 64 contiguous bytes
    lay = NVMMASharedLayout.get_default_for([16, 64], tl.float16, cga_layout=[[0, 1]])
    assert lay.swizzle_byte_width == 64 and lay.cga_layout == [[0, 1]]


def test_gluon_descriptor_key_carries_the_layout():
    x = _aligned(64 * 32, torch.float16).view(64, 32)
    a = GluonDescriptor.from_tensor(x, [16, 32], NVMMASharedLayout(64, 16, 2))
    b = GluonDescriptor.from_tensor(x, [16, 32], NVMMASharedLayout(32, 16, 2))
    assert (a.shape, a.strides, a.padding, a.mode) == ([64, 32], [32, 1], "zero", "tiled")
    assert not isinstance(a, TensorDescriptor)  # a separate class, as upstream
    for backend in (CUDABackend, HIPBackend):
        for desc in (a, b):
            assert native_specialize_impl(backend, desc, False, True, True) == \
                (f"tensordesc<fp16[16, 32],{desc.layout!r}>", None)
    assert specialize_arg(a)[0] != specialize_arg(b)[0]  # the key cache keeps them apart
    plain = TensorDescriptor.from_tensor(x, [16, 32])
    assert specialize_arg(plain) == ("tensordesc<fp16[16, 32]>", None)


def test_gluon_descriptor_checks():
    x = _aligned(64 * 32, torch.float16).view(64, 32)
    with pytest.raises(TensorDescriptorError, match="element_bitwidth"):
        GluonDescriptor.from_tensor(x, [16, 32], NVMMASharedLayout(0, 32, 2))
    with pytest.raises(TensorDescriptorError, match="swizzle"):
        GluonDescriptor.from_tensor(x, [16, 16], NVMMASharedLayout(128, 16, 2))
    with pytest.raises(TensorDescriptorError, match="NVMMASharedLayout"):
        GluonDescriptor.from_tensor(x, [16, 32], "nvmma")
    with pytest.raises(TensorDescriptorError, match="contiguous"):
        GluonDescriptor.from_tensor(x.t(), [16, 16], NVMMASharedLayout(0, 16, 2))
    with pytest.raises(TensorDescriptorError, match="float32"):
        GluonDescriptor.from_tensor(x, [16, 32], NVMMASharedLayout(0, 16, 2),
                                    round_f32_to_tf32=True)
    d = _aligned(64, torch.float64).view(8, 8)
    with pytest.raises(TensorDescriptorError, match="8, 16 or 32"):
        GluonDescriptor.from_tensor(d, [8, 8], NVMMASharedLayout(0, 64, 2))
