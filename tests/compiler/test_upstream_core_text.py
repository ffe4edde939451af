"""What upstream 3.6's test_core reads from the compiled text and options of an H100 kernel,
checked by compiling for cuda:90 without a GPU: atomics' PTX spelling, `llvm.intr.assume`,
`.maxnreg`, `llvm.licm.disable`, `poison`, `enable_fp_fusion` (option and knob),
`enable_reflect_ftz`, the `arch` override and num_ctas before sm_90, FMA dots of fp8."""
import re

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas, tool_version
from tritium.compiler import ASTSource, GPUTarget, compile
from tritium.errors import PTXASError

CUDA90 = GPUTarget("cuda", 90, 32)
CPU = GPUTarget("cpu", 0, 32)
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
pytestmark = [needs_ptxas,
              pytest.mark.usefixtures("private_cache")]


def _cuda(fn, sig, consts=None, **options):
    consts = consts or {}
    sig = dict(sig, **{k: "constexpr" for k in consts})
    return compile(ASTSource(fn, sig, consts), target=CUDA90, options=options)


# ------------------------------------------------------------------ atomics
@tritium.jit
def _atomic(X, Z, OP: tl.constexpr, SEM: tl.constexpr):
    x = tl.load(X + tl.program_id(0))
    if OP == "add":
        old = tl.atomic_add(Z, x, sem=SEM)  # noqa: F841 (unused: upstream still emits atom)
    elif OP == "max":
        old = tl.atomic_max(Z, x, sem=SEM)  # noqa: F841
    else:
        old = tl.atomic_min(Z, x, sem=SEM)  # noqa: F841


@pytest.mark.parametrize("op, ty", [("add", "*bf16"), ("add", "*fp32"), ("max", "*i32"),
                                    ("min", "*fp64"), ("min", "*u64")])
@pytest.mark.parametrize("sem", [None, "acquire", "release", "acq_rel", "relaxed"])
def test_atomic_rmw_spelling(op, ty, sem):
    k = _cuda(_atomic, {"X": ty, "Z": ty}, {"OP": op, "SEM": sem})   # assembled by ptxas
    ptx = k.asm["ptx"]
    assert f"atom.global.gpu.{sem or 'acq_rel'}." in ptx
    assert "red." not in ptx and ".gpu.global" not in ptx


@tritium.jit
def _cas(L):
    tl.atomic_cas(L, 0, 1, sem="relaxed")


def test_atomic_cas_keeps_sem_first():
    assert "atom.global.relaxed.gpu.cas.b32" in _cuda(_cas, {"L": "*i32"}).asm["ptx"]


# ------------------------------------------------------------------ assume, maxnreg
@tritium.jit
def _assume(out_ptr, N: tl.constexpr, BLOCK_N: tl.constexpr):
    current_size = N - tl.program_id(0) * BLOCK_N
    tl.assume(current_size >= BLOCK_N)
    if current_size >= 128:
        tl.store(out_ptr + tl.program_id(0), current_size)
    else:
        tl.store(out_ptr + tl.program_id(0), current_size + 101024)


def test_assume_is_llvm_intr_assume():
    k = _cuda(_assume, {"out_ptr": "*fp32"}, {"N": 1024, "BLOCK_N": 128})
    assert re.search(r"llvm\.intr\.assume %\d+ : i1", k.asm["ttir"])
    assert "llvm.intr.assume" in k.asm["ttgir"]
    assert "call void @llvm.assume(i1" in k.asm["llir"]
    out = np.zeros(8, np.float32)   # and it changes nothing on the CPU
    _assume[(8,)](out, N=1024, BLOCK_N=128)
    np.testing.assert_array_equal(out, 1024 - 128 * np.arange(8))


@tritium.jit(noinline=True)
def _noinline_store(X):
    tl.store(X, 0)


@tritium.jit
def _maxnreg(X):
    _noinline_store(X)
    tl.store(X, 0)


def test_maxnreg_on_the_entry_only():
    k = _cuda(_maxnreg, {"X": "*i32"}, maxnreg=42)
    ptx = k.asm["ptx"]
    assert re.search(r"\.visible \.entry [^{;]*\.maxnreg 42", ptx)
    assert not re.search(r"\.func [^{;]*\.maxnreg", ptx)
    assert 'define internal' in k.asm["llir"] and k.asm["llir"].count('"nvvm.maxnreg"="42"') == 1
    assert ".maxnreg" not in _cuda(_maxnreg, {"X": "*i32"}).asm["ptx"]


# ------------------------------------------------------------------ licm, poison
@tritium.jit
def _while_no_licm(n):
    i = 0
    while tl.condition(i < n, disable_licm=True):
        i = i + 1
        print("i", i)


@tritium.jit
def _while_default(n):
    i = 0
    while tl.condition(i < n):
        i = i + 1
        print("i", i)


@tritium.jit
def _for_no_licm(n):
    for i in tl.range(0, n, disable_licm=True):
        print("i", i)


@pytest.mark.parametrize("target", [CUDA90, CPU], ids=["cuda90", "cpu"])
@pytest.mark.parametrize("fn, off", [(_while_no_licm, True), (_while_default, False),
                                     (_for_no_licm, True)])
def test_disable_licm(fn, off, target, monkeypatch):
    monkeypatch.setenv("TRITIUM_CPU_PATH", "native")
    k = compile(ASTSource(fn, {"n": "i32"}, {}), target=target)
    assert ("#llvm.loop_annotation<licm = <disable = true>>" in k.asm["ttir"]) == off
    llir = k.asm["llir"]
    assert ('!{!"llvm.licm.disable"}' in llir) == off
    if off:  # on the loop's latch, in a self-referencing loop id
        m = re.search(r"br label %\S+, !llvm\.loop !(\d+)", llir)
        assert m and re.search(rf"!{m.group(1)} = distinct !{{!{m.group(1)}, ", llir)


@tritium.jit
def _return_poison(x):
    a = False
    if a:
        return x


@tritium.jit
def _poison(Out):
    zero = 0
    tl.store(Out, _return_poison(zero))


def test_poison_reaches_the_llir():
    k = _cuda(_poison, {"Out": "*i32"})
    assert "ub.poison" in k.asm["ttir"]
    assert re.search(r"= freeze i32 poison", k.asm["llir"])


# ------------------------------------------------------------------ options
@tritium.jit
def _mul_add(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.load(ptrs) * 1.5 + 1.0)


_FMA = re.compile(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32")


def test_enable_fp_fusion_option_and_knob(monkeypatch):
    assert _FMA.search(_cuda(_mul_add, {"data": "*fp32"}).asm["ptx"])
    assert not _FMA.search(_cuda(_mul_add, {"data": "*fp32"}, enable_fp_fusion=False).asm["ptx"])
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    assert not _FMA.search(_cuda(_mul_add, {"data": "*fp32"}).asm["ptx"])
    assert _FMA.search(_cuda(_mul_add, {"data": "*fp32"}, enable_fp_fusion=True).asm["ptx"])


@tritium.jit
def _exp2(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.math.exp2(tl.load(ptrs)))


@pytest.mark.parametrize("ftz", [False, True])
def test_enable_reflect_ftz(ftz):
    ptx = _cuda(_exp2, {"data": "*fp32"}, enable_reflect_ftz=ftz).asm["ptx"]
    assert ("ex2.approx.ftz.f32" in ptx) == ftz


@pytest.mark.parametrize("how", ["option", "knob"])
@pytest.mark.parametrize("arch", ["sm80", "sm90"])
def test_arch_override(arch, how, monkeypatch):
    if how == "knob":
        monkeypatch.setenv("TRITON_OVERRIDE_ARCH", arch)
        k = _cuda(_mul_add, {"data": "*fp32"})
    else:
        k = _cuda(_mul_add, {"data": "*fp32"}, arch=arch)
    assert re.search(r"cuda:(\d+)", k.asm["ttgir"]).group(1) == arch[2:]
    want = "sm_90a" if arch == "sm90" else "sm_80"
    assert re.search(r"^\.target (\S+)", k.asm["ptx"], re.M).group(1) == want
    assert k.metadata.arch == arch


def test_arch_must_be_upstreams_form():
    with pytest.raises(ValueError, match="TRITON_OVERRIDE_ARCH must have the form"):
        _cuda(_mul_add, {"data": "*fp32"}, arch="hopper")


@tritium.jit
def _dot(A, B, C, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(A + r[:, None] * BLOCK + r[None, :])
    b = tl.load(B + r[:, None] * BLOCK + r[None, :])
    tl.store(C + r[:, None] * BLOCK + r[None, :], tl.dot(a, b))


@pytest.mark.parametrize("arch, engine", [("sm80", "mma.sync"), ("sm90", "wgmma")])
def test_arch_picks_the_dot_engine(arch, engine):
    ptx = _cuda(_dot, {"A": "*fp16", "B": "*fp16", "C": "*fp32"}, {"BLOCK": 64},
                arch=arch).asm["ptx"]
    assert engine in ptx and ("wgmma" in ptx) == (engine == "wgmma")


def test_sm70_needs_a_ptxas_that_has_it():
    """Volta gets FMA dots and no sm_80 instructions; CUDA 13's ptxas has no sm_70 and says
    so (upstream bundles a CUDA 12 ptxas)."""
    sig, consts = {"A": "*fp16", "B": "*fp16", "C": "*fp32"}, {"BLOCK": 32}
    v = tool_version(find_ptxas())
    if v is not None and v[0] >= 13:
        with pytest.raises(PTXASError, match="cannot assemble for sm_70"):
            _cuda(_dot, sig, consts, arch="sm70")
        return
    ptx = _cuda(_dot, sig, consts, arch="sm70").asm["ptx"]
    assert ".target sm_70" in ptx and "mma" not in ptx and "cp.async" not in ptx


def test_num_ctas_before_sm90(monkeypatch):
    monkeypatch.setenv("TRITON_OVERRIDE_ARCH", "sm80")
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
        _cuda(_mul_add, {"data": "*fp32"}, num_ctas=2)


# ------------------------------------------------------------------ FMA dots of fp8
@tritium.jit
def _small_dot(X, Y, Z, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    m, n, k = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    x = tl.load(X + m[:, None] * BK + k[None, :])
    y = tl.load(Y + k[:, None] * BN + n[None, :])
    z = tl.dot(x, y, input_precision="ieee", out_dtype=tl.float32)
    tl.store(Z + m[:, None] * BN + n[None, :], z)


@pytest.mark.parametrize("ty", ["*fp8e5", "*fp8e4nv"])
def test_fma_dot_upcasts_fp8(ty):
    k = _cuda(_small_dot, {"X": ty, "Y": ty, "Z": "*fp32"}, {"BM": 1, "BN": 2, "BK": 32},
              num_warps=1)
    ttgir = k.asm["ttgir"]
    fp8 = "f8E5M2" if ty == "*fp8e5" else "f8E4M3FN"
    assert re.search(rf"tt\.fp_to_fp %\S+ : tensor<1x32x{fp8}, #\w+> -> tensor<1x32xf32", ttgir)
    assert re.search(rf"tt\.fp_to_fp %\S+ : tensor<32x2x{fp8}, #\w+> -> tensor<32x2xf32", ttgir)
    assert "wgmma" not in k.asm["ptx"] and "mma.sync" not in k.asm["ptx"]


@pytest.mark.gpu
def test_fma_dot_fp8_on_gpu(rng):
    import torch
    for tdt, ty in ((torch.float8_e5m2, "fp8e5"), (torch.float8_e4m3fn, "fp8e4nv")):
        x = torch.tensor(rng.standard_normal((1, 32)), dtype=torch.float32).to(tdt).cuda()
        y = torch.tensor(rng.standard_normal((32, 2)), dtype=torch.float32).to(tdt).cuda()
        z = torch.empty((1, 2), dtype=torch.float32, device="cuda")
        _small_dot[(1,)](x, y, z, BM=1, BN=2, BK=32, num_warps=1)
        want = x.float() @ y.float()
        torch.testing.assert_close(z, want, rtol=1e-5, atol=1e-5)
