"""Kernels whose loop reads a per-row scalar (a 1x1 or Xx1 load) beside row-wide tiles, the
shape of Inductor's layer-norm backward ("mix-order reduction"): the scalar's load must not
give its layout to the row-wide values it is broadcast into."""
import tritium.language as tl
from tritium import jit


@jit
def norm_bwd_rows(dy_ptr, w_ptr, x_ptr, mean_ptr, rstd_ptr, dx_ptr, ws_ptr, n_rows,
                  R: tl.constexpr, XBLOCK: tl.constexpr, SPLIT: tl.constexpr):
    xoffset = tl.program_id(0) * SPLIT
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    r = tl.arange(0, R)[None, :]
    acc0 = tl.full([R], 0, tl.float32)[None, :]
    acc1 = tl.full([R], 0, tl.float32)[None, :]
    split = min(SPLIT, n_rows - xoffset)
    for _ in tl.range(0, split, XBLOCK, num_stages=1):
        x0 = xindex
        xindex += XBLOCK
        dy = tl.load(dy_ptr + (r + R * x0)).to(tl.float32)
        w = tl.load(w_ptr + r, eviction_policy="evict_last").to(tl.float32)
        x = tl.load(x_ptr + (r + R * x0)).to(tl.float32)
        mean = tl.load(mean_ptr + x0, eviction_policy="evict_last")
        rstd = tl.load(rstd_ptr + x0, eviction_policy="evict_last")
        g = dy * w
        s1 = tl.sum(g, 1)[:, None]
        xhat = (x - mean) * rstd
        s2 = tl.sum(g * xhat, 1)[:, None]
        dx = (rstd / R) * (g * R - s1 - xhat * s2)
        tl.store(dx_ptr + (r + R * x0), dx.to(tl.float16))
        acc0 = acc0 + tl.sum(dy * xhat, 0)
        acc1 = acc1 + tl.sum(dy, 0)
    tl.store(ws_ptr + tl.program_id(0) * R + r, acc0)
    tl.store(ws_ptr + (tl.program_id(0) + tl.num_programs(0)) * R + r, acc1)


def norm_bwd_spec(R, XBLOCK, SPLIT=16):
    return (("*fp16", "D"), ("*fp16", "D"), ("*fp16", "D"), ("*fp32", "D"), ("*fp32", "D"),
            ("*fp16", "D"), ("*fp32", "D"), ("i32", ""), ("constexpr", R),
            ("constexpr", XBLOCK), ("constexpr", SPLIT))
