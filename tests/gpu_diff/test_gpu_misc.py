"""The remaining builtins (tests/language/test_e2e_misc.py, test_e2e_debug.py and
test_random.py's kernels) on the GPU vs the CPU backend: program_id/num_programs on 3-D
grids, constructors, debug_barrier, broadcasting where + integer clamp, hints, device_print
and device_assert (just run), the Philox random numbers (bit for bit), batched tl.dot (not
lowered for the GPU yet)."""
import numpy as np
import pytest

from e2e import grid1
from harness import InOut, Out, assert_ref, assert_same, compare, run_both
from test_e2e_debug import assert_kernel, hinted_kernel, overflow_kernel, print_kernel
from test_e2e_misc import (barrier_kernel, batched_dot, constructors_kernel, grid_kernel,
                           where_clamp_kernel)
from test_random import (philox64_kernel, philox_ref, rand4x_kernel, rand_kernel,
                         randint4x_kernel, triton_randint4x, uint_to_float_kernel, uniform_ref)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("grid", [(2, 3, 4), (1, 1, 1), (5, 1, 7), (3, 2, 1), (130, 2, 2)])
def test_program_ids_and_num_programs(grid):
    total = grid[0] * grid[1] * grid[2]
    cpu, gpu = compare(grid_kernel, grid, Out(total, np.int32))
    assert_ref(gpu[0], total * 100 + np.arange(total))


def test_constructors():
    x = np.arange(8, dtype=np.float16)
    cpu, gpu = compare(constructors_kernel, (1,), x, Out(8, np.float16), BLOCK=8)
    assert_ref(gpu[0], x * np.float16(2.5))


def test_debug_barrier():
    cpu, gpu = compare(barrier_kernel, (1,), Out(2, np.int32))
    assert_ref(gpu[0], [1, 2])


def test_where_broadcast_and_int_clamp():
    x = np.arange(4, 12, dtype=np.int32) - 6
    cpu, gpu = compare(where_clamp_kernel, (1,), x, Out((8, 8), np.int32), BLOCK=8)
    r, c = np.indices((8, 8))
    assert_ref(gpu[0], np.clip(np.where(r >= c, x[None, :], -1), 0, 5))


def test_batched_dot(rng):
    a = rng.standard_normal((2, 16, 16)).astype(np.float32)
    b = rng.standard_normal((2, 16, 32)).astype(np.float32)
    cpu, gpu = run_both(batched_dot, (1,), a, b, Out((2, 16, 32), np.float32),
                        B=2, M=16, K=16, N=32)
    assert_same(cpu[0], gpu[0], kind="sum", n=16, scale=np.abs(a) @ np.abs(b))
    assert_ref(gpu[0], a @ b, rtol=1e-5, atol=1e-5)


def test_hints():
    x = np.arange(40, dtype=np.float32)
    cpu, gpu = compare(hinted_kernel, (3,), x, Out(40, np.float32), 40, BLOCK=16)
    assert_ref(gpu[0], x)


def test_device_print_runs():
    run_both(print_kernel, (2,), np.array([3, 4], np.int32), BLOCK=2)


def test_device_assert_and_overflow_check_pass_in_debug():
    """Compiled with debug: the checks are in the code, none of them fires."""
    run_both(assert_kernel, (1,), np.arange(8, dtype=np.int32) % 5, BLOCK=8, debug=True)
    cpu, gpu = compare(overflow_kernel, (1,), InOut(np.arange(8, dtype=np.int32)), BLOCK=8,
                       debug=True)
    assert_ref(gpu[0], np.arange(8) + 2147483600)


# ------------------------------------------------------------------ random
@pytest.mark.parametrize("seed,rounds", [(42, 10), (2 ** 63 + 5, 10), (7, 7)])
def test_randint4x_bit_exact(seed, rounds):
    n = 300
    cpu, gpu = compare(randint4x_kernel, grid1(n, 128), Out(n * 4, np.uint32), seed, n,
                       ROUNDS=rounds, BLOCK=128)
    assert_ref(gpu[0].reshape(n, 4).T, triton_randint4x(seed, range(n), rounds))


def test_rand_randn_randint(rng):
    n, seed = 1000, int(rng.integers(2 ** 31, 2 ** 40))
    cpu, gpu = run_both(rand_kernel, grid1(n, 256), Out(n, np.float32), Out(n, np.float32),
                        Out(n, np.uint32), seed, n, BLOCK=256)
    assert_same(cpu[0], gpu[0], kind="exact", err_msg="rand")
    assert_same(cpu[2], gpu[2], kind="exact", err_msg="randint")
    # randn is Box-Muller: log, sqrt and cos, which the GPU computes with its own (few-ulp)
    # libdevice routines: not bit-exact.
    assert_same(cpu[1], gpu[1], kind="approx", err_msg="randn")
    ints = triton_randint4x(seed, range(n))
    assert_ref(gpu[2], ints[0])
    assert_ref(gpu[0], uniform_ref(ints[0]))


def test_rand4x_and_randn4x():
    cpu, gpu = run_both(rand4x_kernel, (1,), Out(64 * 8, np.float32), 123, BLOCK=64)
    c, g = cpu[0].reshape(64, 8).T, gpu[0].reshape(64, 8).T
    assert_same(c[:4], g[:4], kind="approx", err_msg="randn4x")
    assert_same(c[4:], g[4:], kind="exact", err_msg="rand4x")
    ints = triton_randint4x(123, range(64))
    for j in range(4):
        assert_ref(g[4 + j], uniform_ref(ints[j]))


def test_philox_64bit_lanes():
    cpu, gpu = compare(philox64_kernel, (1,), Out(16 * 2, np.uint64), 99, BLOCK=16)
    want = [philox_ref((o, 0, 0, 0), (99, 0), 64) for o in range(16)]
    assert_ref(gpu[0].reshape(16, 2), [(w[0], w[3]) for w in want])


def test_uint_to_uniform_float_edges():
    x = np.array([0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 12345, 2 ** 30, 3 * 2 ** 30], np.uint32)
    cpu, gpu = compare(uint_to_float_kernel, (1,), x, Out(8, np.float32), BLOCK=8)
    assert_ref(gpu[0], uniform_ref(x))
