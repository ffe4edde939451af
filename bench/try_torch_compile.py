"""torch.compile (Inductor) with tritium as its Triton, on the GPU when there is one:
a pointwise+reduction function, an MLP block and a matmul under max-autotune, each compared
with eager. Prints one line per model: ok/FAIL, first-call and steady-state times.

    python bench/try_torch_compile.py [--upstream]   # --upstream: the installed Triton
"""
import argparse
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", action="store_true")
    args = ap.parse_args()
    if not args.upstream:
        import tritium.compat
        tritium.compat.install()
    import torch
    import triton
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"triton {triton.__version__} from {os.path.dirname(triton.__file__)}; device {dev}")
    torch.manual_seed(0)

    def pointwise(x, y):
        return torch.softmax(torch.relu(x) * y + 1.0, dim=-1).sum(dim=0)

    mlp = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.GELU(),
                              torch.nn.Linear(1024, 512), torch.nn.LayerNorm(512)).to(dev)
    x = torch.randn(256, 512, device=dev)
    y = torch.randn(256, 512, device=dev)
    a = torch.randn(1024, 1024, device=dev, dtype=torch.float16)
    b = torch.randn(1024, 1024, device=dev, dtype=torch.float16)
    cases = [("pointwise+softmax+sum", pointwise, (x, y), {}),
             ("MLP block", mlp, (x,), {}),
             ("matmul max-autotune", lambda p, q: p @ q, (a, b),
              {"mode": "max-autotune-no-cudagraphs"})]
    for name, fn, inputs, kw in cases:
        try:
            torch._dynamo.reset()
            cfn = torch.compile(fn, **kw)
            t0 = time.perf_counter()
            out = cfn(*inputs)
            if dev == "cuda":
                torch.cuda.synchronize()
            first = time.perf_counter() - t0
            ref = fn(*inputs)
            ok = torch.allclose(out.float(), ref.float(), rtol=2e-2, atol=2e-2)
            t0 = time.perf_counter()
            for _ in range(20):
                cfn(*inputs)
            if dev == "cuda":
                torch.cuda.synchronize()
            steady = (time.perf_counter() - t0) / 20 * 1e3
            print(f"{name:<24} {'ok' if ok else 'MISMATCH'} first {first:.2f} s, steady {steady:.3f} ms")
        except Exception as e:  # one model's failure is a line, not the end
            print(f"{name:<24} FAIL {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            traceback.print_exc(limit=4, file=sys.stdout)


if __name__ == "__main__":
    main()
