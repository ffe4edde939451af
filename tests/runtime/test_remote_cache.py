"""The kernel cache's remote tier against a real redis-server started on 127.0.0.1 with a
random port: entries shared between machines (here: two local cache directories), a dead
server (compiles anyway, with a warning), a damaged remote entry (detected, rebuilt and
repaired), a bad backend name, and upstream's RemoteCacheManager file API.
Skips, saying why, without redis-server or the `redis` package."""
import importlib.util
import os
import shutil
import socket
import subprocess
import time
import warnings

import pytest

from tritium.runtime import cache as disk_cache
from tritium.runtime import cache_managers

redis = pytest.importorskip("redis", reason="the `redis` package is not installed "
                                            "(pip install redis; see the test extra)")
SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(SERVER is None, reason="redis-server is not installed "
                                                       "(apt-get install redis-server)")

_spec = importlib.util.spec_from_file_location(
    "disk_cache_tests", os.path.join(os.path.dirname(__file__), "test_disk_cache.py"))
_dc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_dc)
FakeBackend, STAGE_FILES, _compile = _dc.FakeBackend, _dc.STAGE_FILES, _dc._compile
BACKEND = "tritium.runtime.cache:RedisRemoteCacheBackend"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(workdir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.skip("redis-server did not start")
    yield port, client
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def env(tmp_path, monkeypatch, server):
    for k in list(os.environ):
        if k.startswith(("TRITON_", "TRITIUM_")) or k in disk_cache.CACHE_INVALIDATING_ENV:
            monkeypatch.delenv(k)
    port, client = server
    client.flushall()
    monkeypatch.setenv("TRITON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRITON_REMOTE_CACHE_BACKEND", BACKEND)
    monkeypatch.setenv("TRITON_REDIS_HOST", "127.0.0.1")
    monkeypatch.setenv("TRITON_REDIS_PORT", str(port))
    monkeypatch.setattr(cache_managers, "_warned", set())
    monkeypatch.setattr(cache_managers, "_down_until", [0.0])
    return monkeypatch, client, tmp_path


def _machine(env, name):
    """A fresh local cache directory: another machine sharing the remote store."""
    monkeypatch, _, tmp_path = env
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / name))


def test_second_machine_loads_from_redis(env):
    _, client, tmp_path = env
    _machine(env, "a")
    k1, b1 = _compile()
    assert dict(b1.calls) == {s: 1 for s in STAGE_FILES}
    entry = disk_cache.dir_name(k1.metadata["hash"])
    keys = sorted(k.decode() for k in client.keys("*"))
    assert keys == sorted(f"triton:{entry}:{f}"
                          for f in disk_cache.FileCache.file_names("cached_kernel"))
    _machine(env, "b")
    k2, b2 = _compile()
    assert dict(b2.calls) == {"ttir": 1}  # frontend only: the rest came from redis
    assert dict(k2.asm) == dict(k1.asm) and k2.metadata == k1.metadata
    assert (tmp_path / "b" / entry / "cached_kernel.cubin").read_bytes() == k1.asm["cubin"]
    _machine(env, "b")
    k3, b3 = _compile()  # now a local hit, through the local source index: nothing runs
    assert dict(b3.calls) == {} and dict(k3.asm) == dict(k1.asm)


def test_key_format_knob(env):
    monkeypatch, client, _ = env
    monkeypatch.setenv("TRITON_REDIS_KEY_FORMAT", "team7/{key}/{filename}")
    _machine(env, "a")
    k, _ = _compile()
    entry = disk_cache.dir_name(k.metadata["hash"])
    assert client.get(f"team7/{entry}/cached_kernel.ptx").decode() == k.asm["ptx"]


def test_dead_server_compiles_with_a_warning(env):
    monkeypatch, _, _ = env
    monkeypatch.setenv("TRITON_REDIS_PORT", str(_free_port()))  # nothing listens there
    _machine(env, "a")
    with pytest.warns(RuntimeWarning, match="remote compilation cache: reading failed "
                                            r"\(ConnectionError"):
        k, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}
    assert k.asm["cubin"].startswith(b"\x7fELF")
    _machine(env, "b")  # a local miss: the resting remote store is not asked again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, b2 = _compile()
    assert dict(b2.calls) == {s: 1 for s in STAGE_FILES}
    _machine(env, "a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a local hit does not touch the remote store
        _, b3 = _compile()
    assert dict(b3.calls) == {}  # (the local source index found it)


@pytest.mark.parametrize("damage", ["ptx", "cubin", "json", "missing"])
def test_damaged_remote_entry_is_rebuilt_and_repaired(env, damage):
    _, client, _ = env
    _machine(env, "a")
    k1, _ = _compile()
    entry = disk_cache.dir_name(k1.metadata["hash"])
    key = f"triton:{entry}:cached_kernel." + ("cubin" if damage == "missing" else damage)
    if damage == "missing":
        client.delete(key)
    elif damage == "json":
        client.set(key, b"{not json")
    else:
        data = bytearray(client.get(key))
        data[len(data) // 2] ^= 0x01  # one flipped bit
        client.set(key, bytes(data))
    _machine(env, "b")
    with pytest.warns(RuntimeWarning, match=f"entry {entry}/cached_kernel is damaged"):
        k2, b2 = _compile()
    assert dict(b2.calls) == {s: 1 for s in STAGE_FILES}  # rebuilt
    assert dict(k2.asm) == dict(k1.asm)
    _machine(env, "c")
    k3, b3 = _compile()  # the rebuild repaired the remote entry
    assert dict(b3.calls) == {"ttir": 1} and dict(k3.asm) == dict(k1.asm)


def test_unloadable_backend_class_warns_and_compiles(env):
    monkeypatch, _, _ = env
    monkeypatch.setenv("TRITON_REMOTE_CACHE_BACKEND", "no_such_module:Cls")
    _machine(env, "a")
    with pytest.warns(RuntimeWarning, match="remote compilation cache: connecting failed.*"
                                            "TRITON_REMOTE_CACHE_BACKEND='no_such_module:Cls'"):
        _, b = _compile()
    assert dict(b.calls) == {s: 1 for s in STAGE_FILES}


def test_remote_cache_manager_file_api(env, rng):
    _, client, tmp_path = env
    _machine(env, "a")
    key = "%064x" % int(rng.integers(1 << 62))
    manager = cache_managers.RemoteCacheManager(cache_managers._base32(key))
    payload = rng.bytes(100)
    path = manager.put(payload, "k.cubin")
    assert open(path, "rb").read() == payload
    manager.put_group("k.json", {"k.cubin": path})
    _machine(env, "b")  # another machine: only redis has them
    other = cache_managers.RemoteCacheManager(cache_managers._base32(key))
    got = other.get_group("k.json")
    assert set(got) == {"k.cubin"} and open(got["k.cubin"], "rb").read() == payload
    assert str(tmp_path / "b") in got["k.cubin"]
    assert other.get_file("absent.bin") is None
