"""`tritium.knobs` (= `triton.knobs`): groups, environment and assignment, scopes, errors, and
the hooks it holds being called around compiles and launches."""
import os

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium import knobs
from tritium.runtime import knobs as rk

GROUPS = ["build", "redis", "cache", "compilation", "autotuning", "runtime", "language",
          "nvidia", "amd", "proton"]


@pytest.fixture
def fresh(monkeypatch):
    """Every group replaced by a reset copy and every knob's variable unset, as upstream's
    `fresh_knobs` fixture does; all restored afterwards."""
    saved = {g: getattr(knobs, g) for g in GROUPS}
    for g in GROUPS:
        group = saved[g]
        for d in group.knob_descriptors.values():
            monkeypatch.delenv(d.key, raising=False)
        monkeypatch.setattr(knobs, g, group.copy().reset())
    monkeypatch.setattr(knobs, "propagate_env", True)
    yield knobs
    for g in GROUPS:
        for d in getattr(knobs, g).knob_descriptors.values():
            os.environ.pop(d.key, None)


def test_every_upstream_group_and_knob_exists():
    expected = {
        "cache": {"home_dir", "dump_dir", "override_dir", "dir", "manager_class",
                  "remote_manager_class"},
        "compilation": {"override", "dump_ir", "store_binary_only", "always_compile",
                        "use_ir_loc", "enable_asan", "disable_line_info", "front_end_debugging",
                        "allow_non_constexpr_globals", "enable_experimental_consan"},
        "autotuning": {"cache", "print"},
        "runtime": {"interpret", "debug", "override_arch"},
        "language": {"fp32_default", "default_fp_fusion"},
        "nvidia": {"cuobjdump", "nvdisasm", "ptxas", "dump_nvptx", "disable_ptxas_opt",
                   "ptxas_options", "mock_ptx_version", "dump_ptxas_log", "libdevice_path",
                   "libcuda_path"},
        "redis": {"key_format", "host", "port"},
        "build": {"cc", "cudacrt_path", "cudart_path"},
        "proton": {"cupti_lib_dir", "enable_nvtx"},
    }
    for group, names in expected.items():
        assert names <= set(getattr(knobs, group).knob_descriptors), group
    for hook in ("launch_enter_hook", "launch_exit_hook", "kernel_load_start_hook",
                 "kernel_load_end_hook", "kernel_unload_hook", "jit_cache_hook",
                 "jit_post_compile_hook"):
        assert hasattr(knobs.runtime, hook)
    assert knobs.compilation.listener is None


def test_environment_then_assignment_then_env_again(fresh, monkeypatch):
    assert fresh.runtime.interpret is False and rk.interpret() is False
    monkeypatch.setenv("TRITON_INTERPRET", "yes")
    assert fresh.runtime.interpret is True and rk.interpret() is True
    fresh.runtime.interpret = False            # assignment wins over the environment ...
    assert rk.interpret() is False
    assert os.environ["TRITON_INTERPRET"] == "0"  # ... and is propagated to it
    fresh.propagate_env = False
    fresh.runtime.interpret = True
    assert os.environ["TRITON_INTERPRET"] == "0" and rk.interpret() is True
    fresh.runtime.interpret = fresh.env        # back to reading the environment
    assert rk.interpret() is False


def test_paths_follow_home_and_explicit_values(fresh, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_HOME", str(tmp_path))
    assert fresh.cache.dir == os.path.join(str(tmp_path), ".triton", "cache") == rk.cache_dir()
    assert fresh.cache.override_dir == os.path.join(str(tmp_path), ".triton", "override")
    fresh.cache.dump_dir = str(tmp_path / "d")
    assert rk.dump_dir() == str(tmp_path / "d")


def test_scope_restores_values_and_environment(fresh, monkeypatch):
    fresh.compilation.always_compile = True
    with fresh.compilation.scope():
        fresh.compilation.always_compile = False
        fresh.compilation.dump_ir = True
        assert rk.kernel_dump() and not rk.always_compile()
    assert rk.always_compile() and not rk.kernel_dump()
    assert os.environ["TRITON_ALWAYS_COMPILE"] == "1" and "TRITON_KERNEL_DUMP" not in os.environ


def test_copy_and_reset_are_independent(fresh):
    fresh.amd.global_prefetch = 4
    other = fresh.amd.copy()
    other.global_prefetch = 7
    assert fresh.amd.global_prefetch == 4 and other.global_prefetch == 7
    other.reset()  # back to the environment, which the last assignment wrote
    assert other.global_prefetch == 7 == int(os.environ["TRITON_HIP_GLOBAL_PREFETCH"])
    assert fresh.amd.global_prefetch == 4


@pytest.mark.parametrize("var,value,message", [
    ("TRITON_DEBUG", "maybe", "TRITON_DEBUG='maybe' is not a boolean: use one of 1, true, on"),
    ("TRITON_REDIS_PORT", "six", "TRITON_REDIS_PORT='six' is not an integer"),
    ("TRITON_CACHE_MANAGER", "nocolon", "TRITON_CACHE_MANAGER='nocolon': expected MODULE:CLASS"),
    ("TRITON_CACHE_MANAGER", "os:path", "is not a subclass of CacheManager"),
])
def test_bad_environment_values_name_the_knob(fresh, monkeypatch, var, value, message):
    monkeypatch.setenv(var, value)
    group, name = {"TRITON_DEBUG": ("runtime", "debug"), "TRITON_REDIS_PORT": ("redis", "port"),
                   "TRITON_CACHE_MANAGER": ("cache", "manager_class")}[var]
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        getattr(getattr(fresh, group), name)


@pytest.mark.parametrize("group,name,value", [("runtime", "debug", "on"),
                                              ("redis", "port", "6379"),
                                              ("amd", "global_prefetch", 1.5)])
def test_bad_assigned_values_name_the_knob(fresh, group, name, value):
    with pytest.raises(ValueError, match=f"knob {name} "):
        setattr(getattr(fresh, group), name, value)


def test_class_knob_accepts_module_colon_class(fresh, monkeypatch):
    from tritium.runtime.cache import FileCacheManager
    monkeypatch.setenv("TRITON_CACHE_MANAGER", "tritium.runtime.cache:FileCacheManager")
    assert fresh.cache.manager_class is FileCacheManager


def test_nvidia_tool_knob_finds_ptxas(fresh):
    from tritium.backends.nvidia import toolchain
    if toolchain.find_ptxas() is None:
        pytest.skip("ptxas is not installed")
    tool = fresh.nvidia.ptxas
    assert os.path.samefile(tool.path, toolchain.find_ptxas())
    assert tool.version.count(".") == 1


@triton.jit(launch_metadata=lambda grid, metadata, args: {"n": args["n"], "grid0": grid[0]})
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


def test_launch_hooks_are_called_around_each_launch(fresh, rng):
    events = []

    def enter(md):
        events.append(("enter", md.get()["name"], md.get()["n"], md.get()["grid0"]))

    def exit_(md):
        events.append(("exit", md.get()["name"]))

    x = rng.standard_normal(100).astype(np.float32)
    y = np.zeros_like(x)
    fresh.runtime.launch_enter_hook.add(enter)
    fresh.runtime.launch_exit_hook.add(exit_)
    try:
        _scale[(4,)](x, y, 100, BLOCK=32)
        _scale[(4,)](x, y, 100, BLOCK=32)
    finally:
        fresh.runtime.launch_enter_hook.remove(enter)
        fresh.runtime.launch_exit_hook.remove(exit_)
    np.testing.assert_allclose(y, x * 3, rtol=1e-6)
    assert events == [("enter", "_scale", 100, 4), ("exit", "_scale")] * 2
    _scale[(4,)](x, y, 100, BLOCK=32)
    assert len(events) == 4  # removed: no more calls
    from tritium.knobs import hooks_maybe_set
    assert hooks_maybe_set == [False]  # launches are back on their fast path
    fresh.runtime.launch_enter_hook = lambda md: events.append(("plain", md.get()["name"]))
    _scale[(4,)](x, y, 100, BLOCK=32)  # a plain function, as Triton before 3.4 took
    assert events[-1] == ("plain", "_scale")
    fresh.runtime.launch_enter_hook = None
    assert hooks_maybe_set == [False]


def test_compilation_listener_hears_each_compile(fresh, rng, monkeypatch, tmp_path):
    # An empty disk cache: compiled CPU kernels are cached there too.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    heard = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        heard.append((src.name, metadata["name"], times.total >= 0, cache_hit))

    fresh.compilation.listener = listener
    x = rng.standard_normal(64).astype(np.float32)
    y = np.zeros_like(x)
    _scale[(1,)](x, y, 64, BLOCK=64 * 2)   # a new specialisation: compiled
    _scale[(1,)](x, y, 64, BLOCK=64 * 2)   # in-memory hit: no compile
    assert heard == [("_scale", "_scale", True, False)]
    np.testing.assert_allclose(y, x * 3, rtol=1e-6)


def test_autotuning_knobs_read_environment(fresh, monkeypatch):
    assert rk.autotuning_print() is False and rk.autotuning_progress() is None
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    monkeypatch.setenv("TRITIUM_AUTOTUNE_PROGRESS", "0")
    assert fresh.autotuning.print is True and rk.autotuning_print() is True
    assert rk.autotuning_progress() is False
    assert rk.autotuning_cache() is True  # tritium's default (upstream's is off)
    fresh.autotuning.cache = False
    assert os.environ["TRITON_CACHE_AUTOTUNING"] == "0" and rk.autotuning_cache() is False


def test_mock_tensor_as_upstream():
    m = triton.MockTensor(tl.float16, [2, 3, 4])
    assert m.stride() == (12, 4, 1) and m.data_ptr() == 0 and m.shape == [2, 3, 4]
    assert triton.MockTensor.wrap_dtype(5) == 5
    assert triton.MockTensor(tl.float32).shape == [1]


def test_nvidia_knobs_drive_the_toolchain(fresh, tmp_path):
    from tritium.backends.nvidia import llvm, toolchain
    fresh.propagate_env = False  # Python-only: the toolchain must read the knob, not the env
    fresh.nvidia.ptxas = str(tmp_path / "no-ptxas")
    with pytest.raises(FileNotFoundError, match="TRITON_PTXAS_PATH=.*no-ptxas.* is not an "
                                                "executable file"):
        toolchain.find_tool("ptxas")
    fresh.nvidia.libdevice_path = str(tmp_path / "my.bc")
    assert llvm.find_libdevice() == str(tmp_path / "my.bc")
    del fresh.nvidia.ptxas
    found = toolchain.find_tool("ptxas")
    assert found is None or os.path.basename(found) == "ptxas"


@triton.jit
def _hooked(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs + n, mask=offs < n)


def test_hooks_name_the_kernel_by_its_qualified_name(fresh):
    @triton.jit
    def local_kernel(x_ptr):
        tl.store(x_ptr, 1)

    names = []
    fresh.runtime.jit_cache_hook = lambda *, fn, **kw: names.append(fn.name) and False
    local_kernel.warmup(np.zeros(1, np.int32), grid=(1,))
    assert names == ["test_hooks_name_the_kernel_by_its_qualified_name.<locals>.local_kernel"]


def test_jit_cache_hook_can_skip_and_post_compile_hook_sees_compiles(fresh):
    seen = []

    def skip_all(*, key, repr, fn, compile, is_manual_warmup, already_compiled):
        seen.append(("cache", fn.name, compile["signature"]["x_ptr"], compile["constants"],
                     is_manual_warmup))
        return True

    x = np.full(8, -1, np.int32)
    fresh.runtime.jit_cache_hook = skip_all
    assert _hooked[(1,)](x, 5, BLOCK=8) is None
    assert (x == -1).all()  # not compiled, not launched
    assert seen == [("cache", "_hooked", "*i32", {"BLOCK": 8}, False)]

    fresh.runtime.jit_cache_hook = lambda **kw: seen.append(("cache2", kw["repr"])) and False
    fresh.runtime.jit_post_compile_hook = lambda **kw: seen.append(("post", kw["fn"].name))
    _hooked[(1,)](x, 5, BLOCK=8)
    np.testing.assert_array_equal(x, [5, 6, 7, 8, 9, -1, -1, -1])
    assert seen[1][0] == "cache2" and seen[1][1].startswith("_hooked[num_warps=4")
    assert "x_ptr: *i32" in seen[1][1] and seen[2] == ("post", "_hooked")
    fresh.runtime.jit_cache_hook = fresh.runtime.jit_post_compile_hook = None


def test_kernel_load_hooks_see_each_load_once(fresh, rng):
    events = []

    def start(module, function, name, metadata_group, hash):
        events.append(("start", module, name, hash))

    def end(module, function, name, metadata_group, hash):
        events.append(("end", module is not None, name, hash))

    @triton.jit
    def _loaded_once(X, Y, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < N) + 1, mask=offs < N)

    x = rng.standard_normal(50).astype(np.float32)
    y = np.zeros_like(x)
    fresh.runtime.kernel_load_start_hook.add(start)
    fresh.runtime.kernel_load_end_hook.add(end)
    try:
        _loaded_once[(2,)](x, y, 50, BLOCK=32)
        _loaded_once[(2,)](x, y, 50, BLOCK=32)   # cached: no second load
    finally:
        fresh.runtime.kernel_load_start_hook.remove(start)
        fresh.runtime.kernel_load_end_hook.remove(end)
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
    assert [e[0] for e in events] == ["start", "end"]
    assert events[0][1] is None and events[1][1] is True      # module: none yet, then loaded
    assert events[0][2] == events[1][2] == "_loaded_once"
    assert events[0][3] == events[1][3]      # the same hash (None where a backend has none)
    # upstream's unload hook: once, when the kernel object goes, with the loaded module
    kernel = _loaded_once.warmup(x, y, 50, BLOCK=32, grid=(2,))
    kernel._init_handles()
    unloaded = []
    fresh.runtime.kernel_unload_hook.add(
        lambda module, function, name, group, hash: unloaded.append((module is not None, name)))
    kernel.__del__()
    kernel.__del__()
    assert unloaded == [(True, "_loaded_once")] and kernel.module is None
    _loaded_once[(2,)](x, y, 50, BLOCK=32)   # loaded again on its next launch
    assert kernel.module is not None
