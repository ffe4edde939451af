"""One launch of each dot-less pipelined loop shape (pipeline_nodot.py: cp.async rings under
an explicit tl.range(num_stages=)), over ragged shapes, checked against torch; run under
compute-sanitizer (memcheck, racecheck, synccheck) by run_device.sh."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu_passes"))

import test_pipeline_nodot_gpu as P  # noqa: E402

for stages in (2, 3, 5):
    for dtype, (M, N) in (("float32", (333, 1000)), ("float16", (256, 4096)), ("bfloat16", (7, 3))):
        P.test_row_sum_matches_torch(stages, dtype, M, N, (16, 64, 4))
P.test_row_sum_matches_torch(4, "float16", 333, 1000, (32, 128, 8))
P.test_hooks_kernel_copies_back(3, 256)
P.test_hooks_kernel_copies_back(4, 4096)
print("sanitize_nodot: all cases correct")
