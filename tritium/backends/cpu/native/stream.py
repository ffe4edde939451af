"""Streaming (non-temporal) stores for launches that write more than the caches hold.

A plain store first reads the destination line into the cache (read-for-ownership), so a
kernel streaming an output far larger than the last-level cache moves 4 bytes over the
memory bus for every 3 it needs (vector add: read x, read y, read out, write out). x86's
non-temporal stores write whole lines without reading them, as `memcpy` does for large
copies; vector add over 2^24 floats runs ~25% faster with them (bench/RESULTS.md).

A full (unmasked) block store whose rows are contiguous (the AxisInfo analysis) streams when,
at run time, (a) the launch as a whole stores at least `stream_bytes` through it (the
launcher passes the last-level cache size: below that, the output may still be in cache for
whoever reads it next) and (b) every row starts on a vector-aligned address. The block is
computed piece by piece into a small stack buffer (L1; the fused elementwise loop stays
vectorised), each piece copied out with explicit aligned vector stores marked
`!nontemporal` (LLVM's vectoriser will not widen a non-temporal scalar store itself). Kernels with atomics or
prints never stream (module.py), and the kernel ends with `sfence`, so the stores are
visible before the launch returns.
"""
from __future__ import annotations

import math

from .context import Ctx, mem_ty

# Blocks smaller than MIN_BYTES gain nothing worth a second code path. PIECE: bytes staged
# at a time (measured: 256 B - 1 KiB pieces beat torch's plain stores by ~20%, 16 KiB pieces
# lose 30% to them).
MIN_BYTES, PIECE = 1 << 10, 1 << 10


def _bytes(mty: str) -> int:
    return {"i8": 1, "i16": 2, "half": 2, "i32": 4, "float": 4, "i64": 8, "double": 8,
            "ptr": 8}[mty]


def can_stream(cx: Ctx, op, shape) -> bool:
    """Whether the store `op` of a block of `shape` is worth a streaming version."""
    if not cx.stream_ok:
        return False
    mty = mem_ty(op.operand(1).type)
    eb = _bytes(mty)
    chunk = cx.vector_bits // 8
    total = math.prod(shape) * eb
    if (shape[-1] * eb) % chunk or total < MIN_BYTES:
        return False
    return cx.axis_info().get(op.operand(0)).contiguity[-1] >= shape[-1]


def streaming_store(cx: Ctx, op, ptr, shape, write_elem, plain) -> None:
    """Emit the store of a full block twice: streaming (when the run-time test passes) and
    `plain()`. `write_elem(idx, dst_ptr)` stores element `idx` through `dst_ptr`."""
    mty = mem_ty(op.operand(1).type)
    eb = _bytes(mty)
    chunk = cx.vector_bits // 8
    total = math.prod(shape) * eb
    outer = list(shape[:-1]) or [1]
    row_of = (lambda o: o + ["0"]) if shape[:-1] else (lambda o: ["0"])
    # (a) the launch stores enough through this op
    launch = cx.emit(f"mul i64 {cx.total_programs}, {total}")
    big = cx.emit(f"icmp uge i64 {launch}, {cx.stream_bytes}")
    # (b) every row starts aligned to a vector
    def check(o, acc):
        a = cx.emit(f"ptrtoint ptr {ptr.at(cx, row_of(o))} to i64")
        return cx.emit(f"or i64 {acc}, {a}")
    low = cx.emit(f"and i64 {cx.fold(outer, 'i64', '0', check)}, {chunk - 1}")
    aligned = cx.emit(f"icmp eq i64 {low}, 0")
    go = cx.emit(f"and i1 {big}, {aligned}")
    yes, no, join = cx.label("stream"), cx.label("cached"), cx.label("stored")
    cx.do(f"br i1 {go}, label %{yes}, label %{no}")

    cx.start_block(yes)
    # Pieces of PIECE bytes: computed into L1, then streamed out, so the loads of the next
    # piece overlap the stores of this one (staging a whole 16 KiB block first and then
    # streaming it is slower than plain stores: reads and writes no longer overlap).
    piece = min(PIECE, shape[-1] * eb)
    pe = piece // eb
    tmp = cx.alloca(mty, pe)
    vty = f"<{chunk // 8} x i64>"

    def one_piece(o):
        *rows, k = o
        dst = cx.emit(f"getelementptr i8, ptr {ptr.at(cx, rows + ['0'] if shape[:-1] else ['0'])}"
                      f", i32 {cx.emit(f'mul nuw nsw i32 {k}, {piece}')}")
        col0 = cx.emit(f"mul nuw nsw i32 {k}, {pe}")

        def stage(j):
            col = cx.emit(f"add nuw nsw i32 {col0}, {j[0]}")
            write_elem(rows + [col] if shape[:-1] else [col],
                       cx.emit(f"getelementptr inbounds {mty}, ptr {tmp}, i32 {j[0]}"))
        cx.loops([pe], stage)

        def out(v):
            off = cx.emit(f"mul nuw nsw i32 {v[0]}, {chunk}")
            s_ = cx.emit(f"getelementptr inbounds i8, ptr {tmp}, i32 {off}")
            d = cx.emit(f"getelementptr i8, ptr {dst}, i32 {off}")
            x = cx.emit(f"load {vty}, ptr {s_}, align {chunk}")
            cx.do(f"store {vty} {x}, ptr {d}, align {chunk}, !nontemporal !{_nt_md(cx)}")
        cx.loops([piece // chunk], out, vectorize=False)
    cx.loops(list(shape[:-1]) + [shape[-1] * eb // piece], one_piece, vectorize=False)
    cx.streamed = True
    cx.br(join)

    cx.start_block(no)
    plain()
    cx.br(join)
    cx.start_block(join)


def _nt_md(cx: Ctx) -> int:
    """The `!{i32 1}` node `!nontemporal` points at (one per module)."""
    if cx.nt_node is None:
        cx.nt_node = next(cx.md_ids)
        cx.meta.append(f"!{cx.nt_node} = !{{i32 1}}")
    return cx.nt_node
