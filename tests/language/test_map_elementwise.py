"""`tl.map_elementwise` (upstream 3.6): a scalar @jit function applied per element, with
per-element control flow, several outputs and `pack`. Both CPU paths against numpy on
fresh random data; the same kernels compiled for sm_90 down to a cubin (and run on the GPU
when there is one)."""
import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile
from tritium.frontend.errors import CompilationError

CUDA90 = GPUTarget("cuda", 90, 32)
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")


@pytest.fixture(autouse=True)
def compiled_for_real(tmp_path, monkeypatch):
    # the compiled CPU path must lower the op itself, not fall back to the evaluator
    monkeypatch.setenv("TRITIUM_CPU_NATIVE_STRICT", "1")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))


@tritium.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@tritium.jit
def divmod_(a, b):
    return a // b, a % b


@tritium.jit
def divmod_packed(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@tritium.jit
def divmod_packed4(a0, a1, a2, a3, b0, b1, b2, b3):
    return (a0 // b0, a1 // b1, a2 // b2, a3 // b3,
            a0 % b0, a1 % b1, a2 % b2, a3 % b3)


@tritium.jit
def selu(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@tritium.jit
def collatz_steps(n):
    # a data-dependent loop per element: elements leave it at different trip counts
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@tritium.jit
def compare_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    tl.store(Z + offs, tl.map_elementwise(compare, x, y), mask=m)


@tritium.jit
def divmod_kernel(A, B, C, D, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_, a, b)
    elif PACK == 2:
        c, d = tl.map_elementwise(divmod_packed, a, b, pack=2)
    else:
        c, d = tl.map_elementwise(divmod_packed4, a, b, pack=4)
    tl.store(C + offs, c)
    tl.store(D + offs, d)


@tritium.jit
def selu_kernel(X, Y, alpha, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.map_elementwise(selu, x, alpha))


@tritium.jit
def collatz_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.map_elementwise(collatz_steps, tl.load(X + offs)))


def _collatz(v):
    steps = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [128, 300])
def test_per_element_branches(cpu_path, rng, n):
    x = rng.integers(-4, 4, n, dtype=np.int32)
    y = rng.integers(-4, 4, n, dtype=np.int32)
    z = np.full(n, 7, np.int32)
    compare_kernel[(triton_cdiv(n, 128),)](x, y, z, n, BLOCK=128)
    np.testing.assert_array_equal(z, np.sign(x.astype(np.int64) - y))


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("dtype", [np.uint32, np.int64])
@pytest.mark.parametrize("pack", [1, 2, 4])
def test_multiple_outputs_and_pack(cpu_path, rng, dtype, pack):
    n = 512
    a = rng.integers(0, 2 ** 30, n).astype(dtype)
    b = rng.integers(1, 2 ** 12, n).astype(dtype)
    c, d = np.zeros_like(a), np.zeros_like(a)
    divmod_kernel[(1,)](a, b, c, d, BLOCK=n, PACK=pack)
    np.testing.assert_array_equal(c, a // b)
    np.testing.assert_array_equal(d, a % b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_argument_broadcast(cpu_path, rng, dtype):
    x = rng.standard_normal((8, 32)).astype(dtype)
    y = np.zeros_like(x)
    alpha = 1.6732632
    selu_kernel[(1,)](x, y, alpha, R=8, C=32)
    want = np.where(x > 0, x, alpha * (np.exp(x) - 1)).astype(dtype)
    np.testing.assert_allclose(y, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_divergent_loop(cpu_path, rng):
    x = rng.integers(1, 200, 64, dtype=np.int32)
    y = np.zeros_like(x)
    collatz_kernel[(1,)](x, y, BLOCK=64)
    np.testing.assert_array_equal(y, [_collatz(int(v)) for v in x])


def test_ttir_region():
    from tritium.ir.parser import parse_module
    from tritium.ir.printer import print_module
    sig = {"A": "*u32", "B": "*u32", "C": "*u32", "D": "*u32", "BLOCK": "constexpr",
           "PACK": "constexpr"}
    k = compile(ASTSource(divmod_kernel, sig, {"BLOCK": 64, "PACK": 2}),
                target=GPUTarget("cpu", 0, 32))
    text = k.asm["ttir"]
    mod = parse_module(text)
    ops = [op for op in mod.walk() if op.name == "tt.map_elementwise"]
    assert len(ops) == 1 and ops[0].attr("pack") == 2
    assert len(ops[0].regions[0].entry.args) == 4 and len(ops[0].results) == 2
    assert "tt.map_elementwise.return" in text and "tt.call" not in text  # inlined
    assert print_module(mod) == print_module(parse_module(print_module(mod)))


@tritium.jit
def two_of_six(a0, a1, a2, b0, b1, b2):
    return a0, b0


def test_bad_uses():
    @tritium.jit
    def wrong_count(A, BLOCK: tl.constexpr):
        a = tl.load(A + tl.arange(0, BLOCK))
        tl.store(A + tl.arange(0, BLOCK), tl.map_elementwise(two_of_six, a, a, pack=3))

    @tritium.jit
    def bad_pack(A, BLOCK: tl.constexpr):
        a = tl.load(A + tl.arange(0, BLOCK))
        tl.store(A + tl.arange(0, BLOCK), tl.map_elementwise(compare, a, a, pack=0))

    a = np.ones(16, np.int32)
    with pytest.raises(CompilationError, match="not a multiple of 3"):
        wrong_count[(1,)](a, BLOCK=16)
    with pytest.raises(CompilationError, match="pack must be a positive integer"):
        bad_pack[(1,)](a, BLOCK=16)


CASES = [
    (compare_kernel, {"X": "*i32", "Y": "*i32", "Z": "*i32", "n": "i32"}, {"BLOCK": 128}),
    (divmod_kernel, {"A": "*u32", "B": "*u32", "C": "*u32", "D": "*u32"},
     {"BLOCK": 512, "PACK": 2}),
    (divmod_kernel, {"A": "*i64", "B": "*i64", "C": "*i64", "D": "*i64"},
     {"BLOCK": 512, "PACK": 4}),
    (selu_kernel, {"X": "*fp32", "Y": "*fp32", "alpha": "fp32"}, {"R": 8, "C": 32}),
    (collatz_kernel, {"X": "*i32", "Y": "*i32"}, {"BLOCK": 64}),
]


@needs_ptxas
@pytest.mark.parametrize("fn, sig, consts", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_compiles_for_sm90(fn, sig, consts):
    sig = dict(sig, **{k: "constexpr" for k in consts})
    k = compile(ASTSource(fn, sig, consts), target=CUDA90)
    assert "tt.map_elementwise" in k.asm["ttgir"]
    assert k.asm["cubin"]
    if fn is compare_kernel:  # the region's branches are per-thread LLVM branches
        assert "if_then" in k.asm["llir"]


@pytest.mark.gpu
def test_on_gpu(rng):
    import torch
    x = torch.randint(-4, 4, (300,), dtype=torch.int32, device="cuda")
    y = torch.randint(-4, 4, (300,), dtype=torch.int32, device="cuda")
    z = torch.empty_like(x)
    compare_kernel[(3,)](x, y, z, 300, BLOCK=128)
    assert torch.equal(z, torch.sign(x - y).to(torch.int32))
    a = torch.randint(0, 2 ** 30, (512,), dtype=torch.int64, device="cuda")
    b = torch.randint(1, 2 ** 12, (512,), dtype=torch.int64, device="cuda")
    c, d = torch.empty_like(a), torch.empty_like(a)
    divmod_kernel[(1,)](a, b, c, d, BLOCK=512, PACK=4)
    assert torch.equal(c, a // b) and torch.equal(d, a % b)
    v = torch.randint(1, 200, (64,), dtype=torch.int32, device="cuda")
    w = torch.empty_like(v)
    collatz_kernel[(1,)](v, w, BLOCK=64)
    assert w.tolist() == [_collatz(int(t)) for t in v.tolist()]
