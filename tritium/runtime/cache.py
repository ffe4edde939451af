"""On-disk cache of compiled kernels, compatible in layout with upstream's TRITON_CACHE_DIR.

The key is computed from the TTIR text (with locations), which already reflects the
kernel's source, its callees, constexpr globals and the specialisation; to it we add the
options, the target, the backend's own hash (device, tool versions), tritium's own source
files and the environment knobs that change code. The frontend therefore always runs
(milliseconds); LLVM and ptxas, the slow stages, run only on a miss.

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

from . import knobs

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")
# Environment variables that change the generated code.
CACHE_INVALIDATING_ENV = ("TRITON_DEBUG", "TRITON_DEFAULT_FP_FUSION", "DISABLE_LLVM_OPT",
                          "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "TRITON_F32_DEFAULT",
                          "TRITON_PTXAS_PATH", "TRITON_LIBDEVICE_PATH")
MAX_FILE_NAME = 150  # upstream truncates kernel names to this in file names


@functools.lru_cache(maxsize=1)
def tritium_key() -> str:
    """Hash of every source file of the package (by path inside it) and its version."""
    from .. import __version__
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


def kernel_key(ttir_text: str, options, target: str, backend_hash: str = "") -> str:
    env = sorted((k, os.environ.get(k, "")) for k in CACHE_INVALIDATING_ENV)
    text = "\n".join([tritium_key(), target, backend_hash, str(options.hash_items()), str(env),
                      ttir_text])
    return hashlib.sha256(text.encode()).hexdigest()


def dir_name(key: str) -> str:
    """Upstream names entries by the base32 of the hex key, padding stripped."""
    return base64.b32encode(bytes.fromhex(key)).decode().rstrip("=")


def _bytes(data) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8")


def _sha(data) -> str:
    return hashlib.sha256(_bytes(data)).hexdigest()


class FileCache:
    def __init__(self, key: str, root: Optional[str] = None, stages=STAGES,
                 binary=("cubin",)):
        self.root = root or knobs.cache_dir()
        self.key = key
        self.stages, self.binary = tuple(stages), tuple(binary)
        self.path = os.path.join(self.root, dir_name(key))

    def _read(self, fname: str) -> bytes:
        with open(os.path.join(self.path, fname), "rb") as f:
            return f.read()

    def load(self, name: str) -> Optional[Dict]:
        """The entry's {"metadata", "asm"}, or None; a damaged entry is discarded."""
        if not os.path.isdir(self.path):
            return None
        try:
            group = json.loads(self._read(f"__grp__{name}.json"))["child_paths"]
            meta = json.loads(self._read(f"{name}.json"))
            hashes = meta["file_hashes"]
            if f"{name}.json" not in group or meta["hash"] != self.key \
                    or sorted(hashes) != sorted(self.stages):
                raise ValueError("incomplete metadata")
            asm = {}
            for stage in self.stages:
                data = self._read(f"{name}.{stage}")
                if _sha(data) != hashes[stage]:
                    raise ValueError(f"{stage} does not match its recorded hash")
                asm[stage] = data if stage in self.binary else data.decode("utf-8")
            return {"metadata": meta, "asm": asm}
        except (OSError, ValueError, KeyError, TypeError):  # JSON and UTF-8 errors are ValueErrors
            self._discard()
            return None

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
        meta = dict(metadata, hash=self.key,
                    file_hashes={s: _sha(asm[s]) for s in self.stages})
        files = {f"{name}.{s}": _bytes(asm[s]) for s in self.stages}
        files[f"{name}.json"] = json.dumps(meta, default=str).encode()
        files[f"__grp__{name}.json"] = json.dumps(
            {"child_paths": {f: os.path.join(self.path, f) for f in files}}).encode()
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
                if self.load(name) is None:
                    os.rename(tmp, self.path)
        except OSError:
            pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return meta


def _dump(key: str, name: str, stage: str, data) -> None:
    d = os.path.join(knobs.dump_dir(), dir_name(key))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}.{stage}"), "wb") as f:
        f.write(_bytes(data))


def _override(key: str, name: str, stage: str):
    root = os.environ.get("TRITON_OVERRIDE_DIR") or os.path.join(knobs.home_dir(), ".triton", "override")
    for d in (os.path.join(root, dir_name(key)), root):
        path = os.path.join(d, f"{name}.{stage}")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            return data if stage == "cubin" else data.decode("utf-8")
    return None


def _backend_hash(backend) -> str:
    h = getattr(backend, "hash", None)
    return h() if callable(h) else ""


def compile_cached(backend, fn, specialization, options):
    """Run the stages (or load them), returning the backend's compiled kernel."""
    from ..backends.nvidia.backend import CUDAKernel, StageError, _keep_for_repro
    from ..ir.printer import print_module
    name = fn.__name__
    fname = name[:MAX_FILE_NAME]  # for file names only; the kernel keeps its name
    module, used = backend.make_ttir(fn, specialization, options)
    ttir = print_module(module)
    key = kernel_key(print_module(module, debug_info=True), options, options.arch,
                     _backend_hash(backend))
    signature = {p: ty for p, (ty, _) in zip(fn.arg_names, specialization)}
    cache = FileCache(key)
    dump, override = knobs.kernel_dump(), knobs._flag("TRITON_KERNEL_OVERRIDE")
    hit = None if knobs.always_compile() or override else cache.load(fname)
    if hit is not None:
        if dump:
            for stage, text in hit["asm"].items():
                _dump(key, fname, stage, text)
        return CUDAKernel(name, hit["asm"], hit["metadata"], signature, used)
    asm = {"ttir": ttir}
    if dump:
        _dump(key, fname, "ttir", ttir)
    product, meta = module, {"name": name, "hash": key, "num_warps": options.num_warps,
                             "num_stages": options.num_stages, "target": options.arch,
                             "options": dict(options.hash_items())}
    for stage, run in (("ttgir", backend.make_ttgir), ("llir", backend.make_llir),
                       ("ptx", backend.make_ptx), ("cubin", backend.make_cubin)):
        text = _override(key, fname, stage) if override else None
        if text is not None:
            product = _from_text(stage, text)
        else:
            try:
                product = run(product, options)
            except Exception as e:
                prev = _previous(stage)
                raise StageError(stage, name, e, _keep_for_repro(fname, prev, asm[prev])) from e
        product, asm[stage] = _stage_text(stage, product, meta)
        if dump:
            _dump(key, fname, stage, asm[stage])
    # What a later load returns: JSON types (lists, not tuples) from the first run on.
    meta = json.loads(json.dumps(meta, default=str))
    if not override:
        meta = cache.store(fname, asm, meta)
    return CUDAKernel(name, asm, meta, signature, used)


def _previous(stage: str) -> str:
    return STAGES[STAGES.index(stage) - 1]


def _from_text(stage: str, text):
    if stage == "ttgir":
        from ..ir.parser import parse_module
        return parse_module(text)
    return text


def _stage_text(stage: str, product, meta):
    """Normalise what a stage returned into (product for the next stage, text to keep)."""
    from ..ir.printer import print_module
    if stage == "ttgir":
        return product, print_module(product)
    if stage == "llir":
        if isinstance(product, tuple):
            product, info = product
            meta.update(info)
        meta.setdefault("shared", 0)
        return product, product
    if stage == "cubin":
        if isinstance(product, tuple):
            product, info = product
            meta.update({"n_regs": getattr(info, "registers", None),
                         "n_spills": getattr(info, "spills", None)})
        return product, product
    return product, product
