"""`triton._C.libtriton.ir` (the read side of upstream's MLIR bindings, as views over tritium's
IR), `native_specialize_impl`/`mangle_type` and `triton._utils`: what torch's analysis of
user-defined kernels calls (tested end to end with torch in tests/clients), checked here
without torch against the IR itself."""
import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium._C.libtriton import ir
from tritium._utils import canonicalize_dtype, find_paths_if, get_iterable_path
from tritium.backends.compiler import BaseBackend
from tritium.compiler import ASTSource, GPUTarget
from tritium.frontend.specialize import native_specialize_impl
from tritium.ir.core import Operation

CPU = GPUTarget("cpu", 0, 32)


@tritium.jit
def _store_twice(P, v, i):
    tl.store(P + i, v)


@tritium.jit
def kern(X, Out, n, steps, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(steps):
        acc += tl.load(X + i, mask=i < n)
    _store_twice(Out, acc, i)


SIG = {"X": "*fp32", "Out": "*fp32", "n": "i32", "steps": "i32", "BLOCK": "constexpr"}


def _module(ctx=None):
    return ASTSource(kern, SIG, {"BLOCK": 16}).make_ir(CPU, None, None, None, ctx)


def test_make_ir_gives_tritiums_module_or_the_bindings_view():
    assert isinstance(_module(), Operation)
    ctx = ir.context()
    ir.load_dialects(ctx)
    m = _module(ctx)
    assert isinstance(m, ir.module) and m.context is ctx
    assert m.verify()
    assert "tt.func public @kern" in str(m) and str(m) == m.str()
    assert m.get_entry_func_name() == "kern"
    assert m.has_function("kern") and not m.has_function("nope")
    assert m.get_function("kern").get_str_attr("sym_name") == "kern"


def test_walk_visits_nested_ops_first_with_consistent_ids():
    m = _module(ir.context())
    ops = []
    m.walk(ops.append)
    names = [op.get_name() for op in ops]
    assert names[-1] == "builtin.module"
    # post-order: an op after everything nested in it, so each scf.for comes after its yield
    assert names.index("scf.yield") < names.index("scf.for")
    first_func = names.index("tt.func")
    assert names.index("tt.return") < first_func
    # every operand is some op's result or some block's argument, by id
    defined = {op.get_result(j).id() for op in ops for j in range(op.get_num_results())}
    for op in ops:
        block = op.get_block()
        if block is not None:
            defined |= {block.get_argument(j).id() for j in range(block.get_num_arguments())}
    used = {op.get_operand(j).id() for op in ops for j in range(op.get_num_operands())}
    assert used and used <= defined
    # ids name the object, not the view: two views of one value agree
    store = next(op for op in ops if op.get_name() == "tt.store")
    assert store.get_operand(0).id() == store.get_operand(0).id()
    # regions and blocks link up: the for's body block lies in the for's region
    loop = next(op for op in ops if op.get_name() == "scf.for")
    yld = next(op for op in ops if op.get_name() == "scf.yield")
    assert yld.get_block().get_parent().id() == loop.get_region(0).id()
    assert loop.get_num_regions() == 1 and loop.get_region(0).size() == 1


def test_attributes_read_as_upstreams_getters():
    m = _module(ir.context())
    ops = []
    m.walk(ops.append)
    call = next(op for op in ops if op.get_name() == "tt.call")
    callee = call.get_flat_symbol_ref_attr("callee")
    assert callee.startswith("_store_twice") and m.has_function(callee)
    func = m.get_function("kern")
    assert func.get_bool_attr("noinline") is False
    assert func.get_str_attr("noinline") is None and call.get_str_attr("absent") is None
    with pytest.raises(IndexError):
        call.get_operand(call.get_num_operands())
    with pytest.raises(IndexError):
        call.get_region(0)


def test_parse_mlir_module_reads_a_file(tmp_path):
    path = tmp_path / "k.ttir"
    path.write_text(str(_module(ir.context())))
    m = ir.parse_mlir_module(str(path), ir.context())
    assert m.verify() and m.get_entry_func_name() == "kern"
    path.write_text("module { tt.func @f( }")
    with pytest.raises(RuntimeError, match="Parse MLIR file failed"):
        ir.parse_mlir_module(str(path), ir.context())


@pytest.mark.parametrize("arg,want", [
    (None, ("constexpr", None)), (True, ("u1", None)), (1, ("constexpr", 1)),
    (16, ("i32", "D")), (17, ("i32", "")), (-1, ("i32", "")), (2 ** 31, ("i64", "D")),
    (2 ** 63, ("u64", "D")), (2 ** 63 - 1, ("i64", "")), (1.5, ("fp32", None)),
    (tl.constexpr(3), ("constexpr", tl.constexpr(3))),
])
def test_native_specialize_impl_classifies_scalars_as_upstream(arg, want):
    got = native_specialize_impl(BaseBackend, arg, False, True, True)
    assert got[0] == want[0] and got[1] == want[1]
    # not specialised: no key, and 1 stays a runtime integer
    ty, key = native_specialize_impl(BaseBackend, 1, False, False, True)
    assert (ty, key) == ("i32", None)


def test_native_specialize_impl_on_tensors_and_tuples():
    x = np.zeros(64, np.float32)
    assert native_specialize_impl(BaseBackend, x, False, True, True) == ("*fp32", "D")
    assert native_specialize_impl(BaseBackend, x[1:], True, True, True) == ("*kfp32", "")
    assert native_specialize_impl(BaseBackend, x, False, False, True) == ("*fp32", None)
    assert native_specialize_impl(BaseBackend, (x, 16, 1), False, True, True) == \
        (("*fp32", "i32", "constexpr"), ("D", "D", 1))
    from tritium.frontend.jit import mangle_type
    assert mangle_type(x) == "*fp32" and mangle_type(7) == "i32" and mangle_type(1) == "i32"


def test_utils_paths_and_dtype_names():
    nested = (1, ("a", (2, "b")), "c")
    paths = find_paths_if(nested, lambda _, v: isinstance(v, str))
    assert paths == [(1, 0), (1, 1, 1), (2,)]
    assert [get_iterable_path(nested, p) for p in paths] == ["a", "b", "c"]
    assert canonicalize_dtype("torch.float16") == "fp16"
    assert canonicalize_dtype(np.dtype("uint8")) == "u8"


@tritium.jit
def shapes(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.reshape(x[None, :], [BLOCK])
    tl.store(X + tl.arange(0, BLOCK), y * 3 + tl.full([BLOCK], -7, tl.int32))


@pytest.mark.parametrize("block", [8, 32])
def test_shapes_int_attrs_and_constants(block):
    src = ASTSource(shapes, {"X": "*i32", "BLOCK": "constexpr"}, {"BLOCK": block})
    m = src.make_ir(CPU, None, None, None, ir.context())
    ops = []
    m.walk(ops.append)
    by_name = {}
    for op in ops:
        by_name.setdefault(op.get_name(), []).append(op)
    rng = by_name["tt.make_range"][0]
    assert (rng.get_int_attr("start"), rng.get_int_attr("end")) == (0, block)
    assert rng.get_int_attr("nope") is None
    assert by_name["tt.expand_dims"][0].get_result(0).get_shape() == [1, block]
    reshape = by_name["tt.reshape"][0]
    assert reshape.get_operand(0).get_shape() == [1, block]
    assert reshape.get_result(0).get_shape() == [block]
    assert rng.get_block().get_argument(0).get_shape() is None  # the pointer X: a scalar
    constants = sorted(op.get_constant_value() for op in by_name["arith.constant"])
    assert constants == [-7, 3]  # splat i32 constants, signed
    assert by_name["tt.load"][0].get_constant_value() is None
