"""Broadcasting agrees with NumPy: result shapes, errors, and the ops that get emitted."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tritium.language import dtypes as tl

from semkit import Env

dims = st.sampled_from([1, 2, 4])
shapes = st.lists(dims, min_size=0, max_size=4)


def make(env, shape):
    return env.arg(tl.float32, shape) if shape else env.arg(tl.float32)


@settings(max_examples=400, deadline=None)
@given(a=shapes, b=shapes)
def test_binary_broadcast_matches_numpy(a, b):
    env = Env()
    try:
        want = list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        with pytest.raises(ValueError, match="Cannot make_shape_compatible: incompatible "
                                             "dimensions at index"):
            env.sem.add(make(env, a), make(env, b))
        return
    x, y = env.sem.broadcast_impl_value(make(env, a), make(env, b))
    got_x = x.type.get_block_shapes() if x.type.is_block() else []
    got_y = y.type.get_block_shapes() if y.type.is_block() else []
    assert got_x == want and got_y == want
    r = env.sem.add(make(env, a), make(env, b))
    assert (r.type.get_block_shapes() if r.type.is_block() else []) == want


@settings(max_examples=300, deadline=None)
@given(src=shapes, dst=st.lists(dims, min_size=1, max_size=4))
def test_broadcast_to_matches_numpy_same_rank(src, dst):
    env = Env()
    x = make(env, src)
    if src and len(src) != len(dst):
        with pytest.raises(ValueError, match="Cannot broadcast, rank mismatch"):
            env.sem.broadcast_impl_shape(x, dst)
        return
    try:
        np.broadcast_to(np.zeros(src), dst)
        ok = True
    except ValueError:
        ok = False
    if ok:
        assert env.sem.broadcast_impl_shape(x, dst).type.get_block_shapes() == dst
    else:
        with pytest.raises(ValueError, match=r"Cannot broadcast, the expanded size of the tensor"):
            env.sem.broadcast_impl_shape(x, dst)


def test_ops_emitted_for_rank_and_unit_dims():
    env = Env()
    a, b = env.arg(tl.float32, [4, 1]), env.arg(tl.float32, [8])
    env.sem.add(a, b)
    assert env.ops() == ["tt.expand_dims", "tt.broadcast", "tt.broadcast", "arith.addf"]


def test_scalar_is_splat():
    env = Env()
    env.sem.add(env.arg(tl.int32, [16]), env.arg(tl.int32))
    assert env.ops() == ["tt.splat", "arith.addi"]


def test_broadcast_tensors_three_way():
    env = Env()
    a, b, c = env.arg(tl.int32, [4, 1]), env.arg(tl.int32, [1, 8]), env.arg(tl.int32)
    ra, rb, rc = env.sem.broadcast_tensors(a, b, c)
    assert ra.type.get_block_shapes() == rb.type.get_block_shapes() == \
        rc.type.get_block_shapes() == [4, 8]
