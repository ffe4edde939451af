"""The shared layout the compiler gives a TMA block (gpu/tma.py's NVMMA encoding) against
where the hardware puts the box (PTX ISA, cp.async.bulk.tensor, tensor-map swizzle modes).

A box lands in shared memory as its rows one after the other: the leading dims flattened
row-major, each row `inner` elements (the box's last dim); box j of a block wider than the
swizzle lands j * box-bytes further. A swizzle of W bytes then XORs the 16-byte chunk index
(address bits 4..) with address bits 7.. (W/16 - 1 of them), on the address relative to the
(1024-byte aligned) buffer. Registers go to and from shared memory through the encoding's
linear layout, so that layout must give every element the address the box gives it; it
did not for 3-D and 4-D blocks whose second-last dim exceeds 8 (the rows past the first
8-row tile were placed after the outer dims): upstream's test_cat_nd stored 50% / 87.5%
of a 16x16x4 / 8x32x4 fp32 block to the wrong places on the H100."""
import itertools

import pytest

from tritium.gpu.tma import tma_block
from tritium.ir import types as T


def _box_address(coords, tb) -> int:
    """Byte address of element `coords` (outermost first) of block `tb` in the buffer the
    copies of its boxes fill."""
    inner = tb.box[-1]
    strip, col = divmod(coords[-1], inner)
    row = 0
    for c, d in zip(coords[:-1], tb.box[:-1]):
        row = row * d + c
    ebytes = tb.elem_bits // 8
    addr = strip * tb.box_bytes + row * inner * ebytes + col * ebytes
    if tb.swizzle:
        # the pattern repeats every 8 rows of W bytes (a box holds whole repeats)
        mask = tb.swizzle // 16 - 1
        addr ^= ((addr >> 7) & mask) << 4
    return addr


SHAPES = [(8, 16, 4), (16, 16, 4), (8, 32, 4), (8, 16, 8), (2, 4, 8, 16), (2, 4, 16, 16),
          (4, 16, 32), (2, 32, 64), (8, 16), (64, 64), (16, 256), (128, 32), (2, 8, 64)]
ELEMS = {8: T.IntegerType(8), 16: T.FloatType("f16"), 32: T.FloatType("f32")}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("bits", [8, 16, 32])
def test_nvmma_layout_is_where_tma_puts_the_box(shape, bits):
    tb = tma_block(T.TensorType(shape, ELEMS[bits]))
    if tb is None:
        pytest.skip(f"{shape} of {bits}-bit elements is not moved by TMA")
    ll = tb.encoding.to_linear_layout(shape)
    ebytes = bits // 8
    n = 1
    for d in shape:
        n *= d
    seen = set()
    for off in range(n):
        got = ll.apply({"offset": off, "block": 0})
        coords = tuple(got[f"dim{i}"] for i in range(len(shape)))
        seen.add(coords)
        assert _box_address(coords, tb) == off * ebytes, (coords, off, tb)
    assert seen == set(itertools.product(*map(range, shape)))
