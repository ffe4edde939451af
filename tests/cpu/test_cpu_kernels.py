"""Whole kernels on the CPU backend: vector add, masked loads, softmax, matmul, program ids,
chunked grids, calls and shape ops."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from irkit import Module, simple_kernel, ptr, tensor, i8, i32, f16, bf16, f32, f64  # noqa

from tritium.backends.cpu.launch import launch  # noqa: E402
from tritium.backends.cpu import dtypes as D  # noqa: E402

RNG = np.random.default_rng(0)


def offsets(k, block):
    pid = k.pid(0)
    return k.bin("addi", k.splat(k.bin("muli", pid, k.const(block, i32)), [block]),
                 k.arange(0, block))


def vector_add(block=128, elt=f32):
    def build(k, x, y, o, n):
        off = offsets(k, block)
        mask = k.cmpi("slt", off, k.splat(n, [block]))
        a = k.load(k.addptr(x, off), mask)
        b = k.load(k.addptr(y, off), mask)
        k.store(k.addptr(o, off), k.bin("addf", a, b), mask)
    return simple_kernel("add", [ptr(elt)] * 3 + [i32], build)


@pytest.mark.parametrize("n", [1, 127, 128, 1000, 4096])
def test_vector_add(n):
    m = vector_add()
    x, y = RNG.random(n, np.float32), RNG.random(n, np.float32)
    o = np.full(n, -1, np.float32)
    launch(m, "add", ((n + 127) // 128,), [x, y, o, n])
    np.testing.assert_array_equal(o, x + y)


def test_vector_add_torch_and_views():
    torch = pytest.importorskip("torch")
    m = vector_add()
    base = torch.rand(3000)
    x, y = base[100:1100], base[1500:2500]          # views into one storage
    o = torch.zeros(1000)
    launch(m, "add", (8,), [x, y, o, 1000])
    assert torch.equal(o, x + y)
    launch(m, "add", (8,), [x.numpy(), y.numpy(), o.numpy(), 1000])
    assert torch.equal(o, x + y)


@pytest.mark.parametrize("elt,np_elt", [(f16, np.float16), (bf16, np.uint16), (f64, np.float64)])
def test_vector_add_other_types(elt, np_elt):
    m = vector_add(elt=elt)
    n = 300
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    if elt == bf16:
        xb, yb = D.f32_to_bf16_bits(x), D.f32_to_bf16_bits(y)
        o = np.zeros(n, np.uint16)
        launch(m, "add", (3,), [xb, yb, o, n])
        ref = D.f32_to_bf16_bits(D.bf16_bits_to_f32(xb) + D.bf16_bits_to_f32(yb))
        np.testing.assert_array_equal(o, ref)
    else:
        xs, ys = x.astype(np_elt), y.astype(np_elt)
        o = np.zeros(n, np_elt)
        launch(m, "add", (3,), [xs, ys, o, n])
        np.testing.assert_array_equal(o, xs + ys)


def test_masked_load_other():
    def build(k, x, o, n):
        off = offsets(k, 64)
        mask = k.cmpi("slt", off, k.splat(n, [64]))
        v = k.load(k.addptr(x, off), mask, k.const(-7.5, tensor([64], f32)))
        k.store(k.addptr(o, off), v)           # unmasked store of the whole block
    m = simple_kernel("k", [ptr(f32), ptr(f32), i32], build)
    x = RNG.random(100, np.float32)
    o = np.zeros(128, np.float32)
    launch(m, "k", (2,), [x, o, 100])
    np.testing.assert_array_equal(o[:100], x)
    np.testing.assert_array_equal(o[100:], -7.5)
    o[:] = 0                                   # no `other`: masked lanes read 0
    def build0(k, x, o, n):
        off = offsets(k, 64)
        mask = k.cmpi("slt", off, k.splat(n, [64]))
        k.store(k.addptr(o, off), k.load(k.addptr(x, off), mask))
    launch(simple_kernel("k", [ptr(f32), ptr(f32), i32], build0), "k", (2,), [x, o, 100])
    np.testing.assert_array_equal(o[100:], 0)


def softmax_kernel(N):
    def build(k, x, o, ncols, stride):
        row = k.pid(0)
        base = k.bin("muli", row, stride)
        cols = k.arange(0, N)
        off = k.bin("addi", k.splat(base, [N]), cols)
        mask = k.cmpi("slt", cols, k.splat(ncols, [N]))
        v = k.load(k.addptr(x, off), mask, k.const(float("-inf"), tensor([N], f32)))
        mx = k.reduce([v], 0, lambda k, a, b: [k.bin("maxnumf", a[0], b[0])])
        e = k.un("math.exp", k.bin("subf", v, k.splat(mx, [N])))
        s = k.reduce([e], 0, lambda k, a, b: [k.bin("addf", a[0], b[0])])
        k.store(k.addptr(o, off), k.bin("divf", e, k.splat(s, [N])), mask)
    return simple_kernel("softmax", [ptr(f32), ptr(f32), i32, i32], build)


def test_softmax():
    rows, cols = 50, 200
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    o = np.zeros_like(x)
    launch(softmax_kernel(256), "softmax", (rows,), [x, o, cols, cols])
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(o, ref, rtol=1e-6, atol=1e-7)


def matmul_kernel(B, elt=f32, acc_elt=f32):
    def build(k, a, b, c, M, N, K):
        pm, pn = k.pid(0), k.pid(1)
        rm = k.bin("addi", k.splat(k.bin("muli", pm, k.const(B, i32)), [B]), k.arange(0, B))
        rn = k.bin("addi", k.splat(k.bin("muli", pn, k.const(B, i32)), [B]), k.arange(0, B))
        rk = k.arange(0, B)

        def grid2(rows, stride, cols):
            r = k.bcast(k.bin("muli", k.expand(rows, 1), k.splat(stride, [B, 1])), [B, B])
            return k.bin("addi", r, k.bcast(k.expand(cols, 0), [B, B]))
        ap, bp = k.addptr(a, grid2(rm, K, rk)), k.addptr(b, grid2(rk, N, rn))
        acc0 = k.const(0, tensor([B, B], acc_elt))

        def body(k, kk, acc, ap, bp):
            acc = k.dot(k.load(ap), k.load(bp), acc)
            ap = k.addptr(ap, k.const(B, tensor([B, B], i32)))
            bp = k.addptr(bp, k.bin("muli", k.splat(N, [B, B]), k.const(B, tensor([B, B], i32))))
            return [acc, ap, bp]
        acc, _, _ = k.for_(k.const(0, i32), K, k.const(B, i32), [acc0, ap, bp], body)
        k.store(k.addptr(c, grid2(rm, N, rn)), acc)
    return simple_kernel("mm", [ptr(elt), ptr(elt), ptr(acc_elt)] + [i32] * 3, build)


def test_matmul_f32():
    S, B = 64, 16
    a = RNG.standard_normal((S, S)).astype(np.float32)
    b = RNG.standard_normal((S, S)).astype(np.float32)
    c = np.zeros((S, S), np.float32)
    launch(matmul_kernel(B), "mm", (S // B, S // B), [a, b, c, S, S, S])
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_matmul_f16_acc_f32_and_i8():
    S, B = 32, 16
    a = RNG.standard_normal((S, S)).astype(np.float16)
    b = RNG.standard_normal((S, S)).astype(np.float16)
    c = np.zeros((S, S), np.float32)
    launch(matmul_kernel(B, f16, f32), "mm", (2, 2), [a, b, c, S, S, S])
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-4)
    ai = RNG.integers(-128, 128, (S, S)).astype(np.int8)
    bi = RNG.integers(-128, 128, (S, S)).astype(np.int8)
    ci = np.zeros((S, S), np.int32)
    launch(matmul_kernel(B, i8, i32), "mm", (2, 2), [ai, bi, ci, S, S, S])
    np.testing.assert_array_equal(ci, ai.astype(np.int32) @ bi.astype(np.int32))


def test_program_ids_3d_grid():
    def build(k, o):
        x, y, z = k.pid(0), k.pid(1), k.pid(2)
        nx, ny, nz = k.nprog(0), k.nprog(1), k.nprog(2)
        lin = k.bin("addi", k.bin("muli", k.bin("addi", k.bin("muli", z, ny), y), nx), x)
        v = k.bin("addi", k.bin("muli", x, k.const(10000, i32)),
                  k.bin("addi", k.bin("muli", y, k.const(100, i32)), z))
        k.store(k.addptr(o, lin), v)
        total = k.bin("muli", k.bin("muli", nx, ny), nz)
        k.store(k.addptr(o, k.bin("addi", lin, total)), total)
    m = simple_kernel("ids", [ptr(i32)], build)
    g = (3, 4, 5)
    o = np.zeros(2 * 60, np.int32)
    launch(m, "ids", g, [o])
    z, y, x = np.meshgrid(range(5), range(4), range(3), indexing="ij")
    np.testing.assert_array_equal(o[:60], (x * 10000 + y * 100 + z).reshape(-1))
    np.testing.assert_array_equal(o[60:], 60)


def test_chunked_huge_grid():
    # 300k programs, each storing its id: the launch splits the grid into chunks.
    def build(k, o):
        pid = k.pid(0)
        k.store(k.addptr(o, pid), k.bin("muli", pid, k.const(3, i32)))
    m = simple_kernel("ids", [ptr(i32)], build)
    n = 300_000
    o = np.zeros(n, np.int32)
    launch(m, "ids", (n,), [o], chunk_elements=1 << 16)
    np.testing.assert_array_equal(o, np.arange(n, dtype=np.int32) * 3)


def test_chunking_is_transparent_for_blocks():
    m = vector_add(block=64)
    n = 64 * 5000
    x, y = RNG.random(n, np.float32), RNG.random(n, np.float32)
    o = np.zeros(n, np.float32)
    launch(m, "add", (5000,), [x, y, o, n], chunk_elements=64 * 7)   # ragged last chunk
    np.testing.assert_array_equal(o, x + y)


def test_empty_grid_is_a_no_op():
    m = vector_add()
    o = np.zeros(4, np.float32)
    launch(m, "add", (0,), [o, o, o, 4])


def test_scalar_args_and_call():
    mod = Module()
    helper = mod.kernel("axpy", [f32, tensor([32], f32), tensor([32], f32)],
                        [tensor([32], f32)], public=False)
    a, x, y = helper.args
    helper.ret([helper.bin("addf", helper.bin("mulf", helper.splat(a, [32]), x), y)])
    k = mod.kernel("main", [ptr(f32), ptr(f32), f32])
    xp, op, alpha = k.args
    off = offsets(k, 32)
    v = k.load(k.addptr(xp, off))
    r = k.call("axpy", [alpha, v, v], [tensor([32], f32)]).results[0]
    k.store(k.addptr(op, off), r)
    k.ret()
    x = RNG.random(96, np.float32)
    o = np.zeros(96, np.float32)
    launch(mod.module, "main", (3,), [x, o, 2.5])
    np.testing.assert_array_equal(o, np.float32(2.5) * x + x)


def test_shape_ops():
    # load a 4x8 tile, exercise trans/reshape/join/split/cat/expand/broadcast/gather/histogram
    def build(k, x, o, h, g):
        r = k.arange(0, 4)
        c = k.arange(0, 8)
        off = k.bin("addi", k.bcast(k.bin("muli", k.expand(r, 1), k.const(8, tensor([4, 1], i32))),
                                    [4, 8]), k.bcast(k.expand(c, 0), [4, 8]))
        t = k.load(k.addptr(x, off))                       # [4, 8] i32
        tt_ = k.trans(t, [1, 0])                          # [8, 4]
        flat = k.reshape(tt_, [32])
        j = k.op1("tt.join", [flat, flat], tensor([32, 2], i32))
        a, b = k.op("tt.split", [j], [tensor([32], i32)] * 2).results
        cat = k.op1("tt.cat", [a, b], tensor([64], i32))
        k.store(k.addptr(o, k.arange(0, 64)), cat)
        hist = k.op1("tt.histogram", [flat], tensor([16], i32))
        k.store(k.addptr(h, k.arange(0, 16)), hist)
        rev = k.bin("subi", k.const(31, tensor([32], i32)), k.arange(0, 32))
        gat = k.op1("tt.gather", [flat, rev], tensor([32], i32), axis=__import__(
            "tritium.ir.attrs", fromlist=["i32_attr"]).i32_attr(0))
        k.store(k.addptr(g, k.arange(0, 32)), gat)
    m = simple_kernel("shapes", [ptr(i32)] * 4, build)
    x = RNG.integers(-3, 20, 32).astype(np.int32)
    o, h, g = np.zeros(64, np.int32), np.zeros(16, np.int32), np.zeros(32, np.int32)
    launch(m, "shapes", (1,), [x, o, h, g])
    flat = x.reshape(4, 8).T.reshape(-1)
    np.testing.assert_array_equal(o, np.concatenate([flat, flat]))
    np.testing.assert_array_equal(h, np.bincount(flat[(flat >= 0) & (flat < 16)], minlength=16))
    np.testing.assert_array_equal(g, flat[::-1])


def test_plan_is_cached_and_reused():
    from tritium.backends.cpu.evaluator import module_plan
    m = vector_add()
    x = np.ones(10, np.float32)
    o = np.zeros(10, np.float32)
    launch(m, "add", (1,), [x, x, o, 10])
    p1 = module_plan(m).plans["add"]
    launch(m, "add", (1,), [x, x, o, 10])
    assert module_plan(m).plans["add"] is p1
    fn, ins, outs, op = p1.entry.steps[0]
    assert callable(fn) and isinstance(ins, tuple)


def test_wrong_argument_count_and_unknown_kernel():
    m = vector_add()
    with pytest.raises(TypeError, match="takes 4 runtime arguments"):
        launch(m, "add", (1,), [np.zeros(1)])
    with pytest.raises(KeyError, match="no tt.func named 'nope'"):
        launch(m, "nope", (1,), [])
