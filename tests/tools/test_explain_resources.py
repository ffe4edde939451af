"""Occupancy from the ptxas report, against the CUDA occupancy calculator's rules (H100:
64K registers, 64 warps, 32 blocks, 228 KB shared memory per SM, 1 KB reserved per block,
registers allocated per warp in units of 256)."""
import pytest

from tritium.tools.explain.resources import occupancy


@pytest.mark.parametrize("regs, smem, warps, blocks, limiter", [
    (255, 0, 4, 2, "registers"),          # 8192 registers per warp: 8 warps
    (128, 0, 4, 4, "registers"),          # 4096 per warp: 16 warps
    (32, 102400, 4, 2, "shared memory"),  # (100 KB + 1 KB) twice in 228 KB
    (32, 65536, 8, 3, "shared memory"),
    (16, 0, 1, 32, "blocks"),             # 32 one-warp blocks, half the warps
    (40, 0, 8, 6, "registers"),           # 40 regs -> 1280 per warp: 51 warps -> 6 blocks
    (24, 16, 4, 16, "warps"),
])
def test_occupancy(regs, smem, warps, blocks, limiter):
    got = occupancy(regs, smem, warps, 90)
    assert got["blocks_per_sm"] == blocks
    assert got["limited_by"] == limiter
    assert got["warps_per_sm"] == blocks * warps
    assert got["occupancy"] == pytest.approx(blocks * warps / 64)
