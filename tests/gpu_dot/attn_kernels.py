"""The fused-attention forward of `bench/tc_kernels.py` (FlashAttention-2 online softmax with
plain pointers: two chained dots per iteration, P fed to the second from registers), loaded
with `triton` bound to tritium: the benchmark compiles the same source with upstream Triton
too, so the tests and the benchmark share one kernel."""
import os
import sys

_BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, _BENCH)
from kernel_loader import load_kernels_from  # noqa: E402

attn_fwd = load_kernels_from("tc_kernels.py", "tritium").attn_fwd
