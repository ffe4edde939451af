"""Host side of TMA: the 128-byte `CUtensorMap` a descriptor kernel argument becomes.

The kernel's metadata (`tensordesc_meta`, from gpu/tma.py through the LLIR stage) fixes the
box and the swizzle of each descriptor parameter; the `TensorDescriptor` argument gives
the base address, shape, strides and padding. `cuTensorMapEncodeTiled` (cuda-bindings)
turns the two into the map, which travels by value in the kernel's parameter buffer.

Encoding costs several microseconds, a launch wants well under one: maps are cached per
encoder by (address, shape, strides, padding), the same arguments giving the same bytes.
The launcher caches its whole block (map, shape, strides: `pack`) under the same key and
looks it up inline, so a repeated descriptor costs a tuple, a dict lookup and one copy.
"""
from __future__ import annotations

import ctypes
from typing import Callable, Dict, Optional

__all__ = ["TensorMap", "make_encoder", "cache_key", "ENCODE_ERRORS"]

TensorMap = ctypes.c_uint8 * 128

# tensordesc signature element type -> CUtensorMapDataType member name
_DATA_TYPES = {
    "fp16": "FLOAT16", "bf16": "BFLOAT16", "fp32": "FLOAT32", "fp64": "FLOAT64",
    "i32": "INT32", "u32": "UINT32", "i64": "INT64", "u64": "UINT64",
    "i16": "UINT16", "u16": "UINT16", "i8": "UINT8", "u8": "UINT8", "i1": "UINT8",
}
_SWIZZLE = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}
_MAX_CACHED = 1024
ENCODE_ERRORS = (RuntimeError, ValueError, TypeError, OverflowError)


def _data_type(cu, dtype: str):
    name = _DATA_TYPES.get(dtype) or ("UINT8" if dtype.startswith("fp8") else None)
    if name is None:
        raise TypeError(f"no TMA data type for {dtype}")
    return getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{name}")


def make_encoder(dtype: str, meta: dict, name: str, index: int,
                 device_address: Callable[[object, str, int], int],
                 encode: Optional[Callable] = None,
                 pack: Optional[Callable] = None) -> Callable[[object], TensorMap]:
    """`encoder(desc) -> TensorMap` for descriptor argument `name` (parameter `index`).
    `device_address(base, name, index)` resolves the descriptor's base tensor to a device
    address (the launcher's pointer conversion and host-memory check); `encode` replaces
    cuTensorMapEncodeTiled in tests: it gets the keyword arguments and returns 128 bytes.
    With `pack`, the encoder returns (and caches) `pack(tensor_map, desc)` instead: the
    launcher's block of the map, shape and strides (the key covers all three)."""
    box = [int(b) for b in meta["box"]][::-1]
    swizzle = int(meta["swizzle"])
    elem_bytes = int(meta["elem_bits"]) // 8
    rank = len(box)
    stores = bool(meta.get("stores"))
    if encode is None:
        encode = _driver_encode(dtype, swizzle)
    cache: Dict[tuple, TensorMap] = {}

    def encoder(desc) -> TensorMap:
        addr = device_address(desc.base, name, index)
        key = cache_key(addr, desc)
        got = cache.get(key)
        if got is not None:
            return got
        shape, strides = list(desc.shape), list(desc.strides)
        if len(shape) != rank:
            raise ValueError(f"descriptor argument '{name}' (parameter {index}) has rank "
                             f"{len(shape)}, the kernel was compiled for rank {rank}")
        if stores and shape[-1] * elem_bytes % 16:
            # Measured on the H100: a TMA store clips the last dim to 16-byte granules, so
            # it would write up to 15 bytes past the end of each row.
            raise ValueError(
                f"descriptor argument '{name}' (parameter {index}) is stored through with "
                f"TMA, which writes whole 16-byte pieces of each row: its last dim "
                f"({shape[-1]} elements of {elem_bytes} bytes) must be a multiple of 16 bytes")
        try:
            raw = encode(address=addr, dims=[int(s) for s in shape[::-1]],
                         byte_strides=[int(s) * elem_bytes for s in strides[:-1]][::-1],
                         box=box, nan=desc.padding == "nan")
        except ENCODE_ERRORS as e:
            raise ValueError(f"descriptor argument '{name}' (parameter {index}): the TMA "
                             f"descriptor cannot be made: {e}") from None
        got = TensorMap.from_buffer_copy(bytes(raw))
        if pack is not None:
            got = pack(got, desc)
        if len(cache) >= _MAX_CACHED:
            cache.clear()
        cache[key] = got
        return got
    encoder.cache = cache    # the launcher looks keys up here before calling the encoder
    return encoder


def cache_key(addr: int, desc) -> tuple:
    """What a map depends on besides the kernel: the device address, shape, strides and
    padding (the NVIDIA launcher builds the same tuple inline, in its generated code)."""
    return (addr, *desc.shape, *desc.strides, desc.padding)


def _driver_encode(dtype: str, swizzle: int):
    from .driver import check, cuda
    cu = cuda()
    data_type = _data_type(cu, dtype)
    swz = getattr(cu.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{_SWIZZLE[swizzle]}")
    interleave = cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE
    l2 = cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B
    fills = {False: cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
             True: cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA}

    u32, u64 = cu.cuuint32_t, cu.cuuint64_t

    def encode(address, dims, byte_strides, box, nan):
        err, tmap = cu.cuTensorMapEncodeTiled(
            data_type, len(dims), address, [u64(d) for d in dims],
            [u64(s) for s in byte_strides], [u32(b) for b in box], [u32(1)] * len(dims),
            interleave, swz, l2, fills[nan])
        check(err)
        return ctypes.string_at(tmap.getPtr(), 128)
    return encode
