"""Dtype-annotated kernel parameters fix that parameter's signature type, as upstream 3.6:
`v: tl.uint8`, `"i64"`, `int`, `"*fp16"`. The argument is converted to that type at launch
(integers wrap, floats round), the TTIR names parameters after the Python ones, and floats
and bools so annotated are not specialised."""
import numpy as np
import pytest

import tritium.language as tl
from tritium import jit

INT_TYPES = [("int8", np.int8), ("int16", np.int16), ("int32", np.int32), ("int64", np.int64),
             ("uint8", np.uint8), ("uint16", np.uint16), ("uint32", np.uint32),
             ("uint64", np.uint64)]


def _annotated(fn, **types):
    fn.__annotations__ = dict(types)
    return jit(fn)


@pytest.mark.parametrize("name,np_t", INT_TYPES)
def test_int_annotation_converts_and_types(name, np_t, cpu_path):
    def k(X, v):
        tl.store(X + tl.arange(0, 4), v + tl.zeros([4], dtype=tl.int64))

    kernel = _annotated(k, v=getattr(tl, name))
    rng = np.random.default_rng()
    out = np.zeros(4, dtype=np.int64)
    width = np.iinfo(np_t).bits
    value = int(rng.integers(2 ** 40, 2 ** 50))      # wraps to the annotated width
    h = kernel[(1,)](out, value)
    expect = np.array(value).astype(np_t).astype(np.int64)
    np.testing.assert_array_equal(out, np.full(4, expect))
    ttir = h.asm["ttir"]
    assert f"%v: i{width}" in ttir and "%X: !tt.ptr<i64>" in ttir
    op = "extui" if name.startswith("u") else "extsi"
    assert width == 64 or f"arith.{op} %v" in ttir


def test_annotated_one_is_not_a_constant(cpu_path):
    @jit
    def k(X, v: tl.int64):
        tl.store(X, v * 3)

    out = np.zeros(1, dtype=np.int64)
    h = k[(1,)](out, 1)
    assert out[0] == 3 and "%v: i64" in h.asm["ttir"]
    # As upstream (runtime/test_cache.py's test_annotation), 1 keys a kernel of its own,
    # which still takes v at run time: the same TTIR as any other value's.
    h7 = k[(1,)](out, 7)
    assert out[0] == 21 and len(k.cache[next(iter(k.cache))]) == 2
    assert h7.asm["ttir"] == h.asm["ttir"]
    k[(1,)](out, 5)                                   # no divisibility, no 1: 7's kernel
    assert out[0] == 15 and len(k.cache[next(iter(k.cache))]) == 2


@pytest.mark.parametrize("dtype,np_t", [("float16", np.float16), ("bfloat16", None),
                                        ("float32", np.float32), ("float64", np.float64)])
def test_float_annotation(dtype, np_t, cpu_path):
    def k(P, val):
        tl.static_assert(val.dtype == DT)
        tl.store(P, val)

    k.__globals__["DT"] = getattr(tl, dtype)
    kernel = _annotated(k, val=getattr(tl, dtype))
    rng = np.random.default_rng()
    for v in [float(rng.standard_normal() * 100), float("inf"), float("nan")]:
        out = np.zeros(1, dtype=np.float64)
        h = kernel[(1,)](out, v)
        if np_t is None:    # bf16: the top 16 bits of the float32, rounded to nearest even
            b = np.array([v], np.float32).view(np.uint32).astype(np.uint64)
            b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16 << 16).astype(np.uint32)
            expect = b.view(np.float32).astype(np.float64)[0] if np.isfinite(v) else v
        else:
            expect = np.array(v).astype(np_t).astype(np.float64)
        np.testing.assert_array_equal(out, [expect])
    short = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}[dtype]
    assert f"%val: {short}" in h.asm["ttir"]
    assert dtype != "float32" or "arith.extf %val : f32" in h.asm["ttir"]


def test_string_and_builtin_annotations():
    @jit
    def k(X: "*fp32", n: int, s: "i64", m: "tl.uint16", flag: bool):
        tl.store(X + tl.arange(0, 2), (n + s + m + flag).to(tl.float32))

    x = np.zeros(2, dtype=np.float32)
    h = k[(1,)](x, 5, 2 ** 33, 70000, True)     # 70000 wraps to 4464 as a u16
    assert x[0] == np.float32(5 + 2 ** 33 + 4464 + 1)
    ttir = h.asm["ttir"]
    for part in ("%X: !tt.ptr<f32>", "%n: i32", "%s: i64", "%m: i16", "%flag: i1"):
        assert part in ttir, part
    sig = k.cache[next(iter(k.cache))]
    assert len(sig) == 1


def test_unknown_annotation_is_ignored():
    import types

    @jit
    def k(X: types.SimpleNamespace, N: "whatever", BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(X + o, o.to(tl.float32) + N, mask=o < N)

    x = np.zeros(8, dtype=np.float32)
    k[(1,)](x, 5, 8)
    np.testing.assert_array_equal(x, [5, 6, 7, 8, 9, 0, 0, 0])


def test_one_bit_annotations_are_unsigned_bools():
    @jit
    def k(X, a: "tl.uint1", b: "int1", c: tl.int1):
        tl.store(X + a, a.to(tl.float32) + b + c)

    x = np.zeros(2, dtype=np.float32)
    h = k[(1,)](x, True, 1, 0)
    assert x[1] == 2 and x[0] == 0
    ttir = h.asm["ttir"]
    assert "%a: i1" in ttir and "arith.extui %a" in ttir and "arith.uitofp" in ttir


def test_const_annotation_marks_a_read_only_pointer():
    from tritium.compiler.errors import CompilationError

    @jit
    def k(src: tl.const, dst, n: tl.int32, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(dst + o, tl.load(src + o, mask=o < n) + 1, mask=o < n)

    x = np.random.default_rng().standard_normal(10).astype(np.float32)
    y = np.zeros_like(x)
    h = k[(1,)](x, y, x.size, BLOCK=16)
    np.testing.assert_array_equal(y, x + 1)
    assert "%src: !tt.ptr<f32>" in h.asm["ttir"]

    @jit
    def bad(src: tl.const, BLOCK: tl.constexpr):
        tl.store(src + tl.arange(0, BLOCK), 0.0)

    with pytest.raises(CompilationError, match="constant pointer"):
        bad[(1,)](x, BLOCK=8)
