"""Pass manager: pipeline strings, options, dumps, timing, verify-each, failures."""
import io
import os

import pytest

from tritium.ir import types as T
from tritium.ir.builder import Builder
from tritium.ir.core import make_module, module_body
from tritium.ir.attrs import StringAttr, TypeAttr
from tritium.passes import (PASS_REGISTRY, Pass, PassError, PassFailure, PassManager,
                            make_ttir_pipeline, parse_pipeline, register_pass,
                            registered_passes)
from tritium.passes.manager import _verifier


def kernel(name="k"):
    """tt.func @name(%x: i32) -> i32 { return (x + 0) * 1 }"""
    m = make_module()
    b = Builder(module_body(m))
    fty = T.FunctionType((T.i32,), (T.i32,))
    f = b.create("tt.func", [], [], {"sym_name": StringAttr(name), "function_type": TypeAttr(fty),
                                      "sym_visibility": StringAttr("public")}, num_regions=1)
    blk = f.regions[0].add_block()
    x = blk.add_argument(T.i32)
    b.set_insertion_point_to_end(blk)
    y = b.create1("arith.addi", [x, b.constant(0, T.i32)], T.i32)
    z = b.create1("arith.muli", [y, b.constant(1, T.i32)], T.i32)
    b.create("tt.return", [z])
    return m, f


def ops_of(m):
    return [op.name for op in m.walk()]


def test_registry_names():
    # (the TTGIR passes register here too once tritium.gpu.passes is imported)
    assert {"canonicalize", "combine", "cse", "dce", "inline", "licm", "loop-unroll",
            "reorder-broadcast", "symbol-dce"} <= set(registered_passes())
    assert registered_passes() == sorted(registered_passes())
    # upstream spellings resolve to the same passes
    for alias, name in [("inliner", "inline"), ("triton-combine", "combine"),
                        ("triton-reorder-broadcast", "reorder-broadcast"),
                        ("loop-invariant-code-motion", "licm"),
                        ("triton-loop-unroll", "loop-unroll")]:
        assert PASS_REGISTRY[alias] is PASS_REGISTRY[name]


def test_parse_pipeline():
    assert parse_pipeline("canonicalize,cse") == [("canonicalize", {}), ("cse", {})]
    assert parse_pipeline("builtin.module(canonicalize, loop-unroll{factor=2 unroll-factor=3})") \
        == [("canonicalize", {}), ("loop-unroll", {"factor": "2", "unroll-factor": "3"})]
    assert parse_pipeline("builtin.module(tt.func(cse),dce)") == [("cse", {}), ("dce", {})]
    assert parse_pipeline("canonicalize{max-iterations=3,test-convergence}") == [
        ("canonicalize", {"max-iterations": "3", "test-convergence": "true"})]
    with pytest.raises(PassError):
        parse_pipeline("canonicalize{max-iterations=3")
    with pytest.raises(PassError):
        parse_pipeline("builtin.module(cse")


def test_options_and_errors():
    pm = PassManager("loop-unroll{factor=4},canonicalize{max-iterations=2}")
    assert pm.passes[0].factor == 4 and pm.passes[1].max_iterations == 2
    assert pm.pipeline_text() == "loop-unroll{factor=4},canonicalize{max-iterations=2}"
    with pytest.raises(PassError, match="unknown pass 'nope'"):
        PassManager("nope")
    with pytest.raises(PassError, match="no option 'bogus'"):
        PassManager("cse{bogus=1}")
    with pytest.raises(PassError, match="expects int"):
        PassManager("loop-unroll{factor=many}")
    pm = PassManager().add("loop-unroll", factor=3)
    assert pm.passes[0].factor == 3


def test_run_and_timing():
    m, _ = kernel()
    pm = PassManager("canonicalize,cse")
    assert pm.run(m) is m
    assert ops_of(m) == ["builtin.module", "tt.func", "tt.return"]
    assert set(pm.timings) == {"canonicalize", "cse"}
    assert all(ms >= 0 for ms in pm.timings.values())
    assert [label for label, _ in pm.timing_records] == ["canonicalize", "cse"]
    assert "canonicalize" in pm.timing_report()


def test_timing_env(monkeypatch):
    m, _ = kernel()
    out = io.StringIO()
    monkeypatch.setenv("TRITON_ENABLE_TIMING", "1")
    PassManager("cse", dump_stream=out).run(m)
    assert "pass timing report" in out.getvalue()


@pytest.mark.parametrize("setting,dumped", [("1", True), ("k", True), ("other", False), ("0", False)])
def test_dump_env(monkeypatch, setting, dumped):
    m, _ = kernel("k")
    out = io.StringIO()
    monkeypatch.setenv("MLIR_ENABLE_DUMP", setting)
    PassManager("canonicalize", dump_stream=out).run(m)
    text = out.getvalue()
    if not dumped:
        assert text == ""
        return
    before, after = text.split("// -----// IR Dump After canonicalize (")
    assert before.startswith("// -----// IR Dump Before canonicalize //----- //")
    assert "arith.addi" in before and "arith.addi" not in after
    assert " ms) //----- //" in after


class Boom(Pass):
    name = "test-boom"

    def run(self, module):
        for op in module.walk():
            if op.name == "arith.addi":
                op.erase()  # still used: raises, after the IR was already touched


class BreakIR(Pass):
    name = "test-break-ir"

    def run(self, module):
        # leave an op whose operand is defined after it: invalid dominance
        for op in module.walk():
            if op.name == "arith.muli":
                op.move_before(op.parent.first)
                return


def test_pass_failure_keeps_ir_before(tmp_path):
    m, _ = kernel()
    pm = PassManager([Boom()])
    with pytest.raises(PassFailure) as info:
        pm.run(m)
    err = info.value
    assert err.pass_name == "test-boom"
    assert "arith.addi" in err.ir_before and "test-boom" in str(err)
    assert isinstance(err.cause, RuntimeError)
    assert err.repro_path and os.path.exists(err.repro_path)
    text = open(err.repro_path).read()
    assert text.startswith("// RUN: test-boom") and "arith.addi" in text
    os.unlink(err.repro_path)


@pytest.mark.skipif(_verifier() is None, reason="tritium.ir.verifier not available")
def test_verify_each_catches_broken_ir():
    m, _ = kernel()
    PassManager([BreakIR()]).run(m)  # without verification nothing notices
    m, _ = kernel()
    with pytest.raises(PassFailure) as info:
        PassManager([BreakIR()], verify_each=True, reproducer=False).run(m)
    assert info.value.pass_name == "test-break-ir"
    assert info.value.repro_path is None


def test_register_custom_pass():
    @register_pass
    class Count(Pass):
        name = "test-count-ops"
        options = {"kind": (str, "arith.addi", "op name to count")}
        seen = []

        def run(self, module):
            Count.seen.append(sum(op.name == self.kind for op in module.walk()))

    try:
        m, _ = kernel()
        PassManager("test-count-ops{kind=arith.muli},canonicalize,test-count-ops").run(m)
        assert Count.seen == [1, 0]
    finally:
        del PASS_REGISTRY["test-count-ops"]


def test_make_ttir_pipeline():
    pm = make_ttir_pipeline(verify_each=True)
    assert [p.name for p in pm.passes] == ["inline", "canonicalize", "combine",
                                           "reorder-broadcast", "cse", "symbol-dce",
                                           "loop-unroll"]
    assert pm.verify_each
    m, _ = kernel()
    pm.run(m)
    assert ops_of(m) == ["builtin.module", "tt.func", "tt.return"]


class Fail(Pass):
    name = "test-fail"

    def run(self, module):
        raise ValueError("nope")


def test_pass_failure_replays_the_passes_before():
    m, _ = kernel()
    with pytest.raises(PassFailure) as info:
        PassManager([PASS_REGISTRY["canonicalize"](), Fail()]).run(m)
    err = info.value
    assert err.pass_name == "test-fail" and isinstance(err.cause, ValueError)
    # the IR handed to the failing pass: already canonicalized
    assert "tt.return %arg0" in err.ir_before and "arith.addi" not in err.ir_before
    assert open(err.repro_path).read().startswith("// RUN: test-fail\n")
    os.unlink(err.repro_path)


@pytest.mark.skipif(_verifier() is None, reason="tritium.ir.verifier not available")
def test_verify_each_checks_the_input():
    m, _ = kernel()
    PassManager([BreakIR()]).run(m)
    with pytest.raises(PassFailure) as info:
        PassManager("cse", verify_each=True).run(m)
    assert info.value.pass_name == "(input)"
