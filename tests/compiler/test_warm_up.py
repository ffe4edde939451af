"""warm_up(): a process's first compile done ahead, for processes that fork compile workers
(tritium's zygote: `compiler.warm`; Inductor's compile-pool parent: `compat_inductor`, which
adds the frontend)."""
import os
import subprocess
import sys

import pytest

from tritium.backends.nvidia import toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]),
               TRITON_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()


KERNEL = """import tritium
import tritium.language as tl


@tritium.jit
def k(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    v = tl.load(x + o, mask=o < n)
    tl.store(y + o, tl.exp(v) * 2 + tl.math.erf(v) + tl.math.rsqrt(v), mask=o < n)
"""


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="needs ptxas (the cuda extra)")
def test_after_warm_up_a_first_gpu_compile_imports_nothing_and_cuda_stays_untouched(tmp_path):
    """(libdevice's functions are the cache directory's: tests/nvidia/test_toolchain.py)"""
    # (the kernel's module is imported first, as Inductor's worker loads it before compiling)
    (tmp_path / "kernel_for_warm.py").write_text(KERNEL)
    out = _run("""
import sys
from tritium.backends.compiler import GPUTarget
from tritium.compiler import ASTSource, compile
from tritium.compat_inductor import warm_up
from kernel_for_warm import k
warm_up()
before = set(sys.modules)
ck = compile(ASTSource(k, {"x": "*fp32", "y": "*fp32", "n": "i32", "B": "constexpr"}, {"B": 256}),
             target=GPUTarget("cuda", 90, 32))
print(sorted(set(sys.modules) - before) or "nothing")
from tritium.backends.nvidia import driver
print("untouched" if driver._bindings is None else "initialised")
print("erf" if "__nv_erff" in ck.asm["llir"] else "no-erf")
""", tmp_path)
    assert out == ["nothing", "untouched", "erf"]


@pytest.mark.parametrize("module, warmed", [("probe_inductor_worker", True),
                                            ("probe_other", False)])
def test_compat_warms_up_inductors_compile_pool_parent_only(tmp_path, module, warmed):
    # Inductor's pool parent is started as `python -m tritium.compat <its worker module>`
    # (compat_inductor.worker_program) and forks every worker from itself.
    for name in ("probe_inductor_worker", "probe_other"):
        (tmp_path / f"{name}.py").write_text(
            "import sys\nprint('tritium.backends.nvidia.lowering' in sys.modules)\n")
    out = _run(f"""
import tritium.compat_inductor as ci
ci.WORKER_MODULE = "probe_inductor_worker"
import tritium.compat
tritium.compat.run_module([{module!r}, "--flag"])
""", tmp_path)
    assert out == [str(warmed)]
