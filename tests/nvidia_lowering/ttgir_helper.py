"""A tiny stand-in for the TTGIR pipeline, used to feed the lowering in tests.

`assign_layouts(module, num_warps, vec)` gives every tensor a blocked layout (the default
builder with `vec` elements per thread along the fastest dim when the tensor is big enough)
and inserts `ttg.convert_layout` wherever docs/ttgir-contract.md needs equal or slice
encodings. It is deliberately naive: it exists so the lowering can be tested on real
kernels independently of the real `tritium.gpu.pipeline.make_ttgir`.
"""
from __future__ import annotations

from tritium.gpu.layouts import SliceEncoding, default_blocked_encoding
from tritium.ir import types as T
from tritium.ir.attrs import IntegerAttr, StringAttr
from tritium.ir.core import Operation, module_body

SAME_ENCODING = {
    "tt.addptr", "arith.select", "tt.bitcast", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int",
    "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.clampf", "tt.extern_elementwise",
    "tt.elementwise_inline_asm", "tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas",
}
FREE_RESULT = {"tt.trans", "tt.reshape", "tt.join", "tt.split", "tt.cat", "tt.histogram",
               "tt.gather", "tt.make_range", "tt.splat", "arith.constant"}


def _default(shape, num_warps, vec):
    rank = len(shape)
    spt = [1] * rank
    numel = 1
    for s in shape:
        numel *= s
    if vec > 1 and numel >= vec * 32 * num_warps:
        spt[-1] = min(vec, shape[-1])
    return default_blocked_encoding(shape, num_warps, size_per_thread=spt)


def assign_layouts(module: Operation, num_warps: int = 4, vec: int = 4) -> Operation:
    module.set_attr("ttg.num-warps", IntegerAttr(num_warps, T.i32))
    module.set_attr("ttg.threads-per-warp", IntegerAttr(32, T.i32))
    module.set_attr("ttg.num-ctas", IntegerAttr(1, T.i32))
    module.set_attr("ttg.target", StringAttr("cuda:90"))

    def enc_of(v):
        t = v.type
        return t.encoding if isinstance(t, T.TensorType) else None

    def with_enc(t, enc):
        return T.TensorType(t.dims, t.element, enc) if isinstance(t, T.TensorType) else t

    def default_type(t):
        if not isinstance(t, T.TensorType):
            return t
        return with_enc(t, _default(t.dims, num_warps, vec))

    def convert(op, i, enc):
        v = op.operand(i)
        if not isinstance(v.type, T.TensorType) or v.type.encoding == enc:
            return
        cvt = Operation("ttg.convert_layout", [v], [with_enc(v.type, enc)])
        op.parent.insert_before(cvt, op)
        op.set_operand(i, cvt.result)

    def convert_yield(term, encs):
        for i, enc in enumerate(encs):
            if enc is not None:
                convert(term, i, enc)

    def visit_block(block):
        for op in list(block):
            visit(op)

    def visit(op):
        name = op.name
        if name == "tt.func":
            entry = op.regions[0].entry
            for a in entry.args:
                a.type = default_type(a.type)
            visit_block(entry)
            ret = entry.last
            op.set_attr("function_type", T.FunctionType(tuple(a.type for a in entry.args),
                                                        tuple(v.type for v in ret.operands)))
            funcs[op.attr("sym_name")] = op
            return
        if name == "tt.call":
            callee = funcs[op.attr("callee")]
            ft = callee.attr("function_type")
            for i, t in enumerate(ft.inputs):
                if isinstance(t, T.TensorType):
                    convert(op, i, t.encoding)
            for r, t in zip(op.results, ft.results):
                r.type = t
            return
        if name == "scf.for":
            body = op.regions[0].entry
            for a, v in zip(body.args[1:], op.operands[3:]):
                a.type = v.type
            visit_block(body)
            convert_yield(body.last, [enc_of(a) for a in body.args[1:]])
            for r, a in zip(op.results, body.args[1:]):
                r.type = a.type
            return
        if name == "scf.if":
            then = op.regions[0].entry
            visit_block(then)
            encs = [enc_of(v) for v in then.last.operands]
            if len(op.regions) > 1 and op.regions[1].blocks:
                els = op.regions[1].entry
                visit_block(els)
                convert_yield(els.last, encs)
            for r, v in zip(op.results, then.last.operands):
                r.type = v.type
            return
        if name == "scf.while":
            before, after = op.regions[0].entry, op.regions[1].entry
            for a, v in zip(before.args, op.operands):
                a.type = v.type
            visit_block(before)
            cond = before.last
            for a, v in zip(after.args, cond.operands[1:]):
                a.type = v.type
            visit_block(after)
            convert_yield(after.last, [enc_of(a) for a in before.args])
            for r, v in zip(op.results, cond.operands[1:]):
                r.type = v.type
            return
        if name in ("tt.reduce", "tt.scan"):
            src_enc = enc_of(op.operands[0])
            for i in range(1, op.num_operands):
                convert(op, i, src_enc)
            for r in op.results:
                if isinstance(r.type, T.TensorType):
                    r.type = with_enc(r.type, src_enc if name == "tt.scan"
                                      else SliceEncoding(int(op.attr("axis")), src_enc))
            # combine regions hold scalars only
            return
        if name == "tt.broadcast":
            r = op.result
            r.type = default_type(r.type)
            convert(op, 0, r.type.encoding)
            return
        if name == "tt.expand_dims":
            r = op.result
            r.type = default_type(r.type)
            convert(op, 0, SliceEncoding(int(op.attr("axis")), r.type.encoding))
            return
        if name in FREE_RESULT:
            for r in op.results:
                r.type = default_type(r.type)
            return
        # elementwise-like: follow the first tensor operand
        encs = [enc_of(v) for v in op.operands]
        first = next((e for e in encs if e is not None), None)
        if first is None:
            for r in op.results:
                r.type = default_type(r.type)
            return
        for i, e in enumerate(encs):
            if e is not None and e != first:
                convert(op, i, first)
        for r in op.results:
            r.type = with_enc(r.type, first)

    funcs = {}
    ops = list(module_body(module))
    # callees first (private functions), so calls see their final signatures
    for op in sorted(ops, key=lambda o: (o.attr("sym_visibility") or "public") != "private"):
        visit(op)
    return module


def ttgir_of(fn, signature, constants=None, num_warps=4, vec=4):
    """TTIR of a @jit function for a signature ({'x_ptr': '*fp32', ...}) then layouts."""
    from tritium.frontend.compiler import make_ttir
    spec = []
    constants = constants or {}
    for name in fn.arg_names:
        if name in constants:
            spec.append(("constexpr", constants[name]))
        else:
            ty = signature[name]
            key = None
            if isinstance(ty, tuple):
                ty, key = ty
            spec.append((ty, key))
    module, _ = make_ttir(fn, spec)
    return assign_layouts(module, num_warps, vec)
