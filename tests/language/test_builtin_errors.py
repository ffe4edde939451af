"""Builtins reject bad arguments with upstream's messages (called here without the frontend,
the way the code generator calls them: with `_semantic`)."""
import warnings

import pytest

import tritium.language as tl
from tritium.language.core import constexpr

from semkit import Env

C = constexpr


def test_builtins_refuse_to_run_outside_jit():
    with pytest.raises(ValueError, match="Did you forget to add @triton.jit"):
        tl.program_id(0)
    with pytest.raises(ValueError, match="Did you forget to add @triton.jit"):
        tl.arange(0, 16)


def test_program_id_axis():
    with pytest.raises(ValueError, match="program_id axis must be 0, 1, or 2 but got 3"):
        tl.program_id(3, _semantic=Env().sem)
    with pytest.raises(ValueError, match="num_programs axis must be 0, 1, or 2 but got -1"):
        tl.num_programs(C(-1), _semantic=Env().sem)


@pytest.mark.parametrize("start,end,msg", [
    (0, 10, "arange's range must be a power of 2"),
    (8, 8, "arange's end argument must be greater than the start argument"),
    (0, 2 ** 32, "arange must fit in int32"),
    (0.0, 4, "arange's arguments must be of type tl.constexpr"),
])
def test_arange_errors(start, end, msg):
    with pytest.raises(ValueError, match=msg):
        tl.arange(C(start), C(end), _semantic=Env().sem)


def test_arange_numel_limit():
    with pytest.raises(ValueError, match=r"numel \(2097152\) exceeds triton maximum tensor numel "
                                         r"\(1048576\)"):
        tl.arange(0, 2 ** 21, _semantic=Env().sem)


def test_full_and_zeros():
    env = Env()
    x = tl.full((C(4), C(8)), 1.5, tl.float16, _semantic=env.sem)
    assert x.dtype == tl.float16 and x.type.get_block_shapes() == [4, 8]
    z = tl.zeros([C(16)], tl.int64, _semantic=env.sem)
    assert z.dtype == tl.int64
    zl = tl.zeros_like(x, _semantic=env.sem)
    assert zl.dtype == tl.float16 and zl.type.get_block_shapes() == [4, 8]
    with pytest.raises(ValueError, match="Shape element 0 must be a power of 2"):
        tl.full([C(3)], 0, tl.int32, _semantic=env.sem)
    with pytest.raises(TypeError, match="Shape element 1 must have type `constexpr\\[int\\]`"):
        tl.full([C(4), C(2.0)], 0, tl.int32, _semantic=env.sem)


def test_shape_builtins():
    env = Env()
    x = env.arg(tl.float32, [4, 8])
    assert tl.trans(x, _semantic=env.sem).type.get_block_shapes() == [8, 4]
    assert x.trans(_semantic=env.sem).type.get_block_shapes() == [8, 4]
    y = env.arg(tl.float32, [2, 4, 8])
    assert tl.permute(y, 2, 0, 1, _semantic=env.sem).type.get_block_shapes() == [8, 2, 4]
    assert tl.permute(y, (2, 0, 1), _semantic=env.sem).type.get_block_shapes() == [8, 2, 4]
    assert x.reshape(8, 4, _semantic=env.sem).type.get_block_shapes() == [8, 4]
    assert tl.reshape(x, (32,), _semantic=env.sem).type.get_block_shapes() == [32]
    assert tl.expand_dims(x, (0, -1), _semantic=env.sem).type.get_block_shapes() == [1, 4, 8, 1]
    x1 = env.arg(tl.float32, [1, 8])
    assert x1.broadcast_to(4, 8, _semantic=env.sem).type.get_block_shapes() == [4, 8]
    with pytest.raises(ValueError, match=r"Cannot broadcast, rank mismatch: \[4, 8\], \[2, 4, 8\]"):
        x.broadcast_to(2, 4, 8, _semantic=env.sem)
    with pytest.raises(ValueError, match="permute dims must be a permutation of 0, 1, ..., n-1, "
                                         r"but were \[0, 0\]"):
        tl.permute(x, 0, 0, _semantic=env.sem)
    with pytest.raises(ValueError, match="permute dims must have the same length as input shape"):
        tl.permute(x, 0, 1, 2, _semantic=env.sem)
    with pytest.raises(ValueError, match="reshape\\(\\) cannot change total number of elements"):
        tl.reshape(x, 64, _semantic=env.sem)
    with pytest.raises(ValueError, match="expand_dims received duplicate axes, normalized axes = "
                                         r"\[0, 0\]"):
        tl.expand_dims(x, (0, -4), _semantic=env.sem)
    with pytest.raises(ValueError, match="invalid axis 5. Expected -3 <= axis < 3"):
        tl.expand_dims(x, 5, _semantic=env.sem)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tl.view(x, 32, _semantic=env.sem)
    assert "view is deprecated" in str(w[0].message)


def test_cast_builtin_and_to():
    env = Env()
    x = env.arg(tl.float32, [4])
    assert x.to(tl.float16, _semantic=env.sem).dtype == tl.float16
    assert tl.cast(x, tl.int32, bitcast=True, _semantic=env.sem).dtype == tl.int32
    assert x.to(tl.float16, fp_downcast_rounding="rtz", _semantic=env.sem).dtype == tl.float16
    assert tl.cast(3, tl.float32, _semantic=env.sem).dtype == tl.float32


def test_load_store_errors():
    env = Env()
    p = env.ptr(tl.float32, [8])
    with pytest.raises(ValueError, match="`other` cannot be provided without `mask`"):
        tl.load(p, other=0.0, _semantic=env.sem)
    with pytest.raises(ValueError, match="Cache modifier .wb not supported"):
        tl.load(p, cache_modifier=".wb", _semantic=env.sem)
    with pytest.raises(ValueError, match="Cache modifier .ca not supported"):
        tl.store(p, 1.0, cache_modifier=".ca", _semantic=env.sem)
    with pytest.raises(ValueError, match="Eviction policy evict_all not supported"):
        tl.load(p, eviction_policy="evict_all", _semantic=env.sem)
    with pytest.raises(ValueError, match="Padding option pad not supported"):
        tl.load(p, padding_option="pad", _semantic=env.sem)
    with pytest.raises(ValueError, match="`padding_option` or `boundary_check` argument is not "
                                         "supported for loading a tensor of"):
        tl.load(p, boundary_check=(0,), _semantic=env.sem)
    with pytest.raises(ValueError, match="`boundary_check` argument is not supported for storing"):
        tl.store(p, 1.0, boundary_check=(0,), _semantic=env.sem)
    with pytest.raises(ValueError, match=r"Unsupported ptr type <\(8,\), fp32> in `tl.load`"):
        tl.load(env.arg(tl.float32, [8]), _semantic=env.sem)
    with pytest.raises(ValueError, match="Mask argument cannot be block type if pointer argument "
                                         "is not a block"):
        tl.load(env.ptr(tl.float32), mask=env.arg(tl.int1, [8]), _semantic=env.sem)
    with pytest.raises(ValueError, match="Value argument cannot be block type if pointer argument "
                                         "is not a block"):
        tl.store(env.ptr(tl.float32), env.arg(tl.float32, [8]), _semantic=env.sem)
    with pytest.raises(ValueError, match="Mask must have boolean scalar type"):
        tl.store(p, 1.0, mask=env.arg(tl.int32, [8]), _semantic=env.sem)
    with pytest.raises(ValueError, match="Cannot store to a constant pointer"):
        tl.store(env.arg(tl.pointer_type(tl.float32, const=True), [8]), 1.0, _semantic=env.sem)
    with pytest.raises(ValueError, match=r"Expected pointer argument to have shape"):
        tl.store(p, env.arg(tl.float32, [4, 8]), _semantic=env.sem)
    with pytest.raises(ValueError, match="Expected `base` to be a pointer type"):
        tl.make_block_ptr(p, [C(8)], [C(1)], [C(0)], [C(8)], [C(0)], _semantic=env.sem)


def test_atomic_errors():
    env = Env()
    with pytest.raises(ValueError, match="atomic_max does not support fp16"):
        tl.atomic_max(env.ptr(tl.float16, [8]), 1.0, _semantic=env.sem)
    with pytest.raises(ValueError, match="atomic_add does not support int16"):
        tl.atomic_add(env.ptr(tl.int16, [8]), 1, _semantic=env.sem)
    with pytest.raises(ValueError, match="atomic_or does not support uint8"):
        tl.atomic_or(env.ptr(tl.uint8, [8]), 1, _semantic=env.sem)
    with pytest.raises(ValueError, match="Memory semantic seq_cst not supported"):
        tl.atomic_add(env.ptr(tl.int32, [8]), 1, sem="seq_cst", _semantic=env.sem)
    with pytest.raises(ValueError, match="Memory semantic block not supported"):
        tl.atomic_add(env.ptr(tl.int32, [8]), 1, scope="block", _semantic=env.sem)
    with pytest.raises(ValueError, match="atomic_cas only supports elements with width "
                                         r"\{16, 32, 64\}"):
        tl.atomic_cas(env.ptr(tl.int8), 0, 1, _semantic=env.sem)
    with pytest.raises(ValueError, match="atomic_max does not support bf16"):
        tl.atomic_max(env.ptr(tl.bfloat16, [8]), 1.0, _semantic=env.sem)
    assert tl.atomic_max(env.ptr(tl.float64, [8]), 1.0, _semantic=env.sem).dtype == tl.float64
    with pytest.raises(ValueError, match="Pointer argument of store instruction is"):
        tl.atomic_add(env.arg(tl.int32, [8]), 1, _semantic=env.sem)


@pytest.mark.parametrize("a,b,kw,msg", [
    ([16, 16], [16, 16], {"allow_tf32": True, "input_precision": "tf32"},
     "Only one of input_precision and allow_tf32 can be specified"),
    ([16, 16], [16, 16], {"input_precision": "fp64"},
     r"input_precision must be one of \('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6'\). Got fp64"),
    ([16, 8], [16, 16], {}, "are not compatible for matmul"),
    ([16, 8], [8, 16], {}, "Input shapes should have M >= 1, N >= 1 and K >= 16"),
    ([16], [16], {}, "Both inputs must have the same rank, 2 or more"),
    ([2, 16, 16], [16, 16], {}, "Both inputs must have the same rank, 2 or more"),
])
def test_dot_errors(a, b, kw, msg):
    env = Env()
    with pytest.raises(AssertionError, match=msg):
        tl.dot(env.arg(tl.float16, a), env.arg(tl.float16, b), _semantic=env.sem, **kw)


def test_dot_dtype_errors():
    env = Env()
    with pytest.raises(AssertionError, match="Both operands must be same dtype. Got fp16 and fp32"):
        tl.dot(env.arg(tl.float16, [16, 16]), env.arg(tl.float32, [16, 16]), _semantic=env.sem)
    with pytest.raises(AssertionError, match="Unsupported lhs dtype int32"):
        tl.dot(env.arg(tl.int32, [16, 16]), env.arg(tl.int32, [16, 16]), _semantic=env.sem)
    with pytest.raises(ValueError, match="out_dtype=bfloat16 is unsupported"):
        tl.dot(env.arg(tl.float16, [16, 16]), env.arg(tl.float16, [16, 16]),
               out_dtype=tl.bfloat16, _semantic=env.sem)
    with pytest.raises(AssertionError, match="Input shapes should have M >= 1, N >= 1 and K >= 32"):
        tl.dot(env.arg(tl.int8, [16, 16]), env.arg(tl.int8, [16, 16]), _semantic=env.sem)


def test_hint_errors():
    env = Env()
    x = env.sem.arange(0, 16)
    with pytest.raises(TypeError, match="values element 0 must have type `constexpr`"):
        tl.multiple_of(x, [16], _semantic=env.sem)
    with pytest.raises(TypeError, match="values element 0 must have type `constexpr\\[int\\]`"):
        tl.max_contiguous(x, [C(1.5)], _semantic=env.sem)
    with pytest.raises(ValueError, match="Shape of input to multiple_of does not match the length "
                                         "of values"):
        tl.multiple_of(x, [C(16), C(16)], _semantic=env.sem)


def test_device_print_prefix_rules():
    env = Env()
    with pytest.raises(AssertionError, match="is not string"):
        tl.device_print(5, _semantic=env.sem)
    with pytest.raises(AssertionError, match="is not an ascii string"):
        tl.device_print("é", _semantic=env.sem)
    tl.device_print("hello", _semantic=env.sem)
    tl.device_print("pid: ", env.arg(tl.int32), _semantic=env.sem)
    prefixes = [op.attr("prefix") for op in env.block if op.name == "tt.print"]
    assert prefixes == [" hello", " pid: "]


def test_iterators():
    r = tl.range(10, num_stages=3, loop_unroll_factor=2, flatten=True)
    assert (r.start.value, r.end, r.step.value, r.num_stages, r.loop_unroll_factor, r.flatten,
            r.warp_specialize, r.disallow_acc_multi_buffer) == (0, 10, 1, 3, 2, True, False, False)
    s = tl.static_range(C(2), C(8), C(2))
    assert (s.start.value, s.end.value, s.step.value) == (2, 8, 2)
    with pytest.raises(AssertionError, match="used as tl.static_range start value is not a constexpr"):
        tl.static_range(8)
    with pytest.raises(RuntimeError, match="tl.range can only be used in @triton.jit'd functions"):
        iter(tl.range(4))


def test_extern_elementwise_errors():
    env = Env()
    table = {(tl.float32,): ("__nv_expf", tl.float32)}
    with pytest.raises(ValueError, match="length of input args does not match"):
        tl.extern_elementwise("", "", [env.arg(tl.float32), env.arg(tl.float32)], table, True,
                              _semantic=env.sem)
    with pytest.raises(ValueError, match="arg_type_symbol_dict is empty"):
        tl.extern_elementwise("", "", [env.arg(tl.float32)], {}, True, _semantic=env.sem)
