"""TMA without a GPU: which descriptor parameters the NVIDIA backend keeps for TMA, the
TTGIR the TMA lowering writes (FileCheck), the PTX instructions and parameter types, every
kernel of test_tma_gpu.py assembled by ptxas for sm_90a, and the host side's tensor-map
arguments (box and swizzle from the metadata, reversed dims, byte strides, the cache)."""
import pytest

from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia import toolchain
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions
from tritium.backends.nvidia.llvm import llir_to_ptx
from tritium.frontend.compiler import make_ttir
from tritium.ir.printer import print_module

from tests.blockptr import test_tma_gpu as G


def _d(dtype, block):
    return (f"tensordesc<{dtype}{list(block)}>", None)


def _c(v):
    return ("constexpr", v)


def compile_sm90(fn, spec, num_warps=4, num_stages=3):
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    opts = CUDAOptions(num_warps=num_warps, num_stages=num_stages)
    ttir, _ = make_ttir(fn, spec, opts)
    md = {}
    ttir = backend.make_ttir(ttir, md, opts)
    ttir_text = print_module(ttir)
    ttgir = backend.make_ttgir(ttir, opts)
    ttgir_text = print_module(ttgir)
    llir, info = backend.make_llir(ttgir, opts)
    ptx = llir_to_ptx(llir, arch="sm_90a")
    kinfo = None
    if toolchain.find_ptxas():
        _, cinfo = toolchain.make_cubin(ptx, arch="sm_90a")
        kinfo = cinfo.kernel
    return dict(ttir=ttir_text, ttgir=ttgir_text, llir=llir, ptx=ptx, info=info, kernel=kinfo)


CASES = {
    "copy_fp16_64x64": (G._copy_2d, (_d("fp16", (64, 64)), _d("fp16", (64, 64)), _c(64), _c(64))),
    "copy_fp16_wide": (G._copy_2d, (_d("fp16", (16, 256)), _d("fp16", (16, 256)), _c(16), _c(256))),
    "copy_fp32_8x64": (G._copy_2d, (_d("fp32", (8, 64)), _d("fp32", (8, 64)), _c(8), _c(64))),
    "copy_i8": (G._copy_2d, (_d("i8", (32, 64)), _d("i8", (32, 64)), _c(32), _c(64))),
    "copy_3d": (G._copy_3d, (_d("fp16", (2, 8, 32)), _d("fp16", (2, 8, 32)), _c(2), _c(8), _c(32))),
    "window_aligned": (G._window, (_d("fp32", (8, 16)), ("*fp32", "D"), ("i32", ""),
                                   ("i32", "D"), _c(8), _c(16))),
    "reduce_add": (G._reduce, (_d("fp32", (8, 32)), ("*fp32", "D"), ("i32", ""), ("i32", "D"),
                               _c(False), _c(8), _c(32))),
    "reduce_xor": (G._reduce, (_d("i32", (8, 32)), ("*i32", "D"), ("i32", ""), ("i32", "D"),
                               _c(True), _c(8), _c(32))),
}
for _kmaj in (True, False):
    for _st in (1, 3):
        CASES[f"matmul_kmajor{int(_kmaj)}_s{_st}"] = (G._matmul, (
            _d("fp16", (128, 64)), _d("fp16", (128, 64) if _kmaj else (64, 128)),
            _d("fp16", (128, 128)), ("i32", ""), _c(128), _c(128), _c(64), _c(_kmaj), _c(_st)))


@pytest.mark.parametrize("name", list(CASES))
def test_tma_kernel_assembles(name):
    fn, spec = CASES[name]
    out = compile_sm90(fn, spec)
    assert "!tt.tensordesc" in out["ttir"], "the descriptor parameters should be kept for TMA"
    assert "cp.async.bulk.tensor" in out["ptx"] or "cp.reduce.async.bulk.tensor" in out["ptx"]
    assert ".param .align 64 .b8" in out["ptx"] and "cvta.param.u64" in out["ptx"]
    metas = out["info"]["tensordesc_meta"]
    assert len(metas) == sum(1 for s in spec if s[0].startswith("tensordesc")) and all(metas)
    if out["kernel"] is not None:
        assert out["kernel"].spill_stores == 0 or name.startswith("matmul")


def test_unaligned_inner_coordinate_stays_on_pointers():
    """A box whose innermost coordinate is not provably 16-byte aligned faults on the H100
    (measured: an illegal instruction), so such a descriptor is rewritten to pointers and
    the launcher is told so (its metadata entry is None)."""
    out = compile_sm90(G._window, (_d("fp32", (8, 16)), ("*fp32", "D"), ("i32", ""),
                                   ("i32", ""), _c(8), _c(16)))
    assert "!tt.tensordesc" not in out["ttir"] and "cp.async.bulk.tensor" not in out["ptx"]
    assert out["info"]["tensordesc_meta"] == [None]


def test_store_metadata_and_launch_check():
    """Descriptors stored through are marked in the metadata; the launcher refuses a
    tensor whose rows are not whole 16-byte pieces (a TMA store would write past them)."""
    from tritium.backends.nvidia.tensor_map import make_encoder

    out = compile_sm90(*CASES["copy_fp16_64x64"])
    metas = out["info"]["tensordesc_meta"]
    assert [m["stores"] for m in metas] == [False, True]
    assert metas[0]["box"] == [64, 64] and metas[0]["swizzle"] == 128

    class Desc:
        def __init__(self, shape, strides):
            self.base, self.shape, self.strides, self.padding = 0, shape, strides, "zero"
    seen = []

    def fake(**kw):
        seen.append(kw)
        return bytes(128)
    enc = make_encoder("fp16", metas[1], "dst", 1, lambda b, n, i: 4096, fake)
    enc(Desc([100, 96], [104, 1]))
    assert seen[-1] == {"address": 4096, "dims": [96, 100], "byte_strides": [208],
                        "box": [64, 64], "nan": False}
    enc(Desc([100, 96], [104, 1]))
    assert len(seen) == 1, "the same arguments must reuse the cached map"
    with pytest.raises(ValueError, match="'dst'.*16-byte"):
        enc(Desc([100, 100], [104, 1]))
    load_enc = make_encoder("fp16", metas[0], "src", 0, lambda b, n, i: 4096, fake)
    load_enc(Desc([100, 100], [104, 1]))   # loads clip exactly: any width is fine


def test_wide_block_moves_as_boxes_side_by_side():
    """16x256 fp16 rows are 512 bytes: four 128-byte-swizzled boxes of 64 columns, each
    loaded and stored by thread 0 at 64-column steps and 2048-byte steps in shared memory."""
    import re
    out = compile_sm90(*CASES["copy_fp16_wide"])
    meta = out["info"]["tensordesc_meta"][0]
    assert meta["box"] == [16, 64] and meta["swizzle"] == 128
    ptx = out["ptx"]
    loads = re.findall(r"@%p\d+ cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile"
                       r"\.mbarrier::complete_tx::bytes", ptx)
    stores = re.findall(r"@%p\d+ cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile"
                        r"\.bulk_group", ptx)
    assert len(loads) == 4 and len(stores) == 4
    inner = re.findall(r"complete_tx::bytes \[%r\d+\], \[%rd\d+, \{(%r\d+), (%r\d+)\}\]", ptx)
    assert len({c for c, _ in inner}) == 4 and len({r for _, r in inner}) == 1, inner
    for off in (2048, 4096, 6144):
        assert str(off) in ptx, f"no box at shared offset +{off}"
    # one expect_tx for the whole block, every arrive/copy by thread 0 only
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 8192;", ptx)
    assert re.search(r"setp\.eq\.(s|b|u)32\s+%p\d+, %r\d+, 0;", ptx)


def test_specialization_key_follows_a_mutated_block_shape():
    """The key string is cached per (dtype, block), and a block shape changed in place
    (tutorial 06's autotuner pre_hook does) gives the new key, not the cached one."""
    import numpy as np
    from tritium.frontend.specialize import _spec_tensordesc
    from tritium.tools.tensor_descriptor import TensorDescriptor
    x = np.zeros((64, 128), np.float16)
    d = TensorDescriptor.from_tensor(x, [64, 64])
    assert _spec_tensordesc(d, False, True, True)[0] == "tensordesc<fp16[64, 64]>"
    d.block_shape = [32, 128]
    assert _spec_tensordesc(d, False, True, True)[0] == "tensordesc<fp16[32, 128]>"
    y = np.zeros((64, 128), np.float32)
    assert _spec_tensordesc(TensorDescriptor.from_tensor(y, [32, 128]), False, True,
                            True)[0] == "tensordesc<fp32[32, 128]>"


def test_launcher_packs_the_tensor_map_then_shape_and_strides():
    """A descriptor argument marked TMA in the metadata fills its first parameter with the
    encoder's 128 bytes (made once per tensor), then the i32 shape and i64 strides; one
    without metadata keeps the pointer form (base, padding flag)."""
    import ctypes
    import numpy as np
    from tritium.backends.nvidia.launcher import make_launcher
    from tritium.tools.tensor_descriptor import TensorDescriptor
    made, launches = [], []

    def encode(**kw):
        made.append(kw)
        return bytes(range(128))
    meta = {"swizzle": 128, "elem_bits": 16, "box": [64, 64], "block": [64, 128], "stores": False}
    sig = {"d": "tensordesc<fp16[64, 128]>", "p": "tensordesc<fp16[64, 128]>", "n": "i32"}
    launch = make_launcher(sig, launch_fn=lambda *a: launches.append(a) or 0,
                           device_pointer=lambda p: p, tensordesc_meta=[meta, None],
                           tensor_map_encode=encode, cache=False)
    x = np.zeros((100, 256), np.float16)
    d = TensorDescriptor.from_tensor(x, [64, 128])
    for _ in range(3):
        launch(2, 1, 1, 0, 0, 4, 0, d, d, 7)
    assert len(made) == 1 and len(launches) == 3
    assert made[0]["dims"] == [256, 100] and made[0]["byte_strides"] == [512]
    b = launch.params
    assert bytes(b.a0_0) == bytes(range(128)) and ctypes.sizeof(b.a0_0) == 128
    assert (b.a0_1, b.a0_2, b.a0_3, b.a0_4) == (100, 256, 256, 1)
    assert b.a1_0 == x.ctypes.data and b.a1_1 == 0 and b.a2 == 7   # pointer form
    with pytest.raises(NotImplementedError, match="params"):
        make_launcher(sig, mode="extra", launch_fn=lambda *a: 0, device_pointer=lambda p: p,
                      tensordesc_meta=[meta, None], tensor_map_encode=encode, cache=False)


def test_launcher_reuses_packed_descriptors_until_a_field_changes():
    """A launch with a descriptor it has seen takes the map, shape and strides from the
    encoder's cache without calling the encoder; changing the descriptor's shape, strides,
    padding or tensor makes a new block (new encode, new values in the buffer); values that
    do not fit their parameter types raise naming the parameter, as before."""
    import numpy as np
    from tritium.backends.nvidia.launcher import make_launcher
    from tritium.tools.tensor_descriptor import TensorDescriptor
    made = []

    def encode(**kw):
        made.append(kw)
        return bytes([len(made)]) * 128
    meta = {"swizzle": 128, "elem_bits": 16, "box": [64, 64], "block": [64, 64], "stores": False}
    sig = {"d": "tensordesc<fp16[64, 64]>", "e": "tensordesc<fp16[64, 64]>"}
    launch = make_launcher(sig, launch_fn=lambda *a: 0, device_pointer=lambda p: p,
                           tensordesc_meta=[meta, meta], tensor_map_encode=encode, cache=False)
    x = np.zeros((128, 256), np.float16)
    y = np.zeros((96, 64), np.float16)
    d, e = TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y, [64, 64])
    launch(1, 1, 1, 0, 0, 4, 0, d, e)
    assert len(made) == 2
    encoders = {k: launch.__globals__[k] for k in ("_tm_a0", "_tm_a1")}

    def refuse(desc):
        raise AssertionError("encoder called for a cached descriptor")
    launch.__globals__.update(_tm_a0=refuse, _tm_a1=refuse)
    launch(1, 1, 1, 0, 0, 4, 0, d, e)
    launch(1, 1, 1, 0, 0, 4, 0, TensorDescriptor.from_tensor(x, [64, 64]), e)  # equal values
    launch.__globals__.update(encoders)
    b = launch.params
    assert (b.a0_1, b.a0_2, b.a0_3, b.a0_4) == (128, 256, 256, 1)
    assert (b.a1_1, b.a1_2, b.a1_3, b.a1_4) == (96, 64, 64, 1)
    assert bytes(b.a0_0) == bytes([1]) * 128 and bytes(b.a1_0) == bytes([2]) * 128
    d.shape[0] = 100                               # mutated in place: a new map
    launch(1, 1, 1, 0, 0, 4, 0, d, e)
    assert len(made) == 3 and made[-1]["dims"] == [256, 100]
    assert b.a0_1 == 100 and bytes(b.a0_0) == bytes([3]) * 128
    launch(1, 1, 1, 0, 0, 4, 0, d, TensorDescriptor.from_tensor(x[:, :64], [64, 64]))
    assert len(made) == 4 and (b.a1_1, b.a1_2, b.a1_3) == (128, 64, 256)
    d.padding = "nan"
    launch(1, 1, 1, 0, 0, 4, 0, d, e)
    assert len(made) == 5 and made[-1]["nan"]
    d.padding = "zero"
    d.strides[0] = 1 << 63
    with pytest.raises(OverflowError, match=r"'d\.strides\[0\]' \(parameter 0\)"):
        launch(1, 1, 1, 0, 0, 4, 0, d, e)
