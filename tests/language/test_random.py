"""`tl.rand*`/`tl.philox` give Triton's numbers: checked bit for bit against a NumPy Philox
written here from the Philox4x32-10 / 4x64-10 definition (validated on Random123's known
answers), with Triton's seed split and int-to-float mapping."""
import math

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl

from e2e import grid1

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
CONSTANTS = {  # bits: (round A, round B, key A, key B)
    32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
    64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B),
}


def philox_ref(c, k, bits=32, rounds=10):
    """Philox4xW on Python ints: counter c (4 words), key k (2 words)."""
    mask = (1 << bits) - 1
    ra, rb, ka, kb = CONSTANTS[bits]
    c0, c1, c2, c3 = c
    k0, k1 = k
    for _ in range(rounds):
        p0, p2 = ra * c0, rb * c2
        c0, c1, c2, c3 = ((p2 >> bits) ^ c1 ^ k0) & mask, p2 & mask, \
            ((p0 >> bits) ^ c3 ^ k1) & mask, p0 & mask
        k0, k1 = (k0 + ka) & mask, (k1 + kb) & mask
    return c0, c1, c2, c3


def test_reference_matches_random123_known_answers():
    assert philox_ref((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert philox_ref((M32,) * 4, (M32, M32)) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert philox_ref((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) \
        == (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)


def triton_randint4x(seed, offsets, rounds=10):
    seed &= M64
    return np.array([philox_ref((int(o) & M32, 0, 0, 0), (seed & M32, seed >> 32), 32, rounds)
                     for o in offsets], np.uint64).T.astype(np.uint32)


def uniform_ref(u32):
    x = u32.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x).astype(np.int32)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


@triton.jit
def randint4x_kernel(out, seed, n, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a, b, c, d = tl.randint4x(seed, offs, ROUNDS)
    tl.store(out + offs * 4 + 0, a, mask=m)
    tl.store(out + offs * 4 + 1, b, mask=m)
    tl.store(out + offs * 4 + 2, c, mask=m)
    tl.store(out + offs * 4 + 3, d, mask=m)


@pytest.mark.parametrize("seed,rounds", [(0, 10), (42, 10), (0x1234567890AB, 10), (2 ** 63 + 5, 10),
                                         (7, 7)])
def test_randint4x_bit_exact(seed, rounds):
    n = 300
    out = np.zeros(n * 4, np.uint32)
    randint4x_kernel[grid1(n, 128)](out, seed, n, ROUNDS=rounds, BLOCK=128)
    np.testing.assert_array_equal(out.reshape(n, 4).T, triton_randint4x(seed, range(n), rounds))


@triton.jit
def rand_kernel(out_u, out_n, out_i, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_u + offs, tl.rand(seed, offs), mask=m)
    tl.store(out_n + offs, tl.randn(seed, offs), mask=m)
    tl.store(out_i + offs, tl.randint(seed, offs), mask=m)


def test_rand_randn_randint(rng):
    n, seed = 1000, int(rng.integers(0, 2 ** 40))
    u, g, i = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.uint32)
    rand_kernel[grid1(n, 256)](u, g, i, seed, n, BLOCK=256)
    ints = triton_randint4x(seed, range(n))
    np.testing.assert_array_equal(i, ints[0])
    np.testing.assert_array_equal(u, uniform_ref(ints[0]))
    assert u.min() >= 0 and u.max() < 1
    u1 = np.maximum(np.float32(1e-7), uniform_ref(ints[0]))
    u2 = uniform_ref(ints[1])
    want = np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * np.cos(6.283185307179586 * u2.astype(np.float64))
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)
    assert abs(g.mean()) < 0.15 and abs(g.std() - 1) < 0.1


@triton.jit
def rand4x_kernel(out, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, c, d = tl.randn4x(seed, offs)
    e, f, g, h = tl.rand4x(seed, offs)
    tl.store(out + offs * 8 + 0, a)
    tl.store(out + offs * 8 + 1, b)
    tl.store(out + offs * 8 + 2, c)
    tl.store(out + offs * 8 + 3, d)
    tl.store(out + offs * 8 + 4, e)
    tl.store(out + offs * 8 + 5, f)
    tl.store(out + offs * 8 + 6, g)
    tl.store(out + offs * 8 + 7, h)


def test_rand4x_and_randn4x():
    out = np.zeros(64 * 8, np.float32)
    rand4x_kernel[(1,)](out, 123, BLOCK=64)
    o = out.reshape(64, 8).T
    ints = triton_randint4x(123, range(64))
    for j in range(4):
        np.testing.assert_array_equal(o[4 + j], uniform_ref(ints[j]))
    u1 = np.maximum(np.float32(1e-7), uniform_ref(ints[2])).astype(np.float64)
    u2 = uniform_ref(ints[3]).astype(np.float64)
    np.testing.assert_allclose(o[3], np.sqrt(-2 * np.log(u1)) * np.sin(2 * math.pi * u2),
                               rtol=1e-4, atol=1e-4)


@triton.jit
def randint4x_i64_kernel(out, base, seed, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    a, b, c, d = tl.randint4x(seed, offs)
    i = tl.arange(0, BLOCK) * 4
    tl.store(out + i, a)
    tl.store(out + i + 1, b)
    tl.store(out + i + 2, c)
    tl.store(out + i + 3, d)


@pytest.mark.parametrize("base", [0, 2 ** 32 - 3, 0x1234_5678_9ABC])
def test_randint4x_64bit_offsets_use_32bit_philox(base):
    """As upstream 3.4+: a 64-bit offset's low and high words are counter words 0 and 1."""
    seed = 0xCAFE_F00D_1234
    out = np.zeros(16 * 4, np.uint32)
    randint4x_i64_kernel[(1,)](out, base, seed, BLOCK=16)
    want = [philox_ref(((base + i) & M32, (base + i) >> 32, 0, 0), (seed & M32, seed >> 32))
            for i in range(16)]
    np.testing.assert_array_equal(out.reshape(16, 4), np.array(want, np.uint64).astype(np.uint32))


@triton.jit
def philox64_kernel(out, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK).to(tl.uint64)
    a, b, c, d = tl.philox(seed, offs, offs * 0, offs * 0, offs * 0)
    tl.store(out + tl.arange(0, BLOCK) * 2, a)
    tl.store(out + tl.arange(0, BLOCK) * 2 + 1, d)


def test_philox_64bit_lanes():
    out = np.zeros(16 * 2, np.uint64)
    philox64_kernel[(1,)](out, 99, BLOCK=16)
    want = [philox_ref((o, 0, 0, 0), (99, 0), 64) for o in range(16)]
    np.testing.assert_array_equal(out.reshape(16, 2), [(w[0], w[3]) for w in want])


@triton.jit
def uint_to_float_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.uint_to_uniform_float(tl.load(x_ptr + offs)))


def test_uint_to_uniform_float_edges():
    x = np.array([0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 12345, 2 ** 30, 3 * 2 ** 30], np.uint32)
    out = np.zeros(8, np.float32)
    uint_to_float_kernel[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, uniform_ref(x))
    assert out.max() < 1.0


@triton.jit
def _rand_seeded_kernel(out, seed):
    offs = tl.arange(0, 8)
    tl.store(out + offs, tl.rand(seed, offs))


@pytest.mark.parametrize("bad_seed", ["pointer", "float"])
def test_seed_must_be_an_integer(bad_seed):
    out = np.zeros(8, np.float32)
    seed = np.zeros(1, np.int32) if bad_seed == "pointer" else 2.5
    with pytest.raises(triton.CompilationError, match="seed must be an integer"):
        _rand_seeded_kernel[(1,)](out, seed)
    # An integer seed still works, and gives floats in [0, 1) that depend on it.
    _rand_seeded_kernel[(1,)](out, 7)
    first = out.copy()
    _rand_seeded_kernel[(1,)](out, 8)
    assert ((first >= 0) & (first < 1)).all() and not np.array_equal(first, out)
