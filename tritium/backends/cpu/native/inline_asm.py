"""`tt.elementwise_inline_asm` on the compiled path: the few PTX strings `tl.extra.cuda` emits,
with the CPU meanings the evaluator gives them (backends/cpu/ops_inline_asm.py): %globaltimer
is the host's real-time clock in ns, %smid is 0, griddepcontrol has nothing to wait for
(launches on the CPU run one after another), tanh.approx is libm's tanhf. Other asm cannot
run on a CPU; such a kernel goes to the evaluator, which reports it at the kernel's line.
"""
from __future__ import annotations

from .context import TV, Ctx, Unsupported, elementwise, lowers

# The strings as tritium/language/extra/cuda writes them (the backends may not import the
# language layer: an import cycle; tests/cpu/test_native.py checks they agree).
FAST_TANHF_ASM = "tanh.approx.f32 $0, $1;"
GLOBALTIMER_ASM = "mov.u64 $0, %globaltimer;"
SMID_ASM = "mov.u32 $0, %smid;"
GDC_WAIT_ASM = "griddepcontrol.wait; // dummy $0"
GDC_LAUNCH_ASM = "griddepcontrol.launch_dependents; // dummy $0"


def _globaltimer(cx: Ctx) -> str:
    cx.declare("clock_gettime", "declare i32 @clock_gettime(i32, ptr)")
    ts = cx.alloca("i64", 2)                                # struct timespec
    cx.do(f"call i32 @clock_gettime(i32 0, ptr {ts})")      # CLOCK_REALTIME
    sec = cx.emit(f"load i64, ptr {ts}")
    nsec = cx.emit(f"load i64, ptr {cx.emit(f'getelementptr i64, ptr {ts}, i32 1')}")
    return cx.emit(f"add i64 {cx.emit(f'mul i64 {sec}, 1000000000')}, {nsec}")


@lowers("tt.elementwise_inline_asm")
def _inline_asm(cx: Ctx, op):
    asm = op.attr("asm_string", "")
    if len(op.results) != 1:
        raise Unsupported("inline asm with several results")
    if asm == FAST_TANHF_ASM:
        elementwise(cx, op, lambda c, x: c.libm_call("tanh", "float", [x]), cost=20)
        return
    if asm in (SMID_ASM, GDC_WAIT_ASM, GDC_LAUNCH_ASM, GLOBALTIMER_ASM):
        v = _globaltimer(cx) if asm == GLOBALTIMER_ASM else "0"
        rt = op.results[0].type
        shape = getattr(rt, "shape", None)
        cx.set(op.results[0], TV(shape, rt, lambda c, idx: v, cost=0) if shape else v)
        return
    raise Unsupported(f"inline asm {asm!r} (no CPU meaning)")
