"""One launch of each dot path (wgmma synchronous and pipelined, FMA), checked against
torch; run under compute-sanitizer (memcheck, racecheck, synccheck) by run_device.sh."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu_dot"))

from test_dot_gpu import check, run_dot  # noqa: E402

CASES = [  # dtype, acc, out, precision, BM, BN, BK, warps, trans_b, M, N, K, stages
    ("float16", "float32", "float16", "tf32", 128, 128, 64, 4, False, 250, 200, 300, 3),
    ("bfloat16", "float32", "float32", "tf32", 128, 64, 32, 8, True, 256, 128, 200, 4),
    ("float16", "float32", "float16", "tf32", 64, 64, 32, 4, False, 100, 70, 90, 1),
    ("float32", "float32", "float32", "ieee", 32, 32, 16, 4, False, 40, 50, 60, 2),
]
for (dt, acc, out, prec, BM, BN, BK, w, tb, M, N, K, st) in CASES:
    d, ref = run_dot(dt, acc, out, prec, BM, BN, BK, w, tb, M, N, K, True, 1234, num_stages=st)
    check(d, ref, dt, prec, out)
print("sanitize_dot: all cases correct")
