"""`TensorWrapper` and `reinterpret`: a tensor's memory seen as another dtype of the same
width, e.g. an int8 torch tensor passed to a kernel as `tl.float8e5`, or int32 as `tl.uint32`
(torch has no uint32 arithmetic). The kernel's signature takes the wrapper's dtype; the data
is the base tensor's, untouched."""
from __future__ import annotations

# Upstream's spelling of a dtype name as a kernel type string (`triton.runtime.jit`).
type_canonicalisation_dict = {
    "bool": "i1", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15",
    "float8_e4m3fn": "fp8e4nv", "float8e4b8": "fp8e4b8", "float8_e4m3fnuz": "fp8e4b8",
    "float8_e5m2": "fp8e5", "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32", "float32": "fp32",
    "double": "fp64", "float64": "fp64", "int8": "i8", "int16": "i16", "int": "i32",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "void": "void",
}
for _v in list(type_canonicalisation_dict.values()):
    type_canonicalisation_dict[_v] = _v


class TensorWrapper:
    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", None)
        self.shape = base.shape

    def data_ptr(self) -> int:
        dp = getattr(self.base, "data_ptr", None)
        if dp is not None:
            return dp()
        return self.base.__array_interface__["data"][0]

    @property
    def is_cuda(self) -> bool:
        return bool(getattr(self.base, "is_cuda", False))

    def stride(self, *args):
        return self.base.stride(*args)

    def element_size(self) -> int:
        return self.base.element_size()

    def numel(self) -> int:
        return self.base.numel()

    def cpu(self):
        return TensorWrapper(self.base.cpu(), self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base)

    def clone(self):
        return TensorWrapper(self.base.clone(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"


def _width(dt) -> int:
    bits = getattr(dt, "primitive_bitwidth", None)
    if bits is not None:
        return bits
    itemsize = getattr(dt, "itemsize", None)
    if itemsize is None:
        import torch  # a torch.dtype
        itemsize = torch.empty((), dtype=dt).element_size()
    return 8 * itemsize


def reinterpret(tensor, dtype):
    """`tensor` seen as `dtype` (a `tl.dtype` of the same width), for passing to kernels.
    Reinterpreting a wrapper back to its base's dtype gives the base itself."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if not (hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__")):
        raise TypeError(f"reinterpret: cannot reinterpret a {type(tensor).__name__}; "
                        "pass a tensor or an array")
    from .language.dtypes import dtype as tl_dtype
    if not isinstance(dtype, tl_dtype):
        raise TypeError(f"reinterpret: dtype must be a triton.language dtype, got {dtype!r}")
    if _width(dtype) != _width(tensor.dtype):
        raise ValueError(f"reinterpret: {tensor.dtype} ({_width(tensor.dtype)} bits) cannot be "
                         f"seen as {dtype} ({_width(dtype)} bits): widths differ")
    return TensorWrapper(tensor, dtype)
