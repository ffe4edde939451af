"""Shape builtins and the sort/flip standard library (tests/language/test_e2e_shape.py's
kernels) on the GPU vs the CPU backend and NumPy: trans/permute/reshape/ravel/flip/sort/
expand_dims+broadcast, join/split/interleave, cat, topk, item, swizzle2d. Data movement is
exact; only the broadcast case sums (in another order on the GPU)."""
import numpy as np
import pytest

from e2e import random_array
from harness import Out, assert_ref, assert_same, compare, run_both
from test_e2e_shape import (cat_kernel, item_kernel, join_split_kernel, shape_kernel,
                            swizzle_kernel, topk_kernel)

pytestmark = pytest.mark.gpu

REFS = {
    "trans": lambda x: x.T, "T": lambda x: x.T, "permute": lambda x: x.T,
    "reshape": lambda x: x.reshape(x.shape[1], x.shape[0]),
    "ravel": lambda x: x.reshape(x.shape[1], x.shape[0]),
    "flip0": lambda x: x[::-1].reshape(x.shape[1], x.shape[0]),
    "flip": lambda x: x[:, ::-1].reshape(x.shape[1], x.shape[0]),
    "sort": lambda x: np.sort(x, 1).reshape(x.shape[1], x.shape[0]),
    "sort_desc": lambda x: np.sort(x, 1)[:, ::-1].reshape(x.shape[1], x.shape[0]),
    "bcast": lambda x: np.broadcast_to(x.astype(np.float64).sum(1, keepdims=True), x.shape).T,
}
# Every op on float32 (4x8, as the language test), the data-movement ones again on int32
# and float16, and larger / lopsided tiles for the layout conversions behind them.
CASES = [(op, np.float32, 4, 8) for op in REFS]
CASES += [(op, np.int32, 4, 8) for op in ("trans", "reshape", "sort_desc", "flip")]
CASES += [(op, np.float16, 4, 8) for op in ("permute", "bcast", "sort")]
CASES += [("trans", np.float32, 64, 32), ("sort", np.int32, 2, 256),
          ("flip0", np.float16, 128, 2), ("bcast", np.float32, 1, 64)]


@pytest.mark.parametrize("op,dt,M,N", CASES,
                         ids=[f"{o}-{np.dtype(d).name}-{m}x{n}" for o, d, m, n in CASES])
def test_shape_ops(rng, op, dt, M, N):
    x = random_array(rng, dt, (M, N))
    cpu, gpu = run_both(shape_kernel, (1,), x, Out((N, M), dt), OP=op, M=M, N=N)
    want = REFS[op](x)
    if op == "bcast" and dt != np.int32:
        scale = np.abs(x.astype(np.float64)).sum(1)[None, :]
        assert_same(cpu[0], gpu[0], kind="sum", n=N, scale=scale)
        atol = scale.max() * (2e-3 if dt == np.float16 else 2e-7)
        assert_ref(gpu[0], want, atol=atol)
        return
    assert_same(cpu[0], gpu[0], kind="exact", err_msg=op)
    assert_ref(gpu[0], want.astype(dt), err_msg=op)


def test_join_split_interleave(rng):
    a = rng.integers(0, 9, 8).astype(np.int32)
    b = rng.integers(0, 9, 8).astype(np.int32)
    cpu, gpu = compare(join_split_kernel, (1,), a, b, Out((8, 2), np.int32),
                       Out(3 * 8 + 1, np.int32), N=8)
    assert_ref(gpu[0], np.stack([a, b], 1))
    assert_ref(gpu[1][:8], b - a)
    assert_ref(gpu[1][8:24], np.stack([a, b], 1).ravel())
    assert gpu[1][24] == a[0] * 10 + b[0]


def test_cat(rng):
    a = rng.integers(-100, 100, 8).astype(np.int32)
    b = rng.integers(-100, 100, 8).astype(np.int32)
    cpu, gpu = compare(cat_kernel, (1,), a, b, Out(1, np.int32), N=8)
    assert gpu[0][0] == a.sum() + b.sum()


def test_topk(rng):
    x = rng.permutation(32).astype(np.float32)
    cpu, gpu = compare(topk_kernel, (1,), x, Out(4, np.float32), N=32, K=4)
    assert_ref(gpu[0], np.sort(x)[::-1][:4])


def test_item():
    cpu, gpu = compare(item_kernel, (1,), np.array([41], np.int32), Out(1, np.int32))
    assert gpu[0][0] == 42


def test_swizzle2d():
    cpu, gpu = compare(swizzle_kernel, (1,), Out((4, 4), np.int32), M=4, N=4, G=2)
    want = np.array([[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]])
    ref = np.zeros((4, 4), np.int32)
    for i in range(4):
        for j in range(4):
            ref.flat[want[i, j]] = i * 4 + j
    assert_ref(gpu[0], ref)
