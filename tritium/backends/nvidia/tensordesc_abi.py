"""How a `TensorDescriptor` kernel argument reaches an NVIDIA kernel: the one place that
defines the parameter list, for the launcher and the TTIR rewrite to agree on.

The JIT gives a descriptor argument the signature type `tensordesc<fp16[64, 32]>`, and the
TTIR kernel takes it as `!tt.tensordesc<tensor<64x32xf16>>` followed by its shape (one i32
per dim) and strides (one i64 per dim), as upstream's does. What the first of those becomes depends on the compiled kernel (its metadata's
`tensordesc_meta`, one entry per descriptor argument):

  TMA (entry = the box and swizzle, gpu/tma.py): the 128-byte `CUtensorMap` by value
      (`.param .align 64 .b8 [128]`, made by backends/nvidia/tensor_map.py), then
      i32   shape[r]
      i64   strides[r]
  pointers (entry None, or no metadata: rewrite-tensor-descriptor-to-pointer):
      *elt  base          the tensor's device address
      i1    padding_nan   1 when out-of-bounds reads give NaN (padding="nan")
      i32   shape[r]      ...then the shape and strides, unchanged
      i64   strides[r]
"""
from __future__ import annotations

import re
from typing import List, Tuple

# (a Gluon host descriptor's type adds its shared layout: `tensordesc<fp16[64, 64],NVMMA...>`)
_SIGNATURE = re.compile(r"tensordesc<([^\[>]+)\[([0-9, ]*)\](?:,[^>]*)?>")

def parse(sig: str) -> Tuple[str, int]:
    """(element type string, rank) of `tensordesc<fp16[64, 32]>`."""
    m = _SIGNATURE.fullmatch(sig.strip())
    if m is None:
        raise ValueError(f"malformed tensor descriptor signature {sig!r}")
    return m.group(1), len([s for s in m.group(2).split(",") if s.strip()])


def expand(name: str, sig: str, tma: bool = False) -> List[Tuple[str, str, str]]:
    """The kernel parameters of descriptor argument `name`: (parameter name, type string,
    Python expression of the value given the descriptor object as `{d}` and, for the
    "tensormap" type, its encoder function as `{tm}`)."""
    dtype, rank = parse(sig)
    if tma:
        params = [(f"{name}.tensormap", "tensormap", "{tm}({d})")]
    else:
        params = [(f"{name}.base", f"*{dtype}", "{d}.base"),
                  (f"{name}.padding_nan", "i1", "{d}.padding == 'nan'")]
    params += [(f"{name}.shape[{i}]", "i32", f"{{d}}.shape[{i}]") for i in range(rank)]
    params += [(f"{name}.strides[{i}]", "i64", f"{{d}}.strides[{i}]") for i in range(rank)]
    return params


__all__ = ["parse", "expand"]
