"""The greedy pattern driver and the rewriter."""
import pytest

from tritium.ir import types as T
from tritium.ir.attrs import StringAttr, TypeAttr
from tritium.ir.builder import Builder
from tritium.ir.core import make_module, module_body
from tritium.passes.pattern import (GreedyDriver, RewritePattern, Rewriter,
                                    apply_patterns_greedily, is_trivially_dead, pattern,
                                    register_fold, FOLD_HOOKS)


def func(arg_types, name="f"):
    m = make_module()
    b = Builder(module_body(m))
    fty = T.FunctionType(tuple(arg_types), ())
    f = b.create("tt.func", [], [], {"sym_name": StringAttr(name), "function_type": TypeAttr(fty)},
                 num_regions=1)
    blk = f.regions[0].add_block()
    args = [blk.add_argument(t) for t in arg_types]
    b.set_insertion_point_to_end(blk)
    return m, b, args


def names(m):
    return [op.name for op in m.walk()][2:]


@pattern("arith.subi")
def sub_const_to_add(op, rw):
    """x - c → x + (-c): a pattern that creates ops through the rewriter."""
    c = op.operand(1).owner_op
    if c is None or c.name != "arith.constant":
        return False
    neg = rw.constant(-c.attr("value"), op.results[0].type)
    rw.replace_op_with_new(op, "arith.addi", [op.operand(0), neg])
    return True


def test_pattern_and_folds_reach_fixpoint():
    m, b, (x,) = func([T.i32])
    c5 = b.constant(5, T.i32)
    y = b.create1("arith.subi", [x, c5], T.i32)
    z = b.create1("arith.subi", [y, c5], T.i32)
    b.create("tt.return", [z])
    from tritium.passes.canonicalize import add_of_add_constant
    assert apply_patterns_greedily(m, [sub_const_to_add, add_of_add_constant])
    # x - 5 - 5 → (x + -5) + -5 → x + -10 (canonical add chain), constants hoisted
    text = str(m)
    assert names(m) == ["arith.constant", "arith.addi", "tt.return"]
    assert "-10 : i32" in text


def test_trait_dispatch_and_benefit():
    seen = []

    class Elementwise(RewritePattern):
        op_traits = ("Elementwise", "Commutative")

        def match_and_rewrite(self, op, rw):
            seen.append(op.name)
            return False

    class High(RewritePattern):
        op_names = ("arith.muli",)
        benefit = 5

        def match_and_rewrite(self, op, rw):
            seen.append("high")
            return False

    m, b, (x, y) = func([T.i32, T.i32])
    b.create1("arith.muli", [x, y], T.i32)
    b.create1("arith.subi", [x, y], T.i32)  # not commutative: not offered
    b.create("tt.return", [])
    d = GreedyDriver([Elementwise(), High()], fold=False)
    # unused pure ops are erased before patterns see them: keep them alive
    for op in list(m.walk()):
        if op.name in ("arith.muli", "arith.subi"):
            b.set_insertion_point_before(op.parent.last)
            b.create("tt.store", [x, op.results[0]])
    d.run(m)
    assert seen[:2] == ["high", "arith.muli"]
    assert "arith.subi" not in seen


def test_ping_pong_terminates_unconverged():
    @pattern("arith.addi")
    def add_to_sub(op, rw):
        rw.replace_op_with_new(op, "arith.subi", op.operands)
        return True

    @pattern("arith.subi")
    def sub_to_add(op, rw):
        rw.replace_op_with_new(op, "arith.addi", op.operands)
        return True

    m, b, (x, y, p) = func([T.i32, T.i32, T.PointerType(T.i32)])
    s = b.create1("arith.addi", [x, y], T.i32)
    b.create("tt.store", [p, s])
    b.create("tt.return", [])
    assert apply_patterns_greedily(m, [add_to_sub, sub_to_add], fold=False,
                                   max_iterations=3, max_rewrites=50) is False


def test_dead_ops_erased_and_effects_kept():
    m, b, (x, p) = func([T.i32, T.PointerType(T.i32)])
    a = b.create1("arith.addi", [x, x], T.i32)
    b.create1("arith.muli", [a, a], T.i32)  # dead chain
    b.create1("tt.load", [p], T.i32)  # unused read: dead too (non-volatile)
    v = b.create("tt.load", [p], [T.i32], {"isVolatile": True})
    b.create("tt.store", [p, x])
    b.create("tt.return", [])
    assert not is_trivially_dead(v)
    apply_patterns_greedily(m, [])
    assert names(m) == ["tt.load", "tt.store", "tt.return"]


def test_constants_uniqued_and_hoisted():
    m, b, (n, p) = func([T.i32, T.PointerType(T.i32)])
    c0 = b.constant(0, T.i32)
    c1 = b.constant(1, T.i32)
    loop = b.create("scf.for", [c0, n, c1], [], num_regions=1)
    body = loop.regions[0].add_block()
    iv = body.add_argument(T.i32)
    with b.at_end(body):
        k = b.constant(7, T.i32)
        k2 = b.constant(7, T.i32)
        s = b.create1("arith.addi", [iv, k], T.i32)
        s2 = b.create1("arith.muli", [s, k2], T.i32)
        b.create("tt.store", [p, s2])
        b.create("scf.yield")
    b.create("tt.return", [])
    apply_patterns_greedily(m, [])
    f = m.regions[0].entry.first
    head = [op for op in f.regions[0].entry][:3]
    assert [op.name for op in head] == ["arith.constant"] * 3
    assert sorted(op.attr("value") for op in head) == [0, 1, 7]
    assert [op.name for op in body] == ["arith.addi", "arith.muli", "tt.store", "scf.yield"]


def test_custom_fold_hook():
    calls = []
    saved = FOLD_HOOKS.get("math.absi")

    @register_fold("math.absi")
    def fold_absi_of_absi(op, consts):
        calls.append(op)
        inner = op.operand(0).owner_op
        if inner is not None and inner.name == "math.absi":
            return [inner.results[0]]
        return None

    try:
        m, b, (x, p) = func([T.i32, T.PointerType(T.i32)])
        a = b.create1("math.absi", [x], T.i32)
        a2 = b.create1("math.absi", [a], T.i32)
        b.create("tt.store", [p, a2])
        b.create("tt.return", [])
        apply_patterns_greedily(m, [])
        assert names(m) == ["math.absi", "tt.store", "tt.return"]
        assert calls
    finally:
        if saved is None:
            del FOLD_HOOKS["math.absi"]
        else:
            FOLD_HOOKS["math.absi"] = saved


def test_rewriter_api():
    m, b, (x, y) = func([T.i32, T.i32])
    a = b.create1("arith.addi", [x, y], T.i32)
    r = b.create("tt.return", [a])
    rw = Rewriter()
    rw.set_insertion_point_before(a.owner_op)
    new = rw.create("arith.muli", [x, y], [T.i32])
    with pytest.raises(ValueError):
        rw.replace_op(a.owner_op, [])
    rw.replace_op(a.owner_op, new.results)
    assert r.operand(0) is new.results[0]
    rw.erase_op(r)
    assert names(m) == ["arith.muli"]
