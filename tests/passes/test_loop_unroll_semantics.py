"""loop-unroll must not change what a loop computes: random bounds (static or passed as
arguments), steps and factors, checked with a tiny independent interpreter."""
from hypothesis import given, settings, strategies as st

from tritium.ir import types as T
from tritium.ir.attrs import IntegerAttr, StringAttr, TypeAttr
from tritium.ir.builder import Builder
from tritium.ir.core import make_module, module_body
from tritium.passes import PassManager


def wrap(v, w=32):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def run(op_list, env):
    """Evaluate a block's ops (the subset loop-unroll produces) in `env`."""
    for op in op_list:
        n = op.name
        ins = [env[v] for v in op.operands]
        if n == "arith.constant":
            out = [op.attr("value")]
        elif n in ("arith.addi", "arith.subi", "arith.muli", "arith.xori"):
            a, b = ins
            out = [wrap({"arith.addi": a + b, "arith.subi": a - b, "arith.muli": a * b,
                         "arith.xori": a ^ b}[n])]
        elif n == "arith.divsi":
            out = [wrap(tdiv(*ins))]
        elif n == "arith.ceildivsi":
            a, b = ins
            out = [wrap(-((-a) // b))]
        elif n == "scf.for":
            lb, ub, step, *acc = ins
            body = op.regions[0].entry
            i = lb
            while i < ub:
                inner = dict(env)
                inner.update(zip(body.args, [i, *acc]))
                acc = run(list(body), inner)
                i = wrap(i + step)
                if i < lb:  # wrapped around: the loop ends (i32 overflow)
                    break
            out = acc
        elif n in ("scf.yield", "tt.return"):
            return ins
        else:
            raise NotImplementedError(n)
        env.update(zip(op.results, out))
    return []


def build(lb, ub, step, factor, dynamic):
    m = make_module()
    b = Builder(module_body(m))
    args = (T.i32, T.i32) if dynamic else ()
    f = b.create("tt.func", [], [], {"sym_name": StringAttr("k"),
                                      "function_type": TypeAttr(T.FunctionType(args, (T.i32,)))},
                 num_regions=1)
    blk = f.regions[0].add_block()
    fargs = [blk.add_argument(t) for t in args]
    b.set_insertion_point_to_end(blk)
    lo, hi = fargs if dynamic else (b.constant(lb, T.i32), b.constant(ub, T.i32))
    st_ = b.constant(step, T.i32)
    init = b.constant(7, T.i32)
    loop = b.create("scf.for", [lo, hi, st_, init], [T.i32],
                    {"tt.loop_unroll_factor": IntegerAttr(factor, T.i32)}, num_regions=1)
    body = loop.regions[0].add_block()
    iv, acc = body.add_argument(T.i32), body.add_argument(T.i32)
    with b.at_end(body):
        c31 = b.constant(31, T.i32)
        h = b.create1("arith.muli", [acc, c31], T.i32)
        h = b.create1("arith.xori", [h, iv], T.i32)
        b.create("scf.yield", [h])
    b.create("tt.return", [loop.results[0]])
    return m, f, fargs


def evaluate(f, fargs, lb, ub):
    env = dict(zip(fargs, [lb, ub]))
    return run(list(f.regions[0].entry), env)


@settings(max_examples=300, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 40), st.integers(1, 7), st.integers(2, 6),
       st.booleans(), st.booleans())
def test_unroll_preserves_result(lb, ub, step, factor, dynamic, canon):
    m, f, fargs = build(lb, ub, step, factor, dynamic)
    want = evaluate(f, fargs, lb, ub)
    PassManager("loop-unroll,canonicalize" if canon else "loop-unroll", verify_each=True).run(m)
    assert "tt.loop_unroll_factor" not in str(m)
    assert evaluate(f, fargs, lb, ub) == want, str(m)
