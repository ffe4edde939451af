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


@pytest.fixture(autouse=True)
def _shuffle_tree_on(monkeypatch):
    """The tree is on by default; set it explicitly so an outside TRITIUM_REDUCE_SHUFFLE_TREE=0
    cannot change what these tests see."""
    monkeypatch.setenv("TRITIUM_REDUCE_SHUFFLE_TREE", "1")

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


def _variant(kind: str) -> str:
    """lit/reduce_warps16.mlir with its load, reduce and store in a loop, or in a device
    function (which a kernel may call several times)."""
    src = (LIT / "reduce_warps16.mlir").read_text()
    src = src[:src.index("// LLIR")]
    if kind == "loop":
        src = src.replace("%out: !tt.ptr<f32> {tt.divisibility = 16 : i32})",
                          "%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32)")
        src = src.replace("    %x = tt.load", "    %c0 = arith.constant 0 : i32\n"
                          "    %c1 = arith.constant 1 : i32\n"
                          "    scf.for %i = %c0 to %n step %c1 : i32 {\n    %x = tt.load")
        src = src.replace("    tt.return", "    }\n    tt.return")
    else:
        src = src.replace("tt.func public @rowmax(", "tt.func private @rowmax(")
    return src


@pytest.mark.parametrize("kind", ["loop", "device_function"])
def test_barrier_before_partials_kept(kind):
    """The first reduction of a kernel stores its partials without a barrier before them
    (lit/reduce_warps16.mlir); in a loop, or in a function that may run again, the previous
    run's readers must be done first."""
    llir, _ = make_llir(parse_module(_variant(kind)))
    body = llir[llir.index("define "):]
    first_barrier = body.index("@llvm.nvvm.barrier0()")
    first_partial = body.index("store float")
    assert first_barrier < first_partial
    llir0, _ = make_llir(parse_module((LIT / "reduce_warps16.mlir").read_text()))
    body0 = llir0[llir0.index("define "):]
    assert body0.index("store float") < body0.index("@llvm.nvvm.barrier0()")


def test_tree_on_by_default_and_in_the_backend_hash(monkeypatch):
    from tritium.backends.compiler import GPUTarget
    from tritium.backends.nvidia.backend import CUDABackend
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    on = backend.hash()
    monkeypatch.delenv("TRITIUM_REDUCE_SHUFFLE_TREE")
    assert red.shuffle_tree_enabled() and backend.hash() == on
    monkeypatch.setenv("TRITIUM_REDUCE_SHUFFLE_TREE", "0")
    assert not red.shuffle_tree_enabled()
    assert backend.hash() != on


def _scalar_sum_ptx(num_warps: int) -> str:
    import tritium
    import tritium.language as tl
    from tritium.backends.compiler import GPUTarget
    from tritium.compiler import ASTSource

    @tritium.jit
    def block_sum(x_ptr, o_ptr, N, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(o_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < N, other=0.0), axis=0))

    src = ASTSource(block_sum, {"x_ptr": "*fp32", "o_ptr": "*fp32", "N": "i32",
                                "BLOCK": "constexpr"}, {"BLOCK": 4096})
    return tritium.compile(src, target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": num_warps}).asm["ptx"]


@pytest.mark.parametrize("num_warps,warp_sync", [(8, True), (16, True), (32, False)])
def test_spare_lanes_warp_synced(num_warps, warp_sync):
    """A block summed to one value has K = num_warps partials: with fewer than 32 slots the
    lanes past them re-read slots that their group's first lane then overwrites, so a
    bar.warp.sync comes between (racecheck counts the write-after-read otherwise); with a
    full warp of slots every lane reads only its own."""
    ptx = _scalar_sum_ptx(num_warps)
    assert _count(ptx, "shfl.sync.bfly.b32") == 5 + (num_warps.bit_length() - 1)
    assert (_count(ptx, "bar.warp.sync") == 1) is warp_sync
    if warp_sync:
        body = ptx[ptx.index("bar.warp.sync"):]
        assert "st.shared" in body
