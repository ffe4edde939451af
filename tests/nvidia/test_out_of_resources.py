"""Resource limits reach the caller as `OutOfResources` (what autotuners skip), not as a
generic compile or launch failure. No GPU needed: ptxas is real, the driver is a fake."""
import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia import driver, toolchain
from tritium.runtime.errors import OutOfResources, PTXASError

needs_ptxas = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")

# 256 KiB of static shared memory: more than any NVIDIA GPU lets one block have.
BIG_SMEM_PTX = """
.version 8.0
.target sm_90a
.address_size 64

.visible .entry big_smem(.param .u64 p)
{
    .shared .align 4 .b8 buf[262144];
    .reg .b64 %rd<2>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, buf;
    ld.shared.u32 %r2, [%r1+262140];
    st.global.u32 [%rd1], %r2;
    ret;
}
"""


@needs_ptxas
def test_ptxas_shared_memory_overflow_is_out_of_resources():
    with pytest.raises(OutOfResources) as exc:
        toolchain.make_cubin(BIG_SMEM_PTX, arch="sm_90a")
    e = exc.value
    assert e.name == "shared memory" and e.required == 262144
    assert 0 < e.limit < 262144  # ptxas' per-block maximum for sm_90a (227 KiB)
    assert "out of resource: shared memory" in str(e)


@needs_ptxas
def test_other_ptxas_failures_stay_ptxas_errors():
    with pytest.raises(PTXASError):
        toolchain.make_cubin(BIG_SMEM_PTX.replace("ret;", "not_an_instruction;"), arch="sm_90a")


class FakeCuda:
    """The few cuda-bindings calls load_binary makes; `max_threads` stands for what the
    kernel's register count leaves per block."""

    class CUfunction_attribute:
        CU_FUNC_ATTRIBUTE_NUM_REGS = "regs"
        CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = "local"
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = "max_threads"
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = "static_shared"
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = "max_dyn_shared"

    def __init__(self, regs, max_threads):
        self.attrs = {"regs": regs, "local": 0, "max_threads": max_threads, "static_shared": 0}
        self.loaded, self.unloaded = [], []

    def cuModuleLoadData(self, image):
        self.loaded.append(image)
        return (0, f"module{len(self.loaded)}")

    def cuModuleGetFunction(self, module, name):
        return (0, 1234)

    def cuFuncGetAttribute(self, attr, function):
        return (0, self.attrs[attr])

    def cuModuleUnload(self, module):
        self.unloaded.append(module)
        return 0


@pytest.fixture
def fake_driver(monkeypatch):
    def install(regs, max_threads):
        fake = FakeCuda(regs, max_threads)
        monkeypatch.setattr(driver, "cuda", lambda: fake)
        monkeypatch.setattr(driver, "get_device_properties", lambda device=None:
                            {"max_shared_mem": 232448})
        monkeypatch.setattr(driver, "ensure_context", lambda device=None: None)
        return fake
    return install


def test_load_binary_checks_threads_against_the_function_limit(fake_driver):
    # 255 registers a thread: the 64K-register file holds 256 threads, not 16 warps.
    fake = fake_driver(regs=255, max_threads=256)
    with pytest.raises(OutOfResources) as exc:
        driver.load_binary("k", b"cubin", 0, 0, num_threads=16 * 32)
    assert (exc.value.required, exc.value.limit, exc.value.name) == (512, 256, "threads")
    assert fake.unloaded == ["module1"]  # nothing leaks
    module, function, regs, spills = driver.load_binary("k", b"cubin", 0, 0, num_threads=256)
    assert (module, function, regs) == ("module2", 1234, 255)
    # Without num_threads (direct callers) nothing changes.
    driver.load_binary("k", b"cubin", 0, 0)


def test_load_binary_shared_memory_above_the_device_limit(fake_driver):
    fake = fake_driver(regs=32, max_threads=1024)
    with pytest.raises(OutOfResources) as exc:
        driver.load_binary("k", b"cubin", 232448 + 1, 0, num_threads=128)
    assert exc.value.name == "shared memory" and not fake.loaded


@tritium.jit
def _copy(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)


@pytest.mark.parametrize("error", [OutOfResources(300000, 232448, "shared memory"),
                                   PTXASError("ptxas failed")], ids=["oor", "ptxas"])
def test_compile_passes_resource_and_ptxas_errors_through(error, tmp_path, monkeypatch):
    from tritium.backends.compiler import GPUTarget
    from tritium.backends.nvidia import toolchain
    from tritium.compiler import ASTSource, compile

    def fail(*args, **kwargs):
        raise error
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(toolchain, "make_cubin", fail)
    src = ASTSource(_copy, {"X": "*fp32", "Y": "*fp32", "n": "i32"}, {"BLOCK": 8})
    with pytest.raises(type(error)) as exc:
        compile(src, target=GPUTarget("cuda", 90, 32))
    assert exc.value is error  # not wrapped in StageError: autotuners catch it by class
