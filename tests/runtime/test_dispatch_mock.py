"""`warmup` with dtypes in place of tensors compiles for the active driver's device, as
upstream's (its device caches are keyed by the current GPU there), not for the CPU."""
import pytest

torch = pytest.importorskip("torch")

from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.frontend.jit import _MockTensor  # noqa: E402
from tritium.runtime import dispatch  # noqa: E402


class _FakeDriver:
    def __init__(self, backend):
        self.backend = backend

    def get_current_target(self):
        return GPUTarget(self.backend, 90, 32)


def test_mock_tensor_follows_the_active_driver(monkeypatch):
    gpu = object()
    monkeypatch.setattr(dispatch._GPU, "current", lambda: gpu)
    monkeypatch.setattr(type(dispatch._config), "active", property(lambda self: _FakeDriver("cuda")))
    assert dispatch.active_backend([_MockTensor(torch.float32), 32]) is gpu
    monkeypatch.setattr(type(dispatch._config), "active", property(lambda self: _FakeDriver("cpu")))
    assert dispatch.active_backend([_MockTensor(torch.float32), 32]) is dispatch.cpu_backend()
    # a host tensor still decides for itself
    assert dispatch.active_backend([torch.zeros(2)]) is dispatch.cpu_backend()


class _OnGPU:
    """A tensor-like that says it is on the GPU (torch's `is_cuda`)."""
    is_cuda = True

    def data_ptr(self):
        return 0x1000


class _Address:
    """A bare address holder: says nothing of where it lives."""

    def data_ptr(self):
        return 0x2000


@pytest.mark.parametrize("active", ["cuda", "cpu"])
def test_placeless_arguments_follow_the_active_driver(monkeypatch, active):
    """Upstream launches everything on the active driver's device; tritium places a launch by
    its tensors, and where none says where it lives (scalars only, tuples of scalars, bare
    `data_ptr()` holders as a torch-free program passes), on the active driver's device."""
    gpu = object()
    monkeypatch.setattr(dispatch._GPU, "current", lambda: gpu)
    monkeypatch.setattr(type(dispatch._config), "active", property(lambda self: _FakeDriver(active)))
    want = gpu if active == "cuda" else dispatch.cpu_backend()
    assert dispatch.active_backend([1, 2.5, None]) is want
    assert dispatch.active_backend([((1,), (2,)), 3]) is want
    assert dispatch.active_backend([_Address(), torch.zeros(2)]) is want  # the first decides
    # where an argument says where it lives, that decides, inside tuples too
    assert dispatch.active_backend([7, ((3,), (_OnGPU(),))]) is gpu
    assert dispatch.active_backend([(torch.zeros(2),), _OnGPU()]) is dispatch.cpu_backend()
    import numpy as np
    assert dispatch.active_backend([np.zeros(3), _OnGPU()]) is dispatch.cpu_backend()
    assert dispatch.active_backend([np.float32(1), _OnGPU()]) is gpu  # a numpy scalar: no memory
