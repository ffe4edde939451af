"""Upstream's `ir_override` option (runtime/test_autotuner.py's test_override_*): a file whose
IR replaces one stage's output, given as a launch option or in an autotune `Config`.

The override files are the stages of the same kernel compiled with another constexpr
(`F=10.0` where the launch says `F=1.0`), so a kernel that ran the file's IR computes
`x * 10`, and one that ignored it `x`. NVIDIA stages are compiled for cuda:90 without a GPU
(the later stages must equal those of the F=10 compile); the CPU ones run on both CPU paths."""
import json
import re

import numpy as np
import pytest

import tritium
import tritium.knobs as knobs
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, IRSourceError, compile

pytestmark = pytest.mark.usefixtures("private_cache")

CUDA90 = GPUTarget("cuda", 90, 32)
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
NVIDIA_STAGES = ["ttir", "ttgir", "llir", "ptx", "cubin"]


@tritium.jit
def scaled(Y, X, n, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=m) * F, mask=m)


SIG = {"Y": "*fp32", "X": "*fp32", "n": "i32", "F": "constexpr", "BLOCK": "constexpr"}


def _src(factor, block=128):
    return ASTSource(scaled, SIG, {"F": factor, "BLOCK": block})


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


def _unnamed(text):
    """MLIR text read back from a file names block arguments %arg0, ... where the JIT's has
    the Python names (%Y): compare without them."""
    if isinstance(text, bytes):
        return text
    for i, name in enumerate(SIG):
        text = re.sub(rf"%{name}\b", f"%arg{i}", text)
    return text


def _data(rng, n=1000):
    x = rng.standard_normal(n).astype(np.float32)
    return x, np.full_like(x, np.nan)


# -- NVIDIA: every stage, compiled without a GPU --------------------------------------------

@needs_ptxas
@pytest.mark.parametrize("stage", NVIDIA_STAGES)
def test_nvidia_override_replaces_the_stage(tmp_path, stage):
    ten = compile(_src(10.0), target=CUDA90)
    path = _write(tmp_path / f"scaled.{stage}", ten.asm[stage])
    one = compile(_src(1.0), target=CUDA90)
    got = compile(_src(1.0), target=CUDA90, options={"ir_override": path})
    i = NVIDIA_STAGES.index(stage)
    for earlier in NVIDIA_STAGES[:i]:  # what ran before the overridden stage is F=1's
        assert got.asm[earlier] == one.asm[earlier], earlier
    for later in NVIDIA_STAGES[i:]:    # from it on, F=10's
        assert _unnamed(got.asm[later]) == _unnamed(ten.asm[later]), later
    assert got.asm["cubin"] != one.asm["cubin"]
    assert got.metadata.ir_override == path and got.metadata.name == "scaled"


@needs_ptxas
def test_nvidia_override_through_the_jit(tmp_path, monkeypatch):
    """The launch option reaches the compile for the GPU (`warmup` with dtypes compiles
    for the active driver's device, faked here: nothing is launched)."""
    ten = compile(_src(10.0, 64), target=CUDA90)
    path = _write(tmp_path / "scaled.ttgir", ten.asm["ttgir"])
    from tritium.frontend.jit import _MockTensor
    from tritium.runtime import dispatch

    class FakeCudaDriver:  # the active driver a GPU machine has: warmup compiles for it
        def get_current_target(self):
            return CUDA90

    gpu = dispatch.Device(("cuda", 0), CUDA90, FakeCudaDriver())
    monkeypatch.setattr(dispatch._GPU, "current", lambda: gpu)
    monkeypatch.setattr(type(dispatch._config), "active", property(lambda s: FakeCudaDriver()))
    k = scaled.warmup(_MockTensor(tl.float32), _MockTensor(tl.float32), 100, F=1.0,
                      BLOCK=64, ir_override=path, grid=(1,))
    assert k.asm["cubin"] == ten.asm["cubin"]
    plain = scaled.warmup(_MockTensor(tl.float32), _MockTensor(tl.float32), 100, F=1.0,
                          BLOCK=64, grid=(1,))
    assert plain.asm["cubin"] != ten.asm["cubin"]


# -- CPU: both paths ------------------------------------------------------------------------

def _cpu_stage_text(rng, stage):
    """Stage `stage` of the F=10 kernel as the CPU backend made it (the launch compiles it)."""
    x, y = _data(rng, 8)
    k = scaled[(1,)](y, x, x.size, F=10.0, BLOCK=128)
    return k.asm[stage]


@pytest.mark.parametrize("stage", ["ttir", "llir", "obj"])
def test_cpu_override_runs_the_files_ir(tmp_path, rng, cpu_path, stage):
    if stage != "ttir" and cpu_path == "evaluator":
        pytest.skip("the evaluator has only the TTIR stage (see test_cpu_override_errors)")
    path = _write(tmp_path / f"scaled.{stage}", _cpu_stage_text(rng, stage))
    x, y = _data(rng)
    scaled[(triton_cdiv(x.size, 128),)](y, x, x.size, F=1.0, BLOCK=128, ir_override=path)
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)
    x, y = _data(rng)
    scaled[(triton_cdiv(x.size, 128),)](y, x, x.size, F=1.0, BLOCK=128)  # without: its own
    np.testing.assert_array_equal(y, x)


@needs_ptxas
def test_cpu_runs_a_ttgir_override_without_its_layouts(tmp_path, rng, cpu_path):
    """An NVIDIA TTGIR file as the override of a CPU launch: the CPU backend has no TTGIR
    stage and takes it at its TTIR stage, dropping the layouts (`ir_entry`)."""
    ten = compile(_src(10.0), target=CUDA90)
    path = _write(tmp_path / "scaled.ttgir", ten.asm["ttgir"])
    x, y = _data(rng, 777)
    scaled[(triton_cdiv(x.size, 128),)](y, x, x.size, F=1.0, BLOCK=128, ir_override=path)
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)


@pytest.mark.parametrize("spelling", ["kwargs", "argument"])
def test_autotune_config_ir_override(tmp_path, rng, spelling):
    # (the file is another kernel's TTIR: its function renamed, as the kernel's must be)
    path = _write(tmp_path / "tuned.ttir", _cpu_stage_text(rng, "ttir").replace("@scaled", "@tuned"))
    config = tritium.Config({"BLOCK": 128, "ir_override": path}) if spelling == "kwargs" else \
        tritium.Config({"BLOCK": 128}, ir_override=path)

    @tritium.autotune(configs=[config], key=["n"])
    @tritium.jit
    def tuned(Y, X, n, F: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(Y + offs, tl.load(X + offs, mask=m) * F, mask=m)

    x, y = _data(rng, 300)
    tuned[lambda meta: (triton_cdiv(x.size, meta["BLOCK"]),)](y, x, x.size, F=1.0)
    np.testing.assert_allclose(y, x * 10, rtol=1e-6)


def test_edited_override_file_compiles_again(tmp_path, rng, monkeypatch):
    """The file's contents are in the cache key: the same file hits the disk cache, an
    edited one (same path) compiles again."""
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    cpu = GPUTarget("cpu", 0, 32)
    ten = compile(_src(10.0), target=cpu)
    three = compile(_src(3.0), target=cpu)
    hits = []
    monkeypatch.setattr(knobs.compilation, "listener", lambda **kw: hits.append(kw["cache_hit"]))
    path = tmp_path / "scaled.llir"
    _write(path, ten.asm["llir"])
    a = compile(_src(1.0), target=cpu, options={"ir_override": str(path)})
    b = compile(_src(1.0), target=cpu, options={"ir_override": str(path)})
    _write(path, three.asm["llir"])
    c = compile(_src(1.0), target=cpu, options={"ir_override": str(path)})
    assert hits == [False, True, False]
    assert a.hash == b.hash != c.hash
    assert a.asm["obj"] == ten.asm["obj"] and c.asm["obj"] == three.asm["obj"]


# -- bad input ------------------------------------------------------------------------------

def test_override_errors(tmp_path, rng, monkeypatch):
    cpu = GPUTarget("cpu", 0, 32)
    ptx = _write(tmp_path / "k.ptx", "// not for the CPU\n")
    with pytest.raises(ValueError, match=r"ir_override: .*k\.ptx.* '\.ptx' file, but the cpu "
                                         r"backend has no such stage \(its stages: ttir"):
        compile(_src(1.0), target=cpu, options={"ir_override": ptx})
    with pytest.raises(ValueError, match=r"ir_override: .*no such stage"):
        compile(_src(1.0), target=CUDA90, options={"ir_override": _write(tmp_path / "k.txt", "")})
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")  # (only the TTIR stage)
    llir = _write(tmp_path / "k.llir", "")
    with pytest.raises(ValueError, match=r"'\.llir' file, but the cpu backend has no such stage "
                                         r"\(its stages: ttir;"):
        compile(_src(1.0), target=cpu, options={"ir_override": llir})
    if find_ptxas() is None:
        return
    ttgir = _write(tmp_path / "k.ttgir", compile(_src(1.0), target=CUDA90).asm["ttgir"])
    with pytest.raises(ValueError, match=r"replaces stage 'ttir', which this compile does not "
                                         r"run \(it runs: llir, ptx, cubin\)"):
        compile(ttgir, target=CUDA90, options={"ir_override": _write(tmp_path / "k.ttir", "")})
    with pytest.raises(IRSourceError, match=r"missing\.ttir: cannot be read \(ir_override\)"):
        compile(_src(1.0), target=cpu, options={"ir_override": str(tmp_path / "missing.ttir")})
    bad = _write(tmp_path / "bad.ttir", "module {\n  tt.func public @scaled( {\n}\n")
    with pytest.raises(IRSourceError, match=r"bad\.ttir:2:\d+: "):
        compile(_src(1.0), target=cpu, options={"ir_override": bad})
    with pytest.raises(TypeError, match="ir_override: expected the path"):
        compile(_src(1.0), target=cpu, options={"ir_override": 3})


def test_override_is_an_option_of_both_backends():
    from tritium.backends.cpu.compiler import CPUOptions
    from tritium.backends.nvidia.backend import CUDAOptions
    assert CUDAOptions().ir_override is None and CPUOptions().ir_override is None
    assert "ir_override" in str(CUDAOptions(ir_override="a.ptx"))
    assert json.loads(json.dumps(CUDAOptions(ir_override="a.ptx").__dict__))["ir_override"]


# -- PTX written by upstream: its kernels end with two scratch pointers ----------------------

def _with_upstream_scratch_params(ptx: str, name: str) -> str:
    """`ptx` with the two trailing `.u64` parameters upstream's kernels declare (global and
    profile scratch; unused by this kernel)."""
    entry = re.search(rf"\.entry {name}\((.*?)\)", ptx, re.S)
    params = entry.group(1).rstrip()
    extra = "".join(f",\n\t.param .u64 .ptr .global .align 1 {name}_param_s{i}" for i in range(2))
    return ptx[:entry.start(1)] + params + extra + "\n" + ptx[entry.end(1):]


def test_launcher_passes_null_trailing_pointers():
    """The kernelParams array ends with two pointers to null after the kernel's own, so a
    kernel that declares upstream's scratch parameters reads nulls (what upstream passes
    when a kernel needs no scratch); the driver reads only what the kernel declares."""
    import ctypes
    from tritium.backends.nvidia import launcher
    calls = []
    launch = launcher.make_launcher({"y": "*fp32", "n": "i32", "B": "constexpr"},
                                    launch_fn=lambda *a: calls.append(a) or 0,
                                    device_pointer=lambda p: p, cache=False)
    launch(1, 1, 1, 0, 0xF00, 4, 0, 0x1230, 77, 128)
    ptrs = (ctypes.c_void_p * 4).from_address(calls[-1][9])
    assert ctypes.c_uint64.from_address(ptrs[0]).value == 0x1230
    assert ctypes.c_int32.from_address(ptrs[1]).value == 77
    assert [ctypes.c_uint64.from_address(p).value for p in ptrs[2:]] == [0, 0]
    empty = launcher.make_launcher({}, launch_fn=lambda *a: calls.append(a) or 0,
                                   device_pointer=lambda p: p, cache=False)
    empty(1, 1, 1, 0, 0xF00, 4, 0)
    nulls = (ctypes.c_void_p * 2).from_address(calls[-1][9])
    assert [ctypes.c_uint64.from_address(p).value for p in nulls] == [0, 0]


@needs_ptxas
def test_upstream_abi_ptx_override_assembles(tmp_path):
    ten = compile(_src(10.0), target=CUDA90)
    text = _with_upstream_scratch_params(ten.asm["ptx"], "scaled")
    got = compile(_src(1.0), target=CUDA90,
                  options={"ir_override": _write(tmp_path / "scaled.ptx", text)})
    assert got.asm["ptx"] == text and "scaled_param_s1" in got.asm["ptx"]
    assert got.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_upstream_abi_ptx_override_runs_on_the_gpu(tmp_path, rng):
    torch = pytest.importorskip("torch")
    ten = compile(_src(10.0), target=CUDA90)
    path = _write(tmp_path / "scaled.ptx", _with_upstream_scratch_params(ten.asm["ptx"], "scaled"))
    # not n == 1: that launch is another specialisation (n a constant, one parameter fewer),
    # which a PTX file written for the general one cannot serve, on upstream either
    for n in (1000, 128, 37):
        x = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
        y = torch.full_like(x, float("nan"))
        scaled[(triton_cdiv(n, 128),)](y, x, n, F=1.0, BLOCK=128, ir_override=path)
        torch.testing.assert_close(y, x * 10)


def triton_cdiv(a, b):
    return (a + b - 1) // b
