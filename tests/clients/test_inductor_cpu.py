"""torch.compile on the CPU with Inductor's Triton backend (`cpu_backend="triton"`) and
tritium as its Triton: Inductor's generated kernels compile and run on tritium's CPU backend
and match eager (pointwise chains, bf16, softmax, layernorm with its backward, reductions
and a scan, an embedding gather, an MLP trained one step, a transformer layer, conv + norm).
The models run in one fresh interpreter (`inductor_models.py`) with an empty Inductor cache,
so every kernel is really generated and compiled."""
import json
import os
import random
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="torch.compile needs torch")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = ["pointwise", "pointwise_bf16", "softmax", "layernorm", "reductions", "embedding",
          "mlp_train", "transformer", "conv_bn", "user_kernel"]


def run_models(tmp_path, seed, names, *flags):
    env = dict(os.environ, PYTHONPATH=ROOT, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"),
               TRITON_CACHE_DIR=str(tmp_path / "triton"))
    proc = subprocess.run([sys.executable, os.path.join(HERE, "inductor_models.py"), str(seed),
                           *flags, *names], capture_output=True, text=True, env=env, timeout=600)
    rows = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            rows[row["model"]] = row
    assert rows, f"no results (rc {proc.returncode}):\n{proc.stderr[-4000:]}"
    return rows


@pytest.fixture(scope="module")
def seed():
    # One run covers every model: one seed for the module (TRITIUM_TEST_SEED replays it).
    return int(os.environ.get("TRITIUM_TEST_SEED", random.randrange(2 ** 31)))


@pytest.fixture(scope="module")
def results(tmp_path_factory, seed):
    return run_models(tmp_path_factory.mktemp("inductor"), seed, MODELS)


@pytest.mark.parametrize("model", MODELS)
def test_inductor_triton_cpu_matches_eager(results, model, seed):
    row = results.get(model)
    assert row is not None, f"{model}: no result (the run stopped before it), seed {seed}"
    assert "error" not in row, f"{model} (seed {seed}): {row.get('error')}"
    assert row["same_count"]
    assert row["compiles"] > 0, f"{model}: Inductor compiled no Triton kernel through tritium"
    assert row["err"] <= row["tol"], f"{model} (seed {seed}): error {row['err']} > {row['tol']}"


@pytest.mark.slow
def test_inductor_compile_workers_use_tritium(tmp_path, seed):
    # With a worker pool, the kernels are compiled in Inductor's worker processes (this
    # process compiles none) and pickled back: the workers must see tritium as triton.
    rows = run_models(tmp_path, seed, ["softmax", "embedding"], "--pool")
    for name, row in rows.items():
        assert "error" not in row, f"{name} (seed {seed}): {row['error']}"
        assert row["compiles"] == 0, "the kernels were compiled in the parent, not the pool"
        assert row["err"] <= row["tol"], f"{name} (seed {seed}): {row['err']} > {row['tol']}"
