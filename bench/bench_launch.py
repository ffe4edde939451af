"""Host time per cached launch of a one-store kernel.

Rows:
* tritium launcher (kernelParams / `extra` buffer, cuda-bindings or ctypes
  cuLaunchKernel), called directly with a cached function handle and stream;
* the bare cuLaunchKernel call with everything prebuilt (the floor);
* the same plus a `driver.get_current_stream()` call per launch (what a JIT
  front end pays on top);
* upstream Triton's full `kernel[grid](x)` path, when triton imports;
* torch `x.add_(1)` as a reference for a framework op.

Each row: best and median over batches of back-to-back launches, timed with
perf_counter on the host; the GPU executes the tiny kernel faster than the
host issues it, so the queue never fills and this is host time.
Usage: python bench/bench_launch.py [--launches N] [--batches B]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tritium.backends.nvidia import driver, launcher, toolchain  # noqa: E402

STORE_LLIR = """
define ptx_kernel void @store_one(ptr addrspace(1) %p) {
  store float 1.0, ptr addrspace(1) %p
  ret void
}
"""

# llir_to_ptx's output for STORE_LLIR at PTX 8.0, for hosts whose llvmlite cannot compile it.
STORE_PTX = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry store_one(
	.param .u64 .ptr .global .align 1 store_one_param_0
)
{
	.reg .b64 	%rd<2>;
	ld.param.b64 	%rd1, [store_one_param_0];
	st.global.b32 	[%rd1], 1065353216;
	ret;
}
"""


def build(arch):
    try:
        from tritium.backends.nvidia.llvm import llir_to_ptx
        t0 = time.perf_counter()
        ptx = llir_to_ptx(STORE_LLIR, arch=arch)
        how = f"llvmlite {1e3 * (time.perf_counter() - t0):.1f} ms"
    except Exception as e:
        ptx, how = STORE_PTX.replace("sm_90a", arch), f"stored PTX ({type(e).__name__})"
    if toolchain.find_ptxas():
        t0 = time.perf_counter()
        cubin, _ = toolchain.make_cubin(ptx, arch=arch)
        return cubin, how + f", ptxas {1e3 * (time.perf_counter() - t0):.1f} ms"
    return ptx, how + ", driver JIT"


def measure(step, launches, batches, sync):
    for _ in range(200):
        step()
    sync()
    per = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(launches):
            step()
        per.append((time.perf_counter() - t0) / launches * 1e6)
        sync()
    return min(per), statistics.median(per)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launches", type=int, default=5000)
    ap.add_argument("--batches", type=int, default=7)
    args = ap.parse_args()
    if not driver.is_available():
        print("no CUDA GPU (or cuda-bindings) here: nothing to measure")
        return
    try:
        import torch
    except ImportError:
        torch = None
    dev = torch.cuda.current_device() if torch else 0
    props = driver.get_device_properties(dev)
    arch = driver.get_device_arch(dev)
    image, how = build(arch)
    _, function, _, _ = driver.load_binary("store_one", image, 0, dev)
    if torch is not None:
        x = torch.zeros(1, device="cuda")
        sync = torch.cuda.synchronize
    else:
        x = driver.check(driver.cuda().cuMemAlloc(4))
        x = int(x)
        sync = driver.synchronize
    stream = driver.get_current_stream(dev)
    sig = {"p": "*fp32"}
    rows = []

    def add(name, step):
        try:
            best, med = measure(step, args.launches, args.batches, sync)
        except Exception as e:   # one broken row should not hide the others
            rows.append((name, float("nan"), float("nan"), f"{type(e).__name__}: {e}"))
            return
        rows.append((name, best, med, ""))

    forms = {}
    for mode in ("params", "extra"):
        for flavor in ("bindings", "ctypes"):
            try:
                forms[mode, flavor] = launcher.make_launcher(sig, mode=mode, flavor=flavor)
            except Exception as e:
                rows.append((f"tritium launcher, {mode}, {flavor}", float("nan"), float("nan"), repr(e)))
                continue
            fn_ = forms[mode, flavor]
            add(f"tritium launcher, {mode}, {flavor}",
                lambda fn_=fn_: fn_(1, 1, 1, stream, function, 1, 0, x))
    la = forms["params", "bindings"]
    get_stream = driver.get_current_stream
    add("default + get_current_stream() per launch", lambda: la(1, 1, 1, get_stream(dev), function, 1, 0, x))
    xi = x.data_ptr() if torch is not None else x
    add("default, int pointer argument", lambda: la(1, 1, 1, stream, function, 1, 0, xi))

    import ctypes
    params = (ctypes.c_void_p * 1)(ctypes.addressof(la.params))
    addr = ctypes.addressof(params)
    cu = driver.cuda()
    f_obj, s_obj = cu.CUfunction(function), cu.CUstream(stream)
    bare = cu.cuLaunchKernel
    add("floor: bare cuda-bindings cuLaunchKernel", lambda: bare(f_obj, 1, 1, 1, 32, 1, 1, 0, s_obj, addr, 0))
    raw = driver.raw_launch_kernel()
    if raw is not None:
        add("floor: bare ctypes cuLaunchKernel", lambda: raw(function, 1, 1, 1, 32, 1, 1, 0, stream, addr, None))

    try:
        import triton
        import triton.language as tl

        @triton.jit
        def store_one(p):
            tl.store(p, 1.0)
        if torch is not None:
            store_one[(1,)](x)
            add(f"upstream triton {triton.__version__}: kernel[grid](x)", lambda: store_one[(1,)](x))
    except Exception as e:
        rows.append(("upstream triton", float("nan"), float("nan"), f"unavailable: {type(e).__name__}: {e}"))

    if torch is not None:
        add(f"torch {torch.__version__}: x.add_(1)", lambda: x.add_(1))
        _descriptor_rows(add, torch)

    print(f"device: {props['name']} ({arch}); kernel built by {how}")
    print(f"{args.batches} batches x {args.launches} launches; host microseconds per launch\n")
    w = max(len(r[0]) for r in rows)
    print(f"{'':{w}}  {'best':>8}  {'median':>8}")
    for name, best, med, note in rows:
        print(f"{name:{w}}  {best:8.2f}  {med:8.2f}  {note}")
    if torch is not None:
        sync()
        print(f"\ncheck: x = {x.item()} (expect a number >= 1)")


def _descriptor_rows(add, torch):
    """kernel[grid](src, dst) with two host TensorDescriptors (a 64x64 fp16 TMA copy) through
    each JIT: what descriptor arguments add to a launch (tritium encodes each CUtensorMap once
    per tensor and copies its 128 bytes into the parameter buffer)."""
    import tritium
    import tritium.language as ttl
    from tritium.tools.tensor_descriptor import TensorDescriptor as TD

    @tritium.jit
    def copy_tile(src, dst, B: ttl.constexpr):
        dst.store([0, 0], src.load([0, 0]))
    a = torch.randn(64, 64, device="cuda").half()
    b = torch.empty_like(a)
    da, db = TD.from_tensor(a, [64, 64]), TD.from_tensor(b, [64, 64])
    copy_tile[(1,)](da, db, B=64)
    add("tritium kernel[grid](desc, desc), TMA", lambda: copy_tile[(1,)](da, db, B=64))

    @tritium.jit
    def store_one_t(p):
        ttl.store(p, 1.0)
    store_one_t[(1,)](b)
    add("tritium kernel[grid](x)", lambda: store_one_t[(1,)](b))
    try:
        import triton
        from triton.tools.tensor_descriptor import TensorDescriptor as UTD
        # Upstream's JIT resolves names through the function's module globals.
        globals()["tl"] = triton.language

        @triton.jit
        def copy_tile_u(src, dst, B: tl.constexpr):  # noqa: F821
            dst.store([0, 0], src.load([0, 0]))
        ua, ub = UTD.from_tensor(a, [64, 64]), UTD.from_tensor(b, [64, 64])
        copy_tile_u[(1,)](ua, ub, B=64)
        add(f"upstream triton {triton.__version__}: kernel[grid](desc, desc)",
            lambda: copy_tile_u[(1,)](ua, ub, B=64))
    except Exception as e:   # shown as the row's note
        msg = f"{type(e).__name__}: {e}"

        def unavailable():
            raise RuntimeError(msg)
        add("upstream descriptors", unavailable)


if __name__ == "__main__":
    main()
