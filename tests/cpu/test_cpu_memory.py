"""The memory model: bounds and alignment errors, masked lanes, several buffers, atomics with
duplicate addresses against a sequential reference, CAS, and spin locks."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from irkit import simple_kernel, ptr, tensor, i1, i32, i64, f16, bf16, f32, f64  # noqa

from tritium.backends.cpu.launch import launch  # noqa: E402
from tritium.backends.cpu.memory import Memory, OutOfBoundsError  # noqa: E402
from tritium.backends.cpu import dtypes as D  # noqa: E402

RNG = np.random.default_rng(3)


def store_at_offsets(elt=f32, line=42):
    """out[idx[i]] = val[i] for a block of 16 lanes, with an optional mask (idx >= 0)."""
    def build(k, idx_p, val_p, o):
        r = k.arange(0, 16)
        idx = k.load(k.addptr(idx_p, r))
        val = k.load(k.addptr(val_p, r))
        mask = k.cmpi("sge", idx, k.const(0, tensor([16], i32)))
        k.at(line)
        k.store(k.addptr(o, idx), val, mask)
    return simple_kernel("scatter_kernel", [ptr(i32), ptr(elt), ptr(elt)], build)


def test_out_of_bounds_store_names_kernel_and_line_and_writes_nothing():
    m = store_at_offsets(line=42)
    idx = np.arange(16, dtype=np.int32)
    idx[9] = 1 << 26                        # far past the end of a 16-element buffer
    val = np.arange(16, dtype=np.float32) + 1
    out = np.zeros(16, np.float32)
    with pytest.raises(OutOfBoundsError) as ei:
        launch(m, "scatter_kernel", (1,), [idx, val, out])
    msg = str(ei.value)
    assert "scatter_kernel" in msg and "test_kernel.py:42" in msg
    assert "byte offset" in msg and "argument" in msg
    assert (out == 0).all()                 # checked before any write


def test_describe_names_the_buffer_below():
    mem = Memory("k")
    mem.register_range(1 << 40, 64, "argument 0")      # views are made, memory is not read
    mem.register_range((1 << 40) + 4096, 16, "argument 1")
    assert mem.describe((1 << 40) + 100) == (
        "byte offset 100 from the start of argument 0, which is 64 bytes: 36 bytes past its end")
    assert "argument 1" in mem.describe((1 << 40) + 5000)
    assert "byte offset -8 from the start of argument 0" in mem.describe((1 << 40) - 8)
    with pytest.raises(OutOfBoundsError, match="kernel 'k': out-of-bounds load at address"):
        mem.gather(np.array([(1 << 40) + 64], np.int64), np.dtype(np.float32), None)


def test_masked_off_lanes_never_touch_memory():
    m = store_at_offsets()
    idx = np.arange(16, dtype=np.int32)
    idx[::3] = -(10 ** 6)                  # wildly out of range, but masked off
    val = np.arange(16, dtype=np.float32) + 1
    out = np.zeros(16, np.float32)
    launch(m, "scatter_kernel", (1,), [idx, val, out])
    keep = idx >= 0
    np.testing.assert_array_equal(out[idx[keep]], val[keep])
    assert (out[~np.isin(np.arange(16), idx[keep])] == 0).all()


def test_out_of_bounds_load_and_null_pointer():
    def build(k, x, o):
        k.at(7)
        far = k.bin("muli", k.arange(0, 32), k.const(1 << 22, tensor([32], i32)))
        v = k.load(k.addptr(x, far))              # lanes >= 1 land 16 MiB apart
        k.store(k.addptr(o, k.arange(0, 32)), v)
    m = simple_kernel("loader", [ptr(f32), ptr(f32)], build)
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds load.*test_kernel.py:7"):
        launch(m, "loader", (1,), [np.zeros(16, np.float32), np.zeros(32, np.float32)])
    with pytest.raises(OutOfBoundsError, match="kernel 'loader'"):
        launch(m, "loader", (1,), [None, np.zeros(32, np.float32)])


def test_misaligned_access_raises():
    def build(k, x, o):
        raw = k.op1("tt.ptr_to_int", [x], i64)
        bumped = k.op1("tt.int_to_ptr", [k.bin("addi", raw, k.const(2, i64))], ptr(f32))
        k.at(11)
        k.store(o, k.load(bumped))
    m = simple_kernel("mis", [ptr(f32), ptr(f32)], build)
    with pytest.raises(OutOfBoundsError, match=r"misaligned .*test_kernel.py:11"):
        launch(m, "mis", (1,), [np.zeros(4, np.float32), np.zeros(1, np.float32)])


def test_addresses_spanning_several_buffers():
    # a pointer table: lanes read from two different argument buffers in one load
    def build(k, table, o):
        r = k.arange(0, 8)
        addrs = k.load(k.addptr(table, r))                   # i64 addresses
        ptrs = k.op1("tt.int_to_ptr", [addrs], tensor([8], ptr(f32)))
        k.store(k.addptr(o, r), k.load(ptrs))
    a = np.arange(4, dtype=np.float32) + 10
    b = np.arange(4, dtype=np.float32) + 20
    mem_a, mem_b = a.ctypes.data, b.ctypes.data
    table = np.array([mem_a, mem_b + 4, mem_a + 12, mem_b, mem_b + 12, mem_a + 4, mem_a,
                      mem_b + 8], np.int64)
    o = np.zeros(8, np.float32)
    m = simple_kernel("gather", [ptr(i64), ptr(f32), ptr(f32), ptr(f32)],
                      lambda k, t, o_, a_, b_: build(k, t, o_))
    launch(m, "gather", (1,), [table, o, a, b])
    np.testing.assert_array_equal(o, [10, 21, 13, 20, 23, 11, 10, 22])


def test_memory_extent_is_whole_storage():
    torch = pytest.importorskip("torch")
    base = torch.arange(10, dtype=torch.float32)
    view = base[4:6]
    mem = Memory("k")
    addr = mem.register(view)
    assert addr == view.data_ptr()
    assert mem.buffers[0].start == base.data_ptr()
    assert mem.buffers[0].end == base.data_ptr() + 40
    arr = np.arange(10, dtype=np.float32)
    mem2 = Memory("k")
    mem2.register(arr[3:5])
    assert mem2.buffers[0].end - mem2.buffers[0].start == 40


# ------------------------------------------------------------------ atomics
def atomic_kernel(kind, elt, n=16, use_old=True, masked=True):
    """Each program p: old = atomic(kind, buf + idx[p, :], val[p, :], mask idx >= 0);
    olds stored to old_out[p, :]."""
    def build(k, idx_p, val_p, buf, old_out):
        pid = k.pid(0)
        off = k.bin("addi", k.splat(k.bin("muli", pid, k.const(n, i32)), [n]), k.arange(0, n))
        idx = k.load(k.addptr(idx_p, off))
        val = k.load(k.addptr(val_p, off))
        mask = k.cmpi("sge", idx, k.const(0, tensor([n], i32))) if masked else None
        old = k.atomic(kind, k.addptr(buf, idx), val, mask)
        if use_old:
            k.store(k.addptr(old_out, off), old)
    return simple_kernel("atom", [ptr(i32), ptr(elt), ptr(elt), ptr(elt)], build)


def sequential_reference(kind, buf, idx, val, dtype):
    buf = buf.copy()
    old = np.zeros_like(val)
    for p in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            a = idx[p, j]
            if a < 0:
                continue
            o = buf[a]
            old[p, j] = o
            v = val[p, j]
            if kind in ("add", "fadd"):
                r = o + v
            elif kind == "max":
                r = max(o, v)
            elif kind == "min":
                r = min(o, v)
            elif kind in ("umax", "umin"):
                ud = np.dtype(dtype).newbyteorder("=").str.replace("i", "u")
                uo, uv = np.array(o).view(ud), np.array(v).view(ud)
                r = (max if kind == "umax" else min)(uo, uv).view(dtype)
            elif kind == "and":
                r = o & v
            elif kind == "or":
                r = o | v
            elif kind == "xor":
                r = o ^ v
            elif kind == "exch":
                r = v
            buf[a] = r
    return buf, old


@pytest.mark.parametrize("use_old", [True, False])
@pytest.mark.parametrize("kind,dtype", [
    ("add", np.int32), ("add", np.int64), ("fadd", np.float32), ("fadd", np.float64),
    ("fadd", np.float16), ("max", np.int32), ("min", np.int32), ("umax", np.int32),
    ("umin", np.int32), ("and", np.int32), ("or", np.int32), ("xor", np.int64),
    ("exch", np.int32), ("exch", np.float32), ("max", np.float32), ("min", np.float64)])
def test_atomics_with_duplicates_match_sequential(kind, dtype, use_old):
    elt = {np.int32: i32, np.int64: i64, np.float32: f32, np.float64: f64,
           np.float16: f16}[dtype]
    P, n, size = 6, 16, 5
    idx = RNG.integers(-1, size, (P, n)).astype(np.int32)     # many duplicates, some masked
    if np.dtype(dtype).kind == "f":
        val = (RNG.standard_normal((P, n)) * 100).astype(dtype)
        buf0 = (RNG.standard_normal(size) * 100).astype(dtype)
    else:
        val = RNG.integers(-1000, 1000, (P, n)).astype(dtype)
        buf0 = RNG.integers(-1000, 1000, size).astype(dtype)
    buf = buf0.copy()
    old = np.zeros((P, n), dtype)
    launch(atomic_kernel(kind, elt, n, use_old), "atom", (P,), [idx, val, buf, old])
    ref_buf, ref_old = sequential_reference(kind, buf0, idx, val, dtype)
    if kind == "fadd" and not use_old:
        np.testing.assert_allclose(buf, ref_buf, rtol=1e-3 if dtype == np.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(buf, ref_buf)
    if use_old:
        np.testing.assert_array_equal(old, ref_old)


def test_atomic_bf16_fadd():
    P, n = 4, 16
    idx = RNG.integers(0, 3, (P, n)).astype(np.int32)
    valf = RNG.standard_normal((P, n)).astype(np.float32)
    val = D.f32_to_bf16_bits(valf).reshape(P, n)
    buf = np.zeros(3, np.uint16)
    old = np.zeros((P, n), np.uint16)
    launch(atomic_kernel("fadd", bf16, n), "atom", (P,), [idx, val, buf, old])
    acc = np.zeros(3, np.float32)
    for p in range(P):
        for j in range(n):
            acc[idx[p, j]] = D.round_bf16(np.float32([acc[idx[p, j]] + D.bf16_bits_to_f32(
                val[p, j:j + 1])[0]]))[0]
    np.testing.assert_array_equal(D.bf16_bits_to_f32(buf), acc)


def test_atomic_counter_uniform_pointer_counts_every_program():
    # `atomic_add(counter, 1)` with a uniform pointer must run once per program, and the old
    # values give each program a distinct ticket in program order.
    def build(k, counter, tickets):
        pid = k.pid(0)
        t = k.atomic("add", counter, k.const(1, i32))
        k.store(k.addptr(tickets, pid), t)
    m = simple_kernel("ticket", [ptr(i32), ptr(i32)], build)
    counter = np.zeros(1, np.int32)
    tickets = np.zeros(1000, np.int32)
    launch(m, "ticket", (1000,), [counter, tickets])
    assert counter[0] == 1000
    np.testing.assert_array_equal(tickets, np.arange(1000))


def test_atomic_cas_sequential():
    # every program tries cas(lock, pid, pid + 1) on one address: only the chain 0->1->2...
    def build(k, lock, old_out):
        pid = k.pid(0)
        old = k.cas(lock, pid, k.bin("addi", pid, k.const(1, i32)))
        k.store(k.addptr(old_out, pid), old)
    m = simple_kernel("cas", [ptr(i32), ptr(i32)], build)
    lock = np.zeros(1, np.int32)
    old = np.zeros(50, np.int32)
    launch(m, "cas", (50,), [lock, old])
    assert lock[0] == 50
    np.testing.assert_array_equal(old, np.arange(50))


def test_spin_lock_runs_serially():
    # while atomic_cas(lock, 0, 1) == 1: pass ; total += pid ; atomic_xchg(lock, 0)
    def build(k, lock, total):
        pid = k.pid(0)

        def before(k, dummy):
            old = k.cas(lock, k.const(0, i32), k.const(1, i32))
            return k.cmpi("eq", old, k.const(1, i32)), [dummy]
        k.while_([k.const(0, i32)], before, lambda k, d: [d])
        k.store(total, k.bin("addi", k.load(total), pid))
        k.atomic("exch", lock, k.const(0, i32))
    m = simple_kernel("locked", [ptr(i32), ptr(i32)], build)
    lock = np.zeros(1, np.int32)
    total = np.zeros(1, np.int32)
    launch(m, "locked", (64,), [lock, total])
    assert total[0] == sum(range(64)) and lock[0] == 0


def test_spin_lock_through_a_callee_runs_serially():
    from irkit import Module
    mod = Module()
    h = mod.kernel("try_lock", [ptr(i32)], [i32], public=False)
    h.ret([h.cas(h.args[0], h.const(0, i32), h.const(1, i32))])
    k = mod.kernel("locked", [ptr(i32), ptr(i32)])
    lock, total = k.args
    pid = k.pid(0)

    def before(k, dummy):
        old = k.call("try_lock", [lock], [i32]).results[0]
        return k.cmpi("eq", old, k.const(1, i32)), [dummy]
    k.while_([k.const(0, i32)], before, lambda k, d: [d])
    k.store(total, k.bin("addi", k.load(total), pid))
    k.atomic("exch", lock, k.const(0, i32))
    k.ret()
    lock_a, total_a = np.zeros(1, np.int32), np.zeros(1, np.int32)
    launch(mod.module, "locked", (40,), [lock_a, total_a])
    assert total_a[0] == sum(range(40))


def test_bool_pointer_roundtrip():
    def build(k, x, o):
        r = k.arange(0, 8)
        v = k.load(k.addptr(x, r))
        k.store(k.addptr(o, r), k.op1("arith.xori", [v, k.const(1, tensor([8], i1))],
                                       v.type))
    m = simple_kernel("b", [ptr(i1), ptr(i1)], build)
    x = np.array([0, 1, 1, 0, 2, 0, 1, 0], np.uint8)     # any nonzero byte reads as true
    o = np.zeros(8, np.uint8)
    launch(m, "b", (1,), [x, o])
    np.testing.assert_array_equal(o, (x == 0).astype(np.uint8))


def _table_kernel():
    import tritium
    import tritium.language as tl

    @tritium.jit
    def gather_through_table(table_ptr, out_ptr, n, BLOCK: tl.constexpr):
        # Upstream's grouped GEMM: tensors reached through a table of data_ptr()s.
        g = tl.program_id(0)
        src = tl.load(table_ptr + g).to(tl.pointer_type(tl.float16))
        offs = tl.arange(0, BLOCK)
        x = tl.load(src + offs, mask=offs < n, other=0.0)
        tl.store(out_ptr + g * BLOCK + offs, x * 2, mask=offs < n)
    return gather_through_table


def test_pointers_from_integers_reach_live_tensors():
    torch = pytest.importorskip("torch")
    kernel = _table_kernel()
    srcs = [torch.randn(n, dtype=torch.float16) for n in (37, 64, 50)]
    table = torch.tensor([t.data_ptr() for t in srcs], dtype=torch.int64)
    out = torch.zeros(3 * 64, dtype=torch.float16)
    kernel[(3,)](table, out, 37, BLOCK=64)
    want = torch.zeros(3, 64, dtype=torch.float16)
    for i, t in enumerate(srcs):
        want[i, :37] = t[:37] * 2
    torch.testing.assert_close(out.reshape(3, 64), want, rtol=0, atol=0)


def test_pointer_from_an_integer_outside_every_tensor_still_raises(monkeypatch):
    # Bounds checks are the evaluator's (the compiled path, like the GPU, checks nothing).
    monkeypatch.setenv("TRITIUM_CPU_PATH", "evaluator")
    torch = pytest.importorskip("torch")
    kernel = _table_kernel()
    live = torch.randn(64, dtype=torch.float16)
    table = torch.tensor([live.data_ptr(), live.data_ptr() + (1 << 40)], dtype=torch.int64)
    out = torch.zeros(2 * 64, dtype=torch.float16)
    with pytest.raises(OutOfBoundsError, match="gather_through_table.*out-of-bounds load"):
        kernel[(2,)](table, out, 64, BLOCK=64)
