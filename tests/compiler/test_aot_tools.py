"""AOT tools: `tools.compile` writes C (cubin embedded, launcher over the CUDA driver API)
per specialisation, `tools.link` the dispatcher over them; the C compiles with the system
compiler against `cuda.h`, and a C program (aot_add_main.c) launches it on the GPU."""
import glob
import importlib.util
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
    """A directory holding cuda.h: CUDA_HOME, /usr/local/cuda, or NVIDIA's wheels."""
    dirs = [os.path.join(os.environ.get(v, ""), "include") for v in ("CUDA_HOME", "CUDA_PATH")]
    dirs.append("/usr/local/cuda/include")
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations or []) if spec else []:
        dirs += sorted(glob.glob(os.path.join(base, "*", "include")))
    return next((d for d in dirs if os.path.isfile(os.path.join(d, "cuda.h"))), None)


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
    base = [CC, "-std=c11", "-O1", os.path.join(HERE, "aot_add_main.c"), *sources, "-I",
            cuda_include(), "-I", str(out), "-o", str(exe)]
    proc = None
    for libs in (["-lcuda"], ["-l:libcuda.so.1"]):
        proc = subprocess.run(base + libs + ["-lm"], capture_output=True, text=True)
        if proc.returncode == 0:
            break
    assert proc.returncode == 0, proc.stderr
    for n in ("1000", "257", "1"):
        run = subprocess.run([str(exe), n], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout + run.stderr
