"""One launch of each cross-warp reduce shape (8/16/32 warps, both axes, every kind of
combine, and a whole block to a scalar) with the shuffle tree on, checked against NumPy;
run under compute-sanitizer (memcheck, racecheck, synccheck) by run_device.sh."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu_diff"))
os.environ.setdefault("TRITIUM_REDUCE_SHUFFLE_TREE", "1")

import numpy as np  # noqa: E402

import test_gpu_reduce_warps as R  # noqa: E402

rng = np.random.default_rng(1234)
for case in R.CASES:
    R.test_many_warps(rng, case)
for nw in (8, 16, 32):
    R.test_whole_block_to_scalar(rng, nw)
print("sanitize_reduce: all cases correct")
