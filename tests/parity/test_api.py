"""The public API through compat: every upstream 3.6 name imports as `triton.X`; torch's
probes; reinterpret/TensorWrapper; must_use_result; constexpr_function; tl.extra.cuda and
libdevice extras on the CPU backend and through ptxas."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.language.extra import cuda, libdevice

sys.path.insert(0, os.path.dirname(__file__))
from upstream_names import NAMES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code: str, tmp_path) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter importing this checkout's tritium."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=300)


CASES = [(m, n) for m, names in NAMES.items() for n in (names or [None])]


@pytest.mark.parametrize("module,name", CASES, ids=[f"{m}:{n}" for m, n in CASES])
def test_upstream_name_imports_through_compat(module, name):
    import importlib
    import tritium.compat
    tritium.compat.install()
    try:
        mod = importlib.import_module(module)
        if name is not None:
            assert hasattr(mod, name), f"{module} has no {name}"
    finally:
        tritium.compat.uninstall()


def test_version_seen_as_triton_and_tritium_keeps_its_own(tmp_path):
    out = _run("""
        import tritium.compat; tritium.compat.install()
        import importlib.util
        import triton, tritium
        print(triton.__version__, tritium.__version__ != triton.__version__, triton.jit is tritium.jit,
              importlib.util.find_spec("triton").name,
              importlib.util.find_spec("triton.knobs") is not None)
        tritium.compat.install()  # twice: harmless
        tritium.compat.uninstall()
        try:
            import triton.language
        except ImportError:
            print("gone")
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3.6.0", "True", "True", "triton", "True", "gone"]


def test_facade_keeps_what_it_read_and_follows_every_rebinding():
    """Names read through `triton` become plain attributes of the facade (Inductor reads
    `triton.set_allocator` at each launch), and stay what tritium's own names are."""
    import tritium
    import tritium.compat
    tritium.compat.install()
    import triton
    own = tritium.set_allocator
    try:
        assert triton.set_allocator is own and "set_allocator" in vars(triton)
        marker = object()
        tritium.set_allocator = marker            # bound on tritium: the copy goes
        assert triton.set_allocator is marker
        triton.set_allocator = own                # bound through the facade: on tritium
        assert tritium.set_allocator is own and triton.set_allocator is own
        del triton.set_allocator
        assert not hasattr(tritium, "set_allocator") and not hasattr(triton, "set_allocator")
        with pytest.raises(AttributeError, match="no_such_name"):
            triton.no_such_name
        assert triton.__version__ == "3.6.0" and tritium.__version__ != "3.6.0"
        assert triton.language is tritium.language and triton.compile is tritium.compile
    finally:
        tritium.set_allocator = own
        tritium.compat.uninstall()
    assert triton.set_allocator is own


def test_python_m_compat_runs_an_upstream_module_path(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "tritium.compat", "triton.testing"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    out = subprocess.run([sys.executable, "-m", "tritium.compat"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode != 0 and "usage: python -m tritium.compat" in out.stderr


@pytest.mark.parametrize("order", ["triton_first",
                                   pytest.param("torch_first", marks=pytest.mark.slow)])
def test_torch_compiler_stack_imports_and_probes_pass(tmp_path, order):
    pytest.importorskip("torch")
    first, second = ("import triton", "import torch._dynamo, torch.compiler, torch._inductor")
    if order == "torch_first":
        first, second = second, first
    out = _run(f"""
        import tritium.compat; tritium.compat.install()
        {first}
        {second}
        from torch.utils import _triton as ut
        import torch._inductor.runtime.triton_compat as tc
        import torch._inductor.runtime.hints as hints
        from triton.runtime.driver import driver
        print(ut.has_triton_package(), ut.get_triton_version(), ut.has_triton(), tc.HAS_TRITON,
              driver.active.get_current_target().backend, tc.knobs.cache.dir.endswith("cache"))
    """, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True", "(3,", "6)", "True", "True", "cpu", "True"]


@pytest.mark.slow
def test_torch_compile_on_cpu_still_works_with_compat(tmp_path):
    # has_triton() is True on the CPU with tritium (its CPU backend is registered), so
    # Inductor builds cache keys through triton.compiler.compiler.make_backend.
    pytest.importorskip("torch")
    out = _run("""
        import tritium.compat; tritium.compat.install()
        import torch
        f = torch.compile(lambda x: torch.sin(x) * 2 + torch.cos(x).sum())
        x = torch.randn(257)
        print(torch.allclose(f(x), torch.sin(x) * 2 + torch.cos(x).sum(), atol=1e-5))
    """, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "True"


@triton.jit
def _add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


@pytest.mark.parametrize("signed,unsigned,tl_ty", [("int8", "uint8", tl.uint8),
                                                    ("int16", "uint16", tl.uint16),
                                                    ("int32", "uint32", tl.uint32),
                                                    ("int64", "uint64", tl.uint64)])
@pytest.mark.parametrize("n", [1, 37, 64])
def test_reinterpret_unsigned_views_as_kernel_arguments(rng, signed, unsigned, tl_ty, n):
    torch = pytest.importorskip("torch")
    info = np.iinfo(unsigned)
    x = rng.integers(0, info.max, 64, dtype=unsigned, endpoint=True)
    x[0] = info.max  # wraps to 0: only right if the kernel adds as unsigned
    xt, yt = torch.from_numpy(x.view(signed).copy()), torch.zeros(64, dtype=getattr(torch, signed))
    xw, yw = triton.reinterpret(xt, tl_ty), triton.reinterpret(yt, tl_ty)
    assert isinstance(xw, triton.TensorWrapper) and xw.dtype == tl_ty
    _add_one[(1,)](xw, yw, n, BLOCK=64)
    got = yt.numpy().view(unsigned)
    np.testing.assert_array_equal(got[:n], (x[:n] + np.array(1, unsigned)).astype(unsigned))
    assert (got[n:] == 0).all()
    assert triton.reinterpret(xw, xt.dtype) is xt


@triton.jit
def _fp8_to_f32(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float32))


@pytest.mark.parametrize("tl_ty,torch_name", [(tl.float8e5, "float8_e5m2"),
                                               (tl.float8e4nv, "float8_e4m3fn")])
def test_reinterpret_fp8_view_reads_bit_patterns(rng, tl_ty, torch_name):
    torch = pytest.importorskip("torch")
    ref = torch.from_numpy(rng.standard_normal(32).astype(np.float32)).to(getattr(torch, torch_name))
    bits = ref.view(torch.int8)
    y = torch.zeros(32)
    _fp8_to_f32[(1,)](triton.reinterpret(bits, tl_ty), y, BLOCK=32)
    torch.testing.assert_close(y, ref.float(), rtol=0, atol=0)


def test_reinterpret_rejects_bad_input():
    with pytest.raises(ValueError, match="widths differ"):
        triton.reinterpret(np.zeros(4, np.int8), tl.uint32)
    with pytest.raises(TypeError, match="cannot reinterpret a list"):
        triton.reinterpret([1, 2], tl.uint8)


@triton.must_use_result("Check the flag.")
@triton.jit
def _flagged(x):
    return x + 1


def test_must_use_result_rejects_a_dropped_result():
    from tritium.frontend.errors import CompilationError

    @triton.jit
    def drops(out_ptr):
        _flagged(1)
        tl.store(out_ptr, 1)

    @triton.jit
    def uses(out_ptr):
        tl.store(out_ptr, _flagged(1))

    out = np.zeros(1, np.int32)
    uses[(1,)](out)
    assert out[0] == 2
    with pytest.raises(CompilationError, match=r"The result of _flagged is not being used\. "
                                               r"Check the flag\."):
        drops[(1,)](out)


@triton.constexpr_function
def _block_for(n):
    return triton.next_power_of_2(n) * 2


@triton.jit
def _uses_constexpr_function(out_ptr, N: tl.constexpr):
    B: tl.constexpr = _block_for(N)
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs, offs)


def test_constexpr_function_in_kernels_and_in_python():
    assert _block_for(5) == 16 and triton.cdiv(7, 2) == 4
    out = np.full(16, -1, np.int32)
    _uses_constexpr_function[(1,)](out, N=5)
    np.testing.assert_array_equal(out, np.arange(16))


@triton.jit
def _cuda_extras(out_ptr, t_ptr, x_ptr, y_ptr, th_ptr, BLOCK: tl.constexpr):
    cuda.gdc_wait()
    t0 = cuda.globaltimer()
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, cuda.convert_custom_float8_sm80(x, tl.float8e5).to(tl.float32))
    tl.store(th_ptr + offs, libdevice.fast_tanhf(x))
    tl.store(out_ptr + tl.program_id(0), cuda.smid() + cuda.num_warps() * 1000
             + cuda.num_threads() * 100000)
    tl.store(t_ptr + tl.program_id(0), cuda.globaltimer() - t0)
    cuda.gdc_launch_dependents()


def _cuda_extras_args(rng, lib):
    x = rng.standard_normal(32).astype(np.float32) * 3
    if lib is not None:
        x = lib.from_numpy(x)
    zeros = (lambda *s, **k: lib.zeros(*s, **k)) if lib is not None else None
    if lib is None:
        return (np.zeros(3, np.int32), np.zeros(3, np.int64), x, np.zeros(32, np.float32),
                np.zeros(32, np.float32))
    return (zeros(3, dtype=lib.int32), zeros(3, dtype=lib.int64), x, zeros(32), zeros(32))


def test_cuda_extras_on_the_cpu_backend(rng):
    torch = pytest.importorskip("torch")
    out, t, x, y, th = _cuda_extras_args(rng, None)
    _cuda_extras[(3,)](out, t, x, y, th, BLOCK=32, num_warps=2)
    np.testing.assert_array_equal(out, 2 * 1000 + 64 * 100000)  # SM 0, 2 warps, 64 threads
    assert (t >= 0).all()
    ref = torch.from_numpy(x).to(torch.float8_e5m2).float().numpy()
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_allclose(th, np.tanh(x), rtol=1e-6, atol=1e-6)


def test_cuda_extras_assemble_for_sm90a(rng):
    torch = pytest.importorskip("torch")
    from tritium.backends.nvidia import toolchain
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
    from nvl_util import compile_module, ttgir_for
    module = ttgir_for(_cuda_extras, _cuda_extras_args(rng, torch), {"BLOCK": 32})
    _, _, ptx = compile_module(module)
    for needle in ("%globaltimer", "%smid", "griddepcontrol.wait", "griddepcontrol.launch_dependents",
                   "tanh.approx.f32"):
        assert needle in ptx
    if toolchain.find_ptxas() is None:
        pytest.skip("ptxas is not installed")
    toolchain.make_cubin(ptx, arch="sm_90a")


def test_gpu_peak_helpers_say_they_need_a_gpu():
    from tritium import testing
    from tritium.runtime.driver import driver
    assert testing.tensorcore_ops_per_subcore if hasattr(testing, "x") else True
    from tritium.testing_gpu import simd_ops_per_subcore, tensorcore_ops_per_subcore
    assert tensorcore_ops_per_subcore("torch.float16", (9, 0)) == 512
    assert tensorcore_ops_per_subcore("int8", (8, 0)) == 1024
    assert simd_ops_per_subcore("float32", (9, 0)) == 32
    with pytest.raises(RuntimeError, match="not supported by tensor cores"):
        tensorcore_ops_per_subcore("float64", (9, 0))
    if driver.active.is_cuda():
        pytest.skip("a GPU is present")
    for fn in (testing.get_dram_gbps, lambda: testing.get_max_tensorcore_tflops("float16", 1e6),
               lambda: testing.get_max_simd_tflops("float32", 1e6)):
        with pytest.raises(RuntimeError, match="needs an NVIDIA GPU"):
            fn()


def test_set_allocator_is_per_context_and_checked():
    import contextvars
    from tritium.runtime._allocation import get_allocator
    with pytest.raises(RuntimeError, match="Use triton.set_allocator"):
        get_allocator()(64, 16, None)
    with pytest.raises(TypeError, match="must be callable"):
        triton.set_allocator(42)
    seen = []

    def alloc(size, align, stream):
        seen.append((size, align))
        return np.zeros(size, np.int8)

    def in_context():
        triton.set_allocator(alloc)
        return get_allocator()(128, 16, None).nbytes

    assert contextvars.copy_context().run(in_context) == 128 and seen == [(128, 16)]
    with pytest.raises(RuntimeError):  # set inside another context only
        get_allocator()(64, 16, None)
