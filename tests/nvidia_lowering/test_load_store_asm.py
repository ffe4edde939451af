"""Memory and math asm that upstream's unit tests caught on the H100: a load of an address
the kernel stored to earlier reads memory again (loads are side-effecting asm, as
upstream's, so LLVM neither merges them with an earlier identical load nor moves them above
the store; duplicate loads within one op are shared instead), and |x| of fp8."""
import re

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.compiler import ASTSource


@tritium.jit
def _twice_in_place(ptr, n):
    offs = tl.arange(0, 128)
    tl.store(ptr + offs, tl.load(ptr + offs, mask=offs < n) * 2, mask=offs < n)
    tl.store(ptr + offs, tl.load(ptr + offs, mask=offs < n) + 1, mask=offs < n)


@tritium.jit
def _bias_rows(b_ptr, o_ptr):
    # a row broadcast to 64x64: each thread's rows share their column addresses
    cols = tl.arange(0, 64)
    b = tl.load(b_ptr + tl.broadcast_to(cols[None, :], (64, 64)))
    tl.store(o_ptr + tl.arange(0, 64)[:, None] * 64 + cols[None, :], b)


def _ptx(fn, sig):
    return tritium.compile(ASTSource(fn, sig), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": 4}).asm["ptx"]


def test_second_load_after_store_kept():
    ptx = _ptx(_twice_in_place, {"ptr": "*fp32", "n": "i32"})
    ops = re.findall(r"^\s*(?:@%p\d+ )?(ld\.global|st\.global)", ptx, re.M)
    assert ops == ["ld.global", "st.global", "ld.global", "st.global"], ops


def test_broadcast_rows_share_loads():
    ptx = _ptx(_bias_rows, {"b_ptr": "*fp32", "o_ptr": "*fp32"})
    loads = re.findall(r"ld\.global[^\n]*", ptx)
    stores = re.findall(r"st\.global[^\n]*", ptx)
    # 64x64 f32 over 128 threads: 32 values a thread, in 16-byte pieces of one row each;
    # a thread's rows share their column addresses, so its loads are fewer than its stores
    assert stores and 0 < len(loads) < len(stores), (len(loads), len(stores))


@tritium.jit
def _abs_fp8(x_ptr, o_ptr):
    offs = tl.arange(0, 256)
    tl.store(o_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


def test_fp8_abs_clears_the_sign_bit():
    """fp8 values are i8 in LLVM: |x| is an `and` with 0x7f (there is no fabs on i8)."""
    for t in ("fp8e4nv", "fp8e5"):
        k = tritium.compile(ASTSource(_abs_fp8, {"x_ptr": f"*{t}", "o_ptr": f"*{t}"}),
                            target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        assert "llvm.fabs" not in k.asm["llir"] and "and i8" in k.asm["llir"]
