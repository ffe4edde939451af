"""The host-side `TensorDescriptor`: from_tensor for numpy and torch, upstream's validation
with messages naming the offending value, the JIT's specialization key, set_allocator."""
import numpy as np
import pytest
import torch

import tritium as triton
from tritium.frontend.specialize import specialize_arg
from tritium.runtime.allocation import get_allocator, set_allocator
from tritium.tools.tensor_descriptor import TensorDescriptor, TensorDescriptorError


def _aligned(a: np.ndarray) -> np.ndarray:
    """A copy of `a` whose data starts on a 64-byte boundary (numpy only promises 16 for
    large arrays)."""
    raw = np.empty(a.nbytes + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    out = raw[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def test_from_tensor_numpy_and_torch():
    x = _aligned(np.zeros((12, 40), np.float16))
    d = TensorDescriptor.from_tensor(x, [4, 16])
    assert (d.shape, d.strides, d.block_shape, d.padding) == ([12, 40], [40, 1], [4, 16], "zero")
    t = torch.zeros(3, 8, 32, dtype=torch.bfloat16)
    d = TensorDescriptor.from_tensor(t, [1, 8, 16], padding="nan")
    assert (d.shape, d.strides) == ([3, 8, 32], [256, 32, 1])


@pytest.mark.parametrize("make,message", [
    (lambda: TensorDescriptor(torch.zeros(65)[1:], [64], [1], [16]), "base must be 16-byte aligned"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(4, 3), [4, 4]),
     r"strides\[0\] = 3 elements of 4 bytes is 12 bytes"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(8, 8).t(), [4, 4]),
     r"Last dimension must be contiguous, but strides\[-1\] is 8"),
    (lambda: TensorDescriptor(torch.zeros(8, 8), [8, 8], [8], [4, 4]), "rank mismatch"),
    (lambda: TensorDescriptor(torch.zeros(8, 8), [8, 8], [8, 1], [4]), "rank mismatch"),
    (lambda: TensorDescriptor(torch.zeros(1), [], [], []), "rank must not be zero"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(1, 1, 1, 1, 1, 4), [1] * 6),
     "rank cannot be more than 5"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(8, 8), [4, 6]),
     r"block_shape\[1\] = 6 must be a power of 2"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(8, 8), [4, 4], padding="inf"),
     "Illegal value for padding: 'inf'"),
    (lambda: TensorDescriptor.from_tensor(torch.zeros(8, 8, dtype=torch.int32), [4, 4],
                                          padding="nan"), "padding 'nan' needs a floating"),
])
def test_validation_names_what_is_wrong(make, message):
    with pytest.raises(TensorDescriptorError, match=message) as e:
        make()
    assert isinstance(e.value, AssertionError) and isinstance(e.value, ValueError)


def test_specialization_key_is_upstreams():
    d = TensorDescriptor.from_tensor(torch.zeros(64, 64, dtype=torch.float16), [64, 32])
    assert specialize_arg(d) == ("tensordesc<fp16[64, 32]>", None)
    d = TensorDescriptor.from_tensor(_aligned(np.zeros((8, 16), np.int32)), [2, 8])
    assert specialize_arg(d) == ("tensordesc<i32[2, 8]>", None)


def test_set_allocator_registry():
    calls = []
    set_allocator(lambda size, align, stream: calls.append((size, align)))
    try:
        get_allocator()(128, 64, None)
        assert calls == [(128, 64)]
        with pytest.raises(TypeError, match="allocator must be callable"):
            triton.set_allocator(42)
    finally:
        set_allocator(None)
    with pytest.raises(RuntimeError, match="no allocator was set"):
        get_allocator()(128, 64, None)


def test_compat_exposes_tools_module():
    import importlib
    import tritium.compat
    assert tritium.compat.target_name("triton.tools.tensor_descriptor") == \
        "tritium.tools.tensor_descriptor"
    tritium.compat.install()
    try:
        assert importlib.import_module("triton.tools.tensor_descriptor").TensorDescriptor \
            is TensorDescriptor
    finally:
        tritium.compat.uninstall()
