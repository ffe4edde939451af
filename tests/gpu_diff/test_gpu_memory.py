"""Loads, stores and atomics (tests/language/test_e2e_memory.py's kernels) on the GPU vs the
CPU backend and NumPy: masked 2-D tiles with ragged edges, `other` converted to the pointee
type, scalar and bool pointers, atomics contended across programs (final memory compared;
returned old values compared through order-independent invariants), a CAS spin lock."""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import NP, grid1, random_array
from harness import InOut, Out, assert_ref, assert_same, compare, run_both
from test_e2e_memory import (atomic_kernel, bool_kernel, cas_counter_kernel, copy_2d,
                             float_max_signs_kernel, load_other_kernel)
from test_e2e_memory import scalar_kernel as scalar_load_kernel

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("M,N", [(17, 33), (1, 5), (64, 64)])
def test_ragged_2d_tiles(rng, M, N):
    x = rng.standard_normal((M, N)).astype(np.float32)
    cpu, gpu = compare(copy_2d, (triton.cdiv(M, 16), triton.cdiv(N, 16)), x,
                       Out((M, N), np.float32), M, N, N, BM=16, BN=16)
    assert_ref(gpu[0], x * 2)


@pytest.mark.parametrize("dt", ["int8", "float16", "float64", "uint64"])
def test_masked_load_other(rng, dt):
    x = random_array(rng, dt, 10)
    cpu, gpu = compare(load_other_kernel, (1,), x, Out(16, NP[dt]), 10, BLOCK=16)
    assert_ref(gpu[0][:10], x)
    assert_ref(gpu[0][10:], np.full(6, 42, NP[dt]))


def test_scalar_load_store():
    x = np.arange(10, dtype=np.int64) * 5
    # The second store is masked off: its poison must survive on both sides.
    cpu, gpu = compare(scalar_load_kernel, (1,), x, Out(2, np.int64), 4)
    assert gpu[0][0] == 60


def test_bool_pointers(rng):
    x = rng.integers(0, 2, 13).astype(np.bool_)
    cpu, gpu = compare(bool_kernel, (1,), x, Out(13, np.bool_), 13, BLOCK=16)
    assert_ref(gpu[0], x ^ (np.arange(13) % 2 == 0))


ATOMICS = [("add", "int32"), ("add", "float32"), ("add", "uint64"), ("max", "int32"),
           ("max", "float32"), ("max", "float64"), ("max", "uint32"), ("min", "int64"),
           ("min", "float32"), ("and", "int32"), ("or", "uint32"), ("xor", "int64")]


@pytest.mark.parametrize("op,dt", ATOMICS)
def test_atomics_across_programs(rng, op, dt):
    """7 programs of 16 lanes hit 4 slots: the final values do not depend on the order
    (float sums are of integers, exact in any order)."""
    n = 100
    if dt.startswith("float"):
        x = np.round(rng.uniform(-50, 50, n)).astype(NP[dt])
    else:
        x = random_array(rng, dt, n, 0 if "u" in dt else -100, 100)
    init = {"add": 0, "max": -1000, "min": 1000, "and": -1, "or": 0, "xor": 0}[op]
    if "u" in dt and op == "max":
        init = 0
    acc = np.full(4, init, NP[dt]) if not ("u" in dt and init < 0) else \
        np.full(4, np.iinfo(NP[dt]).max, NP[dt])
    ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    want = acc.copy()
    for i in range(n):
        want[i % 4] = ufunc(want[i % 4], x[i])
    cpu, gpu = compare(atomic_kernel, grid1(n, 16), x, InOut(acc), n, OP=op, BLOCK=16)
    assert_ref(gpu[0], want)


def test_atomic_float_max_returns_old_values():
    x = np.array([-1.0, -3.0, 2.0, -0.5, 5.0, -7.0, 0.0, -2.5], np.float32)
    acc = np.array([-2.0, -2.0, -2.0, -2.0, 3.0, 3.0, -1.0, -3.0], np.float32)
    cpu, gpu = compare(float_max_signs_kernel, (1,), InOut(x), InOut(acc), BLOCK=8)
    assert_ref(gpu[1], np.maximum(acc, x))
    assert_ref(gpu[0], acc)  # atomics return the previous values


def test_atomic_cas_lock():
    cpu, gpu = compare(cas_counter_kernel, (37,), InOut(np.zeros(1, np.int32)),
                       InOut(np.zeros(1, np.int32)))
    assert gpu[1][0] == 37 and gpu[0][0] == 0


# Contended atomics whose returned values depend on the order the lanes win in: compared
# through what every order has in common.
@triton.jit
def atomic_returns_kernel(x_ptr, acc_ptr, old_ptr, n, OP: tl.constexpr, SLOTS: tl.constexpr,
                          BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    slot = acc_ptr + offs % SLOTS
    if OP == "xchg":
        old = tl.atomic_xchg(slot, x, mask=m)
    elif OP == "add":
        old = tl.atomic_add(slot, x, mask=m)
    else:  # every lane tries to claim its slot (initially -1) with its own id
        old = tl.atomic_cas(slot, tl.full((BLOCK,), -1, tl.int32), offs)
    tl.store(old_ptr + offs, old, mask=m)


def _invariants(op, x, init, final, old, slots):
    """Per slot, what does not depend on the order: xchg — the values seen (olds and final)
    are the initial value and the written ones; add of ones — the olds are a permutation of
    init .. init+k-1; cas — one winner per slot, the lane whose id stayed there."""
    n = len(x)
    out = []
    for s in range(slots):
        lanes = np.arange(s, n, slots)
        if op == "xchg":
            out.append(sorted(np.concatenate([old[lanes], final[s:s + 1]]).tolist()))
            assert out[-1] == sorted([int(init[s])] + x[lanes].tolist())
        elif op == "add":
            out.append(sorted(old[lanes].tolist()) + [int(final[s])])
            assert out[-1] == list(range(init[s], init[s] + len(lanes) + 1))
        else:
            winners = lanes[old[lanes] == -1]
            assert len(winners) == 1 and final[s] == winners[0]
            assert (old[lanes][old[lanes] != -1] == final[s]).all()
            out.append(len(winners))
    return out


@pytest.mark.parametrize("op,n", [("xchg", 100), ("add", 100), ("cas", 128)])
def test_contended_atomics_return_values(rng, op, n):
    slots = 3
    x = np.ones(n, np.int32) if op == "add" else rng.integers(0, 1000, n).astype(np.int32)
    init = np.full(slots, -1 if op == "cas" else 5, np.int32)
    cpu, gpu = run_both(atomic_returns_kernel, grid1(n, 32), x, InOut(init),
                        Out(n, np.int32), n, OP=op, SLOTS=slots, BLOCK=32)
    assert _invariants(op, x, init, cpu[0], cpu[1], slots) == \
        _invariants(op, x, init, gpu[0], gpu[1], slots)
    if op == "add":  # the only one whose final memory is order-independent
        assert_same(cpu[0], gpu[0], kind="exact", err_msg="final memory")


@triton.jit
def _scale_in_place(ptr, n, rep):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    v = tl.load(ptr + offs, mask=offs < n)
    for i in range(1, rep):
        v = v * i
    tl.store(ptr + offs, v, mask=offs < n)


@triton.jit
def reload_after_store_kernel(ptr, n, rep1, rep2):
    # upstream's test_call: the same tile loaded, scaled and stored twice in place
    _scale_in_place(ptr, n, rep1)
    _scale_in_place(ptr, n, rep2)


@pytest.mark.parametrize("n", [1024, 1000])
def test_reload_after_store(rng, n):
    """The second load of an address already stored to reads the stored value (LLVM had
    merged the two loads' asm, so the second scaling started from the original data)."""
    x = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = compare(reload_after_store_kernel, (triton.cdiv(n, 128),), InOut(x.copy()),
                       n, 3, 5)
    assert_ref(gpu[0], x * 48)
