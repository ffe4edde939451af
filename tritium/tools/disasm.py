"""SASS of a cubin (upstream's `triton.tools.disasm`), through cuobjdump or nvdisasm when
one is installed (TRITON_CUOBJDUMP_PATH / TRITON_NVDISASM_PATH, the CUDA wheels, PATH)."""
from __future__ import annotations

import os
import subprocess
import tempfile
from typing import Optional

from ..backends.nvidia.toolchain import find_tool


def get_sass(cubin_asm: bytes, fun: Optional[str] = None) -> str:
    """The SASS text of `cubin_asm` (of function `fun` only, with cuobjdump)."""
    cuobjdump, nvdisasm = find_tool("cuobjdump"), find_tool("nvdisasm")
    if cuobjdump is None and nvdisasm is None:
        raise FileNotFoundError("neither cuobjdump nor nvdisasm was found: install the CUDA "
                                "toolkit (or nvidia-cuda-cuobjdump) or set TRITON_CUOBJDUMP_PATH")
    with tempfile.TemporaryDirectory(prefix="tritium-sass-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin_asm)
        if cuobjdump is not None:
            cmd = [cuobjdump, "-sass"] + (["-fun", fun] if fun else []) + [path]
        else:
            cmd = [nvdisasm, "-c", path]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} failed ({proc.returncode}): "
                           f"{proc.stderr.strip()}")
    return proc.stdout


def extract(file_path: str, fun: Optional[str] = None) -> str:
    """SASS of the cubin at `file_path`."""
    with open(file_path, "rb") as f:
        return get_sass(f.read(), fun)
