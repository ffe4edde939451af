"""Upstream's `extern_libs` option (`{"libdevice": path, "mylib": path}`): the NVIDIA backend
links a named bitcode library into kernels that call its functions (here compiled for
sm_90a and assembled by ptxas, no GPU); the CPU backend accepts it, keys the compile on it
and links nothing, as upstream's interpreter ignores it."""
import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile
from tritium.language.builtins_misc import extern, extern_elementwise

pytestmark = pytest.mark.usefixtures("private_cache")

CUDA90 = GPUTarget("cuda", 90, 32)
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")

LIB = """
target triple = "nvptx64-nvidia-cuda"
define float @times3_plus(float %a, float %b) {
  %m = fmul float %a, 3.0
  %r = fadd float %m, %b
  ret float %r
}
define float @never_called(float %a) {
  ret float %a
}
"""


@extern
def times3_plus(x, y, _semantic=None):
    return extern_elementwise("mylib", "", [x, y], {(tl.float32, tl.float32):
                                                    ("times3_plus", tl.float32)},
                              is_pure=True, _semantic=_semantic)


@tritium.jit
def ext_kernel(X, Y, O, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(O + offs, times3_plus(tl.load(X + offs, mask=m), tl.load(Y + offs, mask=m)),
             mask=m)


SIG = {"X": "*fp32", "Y": "*fp32", "O": "*fp32", "n": "i32", "BLOCK": "constexpr"}


@pytest.fixture
def mylib(tmp_path):
    import llvmlite.binding as llvm
    path = tmp_path / "mylib.bc"
    path.write_bytes(llvm.parse_assembly(LIB).as_bitcode())
    return str(path)


@needs_ptxas
def test_nvidia_links_the_named_library(mylib):
    k = compile(ASTSource(ext_kernel, SIG, {"BLOCK": 128}), target=CUDA90,
                options={"extern_libs": {"mylib": mylib}})
    ptx = k.asm["ptx"]
    # linked and inlined: 3.0 as a float immediate, no call, nothing unused kept
    assert "0f40400000" in ptx and "times3_plus" not in ptx and "never_called" not in ptx
    assert k.asm["cubin"][:4] == b"\x7fELF"
    libs = dict(map(tuple, k.metadata.extern_libs))
    assert libs["mylib"] == mylib and "libdevice" in libs   # libdevice always there


@needs_ptxas
def test_nvidia_without_the_library_is_a_ptxas_error():
    with pytest.raises(Exception, match="Unresolved extern function 'times3_plus'"):
        compile(ASTSource(ext_kernel, SIG, {"BLOCK": 128}), target=CUDA90)


def test_nvidia_option_forms_and_bad_input(mylib):
    from tritium.backends.nvidia.backend import CUDABackend
    be = CUDABackend(CUDA90)
    as_dict = be.parse_options({"extern_libs": {"mylib": mylib}}).extern_libs
    as_pairs = be.parse_options({"extern_libs": [["mylib", mylib]]}).extern_libs  # JSON
    assert as_dict == as_pairs and as_dict[0] == ("mylib", mylib)
    given = be.parse_options({"extern_libs": {"libdevice": "/x/libdevice.10.bc"}})
    assert given.extern_libs == (("libdevice", "/x/libdevice.10.bc"),)
    with pytest.raises(TypeError, match="extern_libs"):
        be.parse_options({"extern_libs": {"mylib": 3}})


def test_cpu_accepts_and_ignores_it(mylib):
    @tritium.jit
    def k(X, O, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        tl.store(O + offs, tl.extra.cuda.libdevice.exp(tl.load(X + offs, mask=m)), mask=m)

    x = np.random.default_rng().standard_normal(37).astype(np.float32)
    out = np.zeros_like(x)
    k[(1,)](x, out, x.size, BLOCK=64)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-6)
    out2 = np.zeros_like(x)
    h = k[(1,)](x, out2, x.size, BLOCK=64, extern_libs={"mylib": mylib, "libdevice": mylib})
    np.testing.assert_array_equal(out2, out)           # nothing linked, same results
    assert h.metadata.extern_libs is not None
    assert len(k.cache[next(iter(k.cache))]) == 2      # a separate compile, as upstream
