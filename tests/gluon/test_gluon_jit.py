"""`gluon.jit` as upstream's: the names through compat (`triton.experimental.gluon`), the
JIT options (`repr=`, `launch_metadata`, `do_not_specialize`, `num_warps=`), layouts as
constexpr arguments keying the cache, `constexpr_function` building a layout, and the
source a Gluon kernel compiles from (`is_gluon`, first stage "ttgir")."""
import numpy as np
import pytest

import tritium
from tritium.backends.compiler import GPUTarget, Language
from tritium.compiler import ASTSource, compile
from tritium.experimental import gluon
from tritium.experimental.gluon import language as gl

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("private_cache")


@gluon.constexpr_function
def row_layout(num_warps):
    return gl.BlockedLayout([1], [32], [num_warps], [0])


@gluon.jit(repr=lambda spec: f"scale_{spec.constants['BLOCK']}",
           launch_metadata=lambda grid, kernel, args: {"name": f"scale<{args['n']}>"},
           do_not_specialize=["n"])
def scale_kernel(x_ptr, out_ptr, n, BLOCK: gl.constexpr):
    layout: gl.constexpr = row_layout(gl.num_warps())
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    gl.store(out_ptr + offs, gl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@gluon.jit
def layout_arg_kernel(out_ptr, layout: gl.constexpr):
    offs = gl.arange(0, 128, layout=layout)
    gl.store(out_ptr + offs, offs)


def test_names_through_compat():
    tritium.compat.install()
    try:
        _check_names()
    finally:
        tritium.compat.uninstall()


def _check_names():
    import triton.experimental.gluon as tg
    from triton.experimental.gluon import language as tgl
    from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction
    assert tg.jit is gluon.jit and tgl.BlockedLayout is gl.BlockedLayout
    assert isinstance(scale_kernel, GluonJITFunction) and scale_kernel.is_gluon()
    for name in ("jit", "constexpr_function", "must_use_result"):
        assert hasattr(tg, name)
    for name in ("arange", "full", "zeros", "zeros_like", "full_like", "load", "store",
                 "convert_layout", "expand_dims", "broadcast", "reshape", "permute", "join",
                 "split", "sum", "max", "min", "xor_sum", "reduce", "where", "maximum",
                 "minimum", "cast", "exp", "sqrt", "static_range", "static_assert",
                 "static_print", "thread_barrier", "set_auto_layout", "num_warps",
                 "program_id", "num_programs", "allocate_shared_memory", "distributed_type",
                 "shared_memory_descriptor", "AutoLayout", "BlockedLayout", "SliceLayout",
                 "DistributedLinearLayout", "NVMMADistributedLayout", "DotOperandLayout",
                 "SwizzledSharedLayout", "NVMMASharedLayout", "atomic_add", "atomic_cas"):
        assert hasattr(tgl, name), name
    src = GluonASTSource(scale_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                         {"BLOCK": 128})
    assert src.language == Language.GLUON and src.ext == "ttgir"


def test_source_and_stages():
    src = ASTSource(scale_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                    {"BLOCK": 128})
    assert src.language == Language.GLUON and src.ext == "ttgir"
    k = compile(src, target=GPUTarget("cuda", 90, 32))
    assert list(k.asm) == ["ttgir", "llir", "ptx", "cubin"]
    assert k.metadata.name == "scale_128"
    assert ".entry scale_128" in k.asm["ptx"]
    cpu = compile(src, target=GPUTarget("cpu", 0, 32))
    assert list(cpu.asm)[:2] == ["ttgir", "ttir"]
    assert "#ttg.blocked" in cpu.asm["ttgir"] and "#ttg.blocked" not in cpu.asm["ttir"]


def test_launch_options_and_metadata(rng):
    x = torch.from_numpy(rng.standard_normal(1000).astype(np.float32))
    out = torch.empty(1000)
    seen = []

    def hook(meta):
        seen.append(meta.get()["name"])
    tritium.knobs.runtime.launch_enter_hook.add(hook)
    try:
        for warps in (2, 8):
            k = scale_kernel[(8,)](x, out, 1000, BLOCK=128, num_warps=warps)
            np.testing.assert_allclose(out.numpy(), 2 * x.numpy())
            assert k.metadata.num_warps == warps
    finally:
        tritium.knobs.runtime.launch_enter_hook.remove(hook)
    assert seen == ["scale<1000>", "scale<1000>"]
    # do_not_specialize: n's value (1000 is divisible by 16, 999 is not) is no part of the key
    cache = scale_kernel.cache[list(scale_kernel.cache)[0]]
    before = len(cache)
    scale_kernel[(8,)](x, out, 999, BLOCK=128, num_warps=2)
    assert len(cache) == before


def test_layout_constexpr_keys_the_cache():
    out = torch.empty(128, dtype=torch.int32)
    a = layout_arg_kernel[(1,)](out, gl.BlockedLayout([1], [32], [4], [0]))
    b = layout_arg_kernel[(1,)](out, gl.BlockedLayout([4], [32], [4], [0]))
    c = layout_arg_kernel[(1,)](out, gl.BlockedLayout([1], [32], [4], [0]))
    assert a is c and a is not b
    assert "sizePerThread = [4]" in b.asm["ttgir"]
    np.testing.assert_array_equal(out.numpy(), np.arange(128))


def test_ast_source_for_sm80():
    """Upstream's offline compile of a Gluon source for another arch (sm_80: ptxas'
    sm_80), parameters' divisibility kept in the TTGIR."""
    src = gluon.GluonASTSource(
        layout_arg_kernel, signature={"out_ptr": "*i32", "layout": "constexpr"},
        constexprs={"layout": gl.BlockedLayout([1], [32], [4], [0])},
        attrs={(0,): [["tt.divisibility", 16]]})
    k = compile(src, target=GPUTarget("cuda", 80, 32))
    assert "tt.divisibility = 16" in k.asm[src.ext] and src.ext == "ttgir"
    assert '"cuda:80"' in k.asm["ttgir"] and ".target sm_80" in k.asm["ptx"]
    assert k.asm["cubin"]
