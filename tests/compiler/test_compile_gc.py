"""The cyclic garbage collector is paused while compiles run (compiler.py's `_gc_paused`):
off inside every stage, back on after, left off when the user had turned it off, and a
compile that fails does not leave it off."""
import gc

import pytest

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia.backend import CUDABackend
from tritium.compiler import ASTSource, compile


@tritium.jit
def _add(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) + 1.0)


def _src(block):
    return ASTSource(_add, {"X": "*fp32", "Y": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": block})


@pytest.fixture
def watched(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    seen = []
    original = CUDABackend.make_ttgir

    def spy(self, module, options):
        seen.append(gc.isenabled())
        return original(self, module, options)
    monkeypatch.setattr(CUDABackend, "make_ttgir", spy)
    was = gc.isenabled()
    yield seen
    gc.enable() if was else gc.disable()


def test_collector_off_inside_on_after(watched):
    gc.enable()
    compile(_src(64), target=GPUTarget("cuda", 90, 32))
    assert watched == [False] and gc.isenabled()


def test_left_off_when_the_user_turned_it_off(watched):
    gc.disable()
    compile(_src(32), target=GPUTarget("cuda", 90, 32))
    assert watched == [False] and not gc.isenabled()


def test_a_failing_compile_turns_it_back_on(watched, monkeypatch):
    gc.enable()

    def boom(self, module, options):
        raise RuntimeError("lowering failed")
    monkeypatch.setattr(CUDABackend, "make_llir", boom)
    with pytest.raises(Exception, match="lowering failed"):
        compile(_src(128), target=GPUTarget("cuda", 90, 32))
    assert gc.isenabled()
