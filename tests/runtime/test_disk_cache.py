"""The on-disk kernel cache, as the compiler driver (`tritium.compiler.compile`) uses it,
driven by a fake backend.

The frontend is real (the TTIR stage of real `@jit` kernels) so the key is computed from real
TTIR; the later stages are fakes that derive deterministic text from their input and count
their calls, so a test can tell a compile from a load without a GPU or ptxas.
"""
import base64
import collections
import hashlib
import importlib.util
import json
import linecache
import multiprocessing
import os
import re
import sys
import tempfile
import time

import pytest

import tritium
import tritium.language as tl
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia.backend import CUDABackend, CUDAOptions
from tritium.compiler import ASTSource, StageError, compile
from tritium.runtime import cache as disk_cache
from tritium.compiler.compiler import _INDEX_FILE as INDEX

SPEC = (("*fp32", "D"), ("i32", ""), ("constexpr", 64))
STAGE_FILES = ("ttir", "ttgir", "llir", "ptx", "cubin")


@tritium.jit
def _double(x):
    return x * 2


@tritium.jit
def cached_kernel(X, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(X + offs, _double(x), mask=m)


def _digest(data) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()[:16]


class _PtxasInfo:
    registers = 32
    spills = 0


class FakeBackend(CUDABackend):
    """CUDABackend with fake stage methods, whose outputs are pure functions of their inputs."""

    def __init__(self, fail_at=None, delay=0.0, tools="ptxas 13.5"):
        super().__init__(GPUTarget("cuda", 90, 32))
        self.calls = collections.Counter()
        self.tools = tools
        self.fail_at = fail_at
        self.delay = delay

    def hash(self):
        return f"sm{self.capability}-{self.tools}"

    def _enter(self, stage):
        self.calls[stage] += 1
        if stage == self.fail_at:
            raise RuntimeError(f"fake {stage} failure")

    def make_ttir(self, module, metadata, options):
        self.calls["ttir"] += 1
        return super().make_ttir(module, metadata, options)

    def make_ttgir(self, module, options):
        self._enter("ttgir")
        module.set_attr("ttg.num-warps", options.num_warps)
        module.set_attr("ttg.target", f"cuda:{self.capability}")
        return module

    def make_llir(self, module, options):
        from tritium.ir.printer import print_module
        self._enter("llir")
        text = print_module(module)
        warps = re.search(r'"?ttg.num-warps"? = (\d+)', text).group(1)
        return (f"; llir of {_digest(text)} num_warps={warps}\n"
                f"define void @kernel() {{ ret void }}\n", {"shared": 1024})

    def make_ptx(self, llir, options):
        self._enter("ptx")
        return f"// ptx of {_digest(llir)} for {options.arch}\n.visible .entry kernel() {{ ret; }}\n"

    def make_cubin(self, ptx, options):
        self._enter("cubin")
        if self.delay:
            time.sleep(self.delay)  # widens the window in which several processes compile
        return b"\x7fELF" + hashlib.sha256(ptx.encode()).digest() + b"\x00\xff\r\n", _PtxasInfo()


@pytest.fixture(autouse=True)
def clean_env(tmp_path, monkeypatch):
    for k in list(os.environ):
        if k.startswith(("TRITON_", "TRITIUM_")) or k in disk_cache.CACHE_INVALIDATING_ENV:
            monkeypatch.delenv(k)
    monkeypatch.setenv("TRITON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where repro files go
    return tmp_path


def _compile(backend=None, fn=cached_kernel, spec=SPEC, options=None):
    backend = backend or FakeBackend()
    return _compile_with(backend, fn, spec, options or CUDAOptions()), backend


def _compile_with(backend, fn, spec, options):
    return compile(ASTSource.from_specialization(fn, spec), target=backend.target,
                   options=options, backend=backend)


# A second compile of the same source finds its entry through the source index
# (`__source__.json`, compiler.py's `_source_key`): no stage runs, not even the frontend.
HIT = {}


def _entries(root):
    """The cache's kernel entries (without the source index's folders)."""
    if not os.path.isdir(root):
        return []
    return sorted(p for p in os.listdir(root) if not os.path.exists(os.path.join(root, p, INDEX)))


def _entry_dir(tmp_path, kernel):
    return tmp_path / "cache" / disk_cache.dir_name(kernel.metadata["hash"])


def _load_module(path, name):
    linecache.clearcache()
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]
    return mod


# ---------------------------------------------------------------------------------------
# hits and misses


def test_miss_runs_every_stage_once_then_hit_loads(tmp_path):
    k1, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}
    assert set(k1.asm) == set(STAGE_FILES)
    assert isinstance(k1.asm["cubin"], bytes) and all(isinstance(k1.asm[s], str) for s in STAGE_FILES[:-1])
    assert "tt.func public @cached_kernel" in k1.asm["ttir"]
    assert "loc(" not in k1.asm["ttir"]  # the stored TTIR is the plain text
    assert k1.metadata["shared"] == 1024 and k1.metadata["n_regs"] == 32
    assert k1.metadata["num_warps"] == 4 and k1.metadata["name"] == "cached_kernel"

    k2, b2 = _compile()
    assert b2.calls == HIT  # the source index found the entry: nothing ran
    assert dict(k2.asm) == dict(k1.asm)
    assert k2.metadata == k1.metadata
    assert k2.src.signature == k1.src.signature == {"X": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    assert _entries(tmp_path / "cache") == [disk_cache.dir_name(k1.metadata["hash"])]


def test_without_the_source_index_the_ttir_key_still_hits(tmp_path):
    k1, _ = _compile()
    index = [p for p in os.listdir(tmp_path / "cache") if p not in _entries(tmp_path / "cache")]
    assert len(index) == 1 and json.loads(
        (tmp_path / "cache" / index[0] / INDEX).read_text()) == {"key": k1.metadata["hash"]}
    (tmp_path / "cache" / index[0] / INDEX).write_text("{not json")
    k2, b = _compile()
    assert b.calls == {"ttir": 1} and dict(k2.asm) == dict(k1.asm)  # the frontend ran
    _, b = _compile()                                  # and the index was written again
    assert b.calls == HIT


@tritium.jit
def _callee_a():
    return 1


@tritium.jit
def _takes_fn(X, FN: tl.constexpr):
    tl.store(X, FN())


def test_a_function_argument_edited_misses_the_source_index():
    """Upstream's test_higher_order_kernel: a function passed as a constexpr is keyed by its
    own `cache_key`, so an edited one generates code again and a restored one hits."""
    spec = (("*i32", "D"), ("constexpr", _callee_a))
    original = _callee_a.src
    k1, b1 = _compile(fn=_takes_fn, spec=spec)
    try:
        _callee_a._unsafe_update_src(original.replace("return 1", "return 2"))
        k2, b2 = _compile(fn=_takes_fn, spec=spec)
        assert dict(b2.calls) == {s: 1 for s in STAGE_FILES}
        assert "arith.constant 2" in k2.asm["ttir"] and "arith.constant 1 " in k1.asm["ttir"]
    finally:
        _callee_a._unsafe_update_src(original)
    k3, b3 = _compile(fn=_takes_fn, spec=spec)
    assert b3.calls == HIT and dict(k3.asm) == dict(k1.asm)


def test_always_compile_recompiles(monkeypatch):
    k1, _ = _compile()
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    k2, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}
    assert dict(k2.asm) == dict(k1.asm)
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "0")
    _, b = _compile()
    assert b.calls == HIT


def test_cache_dir_defaults_under_triton_home(tmp_path, monkeypatch):
    monkeypatch.delenv("TRITON_CACHE_DIR")
    k, _ = _compile()
    assert (tmp_path / "home" / ".triton" / "cache" / disk_cache.dir_name(k.metadata["hash"])).is_dir()


# ---------------------------------------------------------------------------------------
# the key


def _key(**kw):
    k, _ = _compile(**kw)
    return k.metadata["hash"]


def test_key_is_deterministic_and_hex():
    a, b = _key(), _key()
    assert a == b and re.fullmatch(r"[0-9a-f]{64}", a)


@pytest.mark.parametrize("spec", [
    (("*fp32", ""), ("i32", ""), ("constexpr", 64)),   # divisibility dropped
    (("*fp16", "D"), ("i32", ""), ("constexpr", 64)),  # element type
    (("*fp32", "D"), ("i64", ""), ("constexpr", 64)),  # integer width
    (("*fp32", "D"), ("i32", ""), ("constexpr", 128)),  # constexpr value
])
def test_key_depends_on_specialization(spec):
    assert _key(spec=spec) != _key()


@pytest.mark.parametrize("change", [dict(num_warps=8), dict(num_stages=2), dict(arch="sm_80"),
                                    dict(enable_fp_fusion=False), dict(debug=True),
                                    dict(maxnreg=128)])
def test_key_depends_on_options(change):
    assert _key(options=CUDAOptions(**change)) != _key()


@pytest.mark.parametrize("var,value", [("TRITON_DEBUG", "1"), ("TRITON_DEFAULT_FP_FUSION", "0"),
                                       ("DISABLE_LLVM_OPT", "1")])
def test_key_depends_on_env_knobs(monkeypatch, var, value):
    base = _key()
    monkeypatch.setenv(var, value)
    assert _key() != base


def test_key_depends_on_tritium_sources(monkeypatch):
    base = _key()
    monkeypatch.setattr(disk_cache, "tritium_key", lambda: "another tritium")
    assert _key() != base


def test_key_depends_on_the_backends_hash():
    assert _key(backend=FakeBackend(tools="ptxas 12.8")) != _key()


def test_cuda_backend_hash_names_device_and_tools():
    h90 = CUDABackend(GPUTarget("cuda", 90, 32)).hash()
    b = CUDABackend(GPUTarget("cuda", 80, 32))
    assert h90.startswith("sm90-ptxas") and "llvmlite" in h90 and b.hash() != h90


KERNEL_SRC = '''
import tritium
import tritium.language as tl


@tritium.jit
def helper(x):
    return x * {factor}


@tritium.jit
def kern(X, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(X + offs, helper(tl.load(X + offs, mask=m)) {extra}, mask=m)
'''


def _key_of_source(tmp_path, n, **fmt):
    # Every version is written to the same path, so locations cannot tell them apart.
    path = tmp_path / "kernels_under_test.py"
    path.write_text(KERNEL_SRC.format(**{"factor": "2", "extra": "+ 0", **fmt}))
    mod = _load_module(str(path), f"_tritium_cache_test_mod_{n}")
    return _key(fn=mod.kern)


def test_key_depends_on_kernel_and_callee_source(tmp_path):
    base = _key_of_source(tmp_path, 0)
    assert _key_of_source(tmp_path, 1) == base  # same source again: same key
    assert _key_of_source(tmp_path, 2, extra="+ 1") != base  # the kernel changed
    assert _key_of_source(tmp_path, 3, factor="3") != base  # only the callee changed


# ---------------------------------------------------------------------------------------
# layout


def test_layout_matches_upstream(tmp_path):
    k, _ = _compile()
    key = k.metadata["hash"]
    name = "cached_kernel"
    d = _entry_dir(tmp_path, k)
    assert d.name == base64.b32encode(bytes.fromhex(key)).decode().rstrip("=")
    assert re.fullmatch(r"[A-Z2-7]{52}", d.name)
    files = {f"{name}.{s}" for s in STAGE_FILES} | {f"{name}.json", f"__grp__{name}.json"}
    assert set(os.listdir(d)) == files
    for s in STAGE_FILES:
        data = (d / f"{name}.{s}").read_bytes()
        assert data == (k.asm[s] if s == "cubin" else k.asm[s].encode())
    meta = json.loads((d / f"{name}.json").read_text())
    assert meta["hash"] == key and meta["name"] == name and meta["num_warps"] == 4
    assert meta["target"] == {"backend": "cuda", "arch": 90, "warp_size": 32}
    assert meta["arch"] == "sm90" and meta["shared"] == 1024
    group = json.loads((d / f"__grp__{name}.json").read_text())
    children = group["child_paths"]
    assert set(children) == files - {f"__grp__{name}.json"}
    for fname, path in children.items():
        assert os.path.isabs(path) and os.path.samefile(path, d / fname)
    assert not [p for p in os.listdir(tmp_path / "cache") if p.startswith("tmp")]


def test_long_kernel_names_are_truncated_like_upstream(tmp_path):
    name = "k" * 200
    src = f"import tritium\n\n@tritium.jit\ndef {name}(X):\n    pass\n"
    path = tmp_path / "long_name.py"
    path.write_text(src)
    mod = _load_module(str(path), "_tritium_cache_test_long")
    k, b = _compile(fn=getattr(mod, name), spec=(("*fp32", "D"),))
    files = os.listdir(_entry_dir(tmp_path, k))
    assert f"{'k' * 150}.ptx" in files and all(len(f) < 255 for f in files)
    _, b = _compile(fn=getattr(mod, name), spec=(("*fp32", "D"),))
    assert b.calls == HIT


# ---------------------------------------------------------------------------------------
# damaged entries are rebuilt, never loaded


def _truncate(p):
    p.write_bytes(p.read_bytes()[:10])


def _flip_byte(p):
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01
    p.write_bytes(bytes(data))


def _edit_meta(fn):
    def edit(p):
        meta = json.loads(p.read_text())
        fn(meta)
        p.write_text(json.dumps(meta))
    return edit


DAMAGE = {
    "truncated ptx": ("ptx", _truncate),
    "altered cubin": ("cubin", _flip_byte),
    "altered ttgir": ("ttgir", lambda p: p.write_text(p.read_text().replace("= 4 : i32", "= 8 : i32"))),
    "deleted llir": ("llir", os.remove),
    "deleted metadata": ("json", os.remove),
    "garbage metadata": ("json", lambda p: p.write_bytes(b"{\x00not json")),
    "empty metadata": ("json", lambda p: p.write_bytes(b"")),
    "metadata not an object": ("json", lambda p: p.write_text("[1, 2]")),
    "hashes not an object": ("json", _edit_meta(lambda m: m.update(file_hashes=[1]))),
    "metadata lists no stages": ("json", _edit_meta(lambda m: m.update(file_hashes={}))),
    "metadata drops cubin": ("json", _edit_meta(lambda m: m["file_hashes"].pop("cubin"))),
    "metadata of another key": ("json", _edit_meta(lambda m: m.update(hash="0" * 64))),
    "stage path escapes entry": ("json", _edit_meta(
        lambda m: m["file_hashes"].update({"../../x": m["file_hashes"]["ptx"]}))),
    "deleted group file": ("__grp__", os.remove),
    "garbage group file": ("__grp__", lambda p: p.write_text("nonsense")),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_entry_is_rebuilt(tmp_path, damage):
    good, _ = _compile()
    d = _entry_dir(tmp_path, good)
    which, how = DAMAGE[damage]
    if which == "__grp__":
        path = d / "__grp__cached_kernel.json"
    else:
        path = d / f"cached_kernel.{which}"
    how(path)

    again, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}, "a damaged entry must not be loaded"
    assert dict(again.asm) == dict(good.asm)
    assert again.metadata == good.metadata
    # ... and the rebuilt entry is whole again: the next call loads it.
    _, b = _compile()
    assert b.calls == HIT
    assert _entries(tmp_path / "cache") == [d.name]


def test_always_compile_replaces_a_damaged_entry(tmp_path, monkeypatch):
    good, _ = _compile()
    _truncate(_entry_dir(tmp_path, good) / "cached_kernel.ptx")
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    _compile()
    monkeypatch.delenv("TRITON_ALWAYS_COMPILE")
    k, b = _compile()
    assert b.calls == HIT and dict(k.asm) == dict(good.asm)


def test_stray_non_entry_in_cache_root_is_harmless(tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "tmp.pid_1_deadbeef").mkdir()  # left by a killed process
    k, _ = _compile()
    _, b = _compile()
    assert b.calls == HIT


# ---------------------------------------------------------------------------------------
# dump and override


def test_kernel_dump_writes_every_stage(tmp_path, monkeypatch):
    dump = tmp_path / "dump"
    monkeypatch.setenv("TRITON_KERNEL_DUMP", "1")
    monkeypatch.setenv("TRITON_DUMP_DIR", str(dump))
    k, _ = _compile()
    d = dump / disk_cache.dir_name(k.metadata["hash"])
    assert sorted(os.listdir(d)) == sorted(f"cached_kernel.{s}" for s in STAGE_FILES)
    for s in STAGE_FILES:
        data = (d / f"cached_kernel.{s}").read_bytes()
        assert data == (k.asm[s] if s == "cubin" else k.asm[s].encode())


def test_kernel_dump_on_a_cache_hit_still_dumps(tmp_path, monkeypatch):
    k, _ = _compile()
    dump = tmp_path / "dump"
    monkeypatch.setenv("TRITON_KERNEL_DUMP", "1")
    monkeypatch.setenv("TRITON_DUMP_DIR", str(dump))
    _, b = _compile()
    assert b.calls == HIT
    d = dump / disk_cache.dir_name(k.metadata["hash"])
    assert sorted(os.listdir(d)) == sorted(f"cached_kernel.{s}" for s in STAGE_FILES)


def test_kernel_dump_default_dir_is_under_triton_home(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_KERNEL_DUMP", "1")
    k, _ = _compile()
    d = tmp_path / "home" / ".triton" / "dump" / disk_cache.dir_name(k.metadata["hash"])
    assert (d / "cached_kernel.ptx").read_text() == k.asm["ptx"]


def _override(tmp_path, monkeypatch, files):
    odir = tmp_path / "override"
    odir.mkdir(exist_ok=True)
    for fname, text in files.items():
        (odir / fname).write_text(text)
    monkeypatch.setenv("TRITON_KERNEL_OVERRIDE", "1")
    monkeypatch.setenv("TRITON_OVERRIDE_DIR", str(odir))
    return odir


PTX_OVERRIDE = "// hand-written\n.visible .entry cached_kernel() { ret; }\n"


def test_override_ptx(tmp_path, monkeypatch):
    normal, _ = _compile()
    _override(tmp_path, monkeypatch, {"cached_kernel.ptx": PTX_OVERRIDE})
    k, b = _compile()
    assert k.asm["ptx"] == PTX_OVERRIDE
    assert b.calls["ptx"] == 0 and b.calls["llir"] == 1 and b.calls["cubin"] == 1
    assert k.asm["cubin"] == FakeBackend().make_cubin(PTX_OVERRIDE, CUDAOptions())[0]
    assert k.asm["llir"] == normal.asm["llir"]
    # The overridden kernel never reaches the cache, nor does it replace what is there.
    monkeypatch.delenv("TRITON_KERNEL_OVERRIDE")
    k2, b2 = _compile()
    assert b2.calls == HIT and dict(k2.asm) == dict(normal.asm)


def test_override_ptx_is_not_cached_under_the_normal_key(tmp_path, monkeypatch):
    _override(tmp_path, monkeypatch, {"cached_kernel.ptx": PTX_OVERRIDE})
    _compile()
    monkeypatch.delenv("TRITON_KERNEL_OVERRIDE")
    k, b = _compile()
    assert k.asm["ptx"] != PTX_OVERRIDE and b.calls["ptx"] == 1


def test_override_in_a_per_kernel_subdirectory(tmp_path, monkeypatch):
    normal, _ = _compile()
    odir = _override(tmp_path, monkeypatch, {})
    sub = odir / disk_cache.dir_name(normal.metadata["hash"])
    sub.mkdir()
    (sub / "cached_kernel.ptx").write_text(PTX_OVERRIDE)
    k, _ = _compile()
    assert k.asm["ptx"] == PTX_OVERRIDE


def test_override_ttgir_is_parsed(tmp_path, monkeypatch):
    from tritium.ir.parser import parse_module
    from tritium.ir.printer import print_module
    normal, _ = _compile()
    edited = re.sub(r'("?ttg.num-warps"?) = 4', r"\1 = 8", normal.asm["ttgir"])
    assert edited != normal.asm["ttgir"]
    _override(tmp_path, monkeypatch, {"cached_kernel.ttgir": edited})
    k, b = _compile()
    assert b.calls["ttgir"] == 0 and b.calls["llir"] == 1
    assert k.asm["ttgir"] == print_module(parse_module(edited))
    assert "num_warps=8" in k.asm["llir"]  # the next stage ran on the override
    assert k.asm["ptx"] != normal.asm["ptx"]


def test_override_off_ignores_files(tmp_path, monkeypatch):
    normal, _ = _compile()
    _override(tmp_path, monkeypatch, {"cached_kernel.ptx": PTX_OVERRIDE})
    monkeypatch.setenv("TRITON_KERNEL_OVERRIDE", "0")
    k, _ = _compile()
    assert k.asm["ptx"] == normal.asm["ptx"]


# ---------------------------------------------------------------------------------------
# failing stages


@pytest.mark.parametrize("stage,previous", [("ttgir", "ttir"), ("llir", "ttgir"),
                                            ("ptx", "llir"), ("cubin", "ptx")])
def test_failing_stage_raises_stage_error_and_keeps_its_input(tmp_path, stage, previous):
    _compile(options=CUDAOptions(num_warps=2))  # another entry is in the cache
    with pytest.raises(StageError) as info:
        _compile(FakeBackend(fail_at=stage))
    e = info.value
    assert e.stage == stage and e.kernel == "cached_kernel"
    assert f"stage '{stage}'" in str(e) and "cached_kernel" in str(e) and f"fake {stage} failure" in str(e)
    assert isinstance(e.__cause__, RuntimeError)
    assert e.repro_path and e.repro_path.endswith(f"cached_kernel.{previous}")
    assert e.repro_path.startswith(str(tmp_path / "tmp"))
    assert e.repro_path in str(e)
    mode = "rb" if previous == "cubin" else "r"
    with open(e.repro_path, mode) as f:
        kept = f.read()
    # the kept text is what the good compile produced for that stage (same options)
    ok, _ = _compile(options=CUDAOptions())
    assert kept == ok.asm[previous]
    # nothing was stored for the failed compile, and no temporary directory is left
    assert [p for p in _entries(tmp_path / "cache") if p.startswith("tmp")] == []


def test_failed_compile_stores_nothing(tmp_path):
    with pytest.raises(StageError):
        _compile(FakeBackend(fail_at="cubin"))
    assert _entries(tmp_path / "cache") == []
    _, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}


# ---------------------------------------------------------------------------------------
# concurrency


def _compile_in_subprocess(cache_dir, barrier, queue):
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    backend = FakeBackend(delay=0.2)
    from tritium.frontend.compiler import make_ttir
    make_ttir(cached_kernel, SPEC, CUDAOptions())  # warm the imports before the race
    try:
        barrier.wait(timeout=60)
        k = _compile_with(backend, cached_kernel, SPEC, CUDAOptions())
        queue.put(("ok", os.getpid(), dict(k.asm), k.metadata, dict(backend.calls)))
    except BaseException as e:  # report, don't hang the parent
        queue.put(("error", os.getpid(), repr(e), None, None))


def test_concurrent_compiles_into_one_empty_cache(tmp_path):
    n = 8
    cache_dir = str(tmp_path / "cache")
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_compile_in_subprocess, args=(cache_dir, barrier, queue))
             for _ in range(n)]
    for p in procs:
        p.start()
    try:
        results = [queue.get(timeout=120) for _ in range(n)]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    errors = [r for r in results if r[0] != "ok"]
    assert not errors, errors
    assert all(p.exitcode == 0 for p in procs)
    asms = [r[2] for r in results]
    assert all(a == asms[0] for a in asms)
    assert all(r[3] == results[0][3] for r in results)
    compiled = sum(r[4].get("cubin", 0) for r in results)
    assert compiled >= 2, "the barrier should make several processes miss at once"
    entries = _entries(cache_dir)
    assert entries == [disk_cache.dir_name(results[0][3]["hash"])], entries
    # the one entry left is complete and loads in this process
    hit = disk_cache.FileCache(results[0][3]["hash"], cache_dir).load("cached_kernel")
    assert hit is not None and hit["asm"] == asms[0]
