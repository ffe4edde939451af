"""SASS of a cubin (upstream's `triton.tools.disasm`), through cuobjdump or nvdisasm when
one is installed (TRITON_CUOBJDUMP_PATH / TRITON_NVDISASM_PATH, the CUDA wheels, PATH)."""
from __future__ import annotations

from typing import Optional

from ..backends.nvidia.toolchain import disassemble


def get_sass(cubin_asm: bytes, fun: Optional[str] = None) -> str:
    """The SASS text of `cubin_asm` (of function `fun` only, with cuobjdump)."""
    return disassemble(cubin_asm, fun=fun)


def extract(file_path: str, fun: Optional[str] = None) -> str:
    """SASS of the cubin at `file_path`."""
    with open(file_path, "rb") as f:
        return get_sass(f.read(), fun)
