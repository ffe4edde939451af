"""CPU backend vs upstream Triton's interpreter (TRITON_INTERPRET=1), side by side.

    python bench/bench_cpu_interp.py [--repeat N] [--skip-upstream]

Kernels: vector add (2**20 fp32, BLOCK 1024), row softmax (1024x1024 fp32, one program per
row), matmul (256^3 fp32, 32x32x32 blocks). Both sides run the *same kernel source* below:
each plain function is turned into a `triton.jit` and a `tritium.jit` kernel (copies of the
function with different globals, so `tl` is each project's language module). When
`tritium.jit` cannot compile them, the tritium side falls back to the equivalent TTIR built
by hand (tests/cpu). Upstream runs only when `import triton` works (pip install triton; it is
not a dependency of tritium). Times are the best of --repeat runs after one warm-up run.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------ the kernels (shared source)
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):  # noqa: F821
    pid = tl.program_id(0)  # noqa: F821
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # noqa: F821
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # noqa: F821
    y = tl.load(y_ptr + offs, mask=mask)  # noqa: F821
    tl.store(out_ptr + offs, x + y, mask=mask)  # noqa: F821


def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols,
                   BLOCK: tl.constexpr):  # noqa: F821
    row = tl.program_id(0)  # noqa: F821
    cols = tl.arange(0, BLOCK)  # noqa: F821
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))  # noqa: F821
    x = x - tl.max(x, axis=0)  # noqa: F821
    num = tl.exp(x)  # noqa: F821
    den = tl.sum(num, axis=0)  # noqa: F821
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)  # noqa: F821


def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,  # noqa: F821
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # noqa: F821
    pid_m = tl.program_id(0)  # noqa: F821
    pid_n = tl.program_id(1)  # noqa: F821
    rm = pid_m * BM + tl.arange(0, BM)  # noqa: F821
    rn = pid_n * BN + tl.arange(0, BN)  # noqa: F821
    rk = tl.arange(0, BK)  # noqa: F821
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)  # noqa: F821
    # K is a constexpr because upstream's 3.6 interpreter cannot `range` over a runtime int
    # with numpy >= 2 (int() of a 1-element array); the loop is uniform either way.
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)  # noqa: F821
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k, other=0.0)  # noqa: F821
        acc += tl.dot(a, b)  # noqa: F821
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptrs, acc, mask=mask)  # noqa: F821


KERNELS = (add_kernel, softmax_kernel, matmul_kernel)


def jit_all(jit, tl_module):
    """`jit` applied to copies of the kernels whose global `tl` is `tl_module`."""
    g = {"tl": tl_module, "__name__": f"bench_kernels_{tl_module.__name__}",
         "__builtins__": __builtins__}
    out = {}
    for fn in KERNELS:
        copy = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        copy.__module__ = g["__name__"]
        copy.__annotations__ = dict(fn.__annotations__)
        g[fn.__name__] = copy
        out[fn.__name__] = jit(copy)
    return out


# ------------------------------------------------------------------ workloads
def workloads(torch):
    g = torch.Generator().manual_seed(0)
    n = 1 << 20
    x, y = torch.rand(n, generator=g), torch.rand(n, generator=g)
    sm_in = torch.randn(1024, 1024, generator=g)
    S = 256
    a, b = torch.randn(S, S, generator=g), torch.randn(S, S, generator=g)
    return [
        ("vector add 2^20 fp32 (BLOCK 1024)", "add_kernel",
         lambda: dict(args=(x, y, torch.empty(n), n), kw=dict(BLOCK=1024), grid=(n // 1024,)),
         lambda out: torch.equal(out[2], x + y)),
        ("row softmax 1024x1024 fp32", "softmax_kernel",
         lambda: dict(args=(torch.empty(1024, 1024), sm_in, 1024, 1024, 1024),
                      kw=dict(BLOCK=1024), grid=(1024,)),
         lambda out: torch.allclose(out[0], torch.softmax(sm_in, 1), atol=1e-6)),
        ("matmul 256^3 fp32 (32x32x32 blocks)", "matmul_kernel",
         lambda: dict(args=(a, b, torch.empty(S, S), S, S, S, S, 1, S, 1, S, 1),
                      kw=dict(BM=32, BN=32, BK=32), grid=(S // 32, S // 32)),
         lambda out: torch.allclose(out[2], a @ b, atol=1e-3, rtol=1e-4)),
    ]


def time_it(fn, repeat):
    fn()                                   # warm-up: compilation / plan building
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


# ------------------------------------------------------------------ the two sides
def upstream_side():
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        import triton
        import triton.language as tl
    except Exception as e:  # noqa: BLE001
        return None, f"upstream triton not importable ({type(e).__name__}: {e})"
    kernels = jit_all(triton.jit, tl)

    def runner(name, case):
        k = kernels[name]
        return lambda: k[case["grid"]](*case["args"], **case["kw"])
    return runner, f"triton {triton.__version__} interpreter"


def tritium_side(hand_built=False):
    sys.path.insert(0, os.path.dirname(HERE))
    if hand_built:
        return hand_built_side(), "tritium CPU backend (hand-built TTIR)"
    try:
        import tritium
        import tritium.language as tl
        kernels = jit_all(tritium.jit, tl)

        def runner(name, case):
            k = kernels[name]
            return lambda: k[case["grid"]](*case["args"], **case["kw"])
        return runner, "tritium CPU backend (tritium.jit)"
    except Exception as e:  # noqa: BLE001
        reason = f"{type(e).__name__}: {e}"
    return hand_built_side(), f"tritium CPU backend (hand-built TTIR; jit failed: {reason})"


def hand_built_side():
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "cpu"))
    from test_cpu_kernels import matmul_kernel as mm_ir, softmax_kernel as sm_ir, vector_add
    from tritium.backends.cpu.launch import launch
    mods = {"add_kernel": (vector_add(1024), "add"), "softmax_kernel": (sm_ir(1024), "softmax"),
            "matmul_kernel": (mm_ir(32), "mm")}

    def runner(name, case):
        mod, fname = mods[name]
        a = case["args"]
        if name == "add_kernel":
            args = list(a)
        elif name == "softmax_kernel":
            args = [a[1], a[0], a[4], a[2]]
        else:
            args = [a[0], a[1], a[2], a[3], a[4], a[5]]
        return lambda: launch(mod, fname, case["grid"], args)
    return runner


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="timed runs per side (best is kept)")
    p.add_argument("--upstream-repeat", type=int, default=2)
    p.add_argument("--skip-upstream", action="store_true")
    p.add_argument("--hand-built", action="store_true",
                   help="run tritium on hand-built TTIR instead of tritium.jit")
    a = p.parse_args(argv)
    import torch
    torch.set_num_threads(1)
    ours, ours_name = tritium_side(a.hand_built)
    theirs, theirs_name = (None, "skipped") if a.skip_upstream else upstream_side()
    print(f"ours:     {ours_name}")
    print(f"upstream: {theirs_name}")
    rows = []
    for title, name, make, check in workloads(torch):
        case = make()
        t_ours = time_it(ours(name, case), a.repeat)
        ok_ours = check(case["args"])
        t_up, ok_up = None, None
        if theirs is not None:
            case_up = make()
            t_up = time_it(theirs(name, case_up), a.upstream_repeat)
            ok_up = check(case_up["args"])
        rows.append((title, t_up, t_ours, ok_up, ok_ours))
    w = max(len(r[0]) for r in rows)
    print()
    print(f"{'kernel':<{w}}  {'upstream interp':>15}  {'tritium cpu':>11}  {'speedup':>8}  correct")
    for title, t_up, t_ours, ok_up, ok_ours in rows:
        up = f"{t_up * 1e3:12.1f} ms" if t_up is not None else f"{'-':>15}"
        sp = f"{t_up / t_ours:7.1f}x" if t_up is not None else f"{'-':>8}"
        okay = f"{'ok' if ok_ours else 'WRONG'}" + (
            "" if ok_up is None else f" / upstream {'ok' if ok_up else 'WRONG'}")
        print(f"{title:<{w}}  {up}  {t_ours * 1e3:8.1f} ms  {sp}  {okay}")
    return rows


if __name__ == "__main__":
    main()
