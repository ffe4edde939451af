"""Gluon kernels the compiler must refuse, each a CompilationError at the user's line whose
message says what is wrong (both layouts of a mismatch, the slice expand_dims wants, ...),
and layouts refused when they are built."""
import pytest

from tritium.compiler import ASTSource, CompilationError, compile
from tritium.backends.compiler import GPUTarget
from tritium.experimental import gluon
from tritium.experimental.gluon import language as gl

pytestmark = pytest.mark.usefixtures("private_cache")

A = gl.BlockedLayout([1], [32], [4], [0])
B = gl.BlockedLayout([2], [32], [4], [0])
L2 = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])


@gluon.jit
def mismatch_kernel(out, la: gl.constexpr, lb: gl.constexpr):
    a = gl.arange(0, 128, layout=la)
    b = gl.arange(0, 128, layout=lb)
    c = a + b
    gl.store(out + a, c)


@gluon.jit
def no_layout_kernel(out):
    offs = gl.arange(0, 128)
    gl.store(out + offs, offs)


@gluon.jit
def expand_dims_kernel(out, layout: gl.constexpr):
    rows = gl.arange(0, 32, layout=gl.SliceLayout(0, layout))
    r2 = gl.expand_dims(rows, 1)
    gl.store(out + r2, r2)


@gluon.jit
def bad_warps_kernel(out, layout: gl.constexpr):
    offs = gl.arange(0, 128, layout=layout)
    gl.store(out + offs, offs)


@gluon.jit
def split_kernel(out, layout: gl.constexpr):
    rows = gl.arange(0, 32, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, 2, layout=gl.SliceLayout(0, layout))
    x = gl.expand_dims(rows, 1) * 2 + gl.expand_dims(cols, 0)
    a, b = gl.split(x)
    gl.store(out + a, b)


@gluon.jit
def inline_layout_kernel(out):
    layout: gl.constexpr = gl.BlockedLayout([3], [32], [4], [0])
    offs = gl.arange(0, 128, layout=layout)
    gl.store(out + offs, offs)


def _compile(fn, sig, constexprs, target=None):
    return compile(ASTSource(fn, sig, constexprs), target=target or GPUTarget("cuda", 90, 32))


def _error(fn, sig, constexprs, target=None) -> CompilationError:
    with pytest.raises(CompilationError) as info:
        _compile(fn, sig, constexprs, target)
    return info.value


@pytest.mark.parametrize("target", [GPUTarget("cuda", 90, 32), GPUTarget("cpu", 0, 32)])
def test_layout_mismatch_names_both_layouts(target):
    e = _error(mismatch_kernel, {"out": "*i32"}, {"la": A, "lb": B}, target)
    text = str(e)
    assert "c = a + b" in text.splitlines()[-3] or "c = a + b" in text
    assert "Layout mismatch" in text
    assert "size_per_thread=[1]" in text and "size_per_thread=[2]" in text
    assert e.node.lineno == 4  # the `+` line of the kernel


def test_arange_without_layout_is_unresolved():
    e = _error(no_layout_kernel, {"out": "*i32"}, {})
    assert "could not infer a layout" in str(e)
    assert e.node is not None and e.node.lineno == 2


def test_expand_dims_needs_the_matching_slice():
    e = _error(expand_dims_kernel, {"out": "*i32"}, {"layout": L2})
    assert "SliceLayout with dim=1" in str(e) and "dim=0" in str(e)
    assert e.node.lineno == 3


def test_layout_must_cover_the_warps():
    e = _error(bad_warps_kernel, {"out": "*i32"}, {"layout": gl.BlockedLayout([1], [32], [2], [0])})
    assert "num_warps=4" in str(e)
    e = _error(bad_warps_kernel, {"out": "*i32"}, {"layout": gl.BlockedLayout([1], [16], [4], [0])})
    assert "threads of a warp" in str(e)


def test_split_needs_the_pair_in_registers():
    e = _error(split_kernel, {"out": "*i32"}, {"layout": gl.BlockedLayout([1, 1], [16, 2], [4, 1], [1, 0])})
    assert "registers" in str(e)
    assert e.node.lineno == 5


def test_non_power_of_two_fields():
    with pytest.raises(ValueError, match="size_per_thread must be powers of two"):
        gl.BlockedLayout([3], [32], [4], [0])
    with pytest.raises(ValueError, match="warps_per_cta must be powers of two"):
        gl.BlockedLayout([1, 1], [4, 8], [3, 1], [1, 0])
    with pytest.raises(ValueError, match="order must be a permutation"):
        gl.BlockedLayout([1, 1], [4, 8], [4, 1], [0, 0])
    e = _error(inline_layout_kernel, {"out": "*i32"}, {})
    assert "powers of two" in str(e) and e.node.lineno == 2


def test_layout_rank_must_match_shape():
    @gluon.jit
    def rank_kernel(out, layout: gl.constexpr):
        offs = gl.arange(0, 128, layout=layout)
        gl.store(out + offs, offs)
    e = _error(rank_kernel, {"out": "*i32"}, {"layout": L2})
    assert "rank 2" in str(e)
