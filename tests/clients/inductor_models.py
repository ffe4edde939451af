"""Run by tests/clients/test_inductor_cpu.py in a fresh interpreter: torch.compile with
Inductor's Triton CPU backend (`cpu_backend="triton"`) and tritium as its Triton, on a few
small models, each compared with eager on fresh random data. Prints one JSON line per model:
the largest error, the tolerance, how many kernels tritium compiled in this process (and how
many of those were not in its on-disk cache), and Inductor's FX-graph cache hits.

    python inductor_models.py SEED [--pool] MODEL...
    --pool: compile in Inductor's worker processes (waits for the pool first)
"""
import json
import sys

import tritium.compat

tritium.compat.install()

import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import tritium.knobs  # noqa: E402

import triton  # noqa: E402  (tritium, through compat)
import triton.language as tl  # noqa: E402

inductor_config.cpu_backend = "triton"
COMPILES = []
# (kernel name, whether tritium's cache had it) of every triton.compile in this process
tritium.knobs.compilation.listener = lambda **kw: COMPILES.append((kw["src"].name,
                                                                   kw["cache_hit"]))


@triton.constexpr_function
def half_of(n):
    return n // 2


@triton.jit
def gelu_rows(X, Out, n_cols, BLOCK: tl.constexpr):
    # A user's kernel called inside a compiled function: Inductor copies it (and the
    # constexpr function it calls) into the module it generates.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=m)
    y = x * tl.sigmoid(1.702 * x) + half_of(BLOCK) * 0.0
    tl.store(Out + row * n_cols + cols, y, mask=m)


def user_kernel(x):
    y = torch.empty_like(x)
    gelu_rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y * 2 + 1


def models():
    """name -> (module or function, inputs, whether to compare gradients too)."""
    r = torch.randn
    emb = nn.Embedding(97, 24)
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)  # train mode
    conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()).eval()
    mlp = nn.Sequential(nn.Linear(40, 72), nn.GELU(), nn.Linear(72, 40), nn.LayerNorm(40))
    return {
        "pointwise": (lambda x, y: torch.sigmoid(x) * torch.tanh(y) + torch.exp(-x * x) / (1 + y * y)
                      - torch.where(x > y, x, y).clamp(-1, 1), (r(67, 45), r(67, 45)), False),
        "pointwise_bf16": (lambda x, y: (x * y + x.abs().sqrt()).to(torch.float32),
                           (r(33, 65).bfloat16(), r(33, 65).bfloat16()), False),
        "softmax": (lambda x: torch.softmax(x * 0.7, dim=-1) + torch.log_softmax(x, dim=0),
                    (r(37, 129),), False),
        "layernorm": (nn.LayerNorm(96), (r(33, 96),), True),
        "reductions": (lambda x: (x.sum(0), x.amax(1), x.var(1), x.argmax(1), x.cumsum(1)),
                       (r(50, 77),), False),
        "embedding": (lambda i, w: emb(i).sum(1) * w, (torch.randint(0, 97, (9, 5)), r(9, 24)),
                      False),
        "mlp_train": (mlp, (r(19, 40),), True),
        "transformer": (layer, (r(2, 10, 32),), False),
        "conv_bn": (conv, (r(2, 3, 12, 12),), False),
        "user_kernel": (user_kernel, (r(13, 70),), False),
    }


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run(name, fn, inputs, grad):
    torch._dynamo.reset()
    before = len(COMPILES)
    fx_hits = counters["inductor"]["fxgraph_cache_hit"]
    cfn = torch.compile(fn)
    results = []
    for f in (cfn, fn):
        xs = [x.clone().requires_grad_(grad and x.is_floating_point()) for x in inputs]
        params = list(fn.parameters()) if isinstance(fn, nn.Module) else []
        for p in params:
            p.grad = None
        with torch.set_grad_enabled(grad):
            outs = _flat(f(*xs))
            grads = []
            if grad:
                sum(o.float().square().mean() for o in outs).backward()
                grads = [x.grad for x in xs if x.grad is not None] + [p.grad for p in params]
        results.append([o.detach().double() for o in outs + grads])
    got, want = results
    err = max(float((g - w).abs().max()) if g.numel() else 0.0 for g, w in zip(got, want))
    scale = max(float(w.abs().max()) if w.numel() else 0.0 for w in want)
    bf16 = any(x.dtype == torch.bfloat16 for x in inputs)
    tol = (1e-2 if bf16 else 2e-5) * max(1.0, scale)
    return {"model": name, "err": err, "tol": tol, "n_out": len(got),
            "same_count": len(got) == len(want), "compiles": len(COMPILES) - before,
            "compiled_anew": sum(not hit for _name, hit in COMPILES[before:]),
            "fx_graph_cache_hits": counters["inductor"]["fxgraph_cache_hit"] - fx_hits}


def main():
    seed, args = int(sys.argv[1]), sys.argv[2:]
    pool = "--pool" in args
    names = [a for a in args if not a.startswith("--")]
    if pool:
        inductor_config.compile_threads = 2
        from torch._inductor.async_compile import AsyncCompile
        AsyncCompile.wait_pool_ready()
    else:
        inductor_config.compile_threads = 1
    torch.manual_seed(seed)
    table = models()
    for name in names:
        fn, inputs, grad = table[name]
        try:
            row = run(name, fn, inputs, grad)
        except Exception as e:  # noqa: BLE001  (reported per model)
            row = {"model": name, "error": f"{type(e).__name__}: {e}"[-3000:]}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
