"""A process forked after its parent initialised CUDA (Inductor's compile workers fork from
a parent that asked torch for the device properties) cannot call the CUDA driver: the NVIDIA
driver must still count as active there and know its target, from torch's cached view, as
upstream's (which asks torch alone) does."""
import sys
import types

import pytest

from tritium.backends.nvidia import driver as D


class _Props:
    name = "NVIDIA H100 80GB HBM3"
    major, minor = 9, 0
    multi_processor_count = 132
    shared_memory_per_block_optin = 232448
    regs_per_multiprocessor = 65536
    warp_size = 32
    L2_cache_size = 52428800


@pytest.fixture
def forked_child(monkeypatch):
    """The driver calls fail (as after fork); torch is loaded and saw one H100 before."""
    def broken():
        raise RuntimeError("Triton Error [CUDA]: CUDA_ERROR_NOT_INITIALIZED")
    fake_cuda = types.SimpleNamespace(is_available=lambda: True, current_device=lambda: 0,
                                      get_device_properties=lambda d: _Props())
    fake_torch = types.SimpleNamespace(cuda=fake_cuda, version=types.SimpleNamespace(hip=None))
    monkeypatch.setattr(D, "cuda", broken)
    monkeypatch.setattr(D, "_available", False)
    monkeypatch.setattr(D, "_props", {})
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    monkeypatch.delenv("TRITON_ACTIVE_DRIVER", raising=False)
    return fake_torch


def test_active_and_target_from_torch(forked_child):
    assert D.CudaDriver.is_active()
    t = D.CudaDriver().get_current_target()
    assert (t.backend, t.arch, t.warp_size) == ("cuda", 90, 32)
    props = D.get_device_properties(0)
    assert props["multiprocessor_count"] == 132 and props["max_shared_mem"] == 232448


def test_rocm_torch_is_not_nvidia(forked_child):
    forked_child.version.hip = "6.2"
    assert not D.CudaDriver.is_active()


def test_no_gpu_anywhere_still_raises(forked_child):
    forked_child.cuda.is_available = lambda: False
    assert not D.CudaDriver.is_active()
    with pytest.raises(RuntimeError, match="NOT_INITIALIZED"):
        D.get_device_properties(0)
