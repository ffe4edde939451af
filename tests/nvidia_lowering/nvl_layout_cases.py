"""Hand-built TTGIR kernels over explicit layouts: load a tile in layout A, move it to
layout B (convert_layout, trans, reshape, ...), store it in layout B. Used by the CPU
compile/FileCheck tests and by the GPU tests (which launch them through the driver)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

from tritium.gpu.layouts import BlockedEncoding, LinearEncoding
from tritium.gpu.linear_layout import LinearLayout

_TY = {"f32": "f32", "f16": "f16", "i8": "i8", "f64": "f64", "i64": "i64"}


def _tt(shape, elt, enc):
    dims = "x".join(str(s) for s in shape)
    return f"tensor<{dims}x{elt}, {enc}>"


def offsets_2d(name: str, shape, enc: str, row_stride: int, col_stride: int = 1) -> Tuple[List[str], str]:
    """Lines computing an i32 offset tensor r*row_stride + c*col_stride in layout `enc`."""
    M, N = shape
    s1 = f"#ttg.slice<{{dim = 1, parent = {enc}}}>"
    s0 = f"#ttg.slice<{{dim = 0, parent = {enc}}}>"
    L = [
        f"%{name}_rm = tt.make_range {{end = {M} : i32, start = 0 : i32}} : tensor<{M}xi32, {s1}>",
        f"%{name}_rn = tt.make_range {{end = {N} : i32, start = 0 : i32}} : tensor<{N}xi32, {s0}>",
        f"%{name}_rm2 = tt.expand_dims %{name}_rm {{axis = 1 : i32}} : tensor<{M}xi32, {s1}> -> {_tt((M, 1), 'i32', enc)}",
        f"%{name}_rn2 = tt.expand_dims %{name}_rn {{axis = 0 : i32}} : tensor<{N}xi32, {s0}> -> {_tt((1, N), 'i32', enc)}",
        f"%{name}_cs = arith.constant dense<{row_stride}> : {_tt((M, 1), 'i32', enc)}",
        f"%{name}_cc = arith.constant dense<{col_stride}> : {_tt((1, N), 'i32', enc)}",
        f"%{name}_rmn = arith.muli %{name}_rm2, %{name}_cs : {_tt((M, 1), 'i32', enc)}",
        f"%{name}_rnn = arith.muli %{name}_rn2, %{name}_cc : {_tt((1, N), 'i32', enc)}",
        f"%{name}_a = tt.broadcast %{name}_rmn : {_tt((M, 1), 'i32', enc)} -> {_tt((M, N), 'i32', enc)}",
        f"%{name}_b = tt.broadcast %{name}_rnn : {_tt((1, N), 'i32', enc)} -> {_tt((M, N), 'i32', enc)}",
        f"%{name}_off = arith.addi %{name}_a, %{name}_b : {_tt((M, N), 'i32', enc)}",
    ]
    return L, f"%{name}_off"


def cvt_kernel(shape, a: str, b: str, elt: str = "f32", num_warps: int = 4, op: str = "cvt") -> str:
    """TTGIR text: y[...] = x[...] through layout a -> b (op: cvt | trans)."""
    M, N = shape
    lines = []
    oa, offa = offsets_2d("a", shape, "#A", N)
    lines += oa
    pty = f"!tt.ptr<{elt}>"
    lines += [
        f"%xs = tt.splat %x : {pty} -> {_tt(shape, pty, '#A')}",
        f"%xp = tt.addptr %xs, {offa} : {_tt(shape, pty, '#A')}, {_tt(shape, 'i32', '#A')}",
        f"%v = tt.load %xp : {_tt(shape, pty, '#A')}",
    ]
    if op == "cvt":
        oshape = shape
        lines.append(f"%w = ttg.convert_layout %v : {_tt(shape, elt, '#A')} -> {_tt(shape, elt, '#B')}")
        if "#ttg.linear" in b:   # slices of a general linear layout are not defined
            ob = [f"%b_off = ttg.convert_layout {offa} : {_tt(shape, 'i32', '#A')} -> {_tt(shape, 'i32', '#B')}"]
            offb = "%b_off"
        else:
            ob, offb = offsets_2d("b", shape, "#B", N)
    elif op == "trans":
        oshape = (N, M)
        lines.append(f"%w = tt.trans %v {{order = array<i32: 1, 0>}} : {_tt(shape, elt, '#A')} -> {_tt(oshape, elt, '#B')}")
        ob, offb = offsets_2d("b", oshape, "#B", M)  # y[n, m] = x[m, n], y is [N, M] row-major
    else:
        raise ValueError(op)
    lines += ob
    lines += [
        f"%ys = tt.splat %y : {pty} -> {_tt(oshape, pty, '#B')}",
        f"%yp = tt.addptr %ys, {offb} : {_tt(oshape, pty, '#B')}, {_tt(oshape, 'i32', '#B')}",
        f"tt.store %yp, %w : {_tt(oshape, pty, '#B')}",
        "tt.return",
    ]
    body = "\n    ".join(lines)
    return (f"#A = {a}\n#B = {b}\n"
            f'module attributes {{"ttg.num-warps" = {num_warps} : i32, "ttg.threads-per-warp" = 32 : i32}} {{\n'
            f"  tt.func public @cvt(%x: {pty} {{tt.divisibility = 16 : i32}}, %y: {pty} {{tt.divisibility = 16 : i32}}) {{\n"
            f"    {body}\n  }}\n}}\n")


def blocked(spt, tpw, wpc, order) -> str:
    return str(BlockedEncoding(spt, tpw, wpc, order))


def linear(reg, lane, warp) -> str:
    return str(LinearEncoding(LinearLayout({"register": reg, "lane": lane, "warp": warp, "block": []},
                                           ["dim0", "dim1"])))


@dataclass
class LayoutCase:
    name: str
    shape: tuple
    a: str
    b: str
    elt: str = "f32"
    num_warps: int = 4
    op: str = "cvt"

    @property
    def text(self) -> str:
        return cvt_kernel(self.shape, self.a, self.b, self.elt, self.num_warps, self.op)


B_ROW = blocked([1, 4], [4, 8], [4, 1], [1, 0])
B_COL = blocked([4, 1], [8, 4], [1, 4], [0, 1])
LAYOUT_CASES = [
    LayoutCase("shared_row_to_col", (64, 64), B_ROW, B_COL),
    LayoutCase("shared_col_to_row_f16", (64, 64), B_COL, B_ROW, "f16"),
    LayoutCase("shared_row_to_col_i8", (32, 128), B_ROW, B_COL, "i8"),
    LayoutCase("shared_row_to_col_f64", (32, 32), B_ROW, B_COL, "f64"),
    LayoutCase("shared_warps_swap", (32, 32), blocked([1, 1], [1, 32], [4, 1], [1, 0]),
               blocked([1, 1], [1, 32], [1, 4], [1, 0])),
    LayoutCase("shuffle_order_swap", (32, 32), blocked([1, 1], [2, 16], [4, 1], [1, 0]),
               blocked([1, 1], [2, 16], [4, 1], [0, 1])),
    LayoutCase("shuffle_lane_transpose", (32, 32), blocked([1, 1], [32, 1], [1, 4], [0, 1]),
               blocked([1, 1], [1, 32], [1, 4], [1, 0])),
    LayoutCase("register_only", (32, 32), blocked([1, 2], [1, 32], [1, 4], [1, 0]),
               blocked([2, 2], [1, 32], [1, 4], [0, 1])),
    LayoutCase("broadcast_src_small_tensor", (8, 8), blocked([1, 1], [4, 8], [4, 1], [1, 0]),
               blocked([2, 2], [8, 4], [1, 4], [0, 1])),
    LayoutCase("to_linear_swizzled", (16, 16), B_ROW,
               linear([[0, 1], [1, 0]], [[0, 2], [0, 4], [2, 0], [4, 1], [8, 0]], [[0, 8], [1, 8]])),
    LayoutCase("nw8_row_to_col", (128, 64), blocked([1, 8], [2, 16], [8, 1], [1, 0]),
               blocked([8, 1], [16, 2], [1, 8], [0, 1]), num_warps=8),
    LayoutCase("nw1_row_to_col", (16, 64), blocked([1, 4], [2, 16], [1, 1], [1, 0]),
               blocked([4, 1], [16, 2], [1, 1], [0, 1]), num_warps=1),
    LayoutCase("trans_row", (32, 64), B_ROW, B_ROW, op="trans"),
    LayoutCase("trans_to_col", (64, 32), B_ROW, B_COL, op="trans"),
    LayoutCase("trans_f16_nw2", (16, 64), blocked([1, 8], [4, 8], [2, 1], [1, 0]),
               blocked([1, 8], [4, 8], [2, 1], [1, 0]), "f16", 2, op="trans"),
]
