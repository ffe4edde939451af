"""What Inductor relies on beyond launching, without torch: every compiled kernel has a hash
(the evaluator-only single-stage compile too), `JITFunction.repr`, and the round trip Inductor
gives kernels compiled in its workers: JITFunction stripped of its function, CompiledKernel
state pickled with the metadata as a plain namedtuple, restored without __init__, then
loaded and launched."""
import collections
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.cpu.compiler import NoUsage
from tritium.compiler import ASTSource, CompiledKernel, GPUTarget, compile

pytestmark = pytest.mark.usefixtures("private_cache")

CPU = GPUTarget("cpu", 0, 32)


@tritium.jit
def axpy(X, Y, Out, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Out + offs, tl.load(X + offs, mask=m) * alpha + tl.load(Y + offs, mask=m), mask=m)


SIG = {"X": "*fp32", "Y": "*fp32", "Out": "*fp32", "n": "i32", "alpha": "fp32",
       "BLOCK": "constexpr"}


@pytest.mark.parametrize("debug", [False, True])
def test_every_kernel_has_a_hash(debug, cpu_path):  # (the evaluator: a single stage)
    k = compile(ASTSource(axpy, SIG, {"BLOCK": 64}), target=CPU, options={"debug": debug})
    assert isinstance(k.hash, str) and len(k.hash) == 64
    assert k.metadata.hash == k.hash
    other = compile(ASTSource(axpy, SIG, {"BLOCK": 128}), target=CPU, options={"debug": debug})
    assert other.hash != k.hash


def test_jit_function_repr_is_upstreams():
    assert axpy.repr(None) == f"{__name__}.axpy"

    @tritium.jit(repr=lambda spec: f"named:{spec}")
    def k(X):
        pass
    assert k.repr(3) == "named:3"


def test_no_usage_pickles_as_itself():
    back = pickle.loads(pickle.dumps(NoUsage()))
    assert type(back) is NoUsage and back == 0 and 1024 // back == NoUsage.UNBOUNDED


def _inductor_round_trip(kernel):
    """What torch's TritonCompileResult does to a kernel between a worker and the parent."""
    md = kernel.metadata
    fields = sorted(md)
    state = dict(kernel.__dict__, metadata=dict(md), module=None, function=None, _run=None,
                 _fast=None, _driver=None)
    fn = kernel.src.fn
    saved = fn.fn, fn.__globals__
    fn.fn, fn.__globals__ = None, None  # Inductor strips what does not pickle
    try:
        state = pickle.loads(pickle.dumps(state))
    finally:
        fn.fn, fn.__globals__ = saved
    meta_cls = collections.namedtuple("KernelMetadata", fields)
    restored = CompiledKernel.__new__(CompiledKernel)
    restored.__dict__.update(state, metadata=meta_cls(**state["metadata"]))
    return restored


@pytest.mark.parametrize("debug", [False, True])
def test_kernel_restored_as_inductor_does_it_launches(rng, debug, monkeypatch):
    # The jit function must be importable by name for pickle, as Inductor's modules are.
    monkeypatch.setitem(sys.modules, __name__, sys.modules[__name__])
    k = compile(ASTSource(axpy, SIG, {"BLOCK": 64}), target=CPU, options={"debug": debug})
    restored = _inductor_round_trip(k)
    restored._init_handles()
    assert restored.metadata.shared == 0 and restored.metadata.target == CPU
    n = 201
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    out = np.full(n, np.nan, np.float32)
    restored.run(tritium.cdiv(n, 64), 1, 1, None, restored.function, restored.packed_metadata,
                 None, None, None, x, y, out, n, 0.5, 64)
    np.testing.assert_allclose(out, x * np.float32(0.5) + y, rtol=1e-6, atol=1e-6)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _python(code, tmp_path, *args):
    script = tmp_path / "probe.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)


def test_python_m_compat_runs_any_module_seeing_tritium(tmp_path):
    # How Inductor's compile worker is started under compat (compat_inductor.worker_program).
    out = _python("import sys, triton\nprint(triton.__tritium__, sys.argv[1:])\n", tmp_path,
                  "-m", "tritium.compat", "probe", "a", "--b")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "['a',", "'--b']"]


@pytest.mark.slow
@pytest.mark.parametrize("order", ["compat-first", "torch-first"])
def test_inductor_worker_program_is_patched_in(tmp_path, order):
    pytest.importorskip("torch")
    out = _python(f"""
import os, subprocess
if {order!r} == "torch-first":
    import torch._inductor.compile_worker.subproc_pool as pool
import tritium.compat
tritium.compat.install()
import torch._inductor.compile_worker.subproc_pool as pool
program = pool.find_compile_subproc_binary()
print(os.access(program, os.X_OK))
# The program runs Inductor's worker module with compat: here asked only for --help.
done = subprocess.run([program, "--help"], capture_output=True, text=True)
print(done.returncode, "--read-fd" in done.stdout)
""", tmp_path, "probe.py")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True", "0", "True"], out.stdout + out.stderr[-2000:]


def test_inductor_finds_a_kernels_cache_folder_by_its_hash(tmp_path):
    # Inductor's kernel bundler (and, on a GPU, its static launcher) looks for a kernel's
    # files at <TRITON_CACHE_DIR>/<triton_hash_to_path_key(kernel.hash)>/<name>.<ext>.
    pytest.importorskip("torch")
    import tritium.compat
    from tritium.runtime import knobs
    if knobs.cpu_path() != "native":
        pytest.skip("only the compiled CPU path writes kernels to the disk cache")
    k = compile(ASTSource(axpy, SIG, {"BLOCK": 32}), target=CPU)
    tritium.compat.install()
    try:
        from torch._inductor.runtime.runtime_utils import triton_hash_to_path_key
        folder = os.path.join(os.environ["TRITON_CACHE_DIR"], triton_hash_to_path_key(k.hash))
    finally:
        tritium.compat.uninstall()
    assert os.path.isfile(os.path.join(folder, "axpy.json")), os.listdir(os.path.dirname(folder))
