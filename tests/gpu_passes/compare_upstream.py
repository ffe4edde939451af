"""Side by side with upstream Triton on a GPU machine (torch + triton installed):

    python tests/gpu_passes/compare_upstream.py [OUTDIR]

compiles the same kernels with upstream Triton and with tritium, checks both against torch,
and writes both `ttgir` texts (OUTDIR/<kernel>.{upstream,tritium}.ttgir) with a summary of
the memory-op layouts and conversion counts of each."""
import importlib.util
import os
import re
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

KERNELS = r'''
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def softmax2d_kernel(out_ptr, in_ptr, stride, n_rows, n_cols, BM: tl.constexpr,
                     BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    offs = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    den = tl.sum(num, axis=1)
    tl.store(out_ptr + offs, num / den[:, None], mask=mask)


@triton.jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def tile_kernel(dst, src, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    t = tl.load(src + rm[:, None] * stride_m + rn[None, :], mask=mask)
    tl.store(dst + rm[:, None] * stride_m + rn[None, :], t * 2, mask=mask)


@triton.jit
def row_sum_kernel(out_ptr, in_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(in_ptr + rows[:, None] * stride + cols[None, :])
    tl.store(out_ptr + rows, tl.sum(x, axis=1))
'''


def load(flavor):
    import tritium
    import tritium.language
    saved = {k: sys.modules.get(k) for k in ("triton", "triton.language")}
    if flavor == "tritium":
        sys.modules["triton"], sys.modules["triton.language"] = tritium, tritium.language
    path = os.path.join(tempfile.mkdtemp(), f"kernels_{flavor}.py")
    with open(path, "w") as f:
        f.write(KERNELS)
    try:
        spec = importlib.util.spec_from_file_location(f"kernels_{flavor}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return mod


def cases(k):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)

    def rn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=dev, generator=g).to(dtype)

    out = []
    for dtype, n in ((torch.float32, 98432), (torch.float16, 98432), (torch.float32, 98431)):
        x, y = rn(n, dtype=dtype), rn(n, dtype=dtype)
        o = torch.empty_like(x)
        name = f"add_{str(dtype)[6:]}_{n}"
        out.append((name, k.add_kernel, lambda x=x, y=y, o=o, n=n:
                    k.add_kernel[(triton_cdiv(n, 1024),)](x, y, o, n, BLOCK=1024),
                    lambda x=x, y=y, o=o: (o, x + y)))
    x = rn(1823, 781)
    o = torch.empty_like(x)
    out.append(("softmax", k.softmax_kernel,
                lambda: k.softmax_kernel[(1823,)](o, x, 781, 781, 781, BLOCK=1024),
                lambda: (o, torch.softmax(x, 1))))
    x2 = rn(64, 784)
    o2 = torch.empty_like(x2)
    out.append(("softmax2d", k.softmax2d_kernel,
                lambda: k.softmax2d_kernel[(16,)](o2, x2, 784, 64, 784, BM=4, BN=1024),
                lambda: (o2, torch.softmax(x2, 1))))
    xl, w, b = rn(151, 1504), rn(1504), rn(1504)
    yl, mean, rstd = torch.empty_like(xl), rn(151), rn(151)
    out.append(("layer_norm", k.layer_norm_kernel,
                lambda: k.layer_norm_kernel[(151,)](xl, yl, w, b, mean, rstd, 1504, 1504, 1e-5,
                                                    BLOCK_SIZE=1024),
                lambda: (yl, torch.nn.functional.layer_norm(xl, (1504,), w, b, 1e-5))))
    xd = rn(100000)
    od = torch.empty_like(xd)
    out.append(("dropout", k.dropout_kernel,
                lambda: k.dropout_kernel[(triton_cdiv(100000, 1024),)](xd, od, 100000, 0.5, 123,
                                                                       BLOCK=1024),
                lambda: ((od == 0) | (od == 2 * xd), torch.ones_like(xd, dtype=torch.bool))))
    xt = rn(200, 208, dtype=torch.float16)
    ot = torch.zeros_like(xt)
    out.append(("tile_f16", k.tile_kernel,
                lambda: k.tile_kernel[(4, 4)](ot, xt, 200, 208, 208, BM=64, BN=64),
                lambda: (ot, xt * 2)))
    xs = rn(256, 64)
    os_ = torch.empty(256, device=dev)
    out.append(("row_sum", k.row_sum_kernel,
                lambda: k.row_sum_kernel[(16,)](os_, xs, 64, BM=16, BN=64),
                lambda: (os_, xs.sum(1))))
    return out


def triton_cdiv(a, b):
    return (a + b - 1) // b


def summary(ttgir: str) -> str:
    aliases = dict(re.findall(r"^(#\w+) = (#ttg\.\w+<.*>)$", ttgir, re.M))
    mem = []
    for m in re.finditer(r"(tt\.load|tt\.store|tt\.atomic_rmw)[^\n]*?(tensor<[^\n]*?,\s*(#\w+)>)",
                         ttgir):
        spt = re.search(r"sizePerThread = \[[^\]]*\]", aliases.get(m.group(3), ""))
        order = re.search(r"order = \[[^\]]*\]", aliases.get(m.group(3), ""))
        mem.append(f"{m.group(1)} {spt.group() if spt else m.group(3)} "
                   f"{order.group() if order else ''}")
    shared = re.search(r"ttg.shared = (\d+)", ttgir)
    return (f"  converts: {ttgir.count('ttg.convert_layout')}, shared: "
            f"{shared.group(1) if shared else '?'}\n" + "\n".join("  " + s for s in mem))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    os.makedirs(outdir, exist_ok=True)
    flavors = ["tritium"]
    try:
        import triton  # noqa: F401
        flavors.insert(0, "upstream")
        print("upstream triton", triton.__version__)
    except ImportError:
        print("upstream triton not installed: tritium only")
    print("torch", torch.__version__, torch.cuda.get_device_name())
    for flavor in flavors:
        k = load(flavor)
        for name, fn, run, check in cases(k):
            try:
                compiled = run()
                torch.cuda.synchronize()
                got, want = check()
                ok = torch.allclose(got.float(), want.float(), atol=1e-2, rtol=1e-2)
                ttgir = compiled.asm["ttgir"]
                with open(os.path.join(outdir, f"{name}.{flavor}.ttgir"), "w") as f:
                    f.write(ttgir)
                print(f"{flavor:9s} {name:22s} {'OK ' if ok else 'WRONG'}\n{summary(ttgir)}")
            except Exception as e:  # report and go on with the next kernel
                print(f"{flavor:9s} {name:22s} FAILED {type(e).__name__}: {str(e)[:600]}")


if __name__ == "__main__":
    main()
