"""`tritium.compat.install()` and the autotuner/heuristics on the CPU backend."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

pytestmark = pytest.mark.usefixtures("private_cache")


def test_compat_install_makes_triton_resolve_to_tritium(tmp_path):
    # In a fresh interpreter, so an installed upstream triton cannot interfere.
    code = textwrap.dedent("""
        import tritium.compat
        tritium.compat.install()
        import triton, triton.language as tl, triton.testing
        import triton.language.extra.libdevice as libdevice
        from triton.runtime import Config
        from triton.compiler.errors import CompilationError
        import triton.compiler
        import tritium, numpy as np
        assert triton.jit is tritium.jit and tl is tritium.language
        assert triton.__version__ == "3.6.0" and tritium.__version__ != "3.6.0"
        assert hasattr(libdevice, "exp") and triton.testing.do_bench

        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, offs.to(tl.float32) * 2, mask=offs < n)

        x = np.zeros(8, np.float32)
        k[(1,)](x, 8, BLOCK=8)
        assert (x == np.arange(8) * 2).all()
        print("ok")
    """)
    script = tmp_path / "uses_triton.py"  # @jit needs the kernel's source in a file
    script.write_text(code)
    # This checkout's tritium, not whichever one the environment has installed.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def test_autotune_picks_a_config_and_caches_by_key(rng):
    calls = []

    def bench(fn, quantiles=None):
        fn()
        calls.append(1)
        return [float(len(calls))] * 3  # the first config timed is the "fastest"

    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2),
                                     triton.Config({"BLOCK": 128}, num_warps=4)],
                            key=["n"], do_bench=bench)(scale_kernel)
    x = rng.standard_normal(1000).astype(np.float32)
    y = np.zeros_like(x)
    tuned[lambda m: (triton.cdiv(1000, m["BLOCK"]),)](x, y, 1000, 2.0)
    np.testing.assert_allclose(y, 2 * x)
    assert tuned.best_config.kwargs == {"BLOCK": 64} and len(calls) == 2
    tuned[lambda m: (triton.cdiv(1000, m["BLOCK"]),)](x, y, 1000, 3.0)
    assert len(calls) == 2  # same key: no re-tuning
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)
    y2 = np.zeros(500, np.float32)
    tuned[lambda m: (triton.cdiv(500, m["BLOCK"]),)](x[:500].copy(), y2, 500, 1.0)
    assert len(calls) == 4  # new key


def test_autotune_with_real_timer_and_prune(rng):
    pruned = []

    def prune(configs, nargs, **kw):
        pruned.append(len(configs))
        return configs[:1]

    with pytest.warns(DeprecationWarning, match="warmup, rep"):  # as upstream
        tuned = triton.autotune(configs=[triton.Config({"BLOCK": 32}),
                                         triton.Config({"BLOCK": 256})],
                                key=["n"], prune_configs_by={"early_config_prune": prune},
                                warmup=1, rep=1)(scale_kernel)
    x = rng.standard_normal(300).astype(np.float32)
    y = np.zeros_like(x)
    tuned[lambda m: (triton.cdiv(300, m["BLOCK"]),)](x, y, 300, -1.0)
    np.testing.assert_allclose(y, -x)
    assert pruned == [2] and tuned.best_config.kwargs == {"BLOCK": 32}


def test_heuristics_compute_meta_parameters(rng):
    k = triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})(scale_kernel)
    x = rng.standard_normal(100).astype(np.float32)
    y = np.zeros_like(x)
    k[(1,)](x, y, 100, 0.5)
    np.testing.assert_allclose(y, 0.5 * x)


def test_config_str():
    c = triton.Config({"BLOCK": 64}, num_warps=8, num_stages=2)
    assert "BLOCK: 64" in str(c) and "num_warps: 8" in str(c)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_stages": 2, "num_ctas": 1}
