"""Gluon kernels compiled for sm_90a without a GPU: the TTGIR keeps the user's layouts
(FileCheck; no coalescing or layout-removal pass touches them), obeys the TTGIR contract,
and goes on through LLVM IR and PTX to a cubin assembled by ptxas."""
import contextlib
import io
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from gluon_kernels import (atomic_kernel, auto_layout_kernel, binary_kernel, blocked_1d,  # noqa: E402
                           blocked_2d, convert_kernel, loop_kernel, num_warps_kernel,
                           misc_kernel, permute_reshape_kernel, reduce_all_kernel, smem_ring_kernel,
                           smem_roundtrip_kernel, smem_views_kernel, tile_2d_kernel)
from gluon_kernels import layout_keeping_kernel  # noqa: E402
from tritium.experimental.gluon import language as gl  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.compiler import ASTSource, compile  # noqa: E402
from tritium.gpu.passes import check_ttgir_legality  # noqa: E402
from tritium.ir.parser import parse_module  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")

SM90 = GPUTarget("cuda", 90, 32)
L2 = blocked_2d()
L2T = blocked_2d((4, 1), (8, 4), (1, 4), (0, 1))

CASES = {
    "binary": (binary_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp16", "n": "i32"},
               {"BLOCK": 512, "layout": blocked_1d(4)}),
    "tile_2d": (tile_2d_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "row_ptr": "*fp32",
                                 "col_ptr": "*fp32", "M": "i32", "N": "i32", "stride_m": "i32"},
                {"BM": 32, "BN": 16, "layout": L2}),
    "convert": (convert_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                {"M": 32, "N": 16, "src": L2, "dst": L2T}),
    "permute_reshape": (permute_reshape_kernel, {"x_ptr": "*fp32", "t_ptr": "*fp32", "r_ptr": "*fp32"},
                        {"M": 32, "N": 16, "layout": L2}),
    "loop": (loop_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_chunks": "i32"},
             {"BLOCK": 128, "UNROLL": 2, "layout": blocked_1d()}),
    "atomic": (atomic_kernel, {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32"},
               {"BLOCK": 256, "BINS": 8, "layout": blocked_1d()}),
    "auto_layout": (auto_layout_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                    {"BLOCK": 128, "layout": blocked_1d()}),
    "num_warps": (num_warps_kernel, {"out_ptr": "*i32"}, {"BLOCK": 256}),
    "reduce_all": (reduce_all_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                   {"M": 32, "N": 16, "layout": L2}),
    "smem_roundtrip": (smem_roundtrip_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                               "outt_ptr": "*fp32"},
                       {"M": 32, "N": 16, "src": L2, "dst": L2T, "dst_t": L2,
                        "smem": gl.SwizzledSharedLayout(4, 2, 4, [1, 0])}),
    "smem_roundtrip_nvmma": (smem_roundtrip_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp16",
                                                     "outt_ptr": "*fp16"},
                             {"M": 32, "N": 64, "src": L2, "dst": L2T, "dst_t": L2,
                              "smem": gl.NVMMASharedLayout(128, 16, 2)}),
    "smem_ring": (smem_ring_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "half_ptr": "*fp32",
                                     "n_tiles": "i32"},
                  {"BLOCK": 128, "SLOTS": 3, "layout": blocked_1d(),
                   "smem": gl.SwizzledSharedLayout(1, 1, 1, [0])}),
    "misc": (misc_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"M": 32, "N": 16, "layout": L2}),
    "layout_keeping": (layout_keeping_kernel, {"x_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32",
                                               "hist_ptr": "*i32"}, {"N": 128, "layout": blocked_1d(2)}),
    "smem_views": (smem_views_kernel, {"x_ptr": "*fp32", "flat_ptr": "*fp32", "bits_ptr": "*i32"},
                   {"M": 32, "N": 16, "layout": L2, "flat": blocked_1d(2)}),
}


def _compile(name, **options):
    fn, sig, constexprs = CASES[name]
    return compile(ASTSource(fn, sig, constexprs), target=SM90, options=options or None)


def filecheck(checks: str, output: str) -> None:
    from filecheck.finput import FInput
    from filecheck.matcher import Matcher
    from filecheck.options import Options
    from filecheck.parser import Parser, pattern_for_opts
    opts = Options(match_filename="<checks>", input_file="<output>", check_prefixes="CHECK")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        ops = Parser(opts, io.StringIO(checks), *pattern_for_opts(opts))
        rc = Matcher(opts, FInput("<output>", output), ops).run()
    assert rc == 0, err.getvalue() + "\n--- output ---\n" + output


@pytest.mark.parametrize("name", sorted(CASES))
def test_cubin_for_sm90a(name):
    k = _compile(name)
    assert list(k.asm) == ["ttgir", "llir", "ptx", "cubin"]  # no TTIR stage: Gluon starts at TTGIR
    assert ".target sm_90a" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"
    check_ttgir_legality(parse_module(k.asm["ttgir"]))


def test_user_layouts_kept():
    ttgir = _compile("tile_2d").asm["ttgir"]
    filecheck("""
CHECK: #[[B:.*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
CHECK: "ttg.num-warps" = 4 : i32
CHECK-SAME: ttg.target = "cuda:90"
CHECK: tt.make_range {{.*}} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #[[B]]}>>
CHECK: tt.make_range {{.*}} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #[[B]]}>>
CHECK: tt.expand_dims {{.*}} -> tensor<32x1xi32, #[[B]]>
CHECK: tt.load {{.*}} : tensor<32x16x!tt.ptr<f32>, #[[B]]>
CHECK: "tt.reduce"
CHECK: {axis = 1 : i32} : (tensor<32x16xf32, #[[B]]>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #[[B]]}>>
CHECK-NOT: ttg.convert_layout
CHECK: tt.return
""", ttgir)


def test_convert_layout_kept_and_costs_shared_memory():
    k = _compile("convert")
    filecheck("""
CHECK: #[[S:.*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
CHECK: #[[D:.*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
CHECK: tt.load {{.*}} : tensor<32x16x!tt.ptr<f32>, #[[S]]>
CHECK: ttg.convert_layout {{.*}} : tensor<32x16xf32, #[[S]]> -> tensor<32x16xf32, #[[D]]>
CHECK: tt.store {{.*}} : tensor<32x16x!tt.ptr<f32>, #[[D]]>
""", k.asm["ttgir"])
    assert k.metadata.shared > 0


def test_auto_layout_resolved():
    ttgir = _compile("auto_layout").asm["ttgir"]
    assert "auto_encoding" not in ttgir
    filecheck("""
CHECK: #[[B:.*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
CHECK: tt.make_range {{.*}} : tensor<128xi32, #[[B]]>
CHECK-NOT: ttg.convert_layout
""", ttgir)


@pytest.mark.parametrize("num_warps", [2, 8])
def test_num_warps_option(num_warps):
    k = _compile("num_warps", num_warps=num_warps)
    assert f'"ttg.num-warps" = {num_warps} : i32' in k.asm["ttgir"]
    assert f"warpsPerCTA = [{num_warps}]" in k.asm["ttgir"]
    assert k.metadata.num_warps == num_warps


def test_permute_layout_inferred_without_data_movement():
    ttgir = _compile("permute_reshape").asm["ttgir"]
    # The permute's result is the source layout with its fields swapped: no convert.
    filecheck("""
CHECK: #[[B:.*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
CHECK: #[[T:.*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
CHECK: tt.trans {{.*}} : tensor<32x16xf32, #[[B]]> -> tensor<16x32xf32, #[[T]]>
""", ttgir)


def test_smem_ops_and_barriers():
    """The buffer ops as written, with barriers exactly where another thread's write or
    read may be pending: before the loop's store (the previous iteration read), before the
    read of a slot another thread just wrote, none between two reads."""
    k = _compile("smem_ring")
    filecheck("""
CHECK: #[[S:.*]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
CHECK: ttg.local_alloc{{.*}}allocation.offset = 0 : i32{{.*}}!ttg.memdesc<3x128xf32, #[[S]]
CHECK: ttg.memdesc_index
CHECK-NEXT: ttg.local_store
CHECK: scf.for
CHECK: ttg.memdesc_index
CHECK: ttg.barrier
CHECK-NEXT: ttg.local_store
CHECK: ttg.barrier
CHECK-NEXT: ttg.local_load
CHECK: ttg.memdesc_subslice{{.*}}offsets = array<i32: 64>
CHECK-NOT: ttg.barrier
CHECK: ttg.local_load
CHECK: tt.return
""", k.asm["ttgir"])
    assert k.metadata.shared == 3 * 128 * 4


def test_smem_slice_refused_across_the_swizzle():
    from tritium.compiler import CompilationError
    from tritium.experimental import gluon

    @gluon.jit
    def bad_slice(out, smem: gl.constexpr, layout: gl.constexpr):
        buf = gl.allocate_shared_memory(gl.float32, [32, 16], smem)
        v = buf.slice(3, 8, dim=0).load(layout)
        gl.store(out + gl.arange(0, 8, layout=gl.SliceLayout(1, layout))[:, None] * 16
                 + gl.arange(0, 16, layout=gl.SliceLayout(0, layout))[None, :], v)
    with pytest.raises(CompilationError, match="swizzle period"):
        compile(ASTSource(bad_slice, {"out": "*fp32"},
                          {"smem": gl.SwizzledSharedLayout(4, 2, 4, [1, 0]), "layout": L2}),
                target=SM90)


OTHER_LAYOUTS = {
    "mma_v3": (gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 16, 16]),
               "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
               "instrShape = [16, 16, 16]}>"),
    "linear": (gl.DistributedLinearLayout([[0, 1], [0, 2]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                          [[8, 0], [16, 0]], [], [32, 16]),
               "#ttg.linear<{register = [[0, 1], [0, 2]]"),
    "dot_operand": (gl.DotOperandLayout(1, gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2),
                    "#ttg.dot_op<{opIdx = 1, parent = #"),
}


@pytest.mark.parametrize("name", sorted(OTHER_LAYOUTS))
def test_other_layouts_compile(name):
    layout, text = OTHER_LAYOUTS[name]
    k = compile(ASTSource(convert_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                          {"M": 32, "N": 16, "src": L2, "dst": layout}), target=SM90)
    assert text in k.asm["ttgir"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_noinline_callee_stays_a_call():
    ttgir = _compile("misc").asm["ttgir"]
    assert "tt.call @_shifted" in ttgir and "tt.func private @_shifted" in ttgir
