"""Run by tests/clients/test_user_kernel_mutation.py in a fresh interpreter (compat installed
before torch): torch's analysis of which tensors a user's @triton.jit kernel reads and writes
(`torch._higher_order_ops.triton_kernel_wrap.identify_accessed_tensors`, which builds the
kernel's TTIR through `triton._C.libtriton.ir` and walks it) on kernels whose answer is known,
and torch.compile of a function calling such a kernel with Inductor's Triton CPU backend.
Prints one JSON line per case: the reads and writes torch found and those expected.

    python user_kernels.py SEED
"""
import json
import logging
import sys

import tritium.compat

tritium.compat.install()

import torch  # noqa: E402
import torch._higher_order_ops.triton_kernel_wrap as tkw  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402

import triton  # noqa: E402  (tritium, through compat)
import triton.language as tl  # noqa: E402


@triton.jit
def copy_scaled(X, Out, n, alpha, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(Out + i, tl.load(X + i, mask=m) * alpha, mask=m)


@triton.jit
def count_and_max(X, Cnt, Best, Lock, n, BLOCK: tl.constexpr):
    # tt.atomic_rmw on Cnt and Best, tt.atomic_cas on Lock; X only read.
    i = tl.arange(0, BLOCK)
    x = tl.load(X + i, mask=i < n, other=-1.0)
    tl.atomic_add(Cnt, tl.sum((x > 0).to(tl.int32), axis=0))
    tl.atomic_max(Best, tl.max(x, axis=0))
    tl.atomic_cas(Lock, 0, 1)


@triton.jit
def _store_through(P, v, offs, mask):
    tl.store(P + offs, v, mask=mask)


@triton.jit
def via_call(X, Y, Out, n, BLOCK: tl.constexpr):
    # The store is in a callee: tt.call, found through the callee's own analysis.
    i = tl.arange(0, BLOCK)
    m = i < n
    _store_through(Out, tl.load(X + i, mask=m) + tl.load(Y + i, mask=m), i, m)


@triton.jit
def in_loops(X, Acc, Flags, n, steps, BLOCK: tl.constexpr):
    # Stores inside scf.for and scf.while, a reduction region in between.
    i = tl.arange(0, BLOCK)
    m = i < n
    for s in range(steps):
        tl.store(Acc + i, tl.load(Acc + i, mask=m) + tl.load(X + i, mask=m), mask=m)
    k = 0
    while k < steps:
        tl.store(Flags + k, tl.sum(tl.load(X + i, mask=m), axis=0) > 0)
        k += 1


@triton.jit
def pick_target(X, A, B, n, use_a, BLOCK: tl.constexpr):
    # The pointer stored through comes out of an scf.if: both candidates count as written.
    i = tl.arange(0, BLOCK)
    m = i < n
    if use_a:
        P = A
    else:
        P = B
    tl.store(P + i, tl.load(X + i, mask=m), mask=m)


@triton.jit
def block_ptr_store(X, Out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # tt.make_tensor_ptr: only its base is memory; shapes and strides are not.
    src = tl.make_block_ptr(X, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(Out, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1)) + 1.0, boundary_check=(0, 1))


@triton.jit
def descriptor_store(X, Out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A device-side tensor descriptor: tt.make_tensor_descriptor then tt.descriptor_store.
    src = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(Out, [M, N], [N, 1], [BM, BN])
    dst.store([0, 0], src.load([0, 0]) * 2.0)


@triton.autotune(configs=[triton.Config({"BLOCK": 8}), triton.Config({"BLOCK": 16})], key=["n"])
@triton.jit
def tuned_maybe_bias(X, Bias, Out, n, BLOCK: tl.constexpr):
    # Autotuned (torch analyses the first config) with an optional pointer: None is a
    # constexpr, so the TTIR has no parameter for it.
    i = tl.arange(0, BLOCK)
    x = tl.load(X + i, mask=i < n)
    if Bias is not None:
        x += tl.load(Bias + i, mask=i < n)
    tl.store(Out + i, x, mask=i < n)


@triton.jit
def host_descriptor_store(In, Desc, BM: tl.constexpr, BN: tl.constexpr):
    # A host-side TensorDescriptor argument (torch passes its block shape as TMA metadata):
    # one tensor, several TTIR parameters (the descriptor, its shape and strides).
    x = tl.load(In + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    Desc.store([0, 0], x)


@triton.jit
def only_reads(X, Y, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.device_assert(tl.sum(tl.load(X + i, mask=i < n) + tl.load(Y + i, mask=i < n)) == 0.0)


def t(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def cases():
    """name -> (kernel, kwargs, expected reads, expected writes)."""
    i32 = dict(dtype=torch.int32)
    return {
        "load_store": (copy_scaled, dict(X=t(8), Out=t(8), n=8, alpha=0.5, BLOCK=8),
                       {"X"}, {"Out"}),
        "atomics": (count_and_max, dict(X=t(8), Cnt=torch.zeros(1, **i32), Best=t(1),
                                        Lock=torch.zeros(1, **i32), n=8, BLOCK=8),
                    {"X"}, {"Cnt", "Best", "Lock"}),
        "call": (via_call, dict(X=t(8), Y=t(8), Out=t(8), n=8, BLOCK=8), {"X", "Y"}, {"Out"}),
        "loops": (in_loops, dict(X=t(8), Acc=t(8), Flags=torch.zeros(4, dtype=torch.bool),
                                 n=8, steps=3, BLOCK=8), {"X", "Acc"}, {"Acc", "Flags"}),
        "if_pointer": (pick_target, dict(X=t(8), A=t(8), B=t(8), n=8, use_a=True, BLOCK=8),
                       {"X"}, {"A", "B"}),
        "block_ptr": (block_ptr_store, dict(X=t(4, 8), Out=t(4, 8), M=4, N=8, BM=4, BN=8),
                      {"X"}, {"Out"}),
        "descriptor": (descriptor_store, dict(X=t(4, 8), Out=t(4, 8), M=4, N=8, BM=4, BN=8),
                       {"X"}, {"Out"}),
        "autotuned_none_arg": (tuned_maybe_bias, dict(X=t(8), Bias=None, Out=t(8), n=8),
                               {"X"}, {"Out"}),
        "host_descriptor": (host_descriptor_store, dict(In=t(4, 8), Desc=t(4, 8), BM=4, BN=8),
                            {"In"}, {"Desc"}),
        "no_writes": (only_reads, dict(X=t(8), Y=t(8), n=8, BLOCK=8), {"X", "Y"}, set()),
    }


class _Fallbacks(logging.Handler):
    """torch logs a warning and assumes every tensor is written when its analysis fails."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _names(deps):
    return sorted(d.name for d in deps)


def analyse(name, kernel, kwargs, reads, writes, fallbacks):
    before = len(fallbacks.messages)
    meta = {"Desc": tkw.create_tma_stable_metadata(tuple(kwargs["Desc"].shape))} \
        if "Desc" in kwargs else {}
    acc = tkw.identify_accessed_tensors(kernel, kwargs, meta)
    rw = acc.read_writes
    return {"case": name, "reads": _names(rw.reads), "writes": _names(rw.writes),
            "want_reads": sorted(reads), "want_writes": sorted(writes),
            "fallback": fallbacks.messages[before:]}


def compiled_call(seed, fallbacks):
    """torch.compile of a function calling a user kernel, on the CPU through tritium: the
    result matches eager, and torch's analysis ran on the kernel and found its writes."""
    inductor_config.cpu_backend = "triton"
    seen = []
    real = tkw.identify_accessed_tensors

    def spy(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    tkw.identify_accessed_tensors = spy

    def f(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        copy_scaled[(triton.cdiv(n, 32),)](x * y, out, n, 1.5, BLOCK=32)
        return out.relu() + y

    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(77, generator=g), torch.randn(77, generator=g)
    before = len(fallbacks.messages)
    got = torch.compile(f)(x, y)
    want = f(x, y)
    tkw.identify_accessed_tensors = real
    return {"case": "torch_compile", "err": float((got - want).abs().max()),
            "analyses": len(seen),
            "writes": sorted({n for s in seen for n in _names(s.read_writes.writes)}),
            "want_writes": ["Out"], "fallback": fallbacks.messages[before:]}


def main():
    seed = int(sys.argv[1])
    torch.manual_seed(seed)
    fallbacks = _Fallbacks()
    logging.getLogger(tkw.__name__).addHandler(fallbacks)
    for name, (kernel, kwargs, reads, writes) in cases().items():
        try:
            row = analyse(name, kernel, kwargs, reads, writes, fallbacks)
        except Exception as e:  # noqa: BLE001  (reported per case)
            row = {"case": name, "error": f"{type(e).__name__}: {e}"[-3000:]}
        print(json.dumps(row), flush=True)
    try:
        row = compiled_call(seed, fallbacks)
    except Exception as e:  # noqa: BLE001
        row = {"case": "torch_compile", "error": f"{type(e).__name__}: {e}"[-3000:]}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
