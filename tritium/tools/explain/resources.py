"""Registers, spills, shared memory and occupancy from the ptxas report."""
from __future__ import annotations

from typing import Any, Dict

# Per-SM limits (CUDA occupancy calculator): registers, warps, blocks, shared memory
# available to blocks, and the shared memory the driver reserves per block.
_SM_LIMITS = {
    80: (65536, 64, 32, 167936, 1024),
    86: (65536, 48, 16, 102400, 1024),
    89: (65536, 48, 24, 102400, 1024),
    90: (65536, 64, 32, 233472, 1024),
    100: (65536, 64, 32, 233472, 1024),
    120: (65536, 48, 24, 102400, 1024),
}


def occupancy(registers: int, shared: int, num_warps: int, capability: int) -> Dict[str, Any]:
    """Blocks and warps resident per SM, and which resource limits them."""
    key = max((c for c in _SM_LIMITS if c <= capability), default=90)
    regs_sm, warps_sm, blocks_sm, smem_sm, smem_reserved = _SM_LIMITS[key]
    # Registers are allocated per warp in units of 256.
    per_warp = -(-max(1, registers) * 32 // 256) * 256
    limits = {
        "warps": warps_sm // num_warps,
        "blocks": blocks_sm,
        "registers": (regs_sm // per_warp) // num_warps,
        "shared memory": smem_sm // (shared + smem_reserved) if shared else blocks_sm,
    }
    blocks = min(limits.values())
    limiter = min(limits, key=lambda k: limits[k])
    return {"blocks_per_sm": blocks, "warps_per_sm": blocks * num_warps,
            "occupancy": blocks * num_warps / warps_sm, "limited_by": limiter}


def summarize(info, dynamic_shared: int, num_warps: int, capability: int) -> Dict[str, Any]:
    k = info.kernel
    regs = k.registers if k is not None and k.registers is not None else 0
    shared = (k.shared if k is not None else 0) + int(dynamic_shared or 0)
    out = {"registers": regs,
           "spill_stores": k.spill_stores if k is not None else 0,
           "spill_loads": k.spill_loads if k is not None else 0,
           "stack": k.stack if k is not None else 0,
           "shared": shared,
           "barriers": k.barriers if k is not None else None,
           "ptxas": info.command.split(" ")[0].rsplit("/", 1)[-1] + " " +
           ".".join(map(str, info.ptxas_version or ()))}
    out.update(occupancy(regs, shared, num_warps, capability))
    return out
