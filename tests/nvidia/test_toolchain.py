"""LLVM IR -> PTX -> cubin, and the launcher's host side; no GPU needed."""
import ctypes
import os
import pickle
import re
import stat
import struct
import time

import pytest

from tritium.backends.nvidia import launcher, toolchain
from tritium.runtime.errors import InterpreterError, OutOfResources, PTXASError

llvmlite = pytest.importorskip("llvmlite")
from tritium.backends.nvidia import llvm as nvllvm  # noqa: E402

from llir_kernels import ADD_KERNEL  # noqa: E402

ERF_KERNEL = r"""
declare float @__nv_erff(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @erf_kernel(ptr addrspace(1) %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = getelementptr float, ptr addrspace(1) %p, i32 %t
  %v = load float, ptr addrspace(1) %g
  %e = call float @__nv_erff(float %v)
  store float %e, ptr addrspace(1) %g
  ret void
}
"""

FMA_KERNEL = r"""
define ptx_kernel void @muladd(ptr addrspace(1) %p, float %a, float %b, float %c) {
  %m = fmul float %a, %b
  %s = fadd float %m, %c
  store float %s, ptr addrspace(1) %p
  ret void
}
"""

needs_ptxas = pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")
needs_libdevice = pytest.mark.skipif(nvllvm.find_libdevice() is None, reason="libdevice not found")


# -- errors -------------------------------------------------------------------

def test_error_messages_and_pickling():
    e = OutOfResources(100000, 232448, "shared memory")
    assert str(e) == ("out of resource: shared memory, Required: 100000, Hardware limit: 232448. "
                      "Reducing block sizes or `num_stages` may help.")
    assert str(pickle.loads(pickle.dumps(e))) == str(e)
    assert str(PTXASError("boom")) == "PTXAS error: boom"
    assert str(pickle.loads(pickle.dumps(PTXASError("boom")))) == "PTXAS error: boom"
    assert str(InterpreterError("x")) == "x"


# -- toolchain ----------------------------------------------------------------

@pytest.mark.parametrize("cuda,ptx", [((12, 0), 80), ((12, 4), 84), ((12, 5), 85), ((12, 6), 85),
                                      ((12, 8), 87), ((12, 9), 88), ((13, 0), 90), ((13, 1), 91),
                                      ("11.8", 78), ("13.5", 95)])
def test_ptx_version_for(cuda, ptx):
    assert toolchain.ptx_version_for(cuda) == ptx


def test_parse_ptxas_log():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'big' for 'sm_90a'
ptxas info    : Function properties for big
    96 bytes stack frame, 40 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem, 368 bytes cmem[0]
"""
    funcs = toolchain.parse_ptxas_log(log)
    big = funcs["big"]
    assert big.entry and big.registers == 255 and big.shared == 16384 and big.barriers == 1
    assert (big.stack, big.spill_stores, big.spill_loads, big.spills) == (96, 40, 24, 64)
    assert not funcs["helper"].entry and funcs["helper"].stack == 8


def _fake_tool(tmp_path, name, release):
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\necho 'Cuda compilation tools, release {release}, V{release}.1'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_tool_search_respects_env(tmp_path, monkeypatch):
    fake = _fake_tool(tmp_path, "ptxas", "12.4")
    monkeypatch.setenv("TRITON_PTXAS_PATH", fake)
    assert toolchain.find_ptxas() == fake
    assert toolchain.ptxas_version() == (12, 4)
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="TRITON_PTXAS_PATH"):
        toolchain.find_ptxas()
    monkeypatch.delenv("TRITON_PTXAS_PATH")
    toolchain.set_tool_path("ptxas", fake)
    try:
        assert toolchain.find_ptxas() == fake
    finally:
        toolchain.set_tool_path("ptxas", None)


def test_tool_lookup_is_lazy():
    # Importing the backend must not have run any tool (upstream's import-time cost).
    assert toolchain.find_ptxas.__module__ == toolchain.__name__
    src = open(toolchain.__file__).read()
    assert "subprocess.run" in src and "_version_of(" in src


# -- LLVM -> PTX --------------------------------------------------------------

def test_add_kernel_to_ptx():
    t0 = time.perf_counter()
    ptx = nvllvm.llir_to_ptx(ADD_KERNEL, arch="sm_90a")
    print(f"\nllir_to_ptx(add_kernel): {1e3 * (time.perf_counter() - t0):.1f} ms, {len(ptx)} bytes")
    assert ".visible .entry add_kernel(" in ptx
    assert re.search(r"^\.target sm_90a\s*$", ptx, re.M)
    assert re.search(r"^\.version \d+\.\d+\s*$", ptx, re.M)
    assert "ld.global" in ptx and "st.global" in ptx


def test_ptx_version_header():
    top = nvllvm.llvm_max_ptx_version()
    ptx = nvllvm.llir_to_ptx(ADD_KERNEL, ptx_version=top)
    # The table entry for the installed LLVM must be a version it really emits.
    assert f".version {top // 10}.{top % 10}" in ptx
    ptx = nvllvm.llir_to_ptx(ADD_KERNEL, ptx_version=top + 3)
    assert f".version {(top + 3) // 10}.{(top + 3) % 10}" in ptx
    feature, _ = nvllvm.choose_ptx_version("sm_90a", 99)
    assert 80 <= feature <= top
    with pytest.raises(ValueError, match="sm_90a needs PTX 8.0"):
        nvllvm.choose_ptx_version("sm_90a", 78)


def test_kernel_names_and_calls():
    assert nvllvm.kernel_names(ADD_KERNEL) == ["add_kernel"]
    assert nvllvm.libdevice_calls(ERF_KERNEL) == ["__nv_erff"]
    assert nvllvm.libdevice_calls(ADD_KERNEL) == []


@pytest.mark.parametrize("text", [
    "", "declare", "define void @k()", "declare i32 @f()\n  %x = add\n!0 = !{}\ndefine x",
    "  %a = call @f()\ndeclare float @__nv_expf(float)\ndeclare float @__nv_logf(float)\n",
    "!llvm.module.flags = !{!0}\n!0 = !{i32 1}", "\n\ndeclare x\n\n"])
def test_top_level_lines_as_a_line_filter(text):
    # the str.find hops see exactly the lines that start with the prefix: at the start, the
    # end without a newline, neighbours, none
    for prefix in ("declare", "define", "!"):
        want = "\n".join(line for line in text.split("\n") if line.startswith(prefix))
        assert nvllvm._top_level(text, prefix) == want


def test_reflect_flag_merges_with_existing_flags():
    import llvmlite.binding as llvm
    text = ERF_KERNEL + '\n!llvm.module.flags = !{!0}\n!0 = !{i32 7, !"frame-pointer", i32 2}\n'
    out = nvllvm._add_reflect_ftz_flag(text)
    assert out.count("!llvm.module.flags") == 1 and "nvvm-reflect-ftz" in out
    llvm.parse_assembly(out).verify()
    llvm.parse_assembly(nvllvm._add_reflect_ftz_flag(ERF_KERNEL)).verify()


def test_legacy_kernel_annotations_parse():
    import llvmlite.binding as llvm
    out = nvllvm._legacy_kernels(ADD_KERNEL)
    assert "ptx_kernel" not in out and '!"kernel"' in out
    llvm.parse_assembly(out).verify()
    assert nvllvm.kernel_names(out) == ["add_kernel"]


def test_fp_fusion_flag():
    assert "fma.rn.f32" in nvllvm.llir_to_ptx(FMA_KERNEL, enable_fp_fusion=True)
    ptx = nvllvm.llir_to_ptx(FMA_KERNEL, enable_fp_fusion=False)
    assert "fma." not in ptx and "mul.rn.f32" in ptx


def test_invalid_ir_is_a_value_error():
    with pytest.raises(ValueError, match="invalid LLVM IR"):
        nvllvm.llir_to_ptx("define ptx_kernel void @k() { ret i32 0 }")


@needs_libdevice
def test_libdevice_linked_only_when_needed(monkeypatch):
    t0 = time.perf_counter()
    ptx = nvllvm.llir_to_ptx(ERF_KERNEL)
    t1 = time.perf_counter()
    ptx2 = nvllvm.llir_to_ptx(ERF_KERNEL)
    t2 = time.perf_counter()
    print(f"\nerf kernel: first {1e3 * (t1 - t0):.1f} ms, cached {1e3 * (t2 - t1):.1f} ms, {len(ptx)} bytes")
    assert ptx == ptx2
    assert ".visible .entry erf_kernel(" in ptx
    assert "__nv_erff" not in ptx and "call" not in ptx      # inlined, nothing external left
    assert len(ptx) < 20_000
    assert ".ftz" in ptx                                    # nvvm-reflect-ftz took effect

    def boom(path):
        raise AssertionError("libdevice must not be read for a kernel without __nv_ calls")
    monkeypatch.setattr(nvllvm, "_read_libdevice", boom)
    monkeypatch.setattr(nvllvm, "_libdevice_bc", {})
    links = nvllvm.stats["libdevice_links"]
    nvllvm.llir_to_ptx(ADD_KERNEL)
    assert nvllvm.stats["libdevice_links"] == links


@needs_libdevice
@pytest.mark.parametrize("first,then", [("__nv_erff", "__nv_rsqrtf"), ("__nv_tanh", "__nv_log1pf"),
                                        ("__nv_erff", "__nv_lgammaf")])
def test_libdevice_parsed_once_for_common_functions(monkeypatch, private_cache, first, then):
    """A process parses libdevice once for the common math functions: a later kernel
    needing another one is cut from what the first parse kept, and gets the same PTX as
    from a fresh parse of the whole library. A rarer function (lgamma) parses again.
    (An empty cache directory: else the functions come from there, parsed by no one.)"""
    def kernel(fn):
        if fn.endswith("f"):
            return ERF_KERNEL.replace("__nv_erff", fn).replace("@erf_kernel", "@k_" + fn[5:])
        return (ERF_KERNEL.replace("__nv_erff", fn).replace("float", "double")
                .replace("@erf_kernel", "@k_" + fn[5:]))

    def parses():
        return nvllvm.stats["libdevice_parses"]
    for cache in ("_libdevice_bc", "_libdevice_common"):
        monkeypatch.setattr(nvllvm, cache, {})
    before = parses()
    nvllvm.llir_to_ptx(kernel(first))
    assert parses() == before + 1
    got = nvllvm.llir_to_ptx(kernel(then))
    assert parses() == before + 1 + (then not in nvllvm._COMMON)
    # the same function from a fresh, whole-library parse
    for cache in ("_libdevice_bc", "_libdevice_common"):
        monkeypatch.setattr(nvllvm, cache, {})
    monkeypatch.setattr(nvllvm, "_COMMON", frozenset())
    want = nvllvm.llir_to_ptx(kernel(then))
    assert got == want
    assert then not in got and "call" not in got


def _libdevice_kernel(fns, name="k_disk"):
    decls = "".join(f"declare float @{f}(float)\n" for f in fns)
    body, v = "", "%v"
    for i, f in enumerate(fns):
        body += f"  %r{i} = call float @{f}(float {v})\n"
        v = f"%r{i}"
    return (f"{decls}define ptx_kernel void @{name}(ptr addrspace(1) %p) {{\n"
            f"  %v = load float, ptr addrspace(1) %p\n{body}"
            f"  store float {v}, ptr addrspace(1) %p\n  ret void\n}}\n")


@needs_libdevice
def test_libdevice_functions_kept_on_disk_for_later_processes(monkeypatch, private_cache):
    """A process that finds a function's trimmed bitcode in the cache directory parses no
    libdevice for it and emits the same PTX; a damaged file is cut again (and rewritten);
    a function not yet there still parses."""
    import glob

    def fresh_process():
        for cache in ("_libdevice_bc", "_libdevice_common", "_libdevice_disk"):
            monkeypatch.setattr(nvllvm, cache, {})

    def parses():
        return nvllvm.stats["libdevice_parses"]
    fresh_process()
    before = parses()
    want = nvllvm.llir_to_ptx(_libdevice_kernel(["__nv_erff", "__nv_expm1f"]))
    assert parses() == before + 1
    files = sorted(glob.glob(os.path.join(os.environ["TRITON_CACHE_DIR"], "libdevice-*", "*.bc")))
    assert [os.path.basename(f) for f in files] == ["__nv_erff.bc", "__nv_expm1f.bc"]

    fresh_process()
    assert nvllvm.llir_to_ptx(_libdevice_kernel(["__nv_erff", "__nv_expm1f"])) == want
    assert parses() == before + 1

    fresh_process()
    with open(files[0], "wb") as f:
        f.write(b"BC\xc0\xde truncated")
    assert nvllvm.llir_to_ptx(_libdevice_kernel(["__nv_erff", "__nv_expm1f"])) == want
    assert parses() == before + 2
    fresh_process()
    assert nvllvm.llir_to_ptx(_libdevice_kernel(["__nv_erff", "__nv_expm1f"])) == want
    assert parses() == before + 2      # (the damaged file was written again)
    nvllvm.llir_to_ptx(_libdevice_kernel(["__nv_erff", "__nv_log1pf"]))
    assert parses() == before + 3


@needs_libdevice
def test_unknown_libdevice_function():
    bad = ERF_KERNEL.replace("__nv_erff", "__nv_not_a_function")
    with pytest.raises(ValueError, match="__nv_not_a_function"):
        nvllvm.llir_to_ptx(bad)


# -- ptxas --------------------------------------------------------------------

@needs_ptxas
def test_make_cubin_reports_resources():
    ptx = nvllvm.llir_to_ptx(ADD_KERNEL)
    t0 = time.perf_counter()
    cubin, info = toolchain.make_cubin(ptx, arch="sm_90a")
    print(f"\nptxas: {1e3 * (time.perf_counter() - t0):.1f} ms, {info.kernel}")
    assert cubin[:4] == b"\x7fELF"
    assert info.kernel.name == "add_kernel" and info.kernel.entry
    assert info.registers > 0 and info.spills == 0 and info.shared == 0
    assert "--gpu-name=sm_90a" in info.command


@needs_ptxas
def test_ptxas_error_keeps_ptx():
    bad = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry bad() { mov.u32 %r1, 1; ret; }\n"
    with pytest.raises(PTXASError) as exc:
        toolchain.make_cubin(bad)
    msg = str(exc.value)
    path = re.search(r"PTX kept at: (\S+)", msg).group(1)
    assert os.path.isfile(path) and open(path).read() == bad
    assert "Repro command:" in msg and "ptxas" in msg
    import shutil
    shutil.rmtree(os.path.dirname(path))


# -- launcher (host side, driver mocked) --------------------------------------

SIG = {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"}


class FakeTensor:
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


class FakeCAI:
    def __init__(self, ptr):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (4,), "typestr": "<f4", "version": 3}


HOST = 0x7F0000000000


def _fake_driver():
    calls, looked_up = [], []

    def launch(*args):
        calls.append(args)
        return 0

    def device_pointer(p):
        looked_up.append(p)
        return None if p >= HOST else p
    return calls, looked_up, launch, device_pointer


def test_launcher_source():
    src = launcher.generate_source(SIG, flavor="ctypes")
    assert src.startswith("def launch(gridX, gridY, gridZ, stream, function, num_warps, shared, _0, _1, _2, _3, _4):")
    assert "'x', 0" in src and "'out', 2" in src
    assert "b.a3 = _3" in src and "b.a4" not in src        # constexpr not packed
    assert "stream, kp, None)" in src
    assert "stream, None, kp)" in launcher.generate_source(SIG, mode="extra", flavor="ctypes")
    default = launcher.generate_source(SIG)
    assert "_functions.get(function)" in default and "s, kp, 0)[0]" in default
    assert "s, None, kp)[0]" in launcher.generate_source(SIG, mode="extra")
    for mode in ("params", "extra"):
        for flavor in ("bindings", "ctypes"):
            compile(launcher.generate_source(SIG, mode=mode, flavor=flavor), "<launcher>", "exec")


def test_launcher_packs_parameters():
    calls, looked_up, launch_fn, device_pointer = _fake_driver()
    launch = launcher.make_launcher(SIG, launch_fn=launch_fn, device_pointer=device_pointer, cache=False)
    launch(3, 1, 1, 77, 0xF00, 4, 0, FakeTensor(0x1000), FakeCAI(0x2000), 0x3000, 1000, 1024)
    fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra = calls[-1]
    assert (fn, gx, gy, gz, bx, by, bz, shared, stream, extra) == (0xF00, 3, 1, 1, 128, 1, 1, 0, 77, None)
    raw = bytes(launch.params)
    assert struct.unpack("<QQQi", raw[:28]) == (0x1000, 0x2000, 0x3000, 1000)
    # kernelParams[i] points at parameter i inside the same buffer.
    ptrs = (ctypes.c_void_p * 4).from_address(params)
    base = ctypes.addressof(launch.params)
    assert [p - base for p in ptrs] == [0, 8, 16, 24]
    # Each distinct address is checked once.
    launch(3, 1, 1, 77, 0xF00, 4, 0, FakeTensor(0x1000), FakeCAI(0x2000), 0x3000, 5, 1024)
    assert sorted(looked_up) == [0x1000, 0x2000, 0x3000]
    # Empty grids launch nothing.
    n = len(calls)
    launch(0, 1, 1, 77, 0xF00, 4, 0, None, None, None, 5, 1024)
    assert len(calls) == n


def test_launcher_extra_mode_and_scalars():
    sig = {"p": "*i8", "a": "i64", "b": "fp32", "c": "u1", "d": "fp64", "h": "fp16", "e": "u64"}
    calls, _, launch_fn, device_pointer = _fake_driver()
    launch = launcher.make_launcher(sig, mode="extra", launch_fn=launch_fn, device_pointer=device_pointer,
                                    cache=False)
    launch(1, 1, 1, 0, 1, 1, 0, None, -5, 1.5, True, 2.25, 1.0, 2**64 - 1)
    extra = calls[-1][-1]
    assert calls[-1][-2] is None
    words = (ctypes.c_void_p * 5).from_address(extra)
    assert words[0] == 1 and words[2] == 2 and not words[4]
    size = ctypes.c_size_t.from_address(words[3]).value
    raw = ctypes.string_at(words[1], size)
    assert size == ctypes.sizeof(launch.params) == 48
    p, a, b, c, d, h, e = struct.unpack("<QqfB3xdH6xQ", raw)
    assert (p, a, b, c, d, h, e) == (0, -5, 1.5, 1, 2.25, 0x3C00, 2**64 - 1)


def test_extra_buffer_size_is_unpadded():
    # 3 pointers + i32 = 28 bytes; the struct is 32 with padding, which the driver rejects.
    calls, _, launch_fn, device_pointer = _fake_driver()
    launch = launcher.make_launcher(SIG, mode="extra", launch_fn=launch_fn, device_pointer=device_pointer,
                                    cache=False)
    launch(1, 1, 1, 0, 1, 4, 0, None, None, None, 3, 1024)
    words = (ctypes.c_void_p * 5).from_address(calls[-1][-1])
    assert ctypes.c_size_t.from_address(words[3]).value == 28 == ctypes.sizeof(launch.params) - 4


def test_other_threads_get_their_own_buffer():
    import threading
    seen = []

    def launch_fn(*args):
        # Decode at call time: a thread's buffer dies with the thread.
        ptrs = (ctypes.c_void_p * 4).from_address(args[9])
        seen.append((args[9], ctypes.c_uint64.from_address(ptrs[0]).value, ctypes.c_int32.from_address(ptrs[3]).value))
        return 0
    launch = launcher.make_launcher(SIG, launch_fn=launch_fn, device_pointer=lambda p: p, cache=False)
    launch(1, 1, 1, 0, 1, 4, 0, 0x10, 0x20, 0x30, 7, 1024)
    t = threading.Thread(target=lambda: launch(1, 1, 1, 0, 1, 4, 0, 0x40, 0x50, 0x60, 8, 1024))
    t.start()
    t.join()
    (main_params, x0, n0), (thread_params, x1, n1) = seen
    assert main_params != thread_params
    assert (x0, n0, x1, n1) == (0x10, 7, 0x40, 8)
    assert struct.unpack("<QQQi", bytes(launch.params)[:28]) == (0x10, 0x20, 0x30, 7)


def test_bindings_flavor_with_fake_module(monkeypatch):
    from tritium.backends.nvidia import driver

    class Handle:
        def __init__(self, v):
            self.v = int(v)

    class CUresult(int):
        pass

    calls = []

    class FakeCuda:
        CUfunction = type("CUfunction", (Handle,), {})
        CUstream = type("CUstream", (Handle,), {})

        @staticmethod
        def cuLaunchKernel(*args):
            calls.append(args)
            return (CUresult(0),)
    monkeypatch.setattr(driver, "cuda", lambda: FakeCuda)
    monkeypatch.setattr(driver, "device_pointer", lambda p: p)
    for mode in ("params", "extra"):
        launch = launcher.make_launcher(SIG, mode=mode, cache=False)
        assert launch.flavor == "bindings"
        launch(2, 1, 1, 5, 0xF00, 4, 0, FakeTensor(0x1000), 0x2000, None, 9, 1024)
        launch(2, 1, 1, 5, 0xF00, 4, 0, FakeTensor(0x1000), 0x2000, None, 9, 1024)
        f, gx, gy, gz, bx, by, bz, shared, s, params, extra = calls[-1]
        assert isinstance(f, FakeCuda.CUfunction) and f.v == 0xF00 and f is calls[-2][0]   # built once
        assert isinstance(s, FakeCuda.CUstream) and s.v == 5
        assert (gx, bx, shared) == (2, 128, 0)
        if mode == "params":
            assert extra == 0 and isinstance(params, int)
        else:
            assert params is None and isinstance(extra, int)


def test_pointer_errors_name_the_parameter():
    _, _, launch_fn, device_pointer = _fake_driver()
    launch = launcher.make_launcher(SIG, launch_fn=launch_fn, device_pointer=device_pointer, cache=False)
    with pytest.raises(ValueError, match=r"pointer argument 'y' \(parameter 1\).*host memory"):
        launch(1, 1, 1, 0, 1, 4, 0, FakeTensor(0x1000), FakeTensor(HOST + 64), None, 1, 1024)
    with pytest.raises(TypeError, match=r"pointer argument 'out' \(parameter 2\).*builtins.str"):
        launch(1, 1, 1, 0, 1, 4, 0, None, None, "oops", 1, 1024)
    with pytest.raises(OverflowError, match=r"'n' \(parameter 3\).*i32"):
        launch(1, 1, 1, 0, 1, 4, 0, None, None, None, 2**31, 1024)


def test_pointer_conversions():
    np = pytest.importorskip("numpy")
    a = np.arange(8, dtype=np.float32)
    assert launcher.pointer_of(a[2:]) == a.ctypes.data + 8          # DLPack, offset honoured
    assert launcher.pointer_of(None) == 0 and launcher.pointer_of(12) == 12
    assert launcher.pointer_of(np.uint64(16)) == 16
    assert launcher.pointer_of(FakeCAI(0x40)) == 0x40
    # A numpy array is host memory: the launcher must refuse it by name.
    _, _, launch_fn, _ = _fake_driver()
    launch = launcher.make_launcher(SIG, launch_fn=launch_fn, device_pointer=lambda p: None, cache=False)
    with pytest.raises(ValueError, match=r"pointer argument 'x'"):
        launch(1, 1, 1, 0, 1, 4, 0, a, None, None, 1, 1024)


def test_launcher_cached_per_signature():
    _, _, launch_fn, device_pointer = _fake_driver()
    a = launcher.make_launcher(SIG, launch_fn=launch_fn, device_pointer=device_pointer)
    b = launcher.make_launcher(dict(SIG), launch_fn=launch_fn, device_pointer=device_pointer)
    assert a is b


def test_launch_overhead_host_side():
    # Host-side cost with a no-op cuLaunchKernel: the part of a launch that is ours.
    launch = launcher.make_launcher(SIG, launch_fn=lambda *a: 0, device_pointer=lambda p: p, cache=False)
    x, y, z = FakeTensor(0x1000), FakeTensor(0x2000), FakeTensor(0x3000)
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        launch(8, 1, 1, 0, 1, 4, 0, x, y, z, 1000, 1024)
    print(f"\nlauncher host path (no driver call): {1e6 * (time.perf_counter() - t0) / n:.2f} us/launch")


# -- driver, without a GPU ----------------------------------------------------

def test_driver_is_available_never_raises():
    from tritium.backends.nvidia import driver
    assert driver.is_available() in (True, False)


def test_driver_error_format():
    from tritium.backends.nvidia import driver

    class FakeCuda:
        class CUresult(int):
            pass

        @staticmethod
        def cuGetErrorName(e):
            return (0, b"CUDA_ERROR_OUT_OF_MEMORY")

        @staticmethod
        def cuGetErrorString(e):
            return (0, b"out of memory")
    with pytest.raises(RuntimeError, match=r"^Triton Error \[CUDA\]: CUDA_ERROR_OUT_OF_MEMORY: out of memory$"):
        driver.check((2, None), FakeCuda)
    assert driver.check((0, 42), FakeCuda) == 42


def test_upstream_tools_are_found_whether_or_not_compat_is_installed(tmp_path, monkeypatch):
    """An installed upstream Triton's bundled tools are found on disk along sys.path, not
    through `import triton` (which compat answers with tritium's facade): the same ptxas in
    a compat process and in its compile workers."""
    from tritium.backends.nvidia import toolchain
    pkg = tmp_path / "triton"
    (pkg / "backends" / "nvidia" / "bin").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert toolchain._package_dirs("triton") == [str(pkg)]
    assert str(pkg / "backends" / "nvidia" / "bin") in toolchain._wheel_dirs()
    import tritium.compat
    tritium.compat.install()
    assert toolchain._package_dirs("triton") == [str(pkg)]
