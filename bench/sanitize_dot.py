"""One launch of each dot path (wgmma synchronous and pipelined, FMA) and of each TMA path
(descriptor copies, reductions, a TMA-pipelined matmul, the flatten=True persistent
matmuls; the same with descriptors made on the device), checked against torch; run under
compute-sanitizer (memcheck, racecheck, synccheck) by run_device.sh."""
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

import torch  # noqa: E402
from tests.blockptr import test_tma_gpu as T  # noqa: E402

T.test_tma_copy_2d("float16", (32, 128), (100, 320))
T.test_tma_copy_2d("float32", (8, 64), (7, 48))
T.test_tma_out_of_bounds("nan", -5, -16)
T.test_tma_reduce(False)
for stages in (1, 3):
    T.test_tma_matmul(200, 136, 72, True, stages, "float16")
    T.test_tma_matmul(256, 256, 512, False, stages, "bfloat16")
# flatten=True persistent matmuls: one fused loop, rings and mbarrier phases across tiles,
# the epilogue's wgmma wait and TMA store inside the loop
from tests.blockptr import test_flatten_gpu as F  # noqa: E402

F.test_tma_persistent_matmul((128, 128, 64, 4, 4), 200, 136, 40, 3)
F.test_tma_persistent_matmul((128, 256, 64, 8, 3), 129, 264, 96, "sms")
F.test_pointer_persistent_matmul((128, 128, 64, 4, 3), 1000, 744, 520, 5)

from tests.blockptr import test_device_tma_gpu as DT  # noqa: E402

calls = DT.install_torch_allocator()   # descriptors made on the device: maps in global scratch
DT.test_device_tma_copy(calls, "float16", (16, 256), (100, 320))
DT.test_device_tma_out_of_bounds(calls, "nan", -3, -16)
DT.test_device_tma_reduce(calls)
DT.test_device_tma_remade_in_a_loop(calls)
DT.test_device_tma_matmul(calls, 200, 136, 80, True, 3, "float16")
DT.test_device_tma_persistent_matmul(calls, 328, 200, 144)
torch.cuda.synchronize()
print("sanitize_dot: all cases correct")
