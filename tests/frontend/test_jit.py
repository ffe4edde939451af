"""The JIT: specialisation as upstream, the cache, warmup, globals, grids, launch errors."""
import os

import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.frontend.specialize import specialize_arg


@triton.jit
def store_scalar(out_ptr, v):
    tl.store(out_ptr, v)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class FakePtr:
    def __init__(self, addr, dtype="float32"):
        self.addr = addr
        self.dtype = np.dtype(dtype)

    def data_ptr(self):
        return self.addr


@pytest.mark.parametrize("value,expected", [
    (1, ("constexpr", 1)), (16, ("i32", "D")), (17, ("i32", "")), (-32, ("i32", "D")),
    (2 ** 31, ("i64", "D")), (2 ** 31 + 1, ("i64", "")), (2 ** 63, ("u64", "D")),
    (-2 ** 31, ("i32", "D")), (-2 ** 31 - 1, ("i64", "")), (True, ("u1", "")),
    (1.0, ("fp32", "")), (None, ("constexpr", None)), (0, ("i32", "D")),
])
def test_scalar_specialization(value, expected):
    assert specialize_arg(value) == expected


def test_pointer_specialization_and_alignment():
    assert specialize_arg(FakePtr(4096)) == ("*fp32", "D")
    assert specialize_arg(FakePtr(4100)) == ("*fp32", "")
    assert specialize_arg(FakePtr(4096, "float16")) == ("*fp16", "D")
    assert specialize_arg(FakePtr(4096), is_const=True) == ("*kfp32", "D")
    assert specialize_arg(FakePtr(4096), align=False) == ("*fp32", "")


def test_do_not_specialize_disables_both_checks():
    assert specialize_arg(1, specialize_value=False, align=False) == ("i32", "")
    assert specialize_arg(32, specialize_value=True, align=False) == ("i32", "")


def test_overflowing_int_is_rejected():
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        specialize_arg(2 ** 64)


def _ttir(kernel, *args, **kw):
    return kernel.warmup(*args, grid=(1,), **kw).asm["ttir"]


def test_divisibility_and_one_become_ir_facts():
    x = np.zeros(64, np.float32)
    text = _ttir(copy_kernel, x, x, 64, BLOCK=64)
    assert text.count("tt.divisibility = 16") == 3  # two pointers and n
    # n == 1 becomes a constant: the parameter disappears from the signature
    text1 = _ttir(copy_kernel, x, x, 1, BLOCK=64)
    assert "%n: i32" not in text1 and text1.count("tt.divisibility = 16") == 2
    text17 = _ttir(copy_kernel, x, x, 17, BLOCK=64)    # parameters named as in Python
    assert "%n: i32)" in text17 and text17.count("tt.divisibility = 16") == 2


def test_do_not_specialize_keeps_parameter():
    @triton.jit(do_not_specialize=["n"])
    def k(x_ptr, n):
        tl.store(x_ptr, n)

    x = np.zeros(4, np.int32)
    text = _ttir(k, x, 1)
    assert "tt.divisibility = 16 : i32}, %n: i32)" in text
    k[(1,)](x, 1)
    assert x[0] == 1


def test_cache_reuses_and_respecializes(capsys, monkeypatch):
    monkeypatch.setenv("TRITIUM_LOG_RECOMPILES", "1")

    @triton.jit
    def k(x_ptr, n):
        tl.store(x_ptr, n)

    x = np.zeros(4, np.int32)
    k[(1,)](x, 5)
    k[(1,)](x, 7)
    assert len(k.cache["cpu"]) == 1
    k[(1,)](x, 16)  # divisible by 16: a new specialisation
    assert len(k.cache["cpu"]) == 2
    err = capsys.readouterr().err
    assert "recompiling k" in err and "n: ('i32', '') -> ('i32', 'D')" in err
    k[(1,)](x, 8, num_warps=8)  # options are part of the key
    assert len(k.cache["cpu"]) == 3


def test_results_are_right_for_each_specialisation(rng):
    for n in (1, 16, 100, 1000):
        x = rng.standard_normal(1024).astype(np.float32)
        y = np.full(1024, np.nan, np.float32)
        copy_kernel[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
        np.testing.assert_array_equal(y[:n], x[:n])
        assert np.isnan(y[n:]).all()


CHANGING = tl.constexpr(4)


def test_changed_global_is_detected():
    global CHANGING

    @triton.jit
    def k(x_ptr):
        tl.store(x_ptr, CHANGING)

    x = np.zeros(4, np.int32)
    k[(1,)](x)
    assert x[0] == 4
    old = CHANGING
    CHANGING = tl.constexpr(5)
    try:
        with pytest.raises(RuntimeError, match="Global variable CHANGING has changed"):
            k[(1,)](x)
    finally:
        CHANGING = old


def test_a_changed_global_is_detected_on_launches_with_options(monkeypatch):
    """Launch options (`num_warps=`) no longer leave the generated launch path; the globals
    check is on it too: a global rebound to an equal constexpr passes, a changed one (or
    one changed in place) raises, whichever path the launch takes."""
    global CHANGING

    @triton.jit
    def k(x_ptr, B: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, B), tl.full((B,), CHANGING, tl.int32))

    from tritium.knobs import pipeline_hook_maybe_set
    was = pipeline_hook_maybe_set[0]
    pipeline_hook_maybe_set[0] = False  # (an earlier test's hook sends launches to `run`)
    x = np.zeros(4, np.int32)
    k[(1,)](x, B=4, num_warps=2)
    calls = []
    real_run = type(k).run
    monkeypatch.setattr(type(k), "run", lambda self, *a, **kw: calls.append(1) or
                        real_run(self, *a, **kw))
    x[:] = 0
    k[(1,)](x, B=4, num_warps=2)  # cached: the generated path, not `run`
    assert calls == [] and (x == 4).all()
    old = CHANGING
    try:
        CHANGING = tl.constexpr(4)  # another object, the same value: no complaint
        k[(1,)](x, B=4, num_warps=2)
        CHANGING.value = 6          # changed in place
        with pytest.raises(RuntimeError, match="Global variable CHANGING has changed"):
            k[(1,)](x, B=4, num_warps=2)
        CHANGING = tl.constexpr(7)  # rebound to another value
        with pytest.raises(RuntimeError, match="Global variable CHANGING has changed"):
            k[(1,)](x, B=4, num_warps=2)
    finally:
        CHANGING = old
        pipeline_hook_maybe_set[0] = was


DTYPE_GLOBAL = tl.int32


def test_changed_dtype_global_and_closure_constexpr_are_detected():
    """As upstream: a dtype global is checked like a constexpr one, and a closure's
    constexpr changed in place (its `.value`) is seen too."""
    global DTYPE_GLOBAL

    @triton.jit
    def k(x_ptr):
        tl.store(x_ptr, tl.full((), 7, DTYPE_GLOBAL))

    def make(cst):
        @triton.jit
        def closure(x_ptr):
            tl.store(x_ptr + tl.arange(0, 4), tl.full((4,), cst, tl.int32))
        return closure

    x = np.zeros(4, np.int32)
    k[(1,)](x)
    DTYPE_GLOBAL = tl.int64
    try:
        with pytest.raises(RuntimeError, match="Global variable DTYPE_GLOBAL has changed"):
            k[(1,)](x)
    finally:
        DTYPE_GLOBAL = tl.int32
    cst = tl.constexpr(42)
    c = make(cst)
    c[(1,)](x)
    assert (x == 42).all()
    c[(1,)](x)                      # unchanged: no complaint
    cst.value = 43
    with pytest.raises(RuntimeError, match="cst has changed since we compiled this kernel, "
                       r"from constexpr\[42\] to constexpr\[43\]"):
        c[(1,)](x)


def test_cache_key_depends_on_callee():
    @triton.jit
    def callee(x):
        return x + 1

    @triton.jit
    def caller(p):
        tl.store(p, callee(1))

    key = caller.cache_key
    assert key == caller.cache_key and len(key) == 64


@triton.jit
def _twice(x):
    return x * 2


@triton.constexpr_function
def _flag():
    return 3


@triton.jit
def _src_user(p):
    tl.store(p, _twice(tl.load(p)) + _flag())


def test_unsafe_update_src_changes_code_and_keys(rng):
    """Upstream's `_unsafe_update_src`: a new source for a kernel or callee changes what
    compiles and the callers' `cache_key` (once their `hash` is reset, as upstream asks);
    a constexpr function's source counts in its callers' keys too."""
    base = _src_user.cache_key
    old_callee, old_flag = _twice.src, _flag.src
    try:
        _twice._unsafe_update_src(old_callee.replace("x * 2", "x * 5"))
        _src_user.hash = None
        assert _src_user.cache_key != base
        x = rng.integers(-50, 50, 1).astype(np.int32)
        want = x * 5 + 3
        _src_user._unsafe_update_src(_src_user.src.replace("p)) +", "p)) + 0 +"))  # recompile
        _src_user[(1,)](x)
        assert x[0] == want[0]
        key = _src_user.cache_key
        _flag._unsafe_update_src(old_flag.replace("3", "4"))
        _src_user.hash = None
        assert _src_user.cache_key != key
    finally:
        _twice._unsafe_update_src(old_callee)
        _flag._unsafe_update_src(old_flag)
        _src_user._unsafe_update_src(_src_user.src.replace("p)) + 0 +", "p)) +"))
    assert _src_user.cache_key == base


def test_grid_forms(rng):
    x = rng.standard_normal(256).astype(np.float32)
    for grid in [(2,), (2, 1), (2, 1, 1), 2, lambda meta: (triton.cdiv(256, meta["BLOCK"]),)]:
        y = np.zeros_like(x)
        copy_kernel[grid](x, y, 256, BLOCK=128)
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("grid,match", [((1.5,), "grid\\[0\\] must be an integer"),
                                        (("a",), "grid\\[0\\] must be an integer"),
                                        ((1, 2, 3, 4), "grid must be a tuple of 1 to 3"),
                                        ((-1,), "grid\\[0\\] must be non-negative")])
def test_bad_grid(grid, match):
    x = np.zeros(16, np.float32)
    with pytest.raises((TypeError, ValueError), match=match):
        copy_kernel[grid](x, x, 16, BLOCK=16)


def test_empty_grid_launches_nothing():
    x = np.ones(16, np.float32)
    y = np.zeros(16, np.float32)
    copy_kernel[(0,)](x, y, 16, BLOCK=16)
    assert (y == 0).all()


def test_wrong_argument_count_names_the_kernel():
    x = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match="copy_kernel.*missing.*'n'"):
        copy_kernel[(1,)](x, x, BLOCK=16)
    with pytest.raises(TypeError, match="copy_kernel"):
        copy_kernel[(1,)](x, x, 16, 3, 4, BLOCK=16)


def test_unknown_keyword_is_rejected():
    x = np.zeros(16, np.float32)
    with pytest.raises(KeyError, match="Keyword argument FOO was specified but unrecognised"):
        copy_kernel[(1,)](x, x, 16, BLOCK=16, FOO=3)


def test_amd_options_are_ignored_on_the_cpu_backend():
    # Upstream's tutorial 03 passes waves_per_eu in its HIP configs; the interpreter drops it.
    x = np.random.default_rng(0).standard_normal(37).astype(np.float32)
    y = np.zeros(37, np.float32)
    copy_kernel[(3,)](x, y, 37, BLOCK=16, waves_per_eu=2, matrix_instr_nonkdim=16)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(KeyError, match="Keyword argument FOO was specified"):
        copy_kernel[(3,)](x, y, 37, BLOCK=16, waves_per_eu=2, FOO=1)


def test_bad_argument_type_names_it():
    with pytest.raises(TypeError, match="unsupported argument type"):
        store_scalar[(1,)](np.zeros(4, np.float32), object())


def test_num_warps_must_be_power_of_two():
    x = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        copy_kernel[(1,)](x, x, 16, BLOCK=16, num_warps=3)
    with pytest.raises(AssertionError, match="num_warps must be a power of 2"):  # upstream's
        copy_kernel.warmup(x, x, 16, BLOCK=16, num_warps=6, grid=(1,))


def test_warmup_returns_kernel_without_running():
    x = np.ones(16, np.float32)
    y = np.zeros(16, np.float32)
    k = copy_kernel.warmup(x, y, 16, BLOCK=16, grid=(1,))
    assert "tt.load" in k.asm["ttir"] and (y == 0).all()


def test_constexpr_default_and_noinline_and_repr():
    @triton.jit(noinline=True)
    def helper(x):
        return x * 2

    @triton.jit
    def k(out, SCALE: tl.constexpr = 3):
        tl.store(out, helper(SCALE))

    out = np.zeros(1, np.int32)
    k[(1,)](out)
    assert out[0] == 6
    text = k.warmup(out, grid=(1,)).asm["ttir"]
    assert "tt.call @helper" in text  # noinline survives the inliner
    assert "JITFunction" in repr(k)


def test_tl_range_options_are_loop_attributes():
    @triton.jit
    def k(out, n):
        acc = 0
        for i in tl.range(0, n, num_stages=2, loop_unroll_factor=1):
            acc += i
        tl.store(out, acc)

    out = np.zeros(1, np.int32)
    k[(1,)](out, 10)
    assert out[0] == 45
    assert "tt.num_stages = 2 : i32" in k.warmup(out, 10, grid=(1,)).asm["ttir"]


def test_interpret_env_uses_cpu(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when the kernel is decorated

    @triton.jit
    def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))

    assert k.interpret and not copy_kernel.interpret
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    k[(1,)](x, y, BLOCK=16)
    np.testing.assert_array_equal(x, y)


def test_kernel_dump(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_KERNEL_DUMP", "1")
    monkeypatch.setenv("TRITON_DUMP_DIR", str(tmp_path))

    @triton.jit
    def dumped(x_ptr):
        tl.store(x_ptr, 1.0)

    dumped[(1,)](np.zeros(1, np.float32))
    files = [f for _, _, fs in os.walk(tmp_path) for f in fs]
    assert "dumped.ttir" in files


def test_helpers():
    assert triton.cdiv(10, 3) == 4 and triton.cdiv(9, 3) == 3
    assert [triton.next_power_of_2(n) for n in (0, 1, 2, 3, 1000, 1024)] == [1, 1, 2, 4, 1024, 1024]


def test_kernel_named_like_binder_internals():
    @triton.jit
    def bind(x_ptr, n):
        tl.store(x_ptr, n)

    x = np.zeros(1, np.int32)
    bind[(1,)](x, 5)
    assert x[0] == 5


@triton.jit
def _masked_scale(x, offs: tl.constexpr, limit, SCALE: tl.constexpr):
    # offs is annotated constexpr but receives a tensor (as in upstream's tutorial 06).
    return tl.where(offs[:, None] >= limit + offs[None, :] * 0, x * SCALE, 0.0)


@triton.jit
def _tensor_into_constexpr_param(x_ptr, y_ptr, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :])
    y = _masked_scale(x, offs, limit, 3.0)
    tl.store(y_ptr + offs[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], y)


def test_tensor_passed_to_a_constexpr_parameter_stays_a_tensor():
    x = np.random.default_rng(1).standard_normal((32, 16)).astype(np.float32)
    y = np.zeros_like(x)
    _tensor_into_constexpr_param[(2,)](x, y, 5, BLOCK=16)
    rows = np.arange(32)[:, None]
    np.testing.assert_allclose(y, np.where(rows >= 5, x * 3.0, 0.0), rtol=1e-6)


def test_a_copy_leaves_the_parsed_tree_behind_and_still_compiles(rng):
    """Inductor deep-copies every kernel's autotuner, JITFunction included, for its graph
    cache: the parsed tree (a cache of the source) stays behind and is rebuilt on demand."""
    import ast
    import copy
    import pickle

    @triton.jit
    def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)

    tree = add_one.parse()
    # what Inductor's prepare_for_pickle clears first (modules do not copy), put back after
    held = ("fn", "__globals__", "used_global_vals")
    saved = [getattr(add_one, a) for a in held]
    for a in held:
        setattr(add_one, a, None)
    memo = {}
    dup = copy.deepcopy(add_one, memo)
    state = pickle.loads(pickle.dumps(add_one))
    for a, v in zip(held, saved):
        setattr(add_one, a, v)
        setattr(dup, a, v)
    assert not any(isinstance(o, ast.AST) for o in memo.values())
    assert "_parsed" in vars(add_one) and "_parsed" not in vars(dup)
    assert add_one.parse() is tree
    assert ast.dump(dup.parse()) == ast.dump(tree)
    assert dup.cache_key == add_one.cache_key
    assert "_parsed" not in vars(state) and state.src == add_one.src
    x = rng.standard_normal(300).astype(np.float32)
    y = np.full(300, np.nan, np.float32)
    dup[(3,)](x, y, 300, BLOCK=128)
    np.testing.assert_array_equal(y, x + 1)
