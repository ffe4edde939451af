"""remove-layout-conversions with loads smaller than the block (a row's mean and rstd beside
its row): such a load is no layout anchor (upstream's isExpensiveLoadOrStore rule), reads in
its address's layout, and a convert of what it grows into is rematerialized from a convert
of the tiny value. Before, its layout (threads along the rows) flowed through the broadcast
into the row-wide values, each thread held a whole 1x1024 row, and Inductor's layer-norm
backward spilled 35 KB per thread and ran 26x slower than upstream on the H100."""
import re

import pytest

from tests.blockptr.test_tma_compile import compile_sm90
from tests.gpu_passes.row_kernels import norm_bwd_rows, norm_bwd_spec


def _loop(ttgir: str) -> str:
    start = ttgir.index("scf.for")
    return ttgir[start:ttgir.index("scf.yield", start)]


@pytest.mark.parametrize("R,XBLOCK,num_warps", [(1024, 1, 4), (512, 2, 1), (256, 4, 4),
                                                (128, 8, 8)])
def test_row_scalars_do_not_spread_their_layout(R, XBLOCK, num_warps):
    out = compile_sm90(norm_bwd_rows, norm_bwd_spec(R, XBLOCK), num_warps=num_warps,
                       num_stages=1)
    ttgir = out["ttgir"]
    # no conversion of a row-wide value in the loop (a tile read once per row may be)
    wide_cvts = re.findall(rf"ttg\.convert_layout .*tensor<{XBLOCK}x{R}x", _loop(ttgir))
    assert not wide_cvts, wide_cvts
    # every row-wide tensor in the loop lives in the layout of the row-wide loads
    layouts = dict(re.findall(r"^(#\w+) = (#ttg\.blocked<.*>)$", ttgir, re.M))
    wide = set(re.findall(rf"tensor<{XBLOCK}x{R}x[^,>]+, (#\w+)>", _loop(ttgir)))
    assert len(wide) == 1, (wide, layouts)
    if out["kernel"] is not None:  # ptxas found
        assert out["kernel"].spill_stores == 0


def test_tiny_load_follows_its_address():
    ttgir = compile_sm90(norm_bwd_rows, norm_bwd_spec(1024, 1), num_warps=4,
                         num_stages=1)["ttgir"]
    loads = re.findall(r"tt\.load .*: tensor<1x1x!tt\.ptr<f32>, (#\w+)>", _loop(ttgir))
    wide = re.findall(r"tt\.load .*: tensor<1x1024x!tt\.ptr<f16>, (#\w+)>", _loop(ttgir))
    assert len(loads) == 2 and set(loads) == set(wide[:1]), (loads, wide)
