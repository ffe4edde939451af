"""Kernels launched on the NVIDIA runtime without torch (upstream's
runtime/test_no_torch_dispatch.py): TRITON_DEFAULT_BACKEND picks the driver without asking
the others, `triton._C.libtriton.nvidia` allocates and copies device memory, arguments are
bare `data_ptr()` holders and a host `TensorDescriptor` over one with a `tl` dtype, and
nothing asks for torch. Without a GPU the CUDA driver is `fake_cuda.py` (host memory, a
model of the kernel reading the launch's real parameter buffer); ptxas is real."""
import os
import subprocess
import sys

import pytest

from tritium.backends.nvidia import toolchain

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "torch_free_launch.py")

needs_ptxas = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")


def _has_cuda_bindings() -> bool:
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        return False
    return True


needs_bindings = pytest.mark.skipif(not _has_cuda_bindings(), reason="cuda-bindings not installed")


def _run(*flags):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")]),
               TRITON_DEFAULT_BACKEND="nvidia", TRITON_ALWAYS_COMPILE="1")
    for k in ("TRITON_INTERPRET", "TRITON_ACTIVE_DRIVER"):
        env.pop(k, None)
    return subprocess.run([sys.executable, SCRIPT, *flags], env=env, capture_output=True,
                          text=True, timeout=300)


@needs_ptxas
@needs_bindings
def test_torch_free_launch_through_the_fake_driver():
    proc = _run("--fake")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")


@pytest.mark.gpu
def test_torch_free_launch_on_the_gpu():
    proc = _run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")


# -- TRITON_DEFAULT_BACKEND ----------------------------------------------------------------

@pytest.fixture
def fresh_driver_config(monkeypatch):
    import importlib
    rt_driver = importlib.import_module("tritium.runtime.driver")  # (the module, not the object)
    config = rt_driver.DriverConfig()
    monkeypatch.delenv("TRITON_ACTIVE_DRIVER", raising=False)
    return config


def test_default_backend_names_the_driver(fresh_driver_config, monkeypatch):
    monkeypatch.setenv("TRITON_DEFAULT_BACKEND", "cpu")
    assert fresh_driver_config.active.get_current_target().backend == "cpu"


def test_default_backend_asks_no_other_driver(fresh_driver_config, monkeypatch):
    from tritium.backends import backends
    asked = []
    for name, b in backends.items():
        monkeypatch.setattr(b.driver, "is_active",
                            classmethod(lambda cls, n=name: asked.append(n) or n == "cpu"))
    monkeypatch.setenv("TRITON_DEFAULT_BACKEND", "cpu")
    assert fresh_driver_config.active.get_current_target().backend == "cpu"
    assert asked == ["cpu"]


def test_default_backend_unknown_name(fresh_driver_config, monkeypatch):
    monkeypatch.setenv("TRITON_DEFAULT_BACKEND", "tpu")
    with pytest.raises(RuntimeError, match=r"Unknown backend device 'tpu'.*'cpu'.*'nvidia'"):
        fresh_driver_config.active


def test_default_backend_not_active(fresh_driver_config, monkeypatch):
    monkeypatch.setenv("TRITON_DEFAULT_BACKEND", "nvidia")
    monkeypatch.setenv("TRITON_ACTIVE_DRIVER", "cpu")  # so nvidia's driver says inactive
    with pytest.raises(RuntimeError, match="'nvidia' .* is not active"):
        fresh_driver_config.active


# -- triton._C.libtriton.nvidia's memory helpers ----------------------------------------

@needs_bindings
def test_device_memory_helpers_round_trip(monkeypatch):
    import random
    sys.path.insert(0, HERE)
    try:
        import fake_cuda
    finally:
        sys.path.remove(HERE)
    from tritium.backends.nvidia import driver
    for name in ("_bindings", "_available", "cuda", "get_device_properties", "ensure_context"):
        monkeypatch.setattr(driver, name, getattr(driver, name))  # restored afterwards
    fake = fake_cuda.install()
    from tritium._C.libtriton import nvidia
    data = bytes(random.randrange(256) for _ in range(1000))
    p = nvidia.device_malloc(len(data))
    assert p in fake.allocations
    nvidia.copy_host_to_device(p, data)
    assert nvidia.copy_device_to_host(p, len(data)) == data
    assert nvidia.copy_device_to_host(p + 10, 20) == data[10:30]
    nvidia.synchronize()
    assert fake.synchronized == 1
    nvidia.device_free(p)
    assert fake.freed == [p] and not fake.allocations
    with pytest.raises(RuntimeError, match="CUDA"):
        nvidia.device_free(p)  # twice: the driver's error, raised
    with pytest.raises(ValueError, match="size"):
        nvidia.device_malloc(-1)
