"""`tritium.compiler.compile`: sources (AST, IR files at each stage), targets without their
device (cuda:90 here, no GPU), the CompiledKernel it returns, and bad input."""
import re

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import (ASTSource, CompiledKernel, GPUTarget, IRSource, IRSourceError,
                              StageError, compile)

pytestmark = pytest.mark.usefixtures("private_cache")

CUDA90 = GPUTarget("cuda", 90, 32)
CPU = GPUTarget("cpu", 0, 32)
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")


@tritium.jit
def scale_add(X, Y, Out, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    tl.store(Out + offs, x * alpha + y, mask=m)


SIG = {"X": "*fp32", "Y": "*fp32", "Out": "*fp32", "n": "i32", "alpha": "fp32",
       "BLOCK": "constexpr"}


@needs_ptxas
def test_ast_source_for_cuda_without_a_gpu():
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 128}), target=CUDA90,
                options={"num_warps": 2})
    assert isinstance(k, CompiledKernel)
    assert list(k.asm.keys()) == ["ttir", "ttgir", "llir", "ptx", "cubin"]
    assert ".target sm_90a" in k.asm["ptx"] and ".entry scale_add" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"
    assert '"ttg.num-warps" = 2' in k.asm["ttgir"]
    md = k.metadata
    assert (md.name, md.num_warps, md.num_stages, md.shared) == ("scale_add", 2, 3, 0)
    assert md.target == CUDA90 and md["num_warps"] == 2
    assert k.n_regs > 0 and k.n_spills == 0  # ptxas's report, before any device is touched
    with pytest.raises(AttributeError, match="no field 'nope'"):
        md.nope


@needs_ptxas
def test_second_compile_loads_from_disk():
    src = ASTSource(scale_add, SIG, {"BLOCK": 64}, {"X": [["tt.divisibility", 16]]})
    a = compile(src, target=CUDA90)
    b = compile(src, target=CUDA90)
    assert a.hash == b.hash and b.asm["cubin"] == a.asm["cubin"]
    assert "tt.divisibility = 16" in a.asm["ttir"]
    assert a.metadata == b.metadata


@needs_ptxas
def test_compilation_listener_sees_every_compile(monkeypatch):
    """`knobs.compilation.listener`, upstream's keywords: the source, the metadata, each
    stage's time, and whether the disk cache had the kernel."""
    from tritium.runtime import knobs
    calls = []
    monkeypatch.setattr(knobs.compilation, "listener", lambda **kw: calls.append(kw))
    src = ASTSource(scale_add, SIG, {"BLOCK": 32})
    first = compile(src, target=CUDA90, options={"num_warps": 2})
    compile(src, target=CUDA90, options={"num_warps": 2})
    compile(ASTSource(scale_add, SIG, {"BLOCK": 32}), target=CPU)
    assert [c["cache_hit"] for c in calls] == [False, True, False]
    assert all(c["src"].fn is scale_add for c in calls)
    assert calls[0]["metadata"] == first.metadata and calls[0]["metadata"].num_warps == 2
    assert calls[0]["metadata_group"] is None
    times = calls[0]["times"]
    assert [s for s, _ in times.lowering_stages] == ["ttir", "ttgir", "llir", "ptx", "cubin"]
    assert all(us >= 0 for _, us in times.lowering_stages) and times.ir_initialization > 0
    assert times.total == times.ir_initialization + times.store_results + \
        sum(us for _, us in times.lowering_stages)
    # a hit lowers nothing (the TTIR stage that made the key counts as making the IR)
    assert calls[1]["times"].lowering_stages == [] and calls[1]["times"].ir_initialization > 0
    cpu_stages = ["ttir", "llir", "obj"] if knobs.cpu_path() == "native" else ["ttir"]
    assert [s for s, _ in calls[2]["times"].lowering_stages] == cpu_stages


@pytest.mark.parametrize("dtype,n", [("fp32", 1000), ("fp16", 37), ("fp64", 256)])
def test_ast_source_for_cpu_launches_with_getitem(rng, dtype, n):
    np_dt = {"fp32": np.float32, "fp16": np.float16, "fp64": np.float64}[dtype]
    sig = dict(SIG, X=f"*{dtype}", Y=f"*{dtype}", Out=f"*{dtype}")
    k = compile(ASTSource(scale_add, sig, {"BLOCK": 128}), target=CPU)
    x, y = (rng.standard_normal(n).astype(np_dt) for _ in range(2))
    out = np.full(n, np.nan, np_dt)
    grid = (tritium.cdiv(n, 128), 1, 1)
    k[grid](x, y, out, n, 1.5, 128)  # every argument, the constexpr too, as upstream
    tol = 1e-2 if dtype == "fp16" else 1e-6
    np.testing.assert_allclose(out, x * np_dt(1.5) + y, rtol=tol, atol=tol)
    assert k.metadata.shared == 0 and k.metadata.target == CPU


def test_target_defaults_to_the_active_driver():
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 32}))
    assert k.metadata.target == tritium.runtime.driver.active.get_current_target()


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@needs_ptxas
def test_edited_ttgir_compiles_from_ttgir_on(tmp_path):
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 128}), target=CUDA90)
    text = k.asm["ttgir"]
    assert text.count("arith.mulf") == 1 and "fma.rn.f32" in k.asm["ptx"]
    # Edits the later stages must see: x * alpha + y becomes x + alpha + y, and a new name.
    edited = text.replace("arith.mulf", "arith.addf").replace("@scale_add", "@scale_add_edited")
    k2 = compile(IRSource(_write(tmp_path, "k.ttgir", edited)), target=CUDA90)
    assert list(k2.asm.keys()) == ["ttgir", "llir", "ptx", "cubin"]
    assert ".entry scale_add_edited" in k2.asm["ptx"]
    assert "fma.rn.f32" not in k2.asm["ptx"] and "add.f32" in k2.asm["ptx"]
    assert k2.metadata.name == "scale_add_edited" and k2.metadata.num_warps == 4


@needs_ptxas
def test_edited_ptx_compiles_from_ptx_on(tmp_path):
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 128}), target=CUDA90)
    ptx = k.asm["ptx"]
    edited = ptx.replace(".entry scale_add", ".entry scale_add_ptx")
    k2 = compile(_write(tmp_path, "k.ptx", edited), target=CUDA90)  # a path works too
    assert list(k2.asm.keys()) == ["ptx", "cubin"]
    assert k2.asm["cubin"][:4] == b"\x7fELF" and k2.name == "scale_add_ptx"
    assert k2.n_regs > 0


@needs_ptxas
def test_ptx_using_shared_memory_needs_its_size(tmp_path):
    @tritium.jit
    def row_sum(X, Out, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Out + tl.program_id(0), tl.sum(tl.load(X + offs), axis=0))

    k = compile(ASTSource(row_sum, "*fp32, *fp32, constexpr", {"BLOCK": 1024}), target=CUDA90,
                options={"num_warps": 8})
    assert k.metadata.shared > 0 and "global_smem" in k.asm["ptx"]
    path = _write(tmp_path, "row_sum.ptx", k.asm["ptx"])
    with pytest.raises(IRSourceError, match=r"row_sum\.ptx: uses dynamic shared memory"):
        compile(path, target=CUDA90)
    k2 = compile(path, target=CUDA90, options={"shared": k.metadata.shared})
    assert k2.metadata.shared == k.metadata.shared and k2.packed_metadata[2] == k.metadata.shared


def test_ttir_file_compiles_and_runs_on_cpu(tmp_path, rng):
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 64}), target=CPU)
    path = _write(tmp_path, "k.ttir", k.asm["ttir"])
    src = IRSource(path)
    assert src.name == "@scale_add" and src.signature[0] == "*f32" and src.signature[4] == "f32"
    k2 = compile(src, target=CPU)
    n = 100
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    k2[(2,)](x, y, out, n, -0.5)  # an IR file's signature has no constexprs
    np.testing.assert_allclose(out, x * np.float32(-0.5) + y, rtol=1e-6)


def test_ttgir_file_runs_on_cpu_without_its_layouts(tmp_path, rng):
    """Upstream's tools/test_irsource.py compiles a TTGIR file for the current target: on
    the CPU its layouts are dropped (converts become their operands)."""
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 128}), target=GPUTarget("cuda", 90, 32),
                options={"num_warps": 2})
    assert "#ttg.blocked" in k.asm["ttgir"]
    # One layout conversion the CPU must see through: x goes through another layout.
    text = k.asm["ttgir"]
    src = IRSource(_write(tmp_path, "k.ttgir", text))
    assert src.name == "@scale_add" and src.signature[4] == "f32"
    assert src.parse_options() == {"num_warps": 2}
    k2 = compile(src, target=CPU)
    assert list(k2.asm.keys())[:2] == ["ttgir", "ttir"] and "#ttg" not in k2.asm["ttir"]
    n = 200
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    k2[(2,)](x, y, out, n, 0.25)
    np.testing.assert_allclose(out, x * np.float32(0.25) + y, rtol=1e-6)


def test_ttgir_with_shared_memory_runs_on_cpu(tmp_path, rng):
    """A GPU kernel's TTGIR with wgmma on shared-memory operands runs on the CPU: the
    buffers become values and the wgmma a dot (backends/cpu/smem_values.py)."""
    @tritium.jit
    def dot_k(A, B, C, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        idx = offs[:, None] * BLOCK + offs[None, :]
        tl.store(C + idx, tl.dot(tl.load(A + idx), tl.load(B + idx)))

    k = compile(ASTSource(dot_k, "*fp16, *fp16, *fp32, constexpr", {"BLOCK": 64}),
                target=GPUTarget("cuda", 90, 32))
    assert "ttg.local_alloc" in k.asm["ttgir"] and "ttng.warp_group_dot" in k.asm["ttgir"]
    k2 = compile(_write(tmp_path, "dot.ttgir", k.asm["ttgir"]), target=CPU)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    out = np.zeros((64, 64), np.float32)
    k2[(1,)](a, b, out)
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


def test_ir_syntax_error_names_file_line_and_column(tmp_path):
    path = _write(tmp_path, "bad.ttir", "module {\n  tt.func @k() {\n    %0 = arith.constant ??\n")
    with pytest.raises(IRSourceError) as info:
        compile(IRSource(path), target=CPU)
    assert re.match(re.escape(path) + r":3:\d+: ", str(info.value)), str(info.value)
    assert info.value.line == 3


def test_bad_sources_are_named(tmp_path, monkeypatch):
    with pytest.raises(IRSourceError, match=r"unknown IR kind '\.txt'"):
        IRSource(_write(tmp_path, "k.txt", ""))
    with pytest.raises(IRSourceError, match="cannot be read"):
        IRSource(str(tmp_path / "missing.ttir"))
    with pytest.raises(ValueError, match=r"no type for parameter\(s\) alpha, BLOCK"):
        ASTSource(scale_add, {k: v for k, v in SIG.items() if k not in ("alpha", "BLOCK")})
    with pytest.raises(KeyError, match="has no parameter 'Z'"):
        ASTSource(scale_add, SIG, {"Z": 1})
    with pytest.raises(TypeError, match="target must be a GPUTarget"):
        compile(ASTSource(scale_add, SIG, {"BLOCK": 8}), target="cuda")
    with pytest.raises(TypeError, match="ASTSource, an IRSource or a path"):
        compile(scale_add, target=CPU)
    with pytest.raises(ValueError, match="num_warps must be a power of 2, got 3"):
        compile(ASTSource(scale_add, SIG, {"BLOCK": 8}), target=CPU, options={"num_warps": 3})
    llir = _write(tmp_path, "k.llir", 'define void @k() {\n  ret void\n}\n')
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")  # (the evaluator: one stage)
    with pytest.raises(ValueError, match="has no stage 'llir'.*stages: ttir"):
        compile(llir, target=CPU)
    with pytest.raises(RuntimeError, match="no registered backend supports"):
        compile(ASTSource(scale_add, SIG, {"BLOCK": 8}), target=GPUTarget("hip", "gfx942", 64))


def test_signature_forms_agree():
    a = ASTSource(scale_add, SIG, {"BLOCK": 16})
    b = ASTSource(scale_add, "*fp32, *fp32, *fp32, i32, fp32, constexpr", {(5,): 16})
    c = ASTSource(scale_add, {i: t for i, t in enumerate(SIG.values())}, {5: 16})
    assert a.specialization() == b.specialization() == c.specialization()
    assert a.hash() == b.hash()


def test_triton_key_names_version_and_sources():
    from tritium.compiler.compiler import triton_key
    key = triton_key()
    assert key.startswith(tritium.__version__ + "-") and re.fullmatch(r"[0-9a-f]{64}", key.split("-")[-1])



def _named(spec):
    ty = spec.signature["n"]
    ones = "_".join(k for k, v in spec.constants.items() if v == 1)
    return f"my.module.scale_{ty}_{ones}"


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda", marks=needs_ptxas)])
def test_jit_repr_names_the_kernel(target, rng):
    """`@jit(repr=...)` names the kernel's symbol from the specialisation (upstream's
    test_value_specialization): the part after the last ".", in the TTIR, the PTX and the
    metadata that loading uses."""
    k = tritium.jit(repr=_named)(scale_add.fn)
    tgt = CPU if target == "cpu" else CUDA90
    h = compile(ASTSource(k, {**SIG, "alpha": "constexpr"}, {"BLOCK": 32, "alpha": 1}),
                target=tgt)
    assert h.name == h.metadata.name == "scale_i32_alpha"
    assert "tt.func public @scale_i32_alpha" in h.asm["ttir"]
    if target == "cuda":
        assert ".entry scale_i32_alpha" in h.asm["ptx"]
    else:
        n = 50
        x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        out = np.zeros(n, np.float32)
        h[(2,)](x, y, out, n, 1, 32)
        np.testing.assert_allclose(out, x + y, rtol=1e-6)
    bad = tritium.jit(repr=lambda spec: "not a name")(scale_add.fn)
    with pytest.raises(ValueError, match="'not a name', which is not a valid kernel name"):
        compile(ASTSource(bad, SIG, {"BLOCK": 32}), target=tgt)


@needs_ptxas
def test_ptx_file_that_ptxas_rejects_names_its_line_and_column(tmp_path):
    import pickle
    from tritium.compiler.errors import PTXSourceError
    from tritium.errors import PTXASError
    k = compile(ASTSource(scale_add, SIG, {"BLOCK": 128}), target=CUDA90)
    lines = k.asm["ptx"].splitlines()
    bad = next(i for i, line in enumerate(lines) if "st.global" in line)
    lines[bad] = lines[bad].replace("st.global", "st.globl", 1)
    path = _write(tmp_path, "bad.ptx", "\n".join(lines) + "\n")
    with pytest.raises(PTXSourceError) as info:
        compile(path, target=CUDA90)
    e = info.value
    col = lines[bad].index(".globl") + 1
    assert str(e).startswith(f"{path}:{bad + 1}:{col}: ptxas: Unknown modifier '.globl'")
    assert (e.line, e.col) == (bad + 1, col) and "internal tritium" not in str(e)
    assert isinstance(e, PTXASError) and isinstance(e, IRSourceError)  # autotuners catch it
    assert str(pickle.loads(pickle.dumps(e))) == str(e)
