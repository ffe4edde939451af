"""Liger-Kernel's Triton ops, used unchanged with tritium as their Triton (compat), on the
CPU backend: norms, activations, rope, losses (cross entropy incl. softcapping and the fused
linear form, KL, JSD and its fused linear form, TVD), softmax/sparsemax; outputs and every
input gradient against torch references. The ops run in one fresh interpreter
(`liger_ops.py`), since compat must be installed before Liger imports triton.
Liger-Kernel is not a declared dependency (its wheel requires upstream triton): install it
with `pip install --no-deps liger-kernel` to run these."""
import pytest

pytest.importorskip("torch", reason="Liger-Kernel needs torch")
pytest.importorskip("liger_kernel", reason="Liger-Kernel is not installed "
                    "(pip install --no-deps liger-kernel)")

OPS = ["rms_norm", "rms_norm_bf16", "layer_norm", "fused_add_rms_norm", "poly_norm", "swiglu",
       "geglu", "relu_squared", "dyt", "softmax", "sparsemax", "group_norm", "rope",
       "cross_entropy", "cross_entropy_softcap", "fused_linear_cross_entropy",
       "fused_linear_jsd", "kl_div", "jsd", "tvd"]


@pytest.fixture(scope="module")
def results(tmp_path_factory, seed, client):
    return client("liger_ops.py", [seed, *OPS], "op", tmp_path_factory.mktemp("liger"))


@pytest.mark.parametrize("op", OPS)
def test_liger_op_matches_torch_forward_and_backward(results, op, seed, check):
    check(results.get(op), op, seed)
