"""`triton.backends.driver.expand_signature` / `wrap_handle_tensordesc_impl`: a signature's
and a launch's tensor descriptors expanded into the kernel's parameters, as upstream's
launchers do (kept as TMA descriptors, or decomposed into pointer, shape, strides, flags)."""
import pytest

# tritium's module under its own name: where upstream Triton is installed and already
# imported (torch imports it), `triton` is upstream's (the other parity tests check compat).
from tritium.backends.driver import expand_signature, wrap_handle_tensordesc_impl


def test_decomposed_descriptor_of_rank_3():
    sig = ("*fp32", "tensordesc<bf16[2,8,64]>", "i32")
    out = expand_signature(sig, None, "nvTmaDesc")
    assert out == ["*fp32", "*bf16", *["i64"] * 6, "i1", "i1", *["i32"] * 3, *["i64"] * 3, "i32"]


def test_kept_descriptor_and_nesting():
    sig = (("i64", ("tensordesc<fp8e4nv[64,64]>",)), "constexpr")
    out = expand_signature(sig, [{"swizzle": 128}], "CUtensorMap")
    assert out == [("i64", ("CUtensorMap", "i32", "i32", "i64", "i64")), "constexpr"]


def test_im2col_uses_the_input_rank():
    out = expand_signature(("tensordesc_im2col<fp16[32,8],input_rank=5,'nhwc'>",), [1], "D")
    assert out == ["D", *["i32"] * 5, *["i64"] * 5]


def test_malformed_descriptor_type_is_named():
    with pytest.raises(ValueError, match="malformed tensor descriptor type 'tensordesc<fp16>'"):
        expand_signature(("tensordesc<fp16>",), None, "D")


def test_wrapped_launcher_splices_descriptors_in_order():
    calls = []

    def launcher(*args):
        calls.append(args)

    def make(arg, meta, base):
        return [f"{arg}:{meta}:{base[0]}", f"{arg}.shape"]

    sig = {"a": "tensordesc<fp32[8]>", "n": "i32", "t": ("i64", "tensordesc<fp32[8]>")}
    wrapped = wrap_handle_tensordesc_impl(launcher, sig, ["m0", "m1"], make)
    wrapped("grid", "stream", ["DA", 5, (6, "DB")])
    assert calls == [("grid", "stream", ["DA:m0:grid", "DA.shape", 5, (6, "DB:m1:grid", "DB.shape")])]
    calls.clear()
    wrap_handle_tensordesc_impl(launcher, sig, None, make)("g", ["X", 1, (2, "Y")])
    assert calls == [("g", ["X:None:g", "X.shape", 1, (2, "Y:None:g", "Y.shape")])]


def test_no_descriptor_returns_the_launcher_itself():
    def launcher(*args):
        return args
    assert wrap_handle_tensordesc_impl(launcher, {"x": "*fp16", "t": ("i32", "i64")}, [],
                                       lambda *a: []) is launcher
