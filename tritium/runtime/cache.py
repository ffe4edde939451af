"""On-disk cache of compiled kernels, compatible in layout with upstream's TRITON_CACHE_DIR.

The key is computed from the TTIR text (with locations), which already reflects the
kernel's source, its callees, constexpr globals and the specialisation; to it we add the
options, the target, tritium's own source files and the environment knobs that change
code. The frontend therefore always runs (milliseconds); LLVM and ptxas, the slow stages,
run only on a miss.

Entries are written into a private temporary directory and renamed into place (atomic on
POSIX), so processes compiling the same kernel at once never see half an entry. The
metadata file records a sha256 of every stage file; an entry whose files are missing,
truncated or altered is rebuilt, never loaded.
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


@functools.lru_cache(maxsize=1)
def tritium_key() -> str:
    """Hash of every source file of the package and its version."""
    from .. import __version__
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.sha256(__version__.encode())
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    h.update(f.encode())
                    h.update(fh.read())
    return h.hexdigest()


def kernel_key(ttir_text: str, options, target: str) -> str:
    env = sorted((k, os.environ.get(k, "")) for k in CACHE_INVALIDATING_ENV)
    text = "\n".join([tritium_key(), target, str(options.hash_items()), str(env), ttir_text])
    return hashlib.sha256(text.encode()).hexdigest()


def dir_name(key: str) -> str:
    """Upstream names entries by the base32 of the hex key, padding stripped."""
    return base64.b32encode(bytes.fromhex(key)).decode().rstrip("=")


def _sha(data) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


class FileCache:
    def __init__(self, key: str, root: Optional[str] = None):
        self.root = root or knobs.cache_dir()
        self.key = key
        self.path = os.path.join(self.root, dir_name(key))

    def load(self, name: str) -> Optional[Dict]:
        meta_path = os.path.join(self.path, f"{name}.json")
        try:
            with open(meta_path) as f:
                meta = json.load(f)
            asm = {}
            for stage, digest in meta["file_hashes"].items():
                mode = "rb" if stage == "cubin" else "r"
                with open(os.path.join(self.path, f"{name}.{stage}"), mode) as f:
                    data = f.read()
                if _sha(data) != digest:
                    raise ValueError(f"{stage} does not match its recorded hash")
                asm[stage] = data
            return {"metadata": meta, "asm": asm}
        except (OSError, ValueError, KeyError, json.JSONDecodeError):
            if os.path.isdir(self.path):
                shutil.rmtree(self.path, ignore_errors=True)  # corrupt: rebuild it
            return None

    def store(self, name: str, asm: Dict, metadata: Dict) -> None:
        os.makedirs(self.root, exist_ok=True)
        tmp = os.path.join(self.root, f"tmp.pid_{os.getpid()}_{uuid.uuid4().hex}")
        os.makedirs(tmp)
        try:
            hashes = {}
            for stage in STAGES:
                if stage not in asm:
                    continue
                data = asm[stage]
                mode = "wb" if isinstance(data, bytes) else "w"
                with open(os.path.join(tmp, f"{name}.{stage}"), mode) as f:
                    f.write(data)
                hashes[stage] = _sha(data)
            meta = dict(metadata, file_hashes=hashes, hash=self.key)
            with open(os.path.join(tmp, f"{name}.json"), "w") as f:
                json.dump(meta, f, default=str)
            with open(os.path.join(tmp, f"__grp__{name}.json"), "w") as f:
                json.dump({"child_paths": {f"{name}.{s}": os.path.join(self.path, f"{name}.{s}")
                                           for s in hashes}}, f)
            try:
                os.rename(tmp, self.path)
            except OSError:
                pass  # another process stored the same entry first: theirs is as good
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _dump(key: str, name: str, stage: str, data) -> None:
    d = os.path.join(knobs.dump_dir(), dir_name(key))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}.{stage}"), "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def _override(key: str, name: str, stage: str):
    if not knobs._flag("TRITON_KERNEL_OVERRIDE"):
        return None
    root = os.environ.get("TRITON_OVERRIDE_DIR") or os.path.join(knobs.home_dir(), ".triton", "override")
    for d in (os.path.join(root, dir_name(key)), root):
        path = os.path.join(d, f"{name}.{stage}")
        if os.path.exists(path):
            with open(path, "rb" if stage == "cubin" else "r") as f:
                return f.read()
    return None


def compile_cached(backend, fn, specialization, options):
    """Run the stages (or load them), returning the backend's compiled kernel."""
    from ..backends.nvidia.backend import CUDAKernel, StageError, _keep_for_repro
    from ..ir.printer import print_module
    name = fn.__name__
    module, used = backend.make_ttir(fn, specialization, options)
    ttir = print_module(module)
    key = kernel_key(print_module(module, debug_info=True), options, options.arch)
    signature = {p: ty for p, (ty, _) in zip(fn.arg_names, specialization)}
    cache = FileCache(key)
    hit = None if knobs.always_compile() else cache.load(name)
    if hit is not None:
        meta = hit["metadata"]
        return CUDAKernel(name, hit["asm"], meta, signature, used)
    asm = {"ttir": ttir}
    product, meta = module, {"name": name, "num_warps": options.num_warps,
                             "num_stages": options.num_stages, "target": options.arch,
                             "options": dict(options.hash_items())}
    for stage, run in (("ttgir", backend.make_ttgir), ("llir", backend.make_llir),
                       ("ptx", backend.make_ptx), ("cubin", backend.make_cubin)):
        override = _override(key, name, stage)
        if override is not None:
            product = _from_text(stage, override)
        else:
            previous = asm[_previous(stage)]
            try:
                product = run(product, options)
            except Exception as e:
                raise StageError(stage, name, e, _keep_for_repro(name, _previous(stage), previous)) from e
        product, text = _stage_text(stage, product, meta)
        asm[stage] = text
        if knobs.kernel_dump():
            _dump(key, name, stage, text)
    if knobs.kernel_dump():
        _dump(key, name, "ttir", ttir)
    cache.store(name, asm, meta)
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
