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
                           permute_reshape_kernel, reduce_all_kernel, tile_2d_kernel)
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
