"""A `tt.func` → one LLVM function for the host that runs a range of programs.

    void @<kernel>(ptr %args, i32 %first, i32 %last)

`%args` points at one 8-byte slot per value: the grid (x, y, z), then the kernel's runtime
arguments in IR order (pointers as addresses, integers sign-extended, floats in their low
bytes), then the launch's id for the print and assert callbacks (debug.py), then the size in bytes from which a
launch's block stores stream past the caches (stream.py), then the address of a shared
program counter (0: run [first, last) as given) and how many programs to claim from it at a
time (launcher.py). The loop over linear program ids lives here, so Python calls the kernel once per
thread per launch; ids map to (x, y, z) with z fastest, as the evaluator orders them.
"""
from __future__ import annotations

from typing import List, Tuple

from ....ir import types as T
from .context import Ctx, Unsupported, lty
from .debug import Sites

# One import per op family: each registers its handlers.
from . import arith, control, debug, dot, inline_asm, libdevice, mathops, memory, reduce, shape  # noqa: F401,E402,E501


def arg_kinds(func) -> List[str]:
    """How the launcher packs each runtime argument: 'ptr', 'i<N>', 'f16', 'f32', 'f64'."""
    out = []
    for t in func.attr("function_type").inputs:
        if isinstance(t, T.PointerType):
            out.append("ptr")
        elif isinstance(t, T.IntegerType):
            out.append(f"i{t.width}")
        elif isinstance(t, T.FloatType) and t.name in ("f16", "f32", "f64", "bf16"):
            out.append(t.name)
        else:
            raise Unsupported(f"kernel argument of type {t}")
    return out


def _symbol(name: str) -> str:
    return f'@"{name}"'


# Ops whose meaning depends on the order in which other programs see this one's stores:
# kernels holding one keep every store ordered (no streaming stores).
_ORDERED = {"tt.atomic_rmw", "tt.atomic_cas", "tt.print", "tt.elementwise_inline_asm"}


def kernel_func(module, name: str):
    """The `tt.func` named `name` in `module`."""
    func = next((op for op in module.regions[0].entry
                 if op.name == "tt.func" and op.attr("sym_name") == name), None)
    if func is None:
        raise KeyError(f"no tt.func named '{name}'")
    return func


def lower_kernel(module, name: str, vector_bits: int, line_info: bool = False,
                 x86: bool = True) -> Tuple[str, List[str], Sites]:
    """LLVM IR text of kernel `name`, its argument kinds and its print and assert sites. `line_info`
    tags each instruction with the kernel line of the op it came from (`!dbg`), which puts
    a line table in the object code (the explain tool's host-assembly pane) and changes no
    machine code. `x86`: the host has x86's streaming stores (stream.py)."""
    func = kernel_func(module, name)
    if any(o.name == "tt.call" for o in func.walk()):
        raise Unsupported("tt.call left after inlining (a recursive call)")
    kinds = arg_kinds(func)
    cx = Ctx(name, vector_bits, line_info)
    if cx.line_info is not None:
        cx.scope = cx.line_info.subprogram(name, func.loc)
    entry = func.regions[0].entry
    body: List[str] = []
    cx.lines = body
    for i in range(3):
        p = cx.emit(f"getelementptr i64, ptr %args, i64 {i}")
        cx.nprog[i] = cx.emit(f"load i32, ptr {p}")
    args = []
    for i, (a, k) in enumerate(zip(entry.args, kinds)):
        p = cx.emit(f"getelementptr i64, ptr %args, i64 {3 + i}")
        ty = lty(a.type)
        if k == "bf16":
            raw = cx.emit(f"load i16, ptr {p}")
            w = cx.emit(f"shl i32 {cx.emit(f'zext i16 {raw} to i32')}, 16")
            args.append(cx.emit(f"bitcast i32 {w} to float"))
        else:
            args.append(cx.emit(f"load {ty}, ptr {p}"))
    p = cx.emit(f"getelementptr i64, ptr %args, i64 {3 + len(kinds)}")
    cx.launch_id = cx.emit(f"load i64, ptr {p}")
    p = cx.emit(f"getelementptr i64, ptr %args, i64 {4 + len(kinds)}")
    cx.stream_bytes = cx.emit(f"load i64, ptr {p}")
    total = cx.emit(f"zext i32 {cx.nprog[0]} to i64")
    for d in (1, 2):
        total = cx.emit(f"mul i64 {total}, {cx.emit(f'zext i32 {cx.nprog[d]} to i64')}")
    cx.total_programs = total
    cx.stream_ok = x86 and not any(o.name in _ORDERED for o in func.walk())
    cx.func = func
    gyz = cx.emit(f"mul i32 {cx.nprog[1]}, {cx.nprog[2]}")
    # Which programs this call runs: [first, last) when the counter slot is 0; else chunks
    # claimed from the shared counter until [first, last) is used up, so a thread whose
    # core is busy with other work takes fewer programs.
    p = cx.emit(f"getelementptr i64, ptr %args, i64 {5 + len(kinds)}")
    counter = cx.emit(f"load ptr, ptr {p}")
    p = cx.emit(f"getelementptr i64, ptr %args, i64 {6 + len(kinds)}")
    chunk = cx.emit(f"load i32, ptr {p}")
    dynamic = cx.emit(f"icmp ne ptr {counter}, null")
    cx.br("claim")
    cx.start_block("claim")
    body.append(f"  %taken = phi i1 [ false, %entry ], [ true, %claimed ]")
    body.append(f"  %again = and i1 %taken, {cx.emit(f'xor i1 {dynamic}, true')}")
    body.append("  br i1 %again, label %done, label %claim2")
    cx.start_block("claim2")
    body.append(f"  br i1 {dynamic}, label %grab, label %static")
    cx.start_block("grab")
    got = cx.emit(f"atomicrmw add ptr {counter}, i32 {chunk} monotonic, align 4")
    end = cx.emit(f"add i32 {got}, {chunk}")
    end = cx.emit(f"select i1 {cx.emit(f'icmp slt i32 {end}, %last')}, i32 {end}, i32 %last")
    cx.br("range")
    cx.start_block("static")
    cx.br("range")
    cx.start_block("range")
    body.append(f"  %lo = phi i32 [ {got}, %grab ], [ %first, %static ]")
    body.append(f"  %hi = phi i32 [ {end}, %grab ], [ %last, %static ]")
    body.append("  %any = icmp slt i32 %lo, %hi")
    body.append("  br i1 %any, label %prog, label %done")
    cx.start_block("prog")
    lin = "%lin"
    at = len(body)
    body.append(None)
    cx.pid[0] = cx.emit(f"udiv i32 {lin}, {gyz}")
    yz = cx.emit(f"urem i32 {lin}, {gyz}")
    cx.pid[1] = cx.emit(f"udiv i32 {yz}, {cx.nprog[2]}")
    cx.pid[2] = cx.emit(f"urem i32 {yz}, {cx.nprog[2]}")
    cx.run_block(entry, args)
    cx.flush_pending()
    nxt = cx.emit(f"add i32 {lin}, 1")
    more = cx.emit(f"icmp slt i32 {nxt}, %hi")
    cx.nloops += 1
    cx.do(f"br i1 {more}, label %prog, label %claimed, {cx.loop_md(False)}")
    body[at] = f"  {lin} = phi i32 [ %lo, %range ], [ {nxt}, %{cx.block} ]"
    cx.start_block("claimed")
    cx.nloops += 1
    cx.do(f"br label %claim, {cx.loop_md(False)}")
    text = [*cx.globals, "",
            f"define void {_symbol(name)}(ptr noalias nocapture readonly %args, i32 %first, "
            f"i32 %last) #0{f' !dbg !{cx.scope}' if cx.scope is not None else ''} {{",
            "entry:", *cx.allocas, *body, "done:",
            # Streaming stores are weakly ordered: drain them before the caller (and the
            # thread pool's join) may read what they wrote.
            *(["  call void @llvm.x86.sse.sfence()"] if cx.streamed else []),
            "  ret void", "}", "",
            *(["declare void @llvm.x86.sse.sfence()"] if cx.streamed else []),
            *cx.decls.values(), "", *cx.meta, "",
            'attributes #0 = { nounwind "frame-pointer"="none" }']
    if cx.line_info is not None:
        text.append(cx.line_info.text())
    return "\n".join(text) + "\n", kinds, Sites(cx.print_sites, cx.assert_sites)
