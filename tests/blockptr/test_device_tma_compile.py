"""Device-made tensor descriptors through TMA, without a GPU: which `tt.make_tensor_descriptor`
ops keep TMA (alignment proven by AxisInfo, every use a TMA copy), the global scratch slots
and metadata, the TTGIR (pipelined TMA rings for a matmul whose descriptors are made in the
kernel), the PTX protocol that writes a map (FileCheck: template zeroed, fields replaced by
thread 0, copied out with the release fence, acquired before the first copy), every kernel
of test_device_tma_gpu.py assembled by ptxas for sm_90a, and the launcher's scratch
allocation through `triton.set_allocator` (a fake cuLaunchKernel)."""
import re

import pytest

import tritium as triton
import tritium.language as tl
from tritium.backends.nvidia.lowering.tensormap import tma_elem_type

from tests.blockptr import test_device_tma_gpu as G
from tests.blockptr.test_tma_compile import compile_sm90
from tests.ir.test_parser import filecheck

P16 = ("*fp16", "D")


def _c(v):
    return ("constexpr", v)


def _copy(dtype="fp16", block=(64, 64), n_div=True, pad="zero"):
    return (G._dcopy, ((f"*{dtype}", "D"), (f"*{dtype}", "D"), ("i32", ""),
                       ("i32", "D" if n_div else ""), _c(block[0]), _c(block[1]), _c(pad)))


def _matmul(b_kmajor, stages):
    return (G._dmatmul, (P16, P16, P16, ("i32", ""), ("i32", "D"), ("i32", "D"),
                         _c(128), _c(128), _c(64), _c(b_kmajor), _c(stages)))


CASES = {
    "copy_fp16": _copy(),
    "copy_fp16_wide": _copy(block=(16, 256)),
    "copy_fp32_nan": _copy("fp32", (16, 64), pad="nan"),
    "copy_i8": _copy("i8", (32, 64)),
    "copy_bf16": _copy("bf16", (64, 32)),
    "copy_3d": (G._dcopy3d, (P16, P16, ("i32", ""), ("i32", ""), ("i32", "D"), _c(2), _c(8),
                             _c(32))),
    "window_ragged": (G._dwindow, (("*fp32", "D"), ("*fp32", "D"), ("i32", ""), ("i32", ""),
                                   ("i32", "D"), ("i32", ""), ("i32", "D"), _c(8), _c(16),
                                   _c("nan"))),
    "reduce": (G._dreduce, (("*fp32", "D"), ("*fp32", "D"), ("i32", ""), ("i32", "D"),
                            ("i32", ""), ("i32", "D"), _c(8), _c(32))),
    "remade_in_loop": (G._dremade, (("*fp32", "D"), ("*fp32", "D"), ("i32", ""), ("i32", "D"),
                                    _c(8), _c(32))),
    "persistent": (G._dpersistent, (P16, P16, P16, ("i32", ""), ("i32", "D"), ("i32", "D"),
                                    _c(128), _c(128), _c(64), _c(132))),
}
for _k in (True, False):
    for _s in (1, 3):
        CASES[f"matmul_kmajor{int(_k)}_s{_s}"] = _matmul(_k, _s)


@pytest.mark.parametrize("name", list(CASES))
def test_device_tma_kernel_assembles(name):
    fn, spec = CASES[name]
    out = compile_sm90(fn, spec, num_warps=8 if name == "persistent" else 4)
    n = out["ttir"].count("tt.tma = true")
    assert n >= 1 and "tt.make_tensor_descriptor" in out["ttgir"]
    assert out["info"]["global_scratch_size"] == 128 * n
    assert out["info"]["global_scratch_align"] == 128
    ptx = out["ptx"]
    assert ptx.count("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
                     ".gpu.sync.aligned") == n
    assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == n
    assert "cp.async.bulk.tensor" in ptx or "cp.reduce.async.bulk.tensor" in ptx
    # the scratch pointer is the kernel's last parameter, after the signature's
    params = re.findall(r"\.param \.(\S+)(?: \.ptr \.global \.align \d+)? (\w+)", ptx)
    assert params[-1][1].endswith(f"_param_{len([s for s in spec if s[0] != 'constexpr'])}")
    if out["kernel"] is not None:
        assert out["kernel"].spill_stores == 0 or "matmul" in name or name == "persistent"


def test_the_protocol_in_ptx():
    """The order that makes the map safe to use: barrier (the template's shared bytes may be
    another op's), warp 0 zeroes it, thread 0 sets every field (innermost dim first, byte
    strides of the outer dims), warp 0 copies it out with the release fence and acquires it,
    barrier; only then the first TMA copy through it."""
    out = compile_sm90(*CASES["copy_fp16"])
    filecheck("""
CHECK: cp.async.bulk.wait_group 0;
CHECK-NEXT: bar.sync 0;
CHECK: st.shared.b32
CHECK-NEXT: bar.warp.sync -1;
CHECK: tensormap.replace.tile.global_address.shared::cta.b1024.b64 [[[T:%r[0-9]+]]], %rd{{[0-9]+}};
CHECK-NEXT: tensormap.replace.tile.rank.shared::cta.b1024.b32 [[[T]]], 1;
CHECK-NEXT: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [[[T]]], 0, 64;
CHECK-NEXT: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [[[T]]], 1, 64;
CHECK-NEXT: tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [[[T]]], 0, [[N:%r[0-9]+]];
CHECK-NEXT: tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [[[T]]], 1, %r{{[0-9]+}};
CHECK-NEXT: tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [[[T]]], 0, %rd{{[0-9]+}};
CHECK-NEXT: tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [[[T]]], 0, 1;
CHECK-NEXT: tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [[[T]]], 1, 1;
CHECK-NEXT: tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [[[T]]], 6;
CHECK-NEXT: tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [[[T]]], 0;
CHECK-NEXT: tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [[[T]]], 3;
CHECK-NEXT: tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [[[T]]], 0;
CHECK-NEXT: bar.warp.sync -1;
CHECK-NEXT: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd{{[0-9]+}}], [[[T]]], 128;
CHECK-NEXT: fence.proxy.tensormap::generic.acquire.gpu [[[MAP:%rd[0-9]+]]], 128;
CHECK-NEXT: bar.sync 0;
CHECK: tensormap.cp_fenceproxy
CHECK: fence.proxy.tensormap::generic.acquire.gpu
CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [[[MAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}]
CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
""", _strip_predicates(out["ptx"]))


def _strip_predicates(ptx: str) -> str:
    """The PTX without predicates, inline-asm markers and tabs (lines compare as written)."""
    lines = [re.sub(r"\s+", " ", re.sub(r"@!?%p\d+ ", "", ln)).strip()
             for ln in ptx.splitlines() if "inline asm" not in ln]
    return "\n".join(ln for ln in lines if ln)


def test_fields_follow_the_block():
    """fp32 with NaN padding: element type 7, fill 1; a 16x64 fp32 block (256-byte rows)
    moves as 32-column boxes (128-byte swizzle): box dims 32, 16."""
    ptx = _strip_predicates(compile_sm90(*CASES["copy_fp32_nan"])["ptx"])
    filecheck("""
CHECK: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0, 32;
CHECK-NEXT: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1, 16;
CHECK: tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [{{%r[0-9]+}}], 7;
CHECK: tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1;
CHECK: tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0;
""", ptx)
    # the stride is in bytes: N (i32) sign-extended, times 4
    assert re.search(r"mul\.wide\.s32|shl\.b64\s+%rd\d+, %rd\d+, 2;", ptx)


def test_old_ptx_takes_strides_in_16_byte_units():
    """ptxas for PTX ISA 8.5 and older reads the global_stride field in 16-byte units (a
    ptxas bug upstream works around the same way)."""
    from tritium.backends.nvidia.lowering import make_llir
    from tritium.backends.compiler import GPUTarget
    from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions
    from tritium.frontend.compiler import make_ttir
    backend = CUDABackend(GPUTarget("cuda", 90, 32))
    opts = CUDAOptions()
    fn, spec = CASES["copy_fp16"]

    def llir(ptx_version):
        ttir, _ = make_ttir(fn, spec, opts)
        ttgir = backend.make_ttgir(backend.make_ttir(ttir, {}, opts), opts)
        return make_llir(ttgir, ptx_version=ptx_version)[0]
    assert "lshr i64" in llir(85) and "lshr i64" not in llir(86)


def test_ttgir_of_the_pipelined_matmul():
    """Descriptors made before the loop are fixed across it: the pipeliner gives their
    loads TMA rings (mbarriers, expect_tx, copies issued ahead) as for parameters."""
    out = compile_sm90(*CASES["matmul_kmajor1_s3"])
    filecheck("""
CHECK: %[[A:[0-9]+]] = tt.make_tensor_descriptor %a_ptr{{.*}}tt.tma = true, ttg.global_scratch_memory_offset = 0 : i32}
CHECK: %[[B:[0-9]+]] = tt.make_tensor_descriptor %b_ptr{{.*}}ttg.global_scratch_memory_offset = 128 : i32
CHECK: %[[C:[0-9]+]] = tt.make_tensor_descriptor %c_ptr{{.*}}ttg.global_scratch_memory_offset = 256 : i32
CHECK: "ttng.init_barrier"
CHECK: "ttng.async_tma_copy_global_to_local"(%[[A]]
CHECK: "ttng.async_tma_copy_global_to_local"(%[[B]]
CHECK: scf.for
CHECK: "ttng.wait_barrier"
CHECK: "ttng.async_tma_copy_global_to_local"(%[[A]]
CHECK: "ttng.async_tma_copy_local_to_global"(%[[C]]
""", out["ttgir"])
    assert 'ttg.global_scratch_memory_size = 384 : i32' in out["ttgir"]


# -------------------------------------------------------------------- what stays pointers
@triton.jit
def _through_if(x_ptr, y_ptr, M, N, FLAG, BM: tl.constexpr, BN: tl.constexpr):
    if FLAG:
        d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    else:
        d = tl.make_tensor_descriptor(x_ptr, [N, M], [M, 1], [BM, BN])
    tl.store(y_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], d.load([0, 0]))


@triton.jit
def _gather(x_ptr, y_ptr, M, N, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    v = d.gather(tl.arange(0, 8), 0)
    tl.store(y_ptr + tl.arange(0, 8)[:, None] * BN + tl.arange(0, BN)[None, :], v)


@pytest.mark.parametrize("why,fn,spec", [
    ("row stride not a multiple of 16 bytes", G._dcopy,
     (P16, P16, ("i32", ""), ("i32", ""), _c(16), _c(32), _c("zero"))),
    ("base not 16-byte aligned", G._dcopy,
     (("*fp16", ""), ("*fp16", ""), ("i32", ""), ("i32", "D"), _c(16), _c(32), _c("zero"))),
    ("carried through scf.if", _through_if,
     (P16, P16, ("i32", "D"), ("i32", "D"), ("i32", ""), _c(16), _c(32))),
    ("gather", _gather, (P16, P16, ("i32", "D"), ("i32", "D"), _c(32))),
])
def test_what_stays_on_pointers(why, fn, spec):
    """Anything TMA cannot be proven to move keeps the pointer rewrite: no map, no scratch."""
    out = compile_sm90(fn, spec)
    assert "tensordesc" not in out["ttir"], why
    assert "tensormap" not in out["ptx"] and "global_scratch_size" not in out["info"], why


@triton.jit
def _store_window(y_ptr, M, N, ld, BM: tl.constexpr, BN: tl.constexpr):
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [ld, 1], [BM, BN])
    dst.store([0, 0], tl.full((BM, BN), 3.0, tl.float32))


@pytest.mark.parametrize("n_div", [False, True])
def test_stored_ragged_last_dim_stays_on_pointers(n_div):
    """A TMA store writes whole 16-byte pieces of a row: a descriptor stored through whose
    last dim is not a provable multiple of 16 bytes keeps pointers (loads through such a
    shape use TMA: _dwindow in CASES)."""
    out = compile_sm90(_store_window, (("*fp32", "D"), ("i32", ""), ("i32", "D" if n_div else ""),
                                       ("i32", "D"), _c(8), _c(16)))
    assert ("tensormap" in out["ptx"]) == n_div


def test_element_type_codes():
    from tritium.ir import types as T
    assert [tma_elem_type(t) for t in (T.f16, T.bf16, T.f32, T.f64, T.i8, T.i16, T.i32, T.i64)] \
        == [6, 10, 7, 9, 0, 1, 3, 5]


# -------------------------------------------------------------------- launcher
def test_launcher_allocates_global_scratch_per_program():
    """The scratch comes from the current allocator at each launch: size x programs bytes,
    the kernel's alignment, the launch's stream; its address is the last parameter."""
    from tritium.backends.nvidia.launcher import make_launcher
    launches, calls = [], []

    class Buf:
        def __init__(self, n):
            self.n = n

        def data_ptr(self):
            return 0x7000 + self.n

    def alloc(size, align, stream):
        calls.append((size, align, stream))
        return Buf(size)
    sig = {"x": "*fp16", "n": "i32"}
    launch = make_launcher(sig, launch_fn=lambda *a: launches.append(a) or 0,
                           device_pointer=lambda p: p, global_scratch=(256, 128), cache=False)
    triton.set_allocator(alloc)
    try:
        # (an address no other test uses: resolved addresses are cached process-wide)
        launch(3, 2, 1, 55, 0, 4, 0, 0x7E570000, 7)
        assert calls == [(256 * 6, 128, 55)]
        assert launch.params.s0 == 0x7000 + 256 * 6 and launch.params.a1 == 7
        triton.set_allocator(None)
        with pytest.raises(RuntimeError, match="no allocator was set. Use triton.set_allocator"):
            launch(1, 1, 1, 0, 0, 4, 0, 0x7E570000, 7)
    finally:
        triton.set_allocator(None)
    assert len(launches) == 1
    none = make_launcher(sig, launch_fn=lambda *a: 0, device_pointer=lambda p: p, cache=False)
    assert "_get_allocator" not in none.source, "kernels without scratch never ask"


def test_compiled_kernel_metadata_reaches_the_launcher(monkeypatch):
    """CudaLauncher hands the kernel's `global_scratch_size`/`_align` to the generated
    launcher (upstream's metadata keys)."""
    from tritium.backends.nvidia import launcher as L
    seen = {}
    monkeypatch.setattr(L, "make_launcher", lambda sig, **kw: seen.update(kw))

    class Src:
        signature = {"x": "*fp16", "n": "i32"}
        constants = {}
    L.CudaLauncher(Src(), {"num_warps": 4, "global_scratch_size": 384,
                           "global_scratch_align": 128})
    assert seen["global_scratch"] == (384, 128)
    L.CudaLauncher(Src(), {"num_warps": 4})
    assert seen["global_scratch"] is None


# -------------------------------------------------------------------- upstream's tutorials
_TUTORIALS = __import__("pathlib").Path(__file__).resolve().parents[2] / ".upstream" / "tutorials"
_TUTORIAL_PROBE = r'''
import importlib.util, json, sys
import tritium.compat
tritium.compat.install()
from tritium.frontend.jit import JITFunction
from tests.blockptr.test_tma_compile import compile_sm90
path, kernel, warps, sig = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
spec = importlib.util.spec_from_file_location("tut", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
fn = getattr(mod, kernel)
while not isinstance(fn, JITFunction):
    fn = fn.fn
out = compile_sm90(fn, [tuple(s) for s in sig], num_warps=warps, num_stages=3)
print(json.dumps({"scratch": out["info"].get("global_scratch_size"),
                  "loads": out["ttgir"].count("ttng.async_tma_copy_global_to_local"),
                  "stores": out["ttgir"].count("ttng.async_tma_copy_local_to_global"),
                  "rings": out["ttgir"].count("ttng.wait_barrier"),
                  "spills": out["kernel"].spill_stores if out["kernel"] else 0}))
'''


def _probe_tutorial(name, kernel, warps, sig):
    import json
    import os
    import subprocess
    import sys
    path = _TUTORIALS / name
    if not path.exists():
        pytest.skip(f"upstream's tutorial {name} is not in {_TUTORIALS} (see bench/run_tutorials.py)")
    root = str(_TUTORIALS.parents[1])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", _TUTORIAL_PROBE, str(path), kernel, str(warps),
                        json.dumps(sig)], capture_output=True, text=True, cwd=root, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("sub", [False, True])
def test_tutorial09_descriptor_persistent_kernel(sub):
    """Tutorial 09's matmul_kernel_descriptor_persistent: its three device-made descriptors
    become maps (384 bytes of scratch a program), A and B loads TMA rings in the K loop,
    C stored by TMA (two halves with EPILOGUE_SUBTILE)."""
    c = lambda v: ["constexpr", v]   # noqa: E731
    sig = [["*fp16", "D"]] * 3 + [["i32", "D"]] * 3 + \
        [c(128), c(256), c(64), c(8), c(sub), c(132), c(False), c(False)]
    got = _probe_tutorial("09-persistent-matmul.py", "matmul_kernel_descriptor_persistent", 8,
                          sig)
    assert got["scratch"] == 384 and got["loads"] >= 4 and got["rings"] >= 2
    assert got["stores"] == (2 if sub else 1) and got["spills"] == 0


@pytest.mark.parametrize("head_dim,stage", [(64, 1), (128, 3)])
def test_tutorial06_device_descriptor_attention(head_dim, stage):
    """Tutorial 06's forward kernel given pointers (its device-descriptor path): the four
    descriptors it makes become maps, and K/V ride the same TMA rings as with host
    descriptors."""
    c = lambda v: ["constexpr", v]   # noqa: E731
    p = ["*fp16", "D"]
    base = [["fp32", ""], ["*fp32", "D"], ["i32", ""], ["i32", ""]]
    tail = [["i32", "D"], c(head_dim), c(128), c(64), c(False), c(stage), c(False), c(True)]
    warps = 8 if head_dim == 128 else 4
    dev = _probe_tutorial("06-fused-attention.py", "_attn_fwd", warps, base + [p] * 4 + tail)
    d = lambda b: [f"tensordesc<fp16{b}>", None]   # noqa: E731
    host = _probe_tutorial("06-fused-attention.py", "_attn_fwd", warps, base + [
        d([128, head_dim]), d([64, head_dim]), d([64, head_dim]), d([128, head_dim])] + tail)
    assert dev["scratch"] == 4 * 128 and host["scratch"] is None
    assert (dev["loads"], dev["stores"], dev["rings"]) == \
        (host["loads"], host["stores"], host["rings"])
