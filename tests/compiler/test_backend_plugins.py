"""Backends as plugins, as upstream's: found through the `triton.backends` entry point
group (a package with `compiler` and `driver` modules), chosen with
`triton.runtime.driver.set_active()` / `reset_active()`. A third-party backend written
against upstream's interface only (imports from `triton.backends.*`) is installed here as
a real distribution (a .dist-info directory on sys.path), compiles through
`triton.compile`, and runs `@jit` launches once its driver is active. A broken plugin is
reported by name and the others still load."""
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium import backends as registry
from tritium.compiler import ASTSource, GPUTarget

PLUGIN_COMPILER = '''
from dataclasses import dataclass

from triton.backends.compiler import BaseBackend, GPUTarget


@dataclass(frozen=True)
class FakeDevOptions:
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 1
    debug: bool = False


class FakeDevBackend(BaseBackend):
    binary_ext = "fakebin"

    @staticmethod
    def supports_target(target):
        return target.backend == "fakedev"

    def hash(self):
        return "fakedev-1.0"

    def parse_options(self, options):
        known = FakeDevOptions.__dataclass_fields__
        return FakeDevOptions(**{k: v for k, v in options.items() if k in known})

    def add_stages(self, stages, options, language=None):
        stages["ttir"] = lambda mod, metadata: mod
        stages["fakebin"] = self.make_fakebin

    def make_fakebin(self, ttir, metadata):
        metadata["shared"] = 0
        return b"FAKEBIN\\n" + str(ttir).encode()

    def load_dialects(self, context):
        pass

    def get_module_map(self):
        return {}
'''

# The fake device "runs" a kernel by recording the launch and doubling its first
# argument into its second: enough to see the grid, the arguments and the binary arrive.
PLUGIN_DRIVER = '''
from triton.backends.compiler import GPUTarget
from triton.backends.driver import DriverBase

LAUNCHES = []


class _Utils:
    def load_binary(self, name, kernel, shared, device):
        assert kernel.startswith(b"FAKEBIN")
        return "module:" + name, "function:" + name, 7, 0, 1024


class _Launcher:
    def __init__(self, src, metadata):
        self.constexprs = [i for i, ty in enumerate(src.signature.values()) if ty == "constexpr"]

    def __call__(self, gx, gy, gz, stream, function, packed, launch_metadata, enter, exit, *args):
        args = [a for i, a in enumerate(args) if i not in self.constexprs]
        LAUNCHES.append(((gx, gy, gz), function, len(args)))
        args[1][:] = args[0] * 2


class FakeDevDriver(DriverBase):
    def __init__(self):
        self.utils = _Utils()
        self.launcher_cls = _Launcher

    @staticmethod
    def is_active():
        return False

    def get_current_target(self):
        return GPUTarget("fakedev", 1, 16)

    def get_active_torch_device(self):
        return "fakedev:0"

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_benchmarker(self):
        raise NotImplementedError
'''


def _install(tmp_path, entry_points):
    (tmp_path / "fakedev_plugin").mkdir()
    (tmp_path / "fakedev_plugin" / "__init__.py").write_text("")
    (tmp_path / "fakedev_plugin" / "compiler.py").write_text(PLUGIN_COMPILER)
    (tmp_path / "fakedev_plugin" / "driver.py").write_text(PLUGIN_DRIVER)
    (tmp_path / "broken_plugin").mkdir()
    (tmp_path / "broken_plugin" / "__init__.py").write_text("")
    (tmp_path / "broken_plugin" / "compiler.py").write_text("raise ImportError('libfoo.so missing')\n")
    (tmp_path / "broken_plugin" / "driver.py").write_text("")
    dist = tmp_path / "fakedev_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakedev-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[triton.backends]\n" + textwrap.dedent(entry_points))


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    import tritium.compat
    tritium.compat.install()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    _install(tmp_path, "fakedev = fakedev_plugin\nbroken = broken_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = registry.rediscover()
    yield found, caught
    tritium.runtime.driver.reset_active()
    for mod in [m for m in sys.modules if m.startswith(("fakedev_plugin", "broken_plugin"))]:
        del sys.modules[mod]
    monkeypatch.undo()
    registry.rediscover()


@tritium.jit
def double(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)


def test_own_backends_are_registered():
    found = registry.rediscover()
    assert {"cpu", "nvidia"} <= set(found)
    assert found["cpu"].compiler.__name__ == "CPUBackend"
    assert found["nvidia"].driver.__name__ == "CudaDriver"
    assert found["nvidia"].compiler.supports_target(GPUTarget("cuda", 90, 32))


def test_plugin_is_discovered_and_the_broken_one_named(plugins):
    found, caught = plugins
    assert {"cpu", "nvidia", "fakedev"} <= set(found) and "broken" not in found
    messages = [str(w.message) for w in caught]
    assert any("'broken'" in m and "libfoo.so missing" in m for m in messages), messages
    assert "libfoo.so missing" in str(registry.broken_backends["broken"])
    assert found["fakedev"].compiler.__name__ == "FakeDevBackend"


def test_plugin_compiles_through_triton_compile(plugins):
    import triton
    k = triton.compile(ASTSource(double, {"X": "*fp32", "Y": "*fp32", "n": "i32",
                                          "BLOCK": "constexpr"}, {"BLOCK": 32}),
                       target=GPUTarget("fakedev", 1, 16))
    assert list(k.asm.keys()) == ["ttir", "fakebin"]
    assert k.asm["fakebin"].startswith(b"FAKEBIN") and b"tt.func public @double" in k.asm["fakebin"]
    assert k.metadata.target == GPUTarget("fakedev", 1, 16)


def test_set_active_sends_jit_launches_to_the_plugin(plugins, rng):
    import triton
    from fakedev_plugin import driver as plugin_driver
    from fakedev_plugin.driver import FakeDevDriver
    x = rng.standard_normal(40).astype(np.float32)
    y = np.zeros_like(x)
    triton.runtime.driver.set_active(FakeDevDriver())
    assert triton.runtime.driver.active.get_current_target().backend == "fakedev"
    k = double[(2,)](x, y, 40, BLOCK=32)
    assert plugin_driver.LAUNCHES == [((2, 1, 1), "function:double", 3)]
    np.testing.assert_array_equal(y, x * 2)
    assert k.n_regs == 7 and k.metadata.target.backend == "fakedev"
    triton.runtime.driver.reset_active()
    y[:] = 0
    double[(2,)](x, y, 40, BLOCK=32)  # back on the CPU backend
    assert len(plugin_driver.LAUNCHES) == 1
    np.testing.assert_array_equal(y, x * 2)


def test_cpu_driver_is_a_driver_like_the_others():
    torch = pytest.importorskip("torch")
    drv = tritium.runtime.driver.active
    if drv.get_current_target().backend != "cpu":
        pytest.skip("a GPU is the active device here")
    assert isinstance(drv, registry.DriverBase)
    assert drv.get_active_torch_device() == torch.device("cpu")
    props = drv.utils.get_device_properties(0)
    assert props["multiprocessor_count"] >= 1 and props["warpSize"] == 32
    bench = drv.get_benchmarker()
    short = bench(lambda: time.sleep(0.002), warmup=5, rep=20)
    long = bench(lambda: time.sleep(0.006), warmup=5, rep=20)
    assert 1.5 < short < 6 and long > short + 2  # milliseconds of CPU work, timed


def test_set_active_with_an_instance_of_upstream_style_driver_and_back():
    cfg = tritium.runtime.driver
    default = cfg.active
    sentinel = type("D", (), {"get_current_target": lambda self: GPUTarget("cpu", 0, 32)})()
    cfg.set_active(sentinel)
    assert cfg.active is sentinel
    cfg.reset_active()
    assert cfg.active is default is cfg.default


def test_own_backends_load_without_installed_metadata(monkeypatch):
    monkeypatch.setattr(registry, "_entry_points", lambda: [])  # a source tree, not installed
    try:
        assert {"cpu", "nvidia"} <= set(registry.rediscover())
    finally:
        monkeypatch.undo()
        registry.rediscover()


def test_more_threads_than_the_device_allows_is_out_of_resources(plugins):
    import triton
    from triton.runtime.errors import OutOfResources
    k = triton.compile(ASTSource(double, "*fp32, *fp32, i32, constexpr", {"BLOCK": 32}),
                       target=GPUTarget("fakedev", 1, 16), options={"num_warps": 128})
    with pytest.raises(OutOfResources, match="threads, Required: 2048, Hardware limit: 1024"):
        k._init_handles()


def test_upstream_triton_in_tree_backends_are_not_plugins(monkeypatch):
    """With upstream Triton installed beside tritium, its own entries (`triton.backends.nvidia`,
    `triton.backends.amd`, built for its C++ core) share the entry-point group; tritium keeps
    its own backends under those names and does not warn about upstream's."""
    import warnings
    from types import SimpleNamespace

    import tritium.backends as B
    fake = [SimpleNamespace(name="nvidia", value="triton.backends.nvidia"),
            SimpleNamespace(name="amd", value="triton.backends.amd")]
    monkeypatch.setattr(B, "_entry_points", lambda: fake)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = B.discover_backends()
    assert found["nvidia"].compiler.__module__.startswith("tritium.backends.nvidia")
    assert "amd" not in found and not B.broken_backends


def test_tritium_registers_no_upstream_backend_entry_points():
    """Upstream Triton loads every `triton.backends` entry point as its own plugin, so one
    naming a tritium package made `import triton` (upstream, installed beside tritium) fail
    with "Found 0 concrete subclasses of BaseBackend". tritium finds its own backends
    without entry points."""
    from importlib.metadata import entry_points
    ours = [ep for ep in entry_points(group="triton.backends") if ep.value.startswith("tritium")]
    assert not ours, ours
    from tritium.backends import backends
    assert {"nvidia", "cpu"} <= set(backends)
