"""Gluon TMA (`gl.nvidia.hopper.tma`) with host `gluon.nvidia.hopper.TensorDescriptor`
arguments: blocks copied in (completion on an mbarrier), changed in registers and copied
out — on both CPU paths vs numpy (ragged edges: out-of-bounds reads give zeros, stores
are dropped), as sm_90a cubins (bulk tensor copies in the PTX, the descriptors' maps in
the metadata), refusals, and on the GPU vs torch."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.dirname(__file__))

from gluon_kernels import arg_desc_kernel, device_desc_kernel, tma_copy_kernel  # noqa: E402
from tritium.backends.compiler import GPUTarget  # noqa: E402
from tritium.compiler import ASTSource, CompilationError, compile  # noqa: E402
from tritium.experimental.gluon import language as gl  # noqa: E402
from tritium.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")

BL = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
CASES = [((100, 200), (64, 64), torch.float16, gl.float16),
         ((128, 64), (32, 32), torch.float32, gl.float32),
         ((70, 96), (16, 32), torch.float16, gl.float16)]


def _run(x, block, gdtype):
    y = torch.full_like(x, -7)
    layout = gl.NVMMASharedLayout.get_default_for(list(block), gdtype)
    di = TensorDescriptor.from_tensor(x, list(block), layout)
    do = TensorDescriptor.from_tensor(y, list(block), layout)
    grid = (-(-x.shape[0] // block[0]), -(-x.shape[1] // block[1]))
    tma_copy_kernel[grid](di, do, BL)
    return y


@pytest.mark.parametrize("shape,block,tdtype,gdtype", CASES)
def test_tma_copy_cpu(cpu_path, rng, shape, block, tdtype, gdtype):
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(tdtype)
    y = _run(x, block, gdtype)
    np.testing.assert_array_equal(y.float().numpy(), (x + 1).float().numpy())


def _sig(block, dt, gdtype):
    lay = gl.NVMMASharedLayout.get_default_for(list(block), gdtype)
    t = f"tensordesc<{dt}[{block[0]}, {block[1]}],{lay!r}>"
    return {"in_desc": t, "out_desc": t}


def test_tma_copy_sm90():
    k = compile(ASTSource(tma_copy_kernel, _sig((64, 64), "fp16", gl.float16), {"layout": BL}),
                target=GPUTarget("cuda", 90, 32))
    ptx = k.asm["ptx"]
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in ptx
    assert "cp.async.bulk.wait_group.read 0" in ptx
    assert "mbarrier.arrive.expect_tx.shared::cta.b64" in ptx
    meta = k.metadata.tensordesc_meta
    assert [m["swizzle"] for m in meta] == [128, 128] and [m["stores"] for m in meta] == [False, True]
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_tma_buffer_layout_checked():
    from tritium.experimental import gluon
    from tritium.experimental.gluon.language.nvidia.hopper import mbarrier, tma

    @gluon.jit
    def bad(desc):
        buf = gl.allocate_shared_memory(gl.float16, [64, 64], gl.SwizzledSharedLayout(8, 1, 8, [1, 0]))
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        tma.async_copy_global_to_shared(desc, [0, 0], bar, buf)
    with pytest.raises(CompilationError, match="TMA layout"):
        compile(ASTSource(bad, {"desc": _sig((64, 64), "fp16", gl.float16)["in_desc"]}, {}),
                target=GPUTarget("cuda", 90, 32))


@pytest.mark.gpu
@pytest.mark.parametrize("shape,block,tdtype,gdtype", CASES)
def test_tma_copy_gpu(rng, shape, block, tdtype, gdtype):
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(tdtype).cuda()
    y = _run(x, block, gdtype)
    torch.testing.assert_close(y, x + 1)


def _descs(x, y, block):
    layout = gl.NVMMASharedLayout.get_default_for(list(block), gl.float16)
    return (TensorDescriptor.from_tensor(x, list(block), layout),
            TensorDescriptor.from_tensor(y, list(block), layout))


@pytest.mark.parametrize("shape,block", [((100, 200), (64, 64)), ((64, 48), (32, 16))])
def test_descriptor_layout_and_helpers_cpu(cpu_path, rng, shape, block):
    """`desc.layout`, `desc.block_type.nbytes` and `desc.block_shape` in the kernel, with
    TMA in device functions."""
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float16))
    y = torch.zeros_like(x)
    grid = (-(-shape[0] // block[0]), -(-shape[1] // block[1]))
    arg_desc_kernel[grid](*_descs(x, y, block), BL)
    np.testing.assert_array_equal(y.numpy(), (x * 2 + 1).numpy())


def test_device_made_descriptor_cpu(cpu_path, rng):
    x = torch.from_numpy(rng.standard_normal((100, 200)).astype(np.float16))
    y = torch.zeros_like(x)
    device_desc_kernel[(2, 4)](x, y, 100, 200, 64, 64, BL)
    np.testing.assert_array_equal(y.numpy(), (x * 2).numpy())


def test_device_made_descriptor_sm90():
    k = compile(ASTSource(device_desc_kernel, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32",
                                               "N": "i32"}, {"BM": 64, "BN": 64, "layout": BL}),
                target=GPUTarget("cuda", 90, 32))
    assert k.metadata.global_scratch_size == 256  # a 128-byte map per descriptor
    assert "tensormap.replace" in k.asm["ptx"] or "tensormap" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_descriptor_helpers_gpu(rng):
    x = torch.from_numpy(rng.standard_normal((100, 200)).astype(np.float16)).cuda()
    y = torch.zeros_like(x)
    arg_desc_kernel[(2, 4)](*_descs(x, y, (64, 64)), BL)
    torch.testing.assert_close(y, x * 2 + 1)


@pytest.mark.gpu
def test_device_made_descriptor_gpu(rng):
    import tritium
    tritium.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                  device="cuda"))
    try:
        x = torch.from_numpy(rng.standard_normal((100, 200)).astype(np.float16)).cuda()
        y = torch.zeros_like(x)
        device_desc_kernel[(2, 4)](x, y, 100, 200, 64, 64, BL)
        torch.testing.assert_close(y, x * 2)
    finally:
        tritium.set_allocator(None)
