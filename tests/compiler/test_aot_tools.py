"""AOT tools: `tools.compile` writes C (cubin embedded, launcher over the CUDA driver API)
per specialisation, `tools.link` the dispatcher over them; the C compiles with the system
compiler against `cuda.h`, and a C program (aot_add_main.c) launches it on the GPU."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from tritium.backends.nvidia.toolchain import find_ptxas, find_tool
from tritium.tools import compile as aot_compile
from tritium.tools import link as aot_link

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(HERE, "aot_kernels.py")
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")


def cuda_include():
    """A directory holding cuda.h (upstream's `triton.backends.nvidia.driver.include_dirs`)."""
    from tritium.backends.nvidia.driver import include_dirs
    return include_dirs[0] if include_dirs else None


needs_cc = pytest.mark.skipif(CC is None or cuda_include() is None,
                              reason="no C compiler or no cuda.h")


@pytest.fixture
def generated(tmp_path, monkeypatch):
    """Two variants of add_kernel (hinted and not) and their dispatcher, in tmp_path."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "gen"
    grid = "(n + 255) / 256, 1, 1"
    common = [KERNELS, "-n", "add_kernel", "-g", grid, "-w", "4", "-on", "add", "-o",
              str(out / "add")]
    hinted = aot_compile.main(common + ["-s", "*fp32:16, *fp32:16, *fp32:16, i32, 256"])
    plain = aot_compile.main(common + ["-s", "*fp32, *fp32, *fp32, i32, 256"])
    linked = aot_link.main([str(p) for p in hinted + plain if p.suffix == ".h"]
                           + ["-o", str(out / "add_kernel")])
    return out, hinted, plain, linked


@needs_ptxas
def test_compile_output_contract(generated):
    out, hinted, plain, linked = generated
    h, c = (p.read_text() for p in hinted)
    assert re.fullmatch(r"add\.[0-9a-f]{8}_0d1d2d3\.h", hinted[0].name)
    assert re.fullmatch(r"add\.[0-9a-f]{8}_0123\.c", plain[1].name)
    name = hinted[0].name.split(".")[1]
    assert f"// tt-linker: add_{name}:CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, " \
           "int32_t n:256_warps4xstages3" in h
    assert f"CUresult add_{name}(CUstream stream, CUdeviceptr x" in h
    assert "cuLaunchKernel" in c and "cuModuleLoadData" in c and '"add_kernel"' in c
    assert "(n + 255) / 256" in c and "4 * 32" in c
    # The embedded bytes are the cubin the compiler makes for the same specialisation.
    from tritium.compiler import ASTSource, GPUTarget, compile
    sys.path.insert(0, HERE)
    try:
        from aot_kernels import add_kernel
    finally:
        sys.path.remove(HERE)
    k = compile(ASTSource(add_kernel, {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32",
                                       "BLOCK": "constexpr"}, {"BLOCK": 256},
                          {n: [["tt.divisibility", 16]] for n in ("x", "y", "out")}),
                target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    embedded = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", c.split("= {", 1)[1]))
    assert embedded == k.asm["cubin"]


@needs_ptxas
def test_link_output_contract(generated):
    _, _, _, (h, c) = generated
    header, source = h.read_text(), c.read_text()
    for decl in ("int add_get_num_algos(void);",
                 "CUresult add_default(CUstream stream, CUdeviceptr x, CUdeviceptr y, "
                 "CUdeviceptr out, int32_t n);",
                 "CUresult add(CUstream stream, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, "
                 "int32_t n, int algo_id);", "void load_add(void);",
                 "CUresult add_256_warps4xstages3(CUstream stream"):
        assert decl in header
    # The hinted variant is tried first, under its hints; the plain one catches the rest.
    body = source.split("CUresult add_256_warps4xstages3(CUstream", 1)[1]
    assert body.index("(x % 16 == 0) && (y % 16 == 0) && (out % 16 == 0)") < body.index("if (1)")


@needs_ptxas
@needs_cc
def test_generated_c_compiles(generated, tmp_path):
    out, hinted, plain, linked = generated
    sources = [p for p in hinted + plain + linked if p.suffix == ".c"]
    sources.append(os.path.join(HERE, "aot_add_main.c"))
    for src in sources:
        obj = tmp_path / (os.path.basename(str(src)) + ".o")
        proc = subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-c", str(src), "-I",
                               cuda_include(), "-I", str(out), "-o", str(obj)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_bad_signatures_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"signature has 3 entries but the kernel has 5"):
        aot_compile.main([KERNELS, "-n", "add_kernel", "-s", "*fp32, *fp32, *fp32",
                          "-g", "1,1,1", "-o", str(tmp_path / "k")])
    with pytest.raises(ValueError, match=r"only the hints 16 and 1 exist, got '8'"):
        aot_compile.main([KERNELS, "-n", "add_kernel", "-s", "*fp32:8, *fp32, *fp32, i32, 64",
                          "-g", "1,1,1", "-o", str(tmp_path / "k")])
    with pytest.raises(ValueError, match=r"no C type for 'f33'"):
        aot_compile.main([KERNELS, "-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, f33, 64",
                          "-g", "1,1,1", "-o", str(tmp_path / "k")])
    with pytest.raises(ValueError, match="no @jit kernel named 'nope'"):
        aot_compile.main([KERNELS, "-n", "nope", "-s", "i32", "-g", "1,1,1"])
    with pytest.raises(ValueError, match="three C expressions"):
        aot_compile.main([KERNELS, "-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, i32, 64",
                          "-g", "1,1", "-o", str(tmp_path / "k")])
    bad = tmp_path / "bad.h"
    bad.write_text("// tt-linker: add_0123abcd_0d1:CUdeviceptr x:algo\n")
    with pytest.raises(aot_link.LinkerError, match="does not describe 1 parameters"):
        aot_link.main([str(bad), "-o", str(tmp_path / "o")])
    bad.write_text("int nothing;\n")
    with pytest.raises(aot_link.LinkerError, match="no `// tt-linker:` line"):
        aot_link.main([str(bad), "-o", str(tmp_path / "o")])


@needs_ptxas
def test_cli_through_compat(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, TRITON_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "tritium.compat", "triton.tools.compile",
                           KERNELS, "-n", "add_kernel", "-s", "*fp32, *fp32, *fp32, i32, 128",
                           "-g", "n / 128 + 1, 1, 1", "-o", str(tmp_path / "k")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.suffix for p in tmp_path.glob("k.*_0123.*")) == [".c", ".h"]


def test_disasm_gives_sass(tmp_path, monkeypatch):
    if find_ptxas() is None or (find_tool("cuobjdump") is None and find_tool("nvdisasm") is None):
        pytest.skip("needs ptxas and cuobjdump or nvdisasm")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    from tritium.compiler import ASTSource, GPUTarget, compile
    from tritium.tools.disasm import get_sass
    sys.path.insert(0, HERE)
    try:
        from aot_kernels import add_kernel
    finally:
        sys.path.remove(HERE)
    k = compile(ASTSource(add_kernel, "*fp32, *fp32, *fp32, i32, constexpr", {"BLOCK": 64}),
                target=GPUTarget("cuda", 90, 32))
    sass = get_sass(k.asm["cubin"])
    assert "EXIT" in sass and ("LDG" in sass or "STG" in sass)
    assert "add_kernel" in get_sass(k.asm["cubin"], fun="add_kernel")
    assert k.asm["sass"] == sass  # CompiledKernel.asm disassembles on first access


@pytest.mark.gpu
@needs_cc
def test_c_program_launches_the_linked_kernel(generated, tmp_path):
    out, hinted, plain, linked = generated
    sources = [str(p) for p in hinted + plain + linked if p.suffix == ".c"]
    exe = tmp_path / "aot_add"
    from tritium.backends.nvidia.driver import library_dirs
    # As upstream's test_aot links: -L library_dirs() -lcuda (CUDA's stub when the driver's
    # directory has only libcuda.so.1).
    cmd = [CC, "-std=c11", "-O1", os.path.join(HERE, "aot_add_main.c"), *sources, "-I",
           cuda_include(), "-I", str(out), "-o", str(exe)]
    cmd += [f"-L{d}" for d in library_dirs()] + ["-lcuda", "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for n in ("1000", "257", "1"):
        run = subprocess.run([str(exe), n], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout + run.stderr


@needs_ptxas
def test_compile_and_link_run_by_path(tmp_path):
    """Upstream's test_aot runs `python <triton.tools.__path__[0]>/compile.py` and `link.py`
    by path, with a kernel file that imports `triton`."""
    import tritium.tools
    kernel = tmp_path / "k.py"
    kernel.write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                      "def copy(x, y, n, B: tl.constexpr):\n"
                      "    i = tl.program_id(0) * B + tl.arange(0, B)\n"
                      "    tl.store(y + i, tl.load(x + i, mask=i < n), mask=i < n)\n")
    env = dict(os.environ, PYTHONPATH="", TRITON_CACHE_DIR=str(tmp_path / "cache"))
    tools = tritium.tools.__path__[0]
    proc = subprocess.run([sys.executable, os.path.join(tools, "compile.py"), "-n", "copy",
                           "--signature", "*fp32:16, *fp32:16, i32, 64", "--out-name", "cp",
                           "-o", "cp", "-w", "1", "-g", "n / 64 + 1, 1, 1", str(kernel)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    headers = sorted(str(p) for p in tmp_path.glob("cp.*.h"))
    assert len(headers) == 1
    proc = subprocess.run([sys.executable, os.path.join(tools, "link.py"), *headers, "-o",
                           "cp_all"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "CUresult cp_default(" in (tmp_path / "cp_all.h").read_text()


def test_upstream_cuda_path_names(tmp_path, monkeypatch):
    """`include_dirs`, `library_dirs()`, `libcuda_dirs()`, `libdevice_dir`, `libraries` of
    `triton.backends.nvidia.driver`, as upstream's test_aot imports them."""
    from tritium.backends.nvidia import cuda_paths, driver
    from tritium.backends.nvidia.llvm import find_libdevice
    assert driver.libraries == ["cuda"]
    for d in driver.include_dirs:
        assert os.path.isfile(os.path.join(d, "cuda.h"))
    if find_libdevice():
        assert os.path.isfile(os.path.join(driver.libdevice_dir, "libdevice.10.bc"))

    def fresh():
        cuda_paths.libcuda_dirs.cache_clear()
        cuda_paths.library_dirs.cache_clear()
    monkeypatch.setattr(cuda_paths, "_cuda_roots", lambda: [str(tmp_path / "cuda")])
    drv = tmp_path / "drv"
    stubs = tmp_path / "cuda" / "lib64" / "stubs"
    for d in (drv, stubs):
        d.mkdir(parents=True)
    (drv / "libcuda.so.1").write_bytes(b"")
    (stubs / "libcuda.so").write_bytes(b"")
    monkeypatch.setenv("TRITON_LIBCUDA_PATH", str(drv))
    fresh()
    try:
        dirs = driver.library_dirs()
        assert dirs[-2:] == [str(drv), str(stubs)]  # the stub only for -lcuda to link
        (drv / "libcuda.so").write_bytes(b"")
        fresh()
        assert driver.library_dirs()[-1] == str(drv)
        monkeypatch.delenv("TRITON_LIBCUDA_PATH")
        monkeypatch.setenv("LD_LIBRARY_PATH", f"/nonexistent{os.pathsep}{drv}")
        monkeypatch.setattr(cuda_paths.subprocess, "run", lambda *a, **k: type("R", (), {"stdout": ""})())
        fresh()
        assert driver.libcuda_dirs() == [str(drv)]
        monkeypatch.setenv("LD_LIBRARY_PATH", "")
        fresh()
        with pytest.raises(AssertionError, match="libcuda.so.1 cannot be found.*TRITON_LIBCUDA_PATH"):
            driver.library_dirs()
    finally:
        fresh()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        driver.nope
