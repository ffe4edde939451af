"""The cross-warp stage of tt.reduce (lowering/reduce.py): when the shuffle tree replaces the
serial fold, and what it saves on Inductor's 16-warp softmax row reduction (lit/
reduce_warps16.mlir): per thread, 4 tree levels instead of 15 dependent combines per row."""
import re
from pathlib import Path

import pytest

from tritium.backends.nvidia import toolchain
from tritium.backends.nvidia.llvm import llir_to_ptx
from tritium.backends.nvidia.lowering import make_llir
from tritium.backends.nvidia.lowering import reduce as red
from tritium.ir.parser import parse_module

LIT = Path(__file__).with_name("lit")


@pytest.mark.parametrize("K,groups,slots,warps,tree", [
    (16, 2, 32, 16, True),     # Inductor's softmax: XBLOCK=2, 16 warps along the row
    (8, 1, 16, 8, True),       # one output per thread, 8 warps
    (8, 64, 512, 8, True),     # many outputs per thread
    (32, 1, 128, 32, True),
    (4, 1, 128, 4, False),     # 4 warps, one output: 3 combines beat a tree + barrier
    (2, 8, 256, 2, False),     # 2 partials: never
    (64, 1, 64, 64, False),    # more partials than lanes
    (16, 1, 48, 16, False),    # slots not a power of two
])
def test_tree_choice(K, groups, slots, warps, tree):
    assert red.use_shuffle_tree(K, groups, slots, warps) is tree


def _ptx(path, monkeypatch, tree: bool) -> str:
    if not tree:
        monkeypatch.setattr(red, "use_shuffle_tree", lambda *a: False)
    llir, _ = make_llir(parse_module(path.read_text()))
    ptx = llir_to_ptx(llir)
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx)
        assert info.kernel is None or info.kernel.spill_stores == 0
    return ptx


def _count(ptx: str, opcode: str) -> int:
    return len(re.findall(rf"^\s*(?:@%p\d+ )?{re.escape(opcode)}\b", ptx, re.M))


def test_tree_replaces_serial_chain(monkeypatch):
    path = LIT / "reduce_warps16.mlir"
    tree = _ptx(path, monkeypatch, True)
    serial = _ptx(path, monkeypatch, False)
    # 2 rows x (3 in-thread + 5 lane) combines, then the cross-warp stage: 4 tree levels
    # (one row per 16-lane group) vs 2 rows x 15 serial combines
    assert _count(tree, "setp.gt.f32") == 2 * (3 + 5) + 4
    assert _count(serial, "setp.gt.f32") == 2 * (3 + 5) + 2 * 15
    assert _count(tree, "shfl.sync.bfly.b32") == 2 * 5 + 4
    assert _count(serial, "shfl.sync.bfly.b32") == 2 * 5
    assert _count(tree, "ld.shared.v4.b32") == 0
    assert _count(serial, "ld.shared.v4.b32") == 2 * 4
    assert _count(tree, "bar.sync") == _count(serial, "bar.sync") + 1
