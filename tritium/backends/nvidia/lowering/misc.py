"""Program ids, printing, assertions, calls, assumptions, barriers, gather and histogram;
and the lowering of tt.func itself (kernels and private device functions)."""
from __future__ import annotations

import math
from typing import List, Optional

from ....ir import types as T
from ....ir.core import Operation
from .context import (REG, FunctionContext, LoweringError, ModuleContext,
                      bitwidth, elem_type, is_float, is_ptr, lowers, ltype, storage_bits)
from .control import flat_types, flatten, unflatten
from .tma import TMA_PARAM_TYPE

_AXES = "xyz"
# The kernel's global scratch parameter (lowering/tensormap.py writes TMA maps there).
GLOBAL_SCRATCH_PARAM = "%global_scratch"


def _sreg(ctx: FunctionContext, name: str, axis: int) -> str:
    fn = f"llvm.nvvm.read.ptx.sreg.{name}.{_AXES[axis]}"
    ctx.e.declare(fn, "i32", [])
    return ctx.e.pro(f"call i32 @{fn}()", name)


@lowers("tt.get_program_id")
def _program_id(ctx: FunctionContext, op) -> None:
    ctx.set(op.result, _sreg(ctx, "ctaid", int(op.attr("axis", 0))))


@lowers("tt.get_num_programs")
def _num_programs(ctx: FunctionContext, op) -> None:
    ctx.set(op.result, _sreg(ctx, "nctaid", int(op.attr("axis", 0))))


@lowers("llvm.intr.assume")
def _assume(ctx: FunctionContext, op) -> None:
    c = ctx.get(op.operands[0])
    if isinstance(c, list):
        return
    ctx.e.call("void", "llvm.assume", [("i1", c)])


@lowers("ttg.barrier")
def _barrier(ctx: FunctionContext, op) -> None:
    ctx.barrier()


# ------------------------------------------------------------------ printing
def _fmt_of(t: T.Type, signed: bool, hexa: bool, width: Optional[int] = None) -> str:
    t = elem_type(t)
    if is_ptr(t):
        return "%p"
    bits = bitwidth(t)
    if hexa:
        return "0x%0" + str(max(1, bits // 4)) + ("ll" if bits > 32 else "") + "x"
    w = str(width) if width else ""
    if is_float(t):
        return "%" + w + "f"
    if bits == 64:
        return "%" + w + ("lli" if signed else "llu")
    return "%" + w + ("i" if signed else "u")


def _promote(ctx: FunctionContext, t: T.Type, v: str, signed: bool, hexa: bool):
    e = ctx.e
    t = elem_type(t)
    lt = ltype(t)
    if is_ptr(t):
        return lt, v
    bits = bitwidth(t)
    if hexa and is_float(t):
        v = e.cast("bitcast", lt, v, f"i{bits}") if lt != f"i{bits}" else v
        lt = f"i{bits}"
        signed = False
    if lt.startswith("i") and not is_float(t) or lt == f"i{bits}":
        if bits < 32:
            return "i32", e.cast("sext" if signed and bits > 1 else "zext", lt, v, "i32")
        return lt, v
    if lt in ("half", "bfloat", "float"):
        return "double", e.cast("fpext", lt, v, "double")
    return lt, v


def _vprintf(ctx: FunctionContext, fmt: str, args: List[tuple]) -> None:
    e = ctx.e
    g = ctx.mod.out.string(fmt, "printf")
    e.declare("vprintf", "i32", ["ptr", "ptr"])
    if not args:
        e.emit(f"call i32 @vprintf(ptr {g}, ptr null)")
        return
    sty = "{ " + ", ".join(t for t, _ in args) + " }"
    buf = e.pro(f"alloca {sty}, align 8", "pbuf")
    for i, (t, v) in enumerate(args):
        p = e.inst(f"getelementptr inbounds {sty}, ptr {buf}, i32 0, i32 {i}", "pf")
        e.emit(f"store {t} {v}, ptr {p}")
    e.emit(f"call i32 @vprintf(ptr {g}, ptr {buf})")


@lowers("tt.print")
def _print(ctx: FunctionContext, op) -> None:
    prefix = op.attr("prefix", "") or ""
    hexa = bool(op.attr("hex", False))
    signed = list(op.attr("isSigned", ()) or ())
    pids = [_sreg(ctx, "ctaid", a) for a in range(3)]
    pid_args = [("i32", p) for p in pids]
    if op.num_operands == 0:
        _vprintf(ctx, "pid (%u, %u, %u)" + prefix.replace("%", "%%") + "\n", pid_args)
        return
    nops = op.num_operands
    for i, v in enumerate(op.operands):
        sgn = bool(signed[i]) if i < len(signed) else False
        t = v.type
        opnd = f"(operand {i}) " if nops > 1 else ""
        pre = prefix.replace("%", "%%")
        if not isinstance(t, T.TensorType):
            fmt = "pid (%u, %u, %u) idx ()" + pre + opnd + _fmt_of(t, sgn, hexa) + "\n"
            a = _promote(ctx, t, ctx.get(v), sgn, hexa)
            _vprintf(ctx, fmt, pid_args + [a])
            continue
        ll = ctx.ll(t)
        widths = [max(1, math.ceil(math.log10(d))) if d > 1 else 1 for d in t.dims]
        idx_fmt = ", ".join("%" + str(w) + "u" for w in widths)
        fmt = "pid (%u, %u, %u) idx (" + idx_fmt + ")" + pre + opnd + _fmt_of(t, sgn, hexa) + "\n"
        coords = ctx.coords(ll)
        canon = ctx.canonical(ll)
        owner, _ = ctx.owner_info(ll)
        vals = ctx.get(v)

        def body():
            for r, x in enumerate(vals):
                if canon[r] != r:
                    continue
                args = pid_args + [("i32", c) for c in coords[r]] + [_promote(ctx, t, x, sgn, hexa)]
                _vprintf(ctx, fmt, args)
        ctx.e.guarded(owner, body)


# ------------------------------------------------------------------ assert
@lowers("tt.assert")
def _assert(ctx: FunctionContext, op) -> None:
    e = ctx.e
    c = ctx.get(op.operands[0])
    cs = c if isinstance(c, list) else [c]
    ok = cs[0]
    for x in cs[1:]:
        ok = e.bin("and", "i1", ok, x)
    msg = op.attr("message", "") or ""
    loc = op.loc
    while getattr(loc, "callsite", None) is not None:
        loc = loc.callsite
    file = getattr(loc, "file", "<unknown>") or "<unknown>"
    line = int(getattr(loc, "line", 0) or 0)
    func = ctx.func.attr("sym_name") or "unknown"
    gm = ctx.mod.out.string(msg, "amsg")
    gf = ctx.mod.out.string(file, "afile")
    gn = ctx.mod.out.string(func, "afunc")
    e.declare("__assertfail", "void", ["ptr", "ptr", "i32", "ptr", "i64"], "noreturn")
    fail, cont = e.new_label("assert_fail"), e.new_label("assert_ok")
    e.cond_br(ok, cont, fail)
    e.start_block(fail)
    e.emit(f"call void @__assertfail(ptr {gm}, ptr {gf}, i32 {line}, ptr {gn}, i64 1)")
    e.emit("unreachable")
    e.start_block(cont)


# ------------------------------------------------------------------ gather / histogram
def _lin_index(coords: List[str], shape, ctx: FunctionContext) -> str:
    """Row-major linear index from per-dim i32 coordinates."""
    e = ctx.e
    acc = None
    for d, c in enumerate(coords):
        stride = math.prod(shape[d + 1:])
        term = c if stride == 1 else (str(int(c) * stride) if c.lstrip("-").isdigit()
                                      else e.bin("mul", "i32", c, str(stride)))
        acc = term if acc is None else e.bin("add", "i32", acc, term)
    return acc if acc is not None else "0"


def _smem_at(ctx: FunctionContext, base: int, idx: str, nb: int) -> str:
    from .reduce import _smem_elem_ptr
    return _smem_elem_ptr(ctx, base, idx, nb)


@lowers("tt.gather")
def _gather(ctx: FunctionContext, op) -> None:
    """Stage the source in shared memory (row-major), read it back at the coordinates the
    index tensor names (in the index tensor's layout), then move the values to the result
    layout with the convert machinery (reusing the scratch after a barrier)."""
    from .convert_layout import move
    src, idxv = op.operands
    axis = int(op.attr("axis"))
    e = ctx.e
    st_t = src.type
    elt = elem_type(st_t)
    st = ctx.storage_type(elt)
    nb = storage_bits(elt) // 8
    base = ctx.smem_base(op)
    sll = ctx.ll(st_t)
    scoords = ctx.coords(sll)
    canon = ctx.canonical(sll)
    svals = ctx.get(src)
    ctx.barrier()
    for r, x in enumerate(svals):
        if canon[r] != r:
            continue
        p = _smem_at(ctx, base, _lin_index(scoords[r], st_t.dims, ctx), nb)
        e.emit(f"store {st} {ctx.to_storage(elt, x)[1]}, ptr addrspace(3) {p}, align {nb}")
    ctx.barrier()
    ill = ctx.ll(idxv.type)
    icoords = ctx.coords(ill)
    ivals = ctx.get(idxv)
    it = ltype(idxv.type)
    vals = []
    for r in range(ill.get_in_dim_size(REG)):
        cs = list(icoords[r])
        iv = ivals[r]
        if it != "i32":
            iv = e.cast("trunc" if bitwidth(idxv.type) > 32 else "sext", it, iv, "i32")
        cs[axis] = iv
        p = _smem_at(ctx, base, _lin_index(cs, st_t.dims, ctx), nb)
        x = e.inst(f"load {st}, ptr addrspace(3) {p}, align {nb}", "ld")
        vals.append(ctx.from_storage(elt, x))
    rt = op.result.type
    if rt.encoding != idxv.type.encoding:
        vals = move(ctx, op, vals, ill, ctx.ll(rt), elt)
    ctx.set(op.result, vals)


@lowers("tt.histogram")
def _histogram(ctx: FunctionContext, op) -> None:
    e = ctx.e
    src = op.operands[0]
    mask = op.operands[1] if op.num_operands > 1 else None
    rt = op.result.type
    nbins = rt.dims[0]
    base = ctx.smem_base(op)
    nthreads = 32 * ctx.num_warps
    tid = ctx.tid()
    ctx.barrier()
    for start in range(0, nbins, nthreads):
        i = e.bin("add", "i32", tid, str(start)) if start else tid
        inb = e.icmp("ult", "i32", i, str(nbins))

        def zero(i=i):
            p = _smem_at(ctx, base, i, 4)
            e.emit(f"store i32 0, ptr addrspace(3) {p}, align 4")
        ctx.e.guarded(inb, zero)
    ctx.barrier()
    sll = ctx.ll(src.type)
    canon = ctx.canonical(sll)
    owner, _ = ctx.owner_info(sll)
    vals = ctx.get(src)
    if mask is not None and mask.type.encoding != src.type.encoding:
        raise LoweringError("tt.histogram: the mask's layout differs from the source's "
                            "(the layout passes must convert it)")
    masks = ctx.regs(mask, len(vals)) if mask is not None else None
    st = ltype(src.type)
    for r, x in enumerate(vals):
        if canon[r] != r:
            continue
        xi = x if st == "i32" else e.cast("trunc" if bitwidth(src.type) > 32 else "sext", st, x, "i32")
        ok = e.icmp("ult", "i32", xi, str(nbins))
        if masks is not None:
            ok = e.bin("and", "i1", ok, masks[r])
        if owner is not None:
            ok = e.bin("and", "i1", ok, owner)

        def add(xi=xi):
            p = _smem_at(ctx, base, xi, 4)
            e.emit(f"atomicrmw add ptr addrspace(3) {p}, i32 1 monotonic, align 4")
        ctx.e.guarded(ok, add)
    ctx.barrier()
    rll = ctx.ll(rt)
    out = []
    for row in ctx.coords(rll):
        p = _smem_at(ctx, base, row[0], 4)
        out.append(e.inst(f"load i32, ptr addrspace(3) {p}, align 4", "ld"))
    ctx.set(op.result, out)


# ------------------------------------------------------------------ functions and calls
def _is_kernel(func: Operation) -> bool:
    return (func.attr("sym_visibility") or "public") != "private"


@lowers("tt.call")
def _call(ctx: FunctionContext, op) -> None:
    callee = op.attr("callee")
    args = flatten(ctx, [ctx.get(v) for v in op.operands])
    atys = flat_types(ctx, [v.type for v in op.operands])
    rtypes = [r.type for r in op.results]
    rtys = flat_types(ctx, rtypes)
    ret = "void" if not rtys else rtys[0] if len(rtys) == 1 else "{ " + ", ".join(rtys) + " }"
    arg_text = ", ".join(f"{t} {v}" for t, v in zip(atys, args))
    if ret == "void":
        ctx.e.emit(f"call void @{_sym(callee)}({arg_text})")
        return
    r = ctx.e.inst(f"call {ret} @{_sym(callee)}({arg_text})", "call")
    flat = [r] if len(rtys) == 1 else [ctx.e.extract(ret, r, i) for i in range(len(rtys))]
    for res, v in zip(op.results, unflatten(ctx, rtypes, flat)):
        ctx.set(res, v)


def _sym(name: str) -> str:
    if all(c.isalnum() or c in "_.$" for c in name) and not name[0].isdigit():
        return name
    return '"' + name + '"'


def lower_function(mctx: ModuleContext, func: Operation) -> None:
    ctx = FunctionContext(mctx, func)
    e = ctx.e
    name = func.attr("sym_name")
    entry = func.regions[0].entry
    kernel = _is_kernel(func)
    params = []
    for i, a in enumerate(entry.args):
        t = a.type
        if isinstance(t, T.TensorType):
            if kernel:
                raise LoweringError(f"kernel {name}: tensor argument {i}")
            n = ctx.num_regs(t)
            names = [f"%a{i}_{j}" for j in range(n)]
            params += [f"{ltype(t)} {nm}" for nm in names]
            ctx.values[a] = names
            continue
        if isinstance(t, T.TensorDescType):
            if not kernel:
                raise LoweringError(f"function {name}: a TMA descriptor argument {i} outside a kernel")
            params.append(f"{TMA_PARAM_TYPE} %arg{i}")
            ctx.values[a] = f"%arg{i}"
            continue
        lt = ltype(t)
        if kernel and lt == "i1":
            params.append(f"i8 %arg{i}")
            ctx.values[a] = e.pro(f"trunc i8 %arg{i} to i1", "b")
        else:
            params.append(f"{lt} %arg{i}")
            ctx.values[a] = f"%arg{i}"
    if kernel and mctx.module.attr("ttg.global_scratch_memory_size"):
        # Global scratch (gpu/passes/global_scratch.py) comes last, after every parameter
        # of the signature, as upstream's kernels take it.
        params.append(f"ptr addrspace(1) {GLOBAL_SCRATCH_PARAM}")
        ctx.global_scratch = GLOBAL_SCRATCH_PARAM
    term = ctx.lower_block(entry)
    ftype = func.attr("function_type")
    rtypes = list(ftype.results) if ftype is not None else []
    rtys = flat_types(ctx, rtypes)
    if term is not None and term.name == "tt.return" and term.operands:
        vals = flatten(ctx, [ctx.get(v) for v in term.operands])
        if len(vals) == 1:
            e.emit(f"ret {rtys[0]} {vals[0]}")
        else:
            sty = "{ " + ", ".join(rtys) + " }"
            acc = "poison"
            for j, (t, v) in enumerate(zip(rtys, vals)):
                acc = e.inst(f"insertvalue {sty} {acc}, {t} {v}, {j}", "rv")
            e.emit(f"ret {sty} {acc}")
    else:
        e.emit("ret void")
    if kernel:
        nt = 32 * mctx.num_warps
        # reqntid (exactly this many threads, as upstream) rather than maxntid: ptxas then
        # knows the block size, not just a bound, when it allocates registers.
        # maxnreg (upstream's option) as LLVM's "nvvm.maxnreg": `.maxnreg N` on the entry,
        # never on the noinline device functions it calls.
        cap = f' "nvvm.maxnreg"="{int(mctx.maxnreg)}"' if mctx.maxnreg else ""
        head = (f'define ptx_kernel void @{_sym(name)}({", ".join(params)}) '
                f'"nvvm.reqntid"="{nt}"{cap} {{')
    else:
        ret = "void" if not rtys else rtys[0] if len(rtys) == 1 else "{ " + ", ".join(rtys) + " }"
        head = f'define internal {ret} @{_sym(name)}({", ".join(params)}) {{'
    if ctx.scope is not None:
        head = head[:-1] + f"!dbg !{ctx.scope} {{"
    body = [head, "entry:"] + e.prologue + e.lines + ["}", ""]
    mctx.out.functions.append("\n".join(body))
