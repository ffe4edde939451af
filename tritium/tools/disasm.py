"""SASS of a cubin (upstream's `triton.tools.disasm`): `cuobjdump -sass` (TRITON_CUOBJDUMP_PATH,
the CUDA wheels, PATH) in upstream's format (`backends/nvidia/sass.py`), what
`kernel.asm["sass"]` holds too. Without cuobjdump, nvdisasm's own listing."""
from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import tempfile
from typing import Optional

from ..backends.nvidia.sass import format_sass
from ..backends.nvidia.toolchain import disassemble, find_cuobjdump, find_tool


def path_to_cuobjdump() -> Optional[str]:
    return find_cuobjdump()


@contextlib.contextmanager
def _nvdisasm_on_path():
    # cuobjdump runs nvdisasm, which it looks up on PATH (the wheels put it elsewhere).
    nvdisasm = find_tool("nvdisasm")
    old = os.environ.get("PATH", "")
    if nvdisasm is not None:
        os.environ["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + old
    try:
        yield
    finally:
        os.environ["PATH"] = old


def extract(file_path: str, fun: Optional[str] = None) -> str:
    """SASS of the cubin at `file_path` (of function `fun` only, if given)."""
    cuobjdump = path_to_cuobjdump()
    if cuobjdump is None:
        with open(file_path, "rb") as f:
            return disassemble(f.read(), fun=fun)
    cmd = [cuobjdump, "-sass", file_path] if fun is None else \
        [cuobjdump, "-fun", fun, "-sass", file_path]
    with _nvdisasm_on_path():
        listing = subprocess.check_output(cmd)
    return format_sass(listing.decode())


@functools.lru_cache()
def get_sass(cubin_asm: bytes, fun: Optional[str] = None) -> str:
    """The SASS of a cubin's bytes."""
    with tempfile.TemporaryDirectory(prefix="tritium-sass-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin_asm)
        return extract(path, fun)
