"""`triton.runtime.build`: C (or C++) source → a shared object or an importable Python
extension, built with the system compiler and kept in the kernel cache (upstream's helpers,
which third-party drivers use for their launchers). The compiler is `knobs.build.cc` (CC),
else the first of cc, gcc, clang on PATH. The cache key covers the source, the options and
the platform; a cached object that no longer loads is rebuilt.
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import platform
import shutil
import subprocess
import sysconfig
import tempfile
from types import ModuleType
from typing import List, Optional

from .. import knobs
from .cache_managers import get_cache_manager

_SUFFIX = {"c": ".c", "c++": ".cpp"}


def platform_key() -> str:
    return ",".join([platform.machine(), platform.system(), *platform.architecture()])


def _find_compiler(language: str) -> str:
    names = ("c++", "g++", "clang++") if language == "c++" else ("cc", "gcc", "clang")
    cc = knobs.build.cc or next((p for p in map(shutil.which, names) if p), None)
    if cc is None:
        raise RuntimeError(f"no {language} compiler found: set CC or install one of "
                           f"{', '.join(names)}")
    return cc


def _build(name: str, src_path: str, out_dir: str, library_dirs, include_dirs, libraries,
           ccflags, language: str) -> str:
    so = os.path.join(out_dir, name + sysconfig.get_config_var("EXT_SUFFIX"))
    py_include = sysconfig.get_paths()["include"]
    cmd = [_find_compiler(language), src_path, "-O3", "-shared", "-fPIC", "-Wno-psabi",
           "-o", so, f"-I{py_include}", *(f"-I{d}" for d in include_dirs),
           *(f"-L{d}" for d in library_dirs), *(f"-l{lib}" for lib in libraries), *ccflags]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building {name} failed ({' '.join(cmd)}):\n{proc.stderr}")
    return so


def _load(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load the compiled module {name} from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile(src: bytes, src_path: str, name: str, language: str, load: bool,
             library_dirs=None, include_dirs=None, libraries=None, ccflags=None):
    config = {"language": [language], "library_dirs": library_dirs,
              "include_dirs": include_dirs, "libraries": libraries, "ccflags": ccflags}
    digest = hashlib.sha256(src + platform_key().encode())
    for k, vs in config.items():
        if vs is not None:
            digest.update((k + ":" + ":".join(vs)).encode())
    cache = get_cache_manager(digest.hexdigest())
    filename = name + sysconfig.get_config_var("EXT_SUFFIX")
    path = cache.get_file(filename)
    if path is not None:
        if not load:
            return path
        try:
            return _load(name, path)
        except (RuntimeError, ImportError, OSError):
            logging.getLogger(__name__).warning(
                "Triton cache error: compiled module %s could not be loaded; rebuilding", filename)
    with tempfile.TemporaryDirectory() as tmp:
        so = _build(name, src_path, tmp, library_dirs or [], include_dirs or [], libraries or [],
                    ccflags or [], language)
        with open(so, "rb") as f:
            path = cache.put(f.read(), filename, binary=True)
    return _load(name, path) if load else path


def _from_src(src: str, name: str, language: str, load: bool, **kw):
    if language not in _SUFFIX:
        raise ValueError(f"Unexpected language: {language} (expected 'c' or 'c++')")
    with tempfile.TemporaryDirectory() as tmp:
        src_path = os.path.join(tmp, name + _SUFFIX[language])
        with open(src_path, "w") as f:
            f.write(src)
        return _compile(src.encode(), src_path, name, language, load, **kw)


def _from_file(src_path: str, name: str, load: bool, **kw):
    ext = os.path.splitext(src_path)[1]
    language = {".c": "c", ".cpp": "c++", ".cc": "c++", ".cxx": "c++"}.get(ext)
    if language is None:
        raise ValueError(f"Unexpected source file extension {ext!r} of {src_path}")
    with open(src_path, "rb") as f:
        return _compile(f.read(), os.path.abspath(src_path), name, language, load, **kw)


def compile_so_from_src(src: str, name: str, library_dirs: Optional[List[str]] = None,
                        include_dirs: Optional[List[str]] = None,
                        libraries: Optional[List[str]] = None, ccflags: Optional[List[str]] = None,
                        language: str = "c") -> str:
    """The path of the shared object built from `src`."""
    return _from_src(src, name, language, False, library_dirs=library_dirs,
                     include_dirs=include_dirs, libraries=libraries, ccflags=ccflags)


def compile_module_from_src(src: str, name: str, library_dirs: Optional[List[str]] = None,
                            include_dirs: Optional[List[str]] = None,
                            libraries: Optional[List[str]] = None,
                            ccflags: Optional[List[str]] = None, language: str = "c") -> ModuleType:
    """The Python extension module `name` built from `src`, imported."""
    return _from_src(src, name, language, True, library_dirs=library_dirs,
                     include_dirs=include_dirs, libraries=libraries, ccflags=ccflags)


def compile_so_from_file(src_path: str, name: str, library_dirs: Optional[List[str]] = None,
                         include_dirs: Optional[List[str]] = None,
                         libraries: Optional[List[str]] = None,
                         ccflags: Optional[List[str]] = None) -> str:
    return _from_file(src_path, name, False, library_dirs=library_dirs,
                      include_dirs=include_dirs, libraries=libraries, ccflags=ccflags)


def compile_module_from_file(src_path: str, name: str, library_dirs: Optional[List[str]] = None,
                             include_dirs: Optional[List[str]] = None,
                             libraries: Optional[List[str]] = None,
                             ccflags: Optional[List[str]] = None) -> ModuleType:
    return _from_file(src_path, name, True, library_dirs=library_dirs,
                      include_dirs=include_dirs, libraries=libraries, ccflags=ccflags)
