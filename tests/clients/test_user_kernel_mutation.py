"""torch.compile and a user's @triton.jit kernel: torch decides which tensors the kernel
writes (and so which it must copy, and what it may fuse) by building the kernel's TTIR through
upstream's MLIR bindings (`triton._C.libtriton.ir`, here views over tritium's IR) and walking
it. Without the bindings torch assumes every tensor argument is written. Checked on kernels
whose reads and writes are known — plain stores, atomics (rmw and cas), a store in a callee,
stores in for/while loops, a pointer chosen by an `if`, block pointers, device-side tensor
descriptors (device-side and a host `TensorDescriptor` argument), an autotuned kernel with a None argument, no store at all — and through torch.compile with Inductor's Triton CPU backend
(result vs eager, the analysis ran and did not fall back). One fresh interpreter
(`user_kernels.py`): compat must be installed before torch looks for triton."""
import pytest

pytest.importorskip("torch", reason="the analysis is torch's")

CASES = ["load_store", "atomics", "call", "loops", "if_pointer", "block_ptr", "descriptor",
         "autotuned_none_arg", "host_descriptor", "no_writes"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory, seed, client):
    tmp = tmp_path_factory.mktemp("user_kernels")
    return client("user_kernels.py", [seed], "case", tmp,
                  TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor"))


@pytest.mark.parametrize("case", CASES)
def test_torch_finds_the_tensors_a_kernel_reads_and_writes(rows, case, seed):
    row = rows.get(case)
    assert row is not None and "error" not in row, f"{case} (seed {seed}): {row}"
    assert row["fallback"] == [], f"{case}: torch's analysis failed: {row['fallback']}"
    assert row["writes"] == row["want_writes"], case
    assert row["reads"] == row["want_reads"], case


def test_torch_compile_uses_the_analysis_of_a_user_kernel(rows, seed):
    row = rows.get("torch_compile")
    assert row is not None and "error" not in row, f"seed {seed}: {row}"
    assert row["err"] <= 1e-5, f"seed {seed}: compiled result differs from eager by {row['err']}"
    assert row["analyses"] > 0, "torch.compile never analysed the user kernel"
    assert row["fallback"] == [], row["fallback"]
    assert row["writes"] == row["want_writes"]
