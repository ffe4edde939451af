"""torch.compile on the CPU with Inductor's Triton backend (`cpu_backend="triton"`) and
tritium as its Triton: Inductor's generated kernels compile and run on tritium's CPU backend
and match eager (pointwise chains, bf16, softmax, layernorm with its backward, reductions
and a scan, an embedding gather, an MLP trained one step, a transformer layer, conv + norm,
a user's @triton.jit kernel called inside the compiled function).
The models run in one fresh interpreter (`inductor_models.py`) with an empty Inductor cache,
so every kernel is really generated and compiled."""
import pytest

pytest.importorskip("torch", reason="torch.compile needs torch")

MODELS = ["pointwise", "pointwise_bf16", "softmax", "layernorm", "reductions", "embedding",
          "mlp_train", "transformer", "conv_bn", "user_kernel"]


@pytest.fixture(scope="module")
def results(tmp_path_factory, seed, client):
    tmp = tmp_path_factory.mktemp("inductor")
    return client("inductor_models.py", [seed, *MODELS], "model", tmp,
                  TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor"))


@pytest.mark.parametrize("model", MODELS)
def test_inductor_triton_cpu_matches_eager(results, model, seed, check):
    row = results.get(model)
    check(row, model, seed)
    assert row["compiles"] > 0, f"{model}: Inductor compiled no Triton kernel through tritium"


@pytest.mark.slow
def test_inductor_compile_workers_use_tritium(tmp_path, seed, client, check):
    # With a worker pool, the kernels are compiled in Inductor's worker processes (this
    # process compiles none) and pickled back: the workers must see tritium as triton.
    rows = client("inductor_models.py", [seed, "--pool", "softmax", "embedding"], "model",
                  tmp_path, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"))
    for name, row in rows.items():
        check(row, name, seed)
        assert row["compiles"] == 0, "the kernels were compiled in the parent, not the pool"


@pytest.mark.slow
def test_a_second_process_reuses_both_on_disk_caches(tmp_path, seed, client, check):
    # Inductor's FX-graph cache and tritium's kernel cache, kept on disk by a first process:
    # a second one with the same folders loads the compiled graphs, finds every kernel in
    # tritium's cache (it compiles none anew) and computes the same results.
    names = ["softmax", "layernorm"]
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}
    cold = client("inductor_models.py", [seed, *names], "model", tmp_path, **env)
    kernels = sorted(p.name for p in (tmp_path / "triton").iterdir())
    warm = client("inductor_models.py", [seed, *names], "model", tmp_path, **env)
    for name in names:
        check(cold[name], name, seed)
        check(warm[name], name, seed)
        assert cold[name]["compiled_anew"] > 0 and cold[name]["fx_graph_cache_hits"] == 0
        assert warm[name]["fx_graph_cache_hits"] > 0, f"{name}: Inductor compiled its graph again"
        assert warm[name]["compiled_anew"] == 0, f"{name}: a kernel missed tritium's cache"
    assert sorted(p.name for p in (tmp_path / "triton").iterdir()) == kernels
