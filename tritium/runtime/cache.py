"""On-disk cache of compiled kernels, compatible in layout with upstream's TRITON_CACHE_DIR.
The compiler driver (`tritium/compiler/compiler.py`) decides what goes in and comes out.

The key is computed from the TTIR text (with locations), which already reflects the
kernel's source, its callees, constexpr globals and the specialisation; to it we add the
options, the target, the backend's own hash (device, tool versions), tritium's own source
files and the environment knobs that change code. The compiler driver also keeps a small
index from a `@jit` source's key to its entry (`__source__.json`), so a source seen before
skips the frontend too; LLVM and ptxas, the slow stages, run only on a miss.

An entry is `<cache dir>/<base32 of the key>/` holding `<name>.<stage>` for every stage,
`<name>.json` (metadata, with a sha256 of every stage file) and `__grp__<name>.json`
(`{"child_paths": {file: path}}`). Entries are written into a private temporary directory
and renamed into place (atomic on POSIX), so processes compiling the same kernel at once
never see half an entry. An entry whose files are missing, truncated or altered is
discarded and rebuilt, never loaded.

TRITON_KERNEL_OVERRIDE compiles from the files found in TRITON_OVERRIDE_DIR; such kernels
neither come from nor go into the cache, since the key does not describe them.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import shutil
import uuid
from typing import Dict, Optional

from .._files import write_atomically
from . import knobs, remote_cache
from .cache_managers import (CacheManager, FileCacheManager,  # noqa: F401 (upstream's names)
                             RedisRemoteCacheBackend, RemoteCacheBackend, RemoteCacheManager,
                             get_cache_manager, get_dump_manager, get_override_manager,
                             make_so_cache_key)

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")  # the NVIDIA backend's, the default
BINARY_STAGES = ("cubin", "hsaco", "bin", "so", "obj")  # "obj": the CPU backend's machine code
# Environment variables that change the generated code.
CACHE_INVALIDATING_ENV = ("TRITON_DEBUG", "TRITON_DEFAULT_FP_FUSION", "DISABLE_LLVM_OPT",
                          "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "TRITON_F32_DEFAULT",
                          "TRITON_PTXAS_PATH", "TRITON_LIBDEVICE_PATH",
                          # (as upstream's: remarks are printed while compiling, so a kernel
                          # compiled without them would hide them)
                          "MLIR_ENABLE_DIAGNOSTICS")
MAX_FILE_NAME = 150  # upstream truncates kernel names to this in file names


@functools.lru_cache(maxsize=1)
def tritium_key() -> str:
    """Hash of every source file of the package (by path inside it) and its version."""
    from .._version import __version__
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.sha256(__version__.encode())
    for dirpath, _, filenames in sorted(os.walk(root)):
        for f in sorted(filenames):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                with open(path, "rb") as fh:
                    h.update(os.path.relpath(path, root).encode() + b"\0")
                    h.update(fh.read())
    return h.hexdigest()


def triton_key() -> str:
    """Upstream's name: what identifies this compiler build (version and sources)."""
    from .._version import __version__
    return f"{__version__}-{tritium_key()}"


# No `_base64`: upstream 3.6 has only `_base32`, and torch maps a kernel's hash to its cache
# folder with `_base64` when the module has one (an older Triton's naming), which would send
# Inductor's kernel bundler and static launcher to folders that do not exist.
def _base32(key: str) -> str:
    return dir_name(key)


def kernel_key(ttir_text: str, options, target: str, backend_hash: str = "") -> str:
    env = sorted((k, os.environ.get(k, "")) for k in CACHE_INVALIDATING_ENV)
    text = "\n".join([tritium_key(), target, backend_hash, str(_option_items(options)), str(env),
                      ttir_text])
    return hashlib.sha256(text.encode()).hexdigest()


def _option_items(options):
    """A backend's options as sorted (name, value) pairs; a plugin's options object need
    not have tritium's `hash_items`."""
    if hasattr(options, "hash_items"):
        return options.hash_items()
    if hasattr(options, "__dataclass_fields__"):
        return sorted((k, getattr(options, k)) for k in options.__dataclass_fields__)
    return sorted(vars(options).items())


def dir_name(key: str) -> str:
    """Upstream names entries by the base32 of the hex key, padding stripped."""
    return base64.b32encode(bytes.fromhex(key)).decode().rstrip("=")


def _bytes(data) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8")


def _sha(data) -> str:
    return hashlib.sha256(_bytes(data)).hexdigest()


class FileCache:
    def __init__(self, key: str, root: Optional[str] = None):
        self.root = root or knobs.cache_dir()
        self.key = key
        self.path = os.path.join(self.root, dir_name(key))

    def _read(self, fname: str) -> bytes:
        with open(os.path.join(self.path, fname), "rb") as f:
            return f.read()

    def load(self, name: str, stages=STAGES) -> Optional[Dict]:
        """The entry's {"metadata", "asm"} holding `stages`, or None; a damaged entry is
        discarded."""
        if not os.path.isdir(self.path):
            return None
        try:
            return self.verify(name, self._read, stages)
        except (OSError, ValueError, KeyError, TypeError):  # JSON and UTF-8 errors are ValueErrors
            self._discard()
            return None

    def verify(self, name: str, read, stages=STAGES) -> Dict:
        """The entry `read(file name) -> bytes` gives, checked against its recorded hashes;
        raises (ValueError, KeyError, OSError, TypeError) for anything damaged or missing."""
        group = json.loads(read(f"__grp__{name}.json"))["child_paths"]
        meta = json.loads(read(f"{name}.json"))
        hashes = meta["file_hashes"]
        if f"{name}.json" not in group or meta["hash"] != self.key \
                or sorted(hashes) != sorted(stages):
            raise ValueError("incomplete metadata")
        asm = {}
        for stage in stages:
            data = read(f"{name}.{stage}")
            if _sha(data) != hashes[stage]:
                raise ValueError(f"{stage} does not match its recorded hash")
            asm[stage] = data if stage in BINARY_STAGES else data.decode("utf-8")
        return {"metadata": meta, "asm": asm}

    @staticmethod
    def file_names(name: str, stages=STAGES):
        return [f"{name}.{s}" for s in stages] + [f"{name}.json", f"__grp__{name}.json"]

    def entry_files(self, name: str, asm: Dict, metadata: Dict):
        """(metadata with the stage hashes, {file name: bytes}) of an entry."""
        meta = dict(metadata, hash=self.key, file_hashes={s: _sha(asm[s]) for s in asm})
        files = {f"{name}.{s}": _bytes(asm[s]) for s in asm}
        files[f"{name}.json"] = json.dumps(meta, default=str).encode()
        files[f"__grp__{name}.json"] = json.dumps(
            {"child_paths": {f: os.path.join(self.path, f) for f in files}}).encode()
        return meta, files

    def _discard(self) -> None:
        # Move it out of the way first: the path is free at once, and no reader sees
        # an entry being deleted file by file.
        trash = os.path.join(self.root, f"tmp.del_{os.getpid()}_{uuid.uuid4().hex}")
        try:
            os.rename(self.path, trash)
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def store(self, name: str, asm: Dict, metadata: Dict) -> Dict:
        """Write an entry (best effort: a cache that cannot be written is no error) and
        return its metadata, with the stage hashes added."""
        meta, files = self.entry_files(name, asm, metadata)
        tmp = os.path.join(self.root, f"tmp.pid_{os.getpid()}_{uuid.uuid4().hex}")
        try:
            os.makedirs(tmp)
            for fname, data in files.items():
                with open(os.path.join(tmp, fname), "wb") as f:
                    f.write(data)
            try:
                os.rename(tmp, self.path)
            except OSError:
                # Another process stored this entry first: theirs is as good, unless it is
                # damaged (load discards it), in which case ours takes its place.
                if self.load(name, list(asm)) is None:
                    os.rename(tmp, self.path)
        except OSError:
            pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return meta


def get_file(key: str, filename: str) -> Optional[str]:
    """Path of `<cache dir>/<key>/<filename>` if it is there (upstream's cache-manager
    layout for single files, e.g. autotuning results)."""
    path = os.path.join(knobs.cache_dir(), key, filename)
    return path if os.path.isfile(path) else None


def put_file(key: str, filename: str, data) -> None:
    """Write `<cache dir>/<key>/<filename>` atomically; best effort, like `FileCache.store`."""
    write_atomically(os.path.join(knobs.cache_dir(), key), filename, _bytes(data))


def _dump(key: str, name: str, stage: str, data) -> None:
    d = os.path.join(knobs.dump_dir(), dir_name(key))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}.{stage}"), "wb") as f:
        f.write(_bytes(data))


def _override(key: str, name: str, stage: str):
    root = knobs.override_dir()
    for d in (os.path.join(root, dir_name(key)), root):
        path = os.path.join(d, f"{name}.{stage}")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            return data if stage in BINARY_STAGES else data.decode("utf-8")
    return None
