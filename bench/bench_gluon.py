"""A Gluon kernel, one source, compiled by upstream Triton's Gluon and by tritium's: a
pipelined Hopper matmul (TMA into a ring of NVMMA buffers, one mbarrier per slot, async
wgmma with one group in flight), fp16 in, fp32 out, vs torch (cuBLAS), same run, same GPU.

    python bench/bench_gluon.py [--sizes 4096,8192] [--json PATH]

Each side runs in its own process (tritium's with `tritium.compat.install()`, so the kernel
below, written against `triton.experimental.gluon`, is the same text on both). Each row is
checked against torch before timing (relative Frobenius error); times are do_bench medians.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [(128, 128, 64, 3), (128, 128, 64, 4), (64, 128, 64, 4)]  # BM, BN, BK, stages


def kernels():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia import hopper
    from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

    @gluon.jit
    def matmul_kernel(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr,
                      mma: gl.constexpr, out_layout: gl.constexpr):
        BM: gl.constexpr = a_desc.block_type.shape[0]
        BK: gl.constexpr = a_desc.block_type.shape[1]
        BN: gl.constexpr = b_desc.block_type.shape[1]
        nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
        a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
        b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BK, BN], b_desc.layout)
        bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        for i in gl.static_range(STAGES):
            mbarrier.init(bars.index(i), count=1)
        hopper.fence_async_shared()
        off_m = gl.program_id(0) * BM
        off_n = gl.program_id(1) * BN
        k_tiles = gl.cdiv(K, BK)
        for t in gl.static_range(STAGES - 1):
            pred = t < k_tiles
            mbarrier.expect(bars.index(t), nbytes, pred=pred)
            tma.async_copy_global_to_shared(a_desc, [off_m, t * BK], bars.index(t), a_bufs.index(t), pred)
            tma.async_copy_global_to_shared(b_desc, [t * BK, off_n], bars.index(t), b_bufs.index(t), pred)
        acc = gl.zeros([BM, BN], gl.float32, mma)
        for k in range(k_tiles):
            slot = k % STAGES
            mbarrier.wait(bars.index(slot), (k // STAGES) & 1)
            acc = hopper.warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot), acc, is_async=True)
            acc = hopper.warpgroup_mma_wait(1, deps=[acc])
            nk = k + STAGES - 1
            ns = nk % STAGES
            pred = nk < k_tiles
            mbarrier.expect(bars.index(ns), nbytes, pred=pred)
            tma.async_copy_global_to_shared(a_desc, [off_m, nk * BK], bars.index(ns), a_bufs.index(ns), pred)
            tma.async_copy_global_to_shared(b_desc, [nk * BK, off_n], bars.index(ns), b_bufs.index(ns), pred)
        acc = hopper.warpgroup_mma_wait(0, deps=[acc])
        for i in gl.static_range(STAGES):
            mbarrier.invalidate(bars.index(i))
        rows = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, out_layout))
        cols = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, out_layout))
        mask = (gl.expand_dims(rows, 1) < M) & (gl.expand_dims(cols, 0) < N)
        gl.store(c_ptr + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0),
                 gl.convert_layout(acc, out_layout), mask=mask)
    return gl, matmul_kernel


def side(name, sizes):
    if name == "tritium":
        sys.path.insert(0, os.path.dirname(HERE))
        import tritium.compat
        tritium.compat.install()
    import time

    import torch
    import triton
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    from triton.testing import do_bench
    gl, matmul_kernel = kernels()
    rows = []
    for n in sizes:
        M = N = K = n
        torch.manual_seed(0)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        for BM, BN, BK, stages in CONFIGS:
            row = {"n": n, "cfg": f"{BM}x{BN}x{BK} s{stages}"}
            try:
                mma = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                instr_shape=[16, min(BN, 256), 16])
                out = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
                ad = TensorDescriptor.from_tensor(a, [BM, BK], gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16))
                bd = TensorDescriptor.from_tensor(b, [BK, BN], gl.NVMMASharedLayout.get_default_for([BK, BN], gl.float16))
                c = torch.empty(M, N, device="cuda")
                grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))

                def run():
                    matmul_kernel[grid](ad, bd, c, M, N, K, stages, mma, out, num_warps=4)
                t0 = time.perf_counter()
                run()
                torch.cuda.synchronize()
                row["cold_s"] = time.perf_counter() - t0
                row["err"] = ((c - ref).norm() / ref.norm()).item()
                ms = do_bench(run, warmup=25, rep=200, return_mode="median")
                row["tflops"] = 2 * M * N * K / ms * 1e-9
            except Exception as e:  # noqa: BLE001  (a config's failure is a row)
                row["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:150] if str(e).strip() else ''}"
            rows.append(row)
        ms = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=200, return_mode="median")
        rows.append({"n": n, "cfg": "torch", "tflops": 2 * M * N * K / ms * 1e-9})
    print(json.dumps(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--json")
    ap.add_argument("--side", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.side:
        side(args.side, sizes)
        return
    got = {}
    for name in ("upstream", "tritium"):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", name,
                            "--sizes", args.sizes], capture_output=True, text=True)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("[")]
        if not lines:
            sys.stderr.write(p.stderr[-3000:])
        got[name] = json.loads(lines[-1]) if lines else []
    up = {(r["n"], r["cfg"]): r for r in got["upstream"]}
    print("Gluon pipelined matmul (fp16 in, fp32 out), TFLOP/s: upstream Triton's Gluon vs tritium's")
    print(f"{'n':>5} {'config':<16} {'upstream':>9} {'tritium':>9} {'x':>6} {'err up':>8} {'err tr':>8}  notes")
    for r in got["tritium"]:
        u = up.get((r["n"], r["cfg"]), {})
        ut, tt = u.get("tflops"), r.get("tflops")
        x = f"{tt / ut:.2f}" if ut and tt else "-"
        note = " ".join(f"{s}: {d['error']}" for s, d in (("upstream", u), ("tritium", r)) if "error" in d)
        fmt = lambda v: f"{v:9.1f}" if v else f"{'-':>9}"  # noqa: E731
        eu = f"{u['err']:.1e}" if "err" in u else "-"
        et = f"{r['err']:.1e}" if "err" in r else "-"
        print(f"{r['n']:>5} {r['cfg']:<16} {fmt(ut)} {fmt(tt)} {x:>6} {eu:>8} {et:>8}  {note}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(got, f, indent=1)


if __name__ == "__main__":
    main()
