"""`break` and `continue` in `@jit` loops (upstream rejects both): results on the CPU backend
equal the same loop run in Python, per program, on fresh random data; a few kernels are also
compiled to PTX and assembled by ptxas for sm_90a."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

N = 24


@triton.jit
def k_continue_then_break(x_ptr, out_ptr, cnt_ptr, n, limit):
    pid = tl.program_id(0)
    acc = 0.0
    count = 0
    for i in range(n):
        x = tl.load(x_ptr + pid * n + i)
        if x < 0:
            continue
        if acc > limit:
            break
        acc += x
        count += 1
    tl.store(out_ptr + pid, acc)
    tl.store(cnt_ptr + pid, count)


def ref_continue_then_break(row, limit):
    acc, count = np.float32(0), 0
    for x in row:
        if x < 0:
            continue
        if acc > limit:
            break
        acc += x
        count += 1
    return acc, count


@triton.jit
def k_break_in_else(x_ptr, out_ptr, n, stop):
    pid = tl.program_id(0)
    total = 0.0
    for i in range(0, n):
        x = tl.load(x_ptr + pid * n + i)
        if x > stop:
            total += x * 2
        else:
            total -= 1.0
            break
        total += 0.5
    tl.store(out_ptr + pid, total)


def ref_break_in_else(row, stop):
    total = np.float32(0)
    for x in row:
        if x > stop:
            total += x * 2
        else:
            total -= np.float32(1.0)
            break
        total += np.float32(0.5)
    return total


@triton.jit
def k_nested(x_ptr, out_ptr, n, m):
    # the inner loop's break/continue must not leak into the outer loop
    pid = tl.program_id(0)
    acc = 0.0
    for i in range(n):
        if i == 3:
            continue
        for j in range(m):
            x = tl.load(x_ptr + pid * n * m + i * m + j)
            if x > 1.0:
                break
            if x < -1.0:
                continue
            acc += x
        if acc > 6.0:
            break
    tl.store(out_ptr + pid, acc)


def ref_nested(block, n, m):
    acc = np.float32(0)
    for i in range(n):
        if i == 3:
            continue
        for j in range(m):
            x = block[i * m + j]
            if x > 1.0:
                break
            if x < -1.0:
                continue
            acc += x
        if acc > 6.0:
            break
    return acc


@triton.jit
def k_while_true(x_ptr, out_ptr, idx_ptr, n, target):
    pid = tl.program_id(0)
    i = 0
    best = -1.0e30
    while True:
        if i >= n:
            break
        x = tl.load(x_ptr + pid * n + i)
        i += 1
        if x < 0:
            continue
        best = tl.maximum(best, x)
        if best > target:
            break
    tl.store(out_ptr + pid, best)
    tl.store(idx_ptr + pid, i)


def ref_while_true(row, target):
    i, best = 0, np.float32(-1.0e30)
    while True:
        if i >= len(row):
            break
        x = row[i]
        i += 1
        if x < 0:
            continue
        best = max(best, x)
        if best > target:
            break
    return best, i


@triton.jit
def k_block_carried(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a block value carried through a loop that breaks on a scalar reduction
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(n):
        row = tl.load(x_ptr + i * BLOCK + offs)
        if tl.sum(row, axis=0) < -2.0:
            break
        acc += row
    tl.store(out_ptr + offs, acc)


def _progs(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("limit", [0.5, 3.0, 100.0])
def test_continue_then_break(rng, limit):
    x = _progs(rng, (8, N))
    out, cnt = np.zeros(8, np.float32), np.zeros(8, np.int32)
    k_continue_then_break[(8,)](x, out, cnt, N, limit)
    for p in range(8):
        acc, count = ref_continue_then_break(x[p], limit)
        assert cnt[p] == count
        np.testing.assert_allclose(out[p], acc, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stop", [-1.5, -0.5, 0.3])
def test_break_in_else_branch(rng, stop):
    x = _progs(rng, (8, N))
    out = np.zeros(8, np.float32)
    k_break_in_else[(8,)](x, out, N, stop)
    np.testing.assert_allclose(out, [ref_break_in_else(r, stop) for r in x], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,m", [(5, 7), (8, 3), (1, 16)])
def test_nested_loops_each_own_jumps(rng, n, m):
    x = _progs(rng, (6, n * m)) * 1.3
    out = np.zeros(6, np.float32)
    k_nested[(6,)](x, out, n, m)
    np.testing.assert_allclose(out, [ref_nested(r, n, m) for r in x], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", [0.5, 1.5, 1e9])
def test_while_true_with_break_and_continue(rng, target):
    x = _progs(rng, (8, 13))
    out, idx = np.zeros(8, np.float32), np.zeros(8, np.int32)
    k_while_true[(8,)](x, out, idx, 13, target)
    for p in range(8):
        best, i = ref_while_true(x[p], target)
        assert idx[p] == i
        np.testing.assert_allclose(out[p], best, rtol=1e-6)


def test_block_value_carried_through_breaking_loop(rng):
    x = _progs(rng, (10, 16))
    out = np.zeros(16, np.float32)
    k_block_carried[(1,)](x, out, 10, BLOCK=16)
    ref = np.zeros(16, np.float32)
    for row in x:
        if row.sum() < -2.0:
            break
        ref += row
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_loop_else_with_break_is_rejected():
    from tritium.frontend.errors import CompilationError

    @triton.jit
    def k(out_ptr, n):
        for i in range(n):
            if i > 2:
                break
        else:
            tl.store(out_ptr, 1)

    with pytest.raises(CompilationError, match="a loop with `break` or `continue` cannot have an `else`"):
        k[(1,)](np.zeros(1, np.int32), 5)


@pytest.mark.parametrize("kernel,args,kwargs", [
    (k_continue_then_break, lambda t: (t.randn(4 * N), t.zeros(4), t.zeros(4, dtype=t.int32),
                                       N, 1.0), {}),
    (k_nested, lambda t: (t.randn(4 * 35), t.zeros(4), 5, 7), {}),
    (k_while_true, lambda t: (t.randn(4 * 13), t.zeros(4), t.zeros(4, dtype=t.int32), 13, 1.0),
     {}),
    (k_block_carried, lambda t: (t.randn(10 * 16), t.zeros(16), 10), {"BLOCK": 16}),
], ids=["continue_then_break", "nested", "while_true", "block_carried"])
def test_ptx_assembles_for_sm90a(kernel, args, kwargs):
    import sys
    import os
    torch = pytest.importorskip("torch")
    from tritium.backends.nvidia import toolchain
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nvidia_lowering"))
    from nvl_util import compile_module, ttgir_for
    module = ttgir_for(kernel, args(torch), kwargs)
    _, _, ptx = compile_module(module)
    assert ".entry" in ptx
    if toolchain.find_ptxas() is None:
        pytest.skip("ptxas is not installed")
    toolchain.make_cubin(ptx, arch="sm_90a")


@triton.jit
def k_condition_hint(x_ptr, out_ptr, n):
    i = 0
    acc = 0.0
    while tl.condition(i < n, disable_licm=True):
        acc += tl.load(x_ptr + i)
        i += 1
    for j in tl.range(0, n, disable_licm=True):
        acc += 1.0
    if tl.target_info.is_cuda():
        acc = -1.0
    tl.store(out_ptr, acc)


def test_condition_range_hints_and_target_info_on_cpu(rng):
    x = rng.standard_normal(9).astype(np.float32)
    out = np.zeros(1, np.float32)
    k_condition_hint[(1,)](x, out, 9)
    np.testing.assert_allclose(out[0], x.sum() + 9, rtol=1e-5)
