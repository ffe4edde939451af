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
