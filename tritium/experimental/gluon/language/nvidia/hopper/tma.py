"""`gl.nvidia.hopper.tma`: bulk copies between global memory, addressed through a tensor
descriptor kernel argument (`gluon.nvidia.hopper.TensorDescriptor` on the host), and a
shared-memory buffer in the block's NVMMA layout. A load completes its bytes on an
mbarrier (`mbarrier.expect` the block's bytes, then `mbarrier.wait`); stores are waited
for with `store_wait`. Thread 0 issues the copies."""
import re

from ......language import dtypes as tl
from ......language.core import _unwrap_if_constexpr, builtin
from ......language.tensor_descriptor import tensor_descriptor as _tl_descriptor
from ......language.tensor_descriptor import tensor_descriptor_type as _tl_descriptor_type
from ......language.tensor_descriptor import tensordesc_from_signature as _tl_from_signature
from ..._layouts import NVMMASharedLayout

__all__ = ["async_copy_global_to_shared", "async_copy_shared_to_global", "store_wait",
           "tensor_descriptor", "tensor_descriptor_type", "make_tensor_descriptor"]


class _block_type(tl.block_type):
    """A descriptor's block, which also knows its size in bytes."""

    @property
    def nbytes(self) -> int:
        return self.numel * self.element_ty.primitive_bitwidth // 8


class tensor_descriptor_type(_tl_descriptor_type):
    """The type of a Gluon TMA descriptor: `tl`'s, plus the shared layout its block lands
    in (the host `TensorDescriptor`'s `layout`)."""

    def __init__(self, block_type, shape_type=None, strides_type=None, layout=None):
        block_type = _block_type(block_type.element_ty, block_type.shape)
        super().__init__(block_type, shape_type, strides_type)
        self.layout = layout
        self.name = f"tensor_descriptor<{block_type}, {layout}>"

    def __eq__(self, other):
        return super().__eq__(other) and self.layout == other.layout

    def __hash__(self):
        return hash((super().__hash__(), self.layout))

    def mangle(self) -> str:
        return super().mangle() + (self.layout.mangle() if self.layout is not None else "")

    def from_handles(self, handles) -> "tensor_descriptor":
        base = super().from_handles(handles)
        return tensor_descriptor(base.handle, list(base.shape), list(base.strides),
                                 self.block_type, self.layout)


class tensor_descriptor(_tl_descriptor):
    """A Gluon TMA descriptor in a kernel: `block_type`, `block_shape`, `dtype`, `shape`,
    `strides` and the `layout` its blocks land in (a kernel argument's comes from the
    host `gluon.nvidia.hopper.TensorDescriptor`)."""

    def __init__(self, handle, shape, strides, block_type, layout):
        super().__init__(handle, shape, strides, _block_type(block_type.element_ty,
                                                             block_type.shape))
        self.layout = layout
        self.type = tensor_descriptor_type(self.type.block_type, self.type.shape_type,
                                           self.type.strides_type, layout)


_FIELD = re.compile(r"(\w+)=(\[[^\]]*\]|[^,)]+)")


def _parse_layout(text: str) -> NVMMASharedLayout:
    """The layout a host descriptor's signature type names (its dataclass repr), read
    field by field (never evaluated)."""
    if not text.startswith("NVMMASharedLayout("):
        raise TypeError(f"unknown descriptor layout {text!r}")
    fields = {}
    for key, value in _FIELD.findall(text):
        value = value.strip()
        if value.startswith("["):
            fields[key] = [[int(x) for x in re.findall(r"-?\d+", part)]
                           for part in re.findall(r"\[([^\[\]]*)\]", value[1:-1])] \
                if "[" in value[1:-1] else []
        elif value in ("True", "False"):
            fields[key] = value == "True"
        else:
            fields[key] = int(value)
    return NVMMASharedLayout(**fields)


def tensordesc_from_signature(sig: str) -> tensor_descriptor_type:
    """`tensordesc<fp16[64, 64],NVMMASharedLayout(...)>` → the Gluon descriptor type."""
    base = _tl_from_signature(sig)
    layout = None
    if "," in sig[sig.index("]"):]:
        layout = _parse_layout(sig[sig.index("]") + 2:-1].strip())
    return tensor_descriptor_type(base.block_type, base.shape_type, base.strides_type, layout)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, layout, padding_option="zero",
                           _semantic=None):
    """A TMA descriptor made in the kernel (its map is written into global scratch:
    `triton.set_allocator` must give the launch some)."""
    return _semantic.make_gluon_tensor_descriptor(base, shape, strides, block_shape,
                                                  _unwrap_if_constexpr(layout),
                                                  _unwrap_if_constexpr(padding_option))


@builtin
def async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred=True,
                                _semantic=None):
    """Copy the block at element coordinates `coord` into `result`, completing its bytes
    on `barrier`."""
    _semantic.tma_load(tensor_desc, coord, barrier, result, pred)


@builtin
def async_copy_shared_to_global(tensor_desc, coord, src, _semantic=None):
    """Copy `src` to the block at `coord` (out-of-bounds elements are dropped)."""
    _semantic.tma_store(tensor_desc, coord, src)


@builtin
def store_wait(pendings, _semantic=None):
    """Wait until at most `pendings` stores still read their shared memory."""
    _semantic.tma_store_wait(_unwrap_if_constexpr(pendings))
