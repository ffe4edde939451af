"""FileCheck tests of the lowering: each lit/*.mlir is hand-written TTGIR; `// LLIR:` lines
are matched against make_llir's output, `// PTX:` lines against the PTX (which ptxas must
also accept for sm_90a when it is installed)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tritium.backends.nvidia import toolchain
from tritium.backends.nvidia.llvm import llir_to_ptx
from tritium.backends.nvidia.lowering import make_llir
from tritium.ir.parser import parse_module

LIT = Path(__file__).with_name("lit")
FILES = sorted(LIT.glob("*.mlir"))


def filecheck(check_file: Path, prefix: str, text: str) -> None:
    from filecheck.__main__ import main  # noqa: F401  (the package must be importable)
    proc = subprocess.run([sys.executable, "-m", "filecheck", "--check-prefix", prefix, str(check_file)],
                          input=text, text=True, capture_output=True)
    assert proc.returncode == 0, f"FileCheck {prefix} failed:\n{proc.stdout}\n{proc.stderr}\n--- input ---\n{text}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_lit(path, monkeypatch):
    src = path.read_text()
    for key, value in re.findall(r"^//\s*ENV:\s*(\w+)=(\S*)", src, re.M):
        monkeypatch.setenv(key, value)  # a lowering flavour the file is written for
    llir, meta = make_llir(parse_module(src))
    if re.search(r"^//\s*LLIR(-\w+)?:", src, re.M):
        filecheck(path, "LLIR", llir)
    ptx = llir_to_ptx(llir)
    if re.search(r"^//\s*PTX(-\w+)?:", src, re.M):
        filecheck(path, "PTX", ptx)
    if toolchain.find_ptxas():
        _, info = toolchain.make_cubin(ptx)
        assert info.kernel is None or info.kernel.spill_stores == 0
