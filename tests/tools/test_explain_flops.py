"""Dot FLOPs for kernels timed with do_bench: 2·M·N·K per tl.dot for every time a program
runs it (loop trip counts and branch conditions evaluated from each launch's grid and
scalars), compared with counts worked out by hand from the kernels' loop structure; what
cannot be known at launch is reported as such; the GPU peak matches published numbers."""
import os
import textwrap

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.tools.explain import flops

from explain_util import masked_mm


def _cdiv(a, b):
    return -(-a // b)


@triton.jit
def _causal(Q, O, n, extra, BM: tl.constexpr, BD: tl.constexpr):
    """Program i runs its loop i + 1 times (a causal-attention-like bound), then one more
    dot when `extra` is odd."""
    i = tl.program_id(0)
    r = tl.arange(0, BM)
    d = tl.arange(0, BD)
    q = tl.load(Q + r[:, None] * BD + d[None, :])
    acc = tl.zeros((BM, BD), tl.float32)
    for j in range(0, i + 1):
        kt = tl.load(Q + d[:, None] * BM + r[None, :])
        s = tl.dot(q, kt)                                        # BM x BM x BD
        acc += tl.dot(s.to(tl.float16), tl.load(Q + r[:, None] * BD + d[None, :]))  # BM x BD x BM
    if extra % 2 == 1:
        acc += tl.dot(q, tl.load(Q + d[:, None] * BD + d[None, :]))  # BM x BD x BD
    tl.store(O + i * BM * BD + r[:, None] * BD + d[None, :], acc)


@triton.jit
def _data_bound(Q, O, L, BM: tl.constexpr):
    r = tl.arange(0, BM)
    q = tl.load(Q + r[:, None] * BM + r[None, :])
    acc = tl.zeros((BM, BM), tl.float32)
    for j in range(0, tl.load(L)):
        acc += tl.dot(q, q)
    tl.store(O + r[:, None] * BM + r[None, :], acc)


@triton.jit
def _triangle(Q, O, n, BM: tl.constexpr):
    r = tl.arange(0, BM)
    q = tl.load(Q + r[:, None] * BM + r[None, :])
    acc = tl.zeros((BM, BM), tl.float32)
    for i in range(0, n):
        for j in range(0, i):
            acc += tl.dot(q, q)
    tl.store(O + r[:, None] * BM + r[None, :], acc)


def _ttir(fn, *args, **meta):
    from tritium.frontend.compiler import make_ttir
    from tritium.passes import make_ttir_pipeline
    _, spec, _ = fn.bind(*args, **meta)
    module, _ = make_ttir(fn, spec)
    make_ttir_pipeline().run(module)
    scalars = tuple(int(a) if isinstance(a, (int, np.integer)) else None
                    for a, (ty, _) in zip(args, spec) if ty != "constexpr")
    return module, scalars


@pytest.mark.parametrize("M,N,K,BM,BN,BK", [(200, 150, 170, 32, 32, 32), (64, 64, 64, 16, 32, 16),
                                            (1, 300, 1000, 16, 64, 128), (33, 17, 5, 16, 16, 16)])
def test_matmul_counts_tiles_times_trips(M, N, K, BM, BN, BK):
    f32 = np.zeros(4, np.float32)
    module, scalars = _ttir(masked_mm, f32, f32, f32, M, N, K, BM=BM, BN=BN, BK=BK)
    grid = (_cdiv(M, BM), _cdiv(N, BN))
    got = flops.count(module, "masked_mm", {(grid, scalars): 3})
    assert got.known and len(got.dots) == 1 and got.dtype == "f32" and got.precision == "tf32"
    want = 3 * grid[0] * grid[1] * _cdiv(K, BK) * 2 * BM * BN * BK
    assert got.flops == want
    dot_at = next(i for i, l in enumerate(masked_mm.src.splitlines()) if "tl.dot(" in l)
    assert got.dots[0].line == masked_mm.starting_line_number + dot_at


@pytest.mark.parametrize("programs,extra", [(1, 0), (7, 1), (12, 4)])
def test_program_dependent_loops_and_branches(programs, extra):
    h = np.zeros(4, np.float16)
    BM, BD = 16, 32
    module, scalars = _ttir(_causal, h, h, 5, extra, BM=BM, BD=BD)
    got = flops.count(module, "_causal", {((programs,), scalars): 1})
    assert got.known and len(got.dots) == 3 and got.dtype == "f16" and got.precision == ""
    trips = sum(i + 1 for i in range(programs))            # program i: i + 1 iterations
    want = trips * (2 * BM * BM * BD + 2 * BM * BD * BM)
    want += programs * 2 * BM * BD * BD * (extra % 2)
    assert got.flops == want
    # Two launches of different grids add up.
    both = flops.count(module, "_causal", {((programs,), scalars): 1, ((2, 1, 1), scalars): 2})
    assert both.flops == want + 2 * (3 * (2 * BM * BM * BD + 2 * BM * BD * BM)
                                     + 2 * 2 * BM * BD * BD * (extra % 2))


def test_unknown_trip_counts_say_why():
    h = np.zeros(4, np.float16)
    module, scalars = _ttir(_data_bound, h, h, np.zeros(1, np.int32), BM=16)
    got = flops.count(module, "_data_bound", {((4,), scalars): 1})
    assert not got.known and "tt.load" in got.why
    module, scalars = _ttir(_triangle, h, h, 9, BM=16)
    got = flops.count(module, "_triangle", {((4,), scalars): 1})
    assert not got.known and "induction variable" in got.why
    # No dot: nothing to count.
    @triton.jit
    def copy(X, Y, BLOCK: tl.constexpr):
        tl.store(Y + tl.arange(0, BLOCK), tl.load(X + tl.arange(0, BLOCK)))
    module, scalars = _ttir(copy, h, h, BLOCK=16)
    assert flops.count(module, "copy", {((1,), scalars): 1}) is None


def test_hopper_peak_matches_the_published_number(monkeypatch):
    """H100 SXM: 989.4 dense fp16/bf16 TFLOP/s and 494.7 tf32 at its 1830 MHz boost clock
    (NVIDIA's datasheet), 1979 fp8; A100: 312 fp16 at 1410 MHz."""
    from tritium.backends.nvidia import driver
    from tritium.tools.explain.bench import peak_tflops
    props = {"capability": 90, "multiprocessor_count": 132, "sm_clock_rate": 1830000}
    monkeypatch.setattr(driver, "is_available", lambda: True)
    monkeypatch.setattr(driver, "get_device_properties", lambda device=None: props)
    monkeypatch.setattr(driver, "get_device_capability", lambda device=None: (9, 0))
    assert peak_tflops("f16") == pytest.approx(989.4, rel=2e-3)
    assert peak_tflops("bf16") == pytest.approx(989.4, rel=2e-3)
    assert peak_tflops("f32", "tf32") == pytest.approx(494.7, rel=2e-3)
    assert peak_tflops("f8E4M3FN") == pytest.approx(1978.9, rel=2e-3)
    assert peak_tflops("f32", "ieee") == pytest.approx(61.8, rel=2e-2)   # 128 FP32 lanes/SM
    props.update(capability=80, multiprocessor_count=108, sm_clock_rate=1410000)
    monkeypatch.setattr(driver, "get_device_capability", lambda device=None: (8, 0))
    assert peak_tflops("f16") == pytest.approx(312, rel=3e-3)
    assert peak_tflops("f64") is None


def test_no_peak_on_the_cpu():
    from tritium.tools.explain import default_target
    from tritium.tools.explain.bench import peak_tflops
    if default_target() != "cpu":
        pytest.skip("a GPU is present")
    assert peak_tflops("f16") is None


BENCH_MM = textwrap.dedent('''
    import numpy as np
    import tritium as triton
    import tritium.language as tl
    from tritium.testing import do_bench

    @triton.jit
    def mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(A + rm[:, None] * K + (k * BK + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
            b = tl.load(B + (k * BK + rk)[:, None] * N + rn[None, :],
                        mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(C + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    M, N, K = 70, 50, 90
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.empty((M, N), np.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 16))
    def two():   # two launches per timed call: different K, so different trip counts
        mm[grid](a, b, c, M, N, K, BM=32, BN=16, BK=16)
        mm[grid](a, b, c, M, N, 40, BM=32, BN=16, BK=16)
    ms = do_bench(two, warmup=1, rep=5)
    mm[grid](a, b, c, M, N, K, BM=32, BN=16, BK=16)
    np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)
''')


def test_do_bench_flops_on_the_page(tmp_path):
    from tritium.tools.explain.cli import run
    from tritium.tools.explain.record import run_script
    p = tmp_path / "bench_mm.py"
    p.write_text(BENCH_MM)
    rec = run_script(str(p))
    (c,) = rec.compiled
    b = rec.bench_of(c)
    assert b.launches_per_call == 2 and len(b.launches) == 2
    out = str(tmp_path / "out")
    index = run(str(p), output=out, target="cpu", log=open(os.devnull, "w"))
    with open(os.path.join(os.path.dirname(index), "mm.html")) as f:
        page = f.read()
    from tritium.tools.explain import capture
    rec2 = capture(c.fn, c.specialization, c.options, "cpu", bench=b)
    tiles = 3 * 4 * 2 * 32 * 16 * 16                 # programs x one dot's FLOPs
    assert b.flops.known and b.flops_per_call == tiles * (_cdiv(90, 16) + _cdiv(40, 16))
    assert b.tflops == pytest.approx(b.flops_per_call / (b.ms * 1e-3) / 1e12)
    assert rec2.bench is b
    assert "dot FLOP/s (do_bench)" in page and "1 tl.dot on f32 (tf32)" in page
    mflop = tiles * (_cdiv(90, 16) + _cdiv(40, 16)) / 1e6
    assert f"= {mflop:.4g} MFLOP per call" in page and "GFLOP/s" in page


def test_flops_row_with_a_peak_and_unknown():
    """The page's row: achieved TFLOP/s against the peak when there is one; the reason when
    the FLOPs are not known."""
    from tritium.tools.explain.bench import BenchResult
    from tritium.tools.explain.render import _flops_row
    h = np.zeros(4, np.float16)
    module, scalars = _ttir(_causal, h, h, 5, 1, BM=16, BD=32)
    b = BenchResult(ms=0.5, bytes_per_call=0, launches_per_call=2, kernels_in_call=1, calls=4,
                    launches={((64,), scalars): 8})
    b.flops = flops.count(module, "_causal", b.launches)
    b.peak_tflops = 989.0
    per_call = 8 * (sum(i + 1 for i in range(64)) * 2 * (2 * 16 * 16 * 32)
                    + 64 * 2 * 16 * 32 * 32) / 4
    assert b.flops_per_call == per_call
    tflops = per_call / 0.5e-3 / 1e12
    label, text = _flops_row(b)
    assert label == "dot FLOP/s (do_bench)" and text.startswith("3 tl.dots on f16:")
    assert f"{tflops:.4g} TFLOP/s of 989 TFLOP/s f16 peak ({100 * tflops / 989:.0f}%)" in text
    module, scalars = _ttir(_triangle, h, h, 9, BM=16)
    b.flops = flops.count(module, "_triangle", {((4,), scalars): 1})
    assert b.tflops is None
    assert "FLOPs not known at launch: a loop bound that depends on an enclosing loop's" \
        in _flops_row(b)[1]
