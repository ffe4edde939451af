"""Host cost of TensorDescriptor kernel arguments, on the CPU (no GPU: the driver's
cuLaunchKernel and cuTensorMapEncodeTiled are fakes, the device pointer check is the
identity). What a cached `kernel[grid](desc, desc)` does in Python beyond a one-pointer
kernel's launch, piece by piece:

* specialise: the binder's `(type string, key)` of each argument (`JITFunction.bind`);
* device: `active_backend(args)`, which looks through a descriptor at its base tensor;
* launcher: the generated per-signature launcher (tensor map from the encoder's cache,
  shape and strides into the parameter buffer, the faked cuLaunchKernel call).

    PYTHONPATH=. python bench/bench_desc_launch_cpu.py [--n N] [--repeat R]

Prints best-of-R microseconds per call for each piece, 2-D fp16 descriptors (64x64 blocks).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

import tritium  # noqa: E402
import tritium.language as tl  # noqa: E402
from tritium.backends.nvidia.launcher import make_launcher  # noqa: E402
from tritium.runtime.dispatch import active_backend  # noqa: E402
from tritium.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


@tritium.jit
def copy_tile(src, dst, B: tl.constexpr):
    dst.store([0, 0], src.load([0, 0]))


@tritium.jit
def store_one(p):
    tl.store(p, 1.0)


def best_us(fn, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args()
    a = torch.randn(256, 128).half()
    b = torch.empty_like(a)
    da, db = TensorDescriptor.from_tensor(a, [64, 64]), TensorDescriptor.from_tensor(b, [64, 64])
    meta = {"swizzle": 128, "elem_bits": 16, "box": [64, 64], "block": [64, 64],
            "stores": False}
    fake_map = bytes(range(128))
    launch_desc = make_launcher(
        {"src": "tensordesc<fp16[64, 64]>", "dst": "tensordesc<fp16[64, 64]>", "B": "constexpr"},
        launch_fn=lambda *a: 0, device_pointer=lambda p: p, tensordesc_meta=[meta, dict(meta, stores=True)],
        tensor_map_encode=lambda **kw: fake_map, cache=False)
    launch_ptr = make_launcher({"p": "*fp16"}, launch_fn=lambda *a: 0,
                               device_pointer=lambda p: p, cache=False)
    rows = [
        ("specialise: bind(desc, desc, B=64)", lambda: copy_tile.bind(da, db, B=64)),
        ("specialise: bind(x)", lambda: store_one.bind(a)),
        ("device: active_backend((desc, desc, 64))", lambda: active_backend((da, db, 64))),
        ("device: active_backend((x,))", lambda: active_backend((a,))),
        ("launcher: (desc, desc), 2 TMA maps", lambda: launch_desc(1, 1, 1, 0, 0, 4, 0, da, db, 64)),
        ("launcher: (x)", lambda: launch_ptr(1, 1, 1, 0, 0, 4, 0, a)),
    ]
    print(f"torch {torch.__version__}, best of {args.repeat} x {args.n} calls, microseconds per call")
    w = max(len(r[0]) for r in rows)
    total = {"desc": 0.0, "x": 0.0}
    for name, fn in rows:
        fn()
        us = best_us(fn, args.n, args.repeat)
        total["desc" if "desc" in name else "x"] += us
        print(f"{name:{w}}  {us:7.3f}")
    print(f"{'sum, (desc, desc) kernel':{w}}  {total['desc']:7.3f}")
    print(f"{'sum, (x) kernel':{w}}  {total['x']:7.3f}")


if __name__ == "__main__":
    main()
