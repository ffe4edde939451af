"""Where CUDA's C headers and libraries are, for C code built against the driver API (the
AOT tools' output, `triton.runtime.build`): upstream's `include_dirs`, `library_dirs()`,
`libcuda_dirs()` and `libdevice_dir` of `triton.backends.nvidia.driver`, which re-exports
them. Upstream ships cuda.h inside its wheel; tritium finds it where CUDA is installed:
CUDA_HOME / CUDA_PATH, NVIDIA's wheels (nvidia-cuda-runtime, nvidia-cuda-nvcc: `nvidia/*/
include`), /usr/local/cuda.

`-lcuda` needs an unversioned `libcuda.so`; a driver installation often has only
`libcuda.so.1`, so `library_dirs()` adds CUDA's link stubs (`lib64/stubs`) after the
driver's directories when none of those has one. A program linked against the stub loads
the real `libcuda.so.1` when it runs (the stub's soname)."""
from __future__ import annotations

import functools
import glob
import os
import subprocess
from typing import List, Optional

from .toolchain import _package_dirs


def _cuda_roots() -> List[str]:
    roots = [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    wheels = [d for base in _package_dirs("nvidia") for d in sorted(glob.glob(os.path.join(base, "*")))]
    return roots + wheels + ["/usr/local/cuda"]


@functools.lru_cache(maxsize=None)
def cuda_include_dirs() -> List[str]:
    """Directories holding cuda.h, best first (empty when CUDA's headers are nowhere)."""
    found = []
    for root in _cuda_roots():
        for d in [os.path.join(root, "include"),
                  *sorted(glob.glob(os.path.join(root, "targets", "*", "include")))]:
            if os.path.isfile(os.path.join(d, "cuda.h")) and \
                    os.path.realpath(d) not in map(os.path.realpath, found):
                found.append(d)
    return found


@functools.lru_cache(maxsize=None)
def libcuda_dirs() -> List[str]:
    """The directories of the driver's libcuda.so.1, as upstream finds them: TRITON_LIBCUDA_PATH,
    else `ldconfig -p`, else LD_LIBRARY_PATH. Raises (an AssertionError, as upstream's) when
    there is none: no NVIDIA driver on this machine."""
    import tritium.knobs as knobs
    if knobs.nvidia.libcuda_path:
        return [knobs.nvidia.libcuda_path]
    dirs = []
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True,
                             check=False).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        if "libcuda.so.1" in line and "=>" in line:
            d = os.path.dirname(line.split("=>")[-1].strip())
            if d not in dirs:
                dirs.append(d)
    if not dirs:
        dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
                if d and os.path.exists(os.path.join(d, "libcuda.so.1"))]
    if not dirs:
        raise AssertionError("libcuda.so.1 cannot be found (no NVIDIA driver here?): set "
                             "TRITON_LIBCUDA_PATH to its directory")
    return dirs


def _stub_dirs() -> List[str]:
    found = []
    for root in _cuda_roots():
        for d in [os.path.join(root, "lib64", "stubs"), os.path.join(root, "lib", "stubs"),
                  *sorted(glob.glob(os.path.join(root, "targets", "*", "lib", "stubs")))]:
            if os.path.isfile(os.path.join(d, "libcuda.so")) and d not in found:
                found.append(d)
    return found


def libdevice_dir() -> Optional[str]:
    from .llvm import find_libdevice
    path = find_libdevice()
    return os.path.dirname(path) if path else None


@functools.lru_cache(maxsize=None)
def library_dirs() -> List[str]:
    """What `-L` needs to link C code with `-lcuda`: libdevice's directory (upstream's first
    entry), the driver's, and CUDA's stubs when the driver's have no `libcuda.so`."""
    driver_dirs = libcuda_dirs()
    dirs = [d for d in [libdevice_dir()] if d] + driver_dirs
    if not any(os.path.exists(os.path.join(d, "libcuda.so")) for d in driver_dirs):
        dirs += _stub_dirs()
    return dirs
