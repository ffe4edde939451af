"""MLIR_ENABLE_DIAGNOSTICS=remarks: the compiler's performance remarks on stderr, as
upstream's (its test_perf_warning.py): a dot Hopper could not put on wgmma, a load or store
done one element at a time; `operations` adds the op. Compiled for sm_90a, no GPU needed."""
import inspect

import pytest

import tritium
import tritium.language as tl
from tritium.backends.nvidia.toolchain import find_ptxas
from tritium.compiler import ASTSource, GPUTarget, compile

CUDA90 = GPUTarget("cuda", 90, 32)
pytestmark = [pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed"),
              pytest.mark.usefixtures("private_cache")]


@tritium.jit
def dot_k(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], c)


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _compile_dot(m):
    return compile(ASTSource(dot_k, "*fp16, *fp16, *fp32, constexpr, constexpr, constexpr",
                             {"M": m, "N": 64, "K": 64}), target=CUDA90)


def test_mma_v3_remark_names_the_dot_line(monkeypatch, capfd):
    monkeypatch.setenv("MLIR_ENABLE_DIAGNOSTICS", "remarks")
    _compile_dot(32)                        # M = 32: below wgmma's 64 rows
    err = capfd.readouterr().err
    line = _line(dot_k, "tl.dot")
    assert f"test_remarks.py:{line}:" in err
    assert "remark: MMA version 3 acceleration not applied due to unsupported shapes or data " \
           "types." in err
    assert "note: Target compute capability (90) supports MMA v3." in err
    assert "see current operation" not in err
    _compile_dot(64)                        # wgmma: nothing to say about the dot
    assert "MMA version 3" not in capfd.readouterr().err


def test_operations_adds_the_op_and_recompiles(monkeypatch, capfd):
    monkeypatch.setenv("MLIR_ENABLE_DIAGNOSTICS", "remarks")
    _compile_dot(32)
    capfd.readouterr()
    # Another setting is another kernel in the cache (as upstream's key), so the remarks
    # come again, with the op this time.
    monkeypatch.setenv("MLIR_ENABLE_DIAGNOSTICS", "remarks,operations")
    _compile_dot(32)
    err = capfd.readouterr().err
    assert "note: see current operation: " in err and "tt.dot" in err.split("see current")[1]


def test_no_remarks_unless_asked(monkeypatch, capfd):
    monkeypatch.delenv("MLIR_ENABLE_DIAGNOSTICS", raising=False)
    _compile_dot(32)
    assert "remark" not in capfd.readouterr().err


@tritium.jit
def gather_k(X, Idx, Out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(X + tl.load(Idx + offs))      # a gather: one element at a time
    tl.store(Out + offs, v)


def test_vectorization_remark_for_a_gather_only(monkeypatch, capfd):
    monkeypatch.setenv("MLIR_ENABLE_DIAGNOSTICS", "remarks")
    compile(ASTSource(gather_k, {"X": "*fp32", "Idx": "*i32", "Out": "*fp32", "BLOCK":
                                 "constexpr"}, {"BLOCK": 1024},
                      attrs={"X": [["tt.divisibility", 16]], "Idx": [["tt.divisibility", 16]],
                             "Out": [["tt.divisibility", 16]]}),
            target=CUDA90, options={"num_warps": 1})
    err = [line for line in capfd.readouterr().err.splitlines() if "vectorization fails" in line]
    gather = _line(gather_k, "tl.load(X")
    assert len(err) == 1 and f"test_remarks.py:{gather}:" in err[0], err
    assert "remark: Warning: vectorization fails vec = 1 " in err[0]
    assert "numElems = 32 mask is -1" in err[0]
